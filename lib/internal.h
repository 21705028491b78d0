/* internal.h -- grove's private layouts and helpers (never installed). */
#ifndef GROVE_INTERNAL_H
#define GROVE_INTERNAL_H

#include "grove.h"

#include <stdarg.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Node layouts. Every node starts with struct gv_node.
 * ------------------------------------------------------------------------- */

struct gv_node {
  uint64_t hash;
  uint8_t kind;
  uint8_t flags;
  uint16_t aux16; /* keyset: 1 if insertion order is sorted; else 0 */
  uint32_t arity; /* children of containers / keys of keysets; 0 for leaves */
};

/* None, bool, int, float, handle, star. */
typedef struct gv__scalar {
  gv_node h;
  union {
    int64_t i;
    double f;
    uint64_t u;
  } v;
} gv__scalar;

/* str, bytes: len bytes then a NUL. */
typedef struct gv__blob {
  gv_node h;
  size_t len;
  char data[];
} gv__blob;

/* Containers and metadata nodes.
 *   list/tuple:   meta NULL, aux NULL
 *   dict/odict:   meta keyset, aux NULL
 *   ddict:        meta keyset, aux factory (str)
 *   namedtuple:   meta schema, aux NULL
 *   deque:        meta NULL, aux maxlen (int node) or NULL for None
 *   custom:       meta ctype, aux NULL
 *   keyset:       kids = keys in insertion order; meta = sorted twin (NULL
 *                 means itself); perm = sorted order (NULL when sorted)
 *   schema:       kids = [type name, field names...]
 *   ctype:        kids = [type name, keyset or NULL, explicit meta or NULL]
 *                 (arity 3 always; kids may be NULL) */
typedef struct gv__cont {
  gv_node h;
  uint32_t depth;
  uint32_t reserved;
  uint64_t num_leaves;
  const gv_node *meta;
  const gv_node *aux;
  union {
    const uint32_t *perm; /* keysets: insertion index of the i-th sorted key */
    uint64_t vhash;       /* dict kinds: hash of the children in traversal order */
  };
  const gv_node *kids[];
} gv__cont;

#define GV__CONT(n) ((const gv__cont *)(const void *)(n))
#define GV__SCALAR(n) ((const gv__scalar *)(const void *)(n))
#define GV__BLOB(n) ((const gv__blob *)(const void *)(n))

static inline int gv__is_container_kind(unsigned k) {
  return k >= GV_LIST && k <= GV_CUSTOM;
}
static inline int gv__is_dict_kind(unsigned k) {
  return k == GV_DICT || k == GV_ODICT || k == GV_DDICT;
}
static inline int gv__is_leaf_kind(unsigned k) {
  return k >= GV_NONE && k <= GV_STAR;
}

/* Keyset of a dict kind, or NULL. */
static inline const gv__cont *gv__keyset_of(const gv_node *n) {
  return gv__is_dict_kind(n->kind) ? GV__CONT(GV__CONT(n)->meta) : NULL;
}
/* Insertion index of the i-th child in traversal order. */
static inline size_t gv__trav_index(const gv_node *n, size_t i) {
  if (n->kind == GV_DICT || n->kind == GV_DDICT) {
    const uint32_t *p = GV__CONT(GV__CONT(n)->meta)->perm;
    return p ? p[i] : i;
  }
  return i;
}
/* Child of n at traversal position i. */
static inline const gv_node *gv__trav_child(const gv_node *n, size_t i) {
  return GV__CONT(n)->kids[gv__trav_index(n, i)];
}

/* ---------------------------------------------------------------------------
 * Arena internals (arena.c, intern.c)
 * ------------------------------------------------------------------------- */

typedef struct gv__chunk {
  struct gv__chunk *prev;
  size_t size; /* usable bytes after the header */
  size_t used;
  /* data follows, aligned to 16 */
} gv__chunk;

struct gv_arena {
  gv_allocator alloc;
  size_t max_bytes;
  size_t max_depth;
  uint64_t seed;
  size_t reserved; /* bytes held from the allocator, this struct included */
  size_t used;     /* bump bytes handed out */
  gv__chunk *chunk;
  size_t nchunks;
  /* intern table */
  const gv_node **entries; /* creation order */
  size_t nentries, entries_cap;
  uint64_t *slots; /* (hash >> 32) << 32 | (entry index + 1); 0 = empty */
  size_t nslots;   /* power of two (or 0) */
  uint64_t lookups, hits;
  /* where the last missed lookup ended (an empty slot), to insert without a second probe */
  uint64_t probe_hash;
  size_t probe_slot, probe_nslots;
  /* reusable scratch for constructors (sorting keys, hashing); counted in reserved */
  void *tmp;
  size_t tmp_cap;
};

/* Raw allocation through the hook, counted in the budget. NULL on failure. */
void *gv__raw_alloc(gv_arena *a, size_t size);
void *gv__raw_realloc(gv_arena *a, void *p, size_t old_size, size_t new_size);
void gv__raw_free(gv_arena *a, void *p, size_t size);

/* Bump allocation (8-byte aligned). NULL when the budget or allocator fails. */
void *gv__alloc(gv_arena *a, size_t size);

/* Reusable per-arena scratch of at least size bytes (contents not kept). */
void *gv__tmp(gv_arena *a, size_t size);

/* Intern table. gv__intern_find looks up a node equal to cand (only the fields
 * that identify a node are read: hash, kind, arity, payload, meta, aux, kids).
 * gv__intern_add inserts a freshly built node known to be absent. */
typedef struct gv__cand {
  uint64_t hash;
  unsigned kind;
  size_t arity;
  const gv_node *meta, *aux;
  const gv_node *const *kids;
  uint64_t u;       /* scalar payload bits */
  const void *data; /* blob payload */
  size_t len;
} gv__cand;
const gv_node *gv__intern_find(gv_arena *a, const gv__cand *c);
gv_status gv__intern_reserve(gv_arena *a); /* room for one more entry */
void gv__intern_add(gv_arena *a, const gv_node *n);
void gv__intern_rollback(gv_arena *a, const gv_mark *m);
/* Digest of the table's exact layout (entries and slots), for tests. */
uint64_t gv__intern_digest(const gv_arena *a);
void gv__intern_free(gv_arena *a);
/* Everything a failed call must leave unchanged: stats and the table layout
 * (tests and fuzz targets compare these around every call). */
typedef struct gv__snapshot {
  gv_stats st;
  uint64_t digest;
} gv__snapshot;
static inline gv__snapshot gv__snap(const gv_arena *a) {
  gv__snapshot s;
  memset(&s, 0, sizeof s);
  gv_arena_stats(a, &s.st);
  s.digest = gv__intern_digest(a);
  return s;
}
static inline int gv__snap_eq(const gv__snapshot *x, const gv__snapshot *y) {
  return memcmp(&x->st, &y->st, sizeof x->st) == 0 && x->digest == y->digest;
}

/* ---------------------------------------------------------------------------
 * Growable scratch vector, memory from the arena's allocator and counted in
 * its budget while held. Always gv__vec_free it (on every path).
 * ------------------------------------------------------------------------- */
typedef struct gv__vec {
  void *p;
  size_t len, cap; /* in elements */
  size_t elem;
} gv__vec;
static inline void gv__vec_init(gv__vec *v, size_t elem) {
  v->p = NULL;
  v->len = v->cap = 0;
  v->elem = elem;
}
gv_status gv__vec_reserve(gv_arena *a, gv__vec *v, size_t extra);
void gv__vec_free(gv_arena *a, gv__vec *v);
static inline gv_status gv__vec_push(gv_arena *a, gv__vec *v, const void *x) {
  if (v->len == v->cap) {
    gv_status s = gv__vec_reserve(a, v, 1);
    if (s != GV_OK) return s;
  }
  memcpy((char *)v->p + v->len * v->elem, x, v->elem);
  v->len++;
  return GV_OK;
}
#define GV__VEC_AT(v, T, i) (((T *)(v)->p)[i])

/* ---------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------- */
/* Fill err (if non-NULL) and return s. */
gv_status gv__err(gv_error *err, gv_status s, const char *fmt, ...) GV_PRINTF(3, 4);
gv_status gv__verr(gv_error *err, gv_status s, const char *fmt, va_list ap);
/* The standard out-of-budget error. */
gv_status gv__oom(gv_error *err);

/* A small append-only text buffer with a fixed capacity (truncates). */
typedef struct gv__sbuf {
  char *p;
  size_t cap, len;
  int truncated;
} gv__sbuf;
void gv__sbuf_put(gv__sbuf *b, const char *s, size_t n);
void gv__sbuf_puts(gv__sbuf *b, const char *s);
/* Append the repr of a leaf or key (tuples of scalars included), e.g. 'a',
 * 1, (1, 'x'). Defined in text.c. */
void gv__sbuf_repr_key(gv__sbuf *b, const gv_node *k);
/* Append a path "(0, 'a')" from entries. */
void gv__sbuf_path(gv__sbuf *b, const gv_node *const *path, size_t depth);

/* ---------------------------------------------------------------------------
 * Node helpers (node.c)
 * ------------------------------------------------------------------------- */
/* Entry naming child at insertion index i of container n on a path: an int
 * node for positions, the key for dict kinds and keyed custom nodes. */
gv_status gv__path_entry(gv_arena *a, const gv_node *n, size_t i, const gv_node **out);
/* Internal flag: every child of this container is GV_F_CANONICAL. */
#define GV__F_KIDS_CANONICAL 0x80u
/* dict or defaultdict n rebuilt with its keyset's sorted twin (children
 * permuted); its hash comes from n's in O(1). */
gv_status gv__dict_sorted(gv_arena *a, const gv_node *n, const gv_node **out, gv_error *err);
/* Python-equal keys (1 == 1.0 == True). */
int gv__key_eq(const gv_node *x, const gv_node *y);

/* ---------------------------------------------------------------------------
 * The rebuild walk (walk.c): an iterative depth-first walk in traversal order
 * that rebuilds containers from their children's results and returns the very
 * same node wherever nothing changed.
 * ------------------------------------------------------------------------- */
typedef struct gv__frame {
  const gv_node *node; /* container being walked */
  size_t next;         /* traversal position of the next child */
  size_t base;         /* first of its children's results on the value stack */
  uintptr_t user;      /* free for the callbacks */
} gv__frame;

typedef struct gv__walk gv__walk;
typedef struct gv__walk_ops {
  /* Called on each node before its children. Set *res and return with
   * *descend = 0 to give the node's result (leaves must); leave *descend = 1
   * to walk a container's children. */
  gv_status (*pre)(gv__walk *w, const gv_node *n, int *descend, const gv_node **res);
  /* Called after a container's children: rebuilt is n itself when no child
   * result differs. NULL post means *res = rebuilt. */
  gv_status (*post)(gv__walk *w, const gv_node *n, const gv_node *rebuilt, const gv_node **res);
} gv__walk_ops;

struct gv__walk {
  gv_arena *a;
  gv_error *err;
  void *ctx;
  gv__vec frames; /* gv__frame; frames.len-1 is the innermost container */
  gv__vec vals;   /* const gv_node *, results in traversal order */
  gv__vec kids;   /* scratch for rebuilding in insertion order */
};

/* Walk root; *out gets the root's result. Scratch is freed before returning.
 * Atomic: on failure the arena is rolled back to what it held at the call. */
gv_status gv__walk_run(gv_arena *a, const gv_node *root, const gv__walk_ops *ops, void *ctx,
                       const gv_node **out, gv_error *err);
/* The path to the node being visited (frames' positions), as text. */
void gv__walk_path(gv__walk *w, gv__sbuf *b);

#endif /* GROVE_INTERNAL_H */
