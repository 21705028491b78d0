/* SPDX-License-Identifier: MIT */
/* internal.h -- grove's private layouts and helpers (never installed).
 *
 * After the node layouts (layout.h, included first), the sections follow
 * lib/'s layers from the floor up: repr.c, errors.c, arena.c + intern.c,
 * memo.c, node.c + keys.c, access.c, containers.c; every other file stands on
 * them. A file calls only files below its own; arena.c and intern.c call each
 * other, as do node.c and keys.c (the core). The picture:
 * docs/design-notes.md. Private headers of one layer each stand beside this
 * one: repr.h, read.h, wire.h, walk.h and match.h. */
#ifndef GROVE_INTERNAL_H
#define GROVE_INTERNAL_H

#include "grove.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>

#include "layout.h"

/* ---------------------------------------------------------------------------
 * Text of nodes (repr.c): the floor, which calls no other file
 * ------------------------------------------------------------------------- */
/* A small append-only text buffer with a fixed capacity (truncates). */
typedef struct gv__sbuf {
  char *p;
  size_t cap, len;
  int truncated;
} gv__sbuf;
void gv__sbuf_put(gv__sbuf *b, const char *s, size_t n);
void gv__sbuf_puts(gv__sbuf *b, const char *s);
/* Append the repr of a leaf or key (tuples of scalars included), e.g. 'a',
 * 1, (1, 'x'). */
void gv__sbuf_repr_key(gv__sbuf *b, const gv_node *k);
/* Append a path "(0, 'a')" from entries. */
void gv__sbuf_path(gv__sbuf *b, const gv_node *const *path, size_t depth);

/* ---------------------------------------------------------------------------
 * Errors (errors.c)
 * ------------------------------------------------------------------------- */
/* Fill err (if non-NULL) and return s. */
gv_status gv__err(gv_error *err, gv_status s, const char *fmt, ...) GV_PRINTF(3, 4);
gv_status gv__verr(gv_error *err, gv_status s, const char *fmt, va_list ap);
/* GV_ENOMEM for memory a hook failed to give (scratch outside an arena):
 * "out of memory (allocation of N bytes failed)"; bytes 0: a size past what
 * can be allocated. */
gv_status gv__oom_bytes(gv_error *err, size_t bytes);
/* GV_EINVAL unless a is an arena and t a value node (not NULL, not a
 * metadata node, not a forged word). */
gv_status gv__tree_arg(const gv_arena *a, const gv_node *t, gv_error *err);
/* Ends err's message with "..." (it was cut somewhere). */
void gv__err_cut(gv_error *err);
/* Writes a path "(0, 'a')" into b (stopping once b is full). */
typedef void (*gv__path_writer)(gv__sbuf *b, const void *ctx);
/* The longest path text an error message shows; longer ones end "...)". */
#define GV__PATH_TEXT_MAX 320
/* Fills err with "at PATH: msg" (just msg when path is NULL) and returns s;
 * msg_cut says msg itself was cut: the message then ends with "...", as it
 * does when it does not fit. */
gv_status gv__err_at(gv_error *err, gv_status s, gv__path_writer path, const void *ctx,
                     const char *msg, int msg_cut);

/* ---------------------------------------------------------------------------
 * Arena internals (arena.c, intern.c)
 * ------------------------------------------------------------------------- */

typedef struct gv__chunk {
  struct gv__chunk *prev;
  size_t size; /* usable bytes after the header */
  size_t used;
  /* data follows, aligned to 16 */
} gv__chunk;

#define GV__RB_N 16

struct gv_arena {
  gv_allocator alloc;
  /* A child's frozen parent (its own parent chain ends in an arena without one).
   * Lookups go through the chain first; a child's nodes may point into it. */
  gv_arena *parent;
  /* gv_arena_freeze was called: every writer refuses the arena from then on, so
   * its table, chunks and counters are never written again and any number of
   * threads may read them. */
  uint8_t frozen;
  uint8_t oom_budget; /* see oom_size */
  /* The tag of every node the arena allocates (gv__tag_of): a mix of its
   * address. Constructors take a child only if it is an immediate or carries
   * the tag of the arena or of one of its parents. */
  uint16_t tag;
  /* 1 for its owner + 1 per live child (children hold their parent): the arena
   * is released when this drops to 0, so a parent freed while children live is
   * released with the last of them. */
  _Atomic size_t refs;
  size_t max_bytes;
  size_t max_depth;
  uint64_t max_output;
  uint64_t seed;
  size_t reserved; /* bytes held from the allocator, this struct included */
  /* bump bytes handed out; atomic (relaxed, plain loads and stores on common
   * machines) because readers on other threads read it as a size hint */
  _Atomic size_t used;
  gv__chunk *chunk;
  size_t nchunks;
  /* intern table */
  const gv_node **entries; /* creation order */
  size_t nentries, entries_cap;
  uint64_t *slots; /* (hash >> 32) << 32 | (entry index + 1); 0 = empty */
  size_t nslots;   /* power of two (or 0) */
  uint64_t lookups, hits;
  size_t nsecondary; /* entries that also have a secondary slot */
  /* where the last missed lookup stopped, to insert without a second probe;
   * valid while nentries is still probe_nentries (SIZE_MAX: none) */
  uint64_t probe_hash;
  size_t probe_slot, probe_nentries;
  /* reusable scratch for constructors (sorting keys, hashing); counted in reserved */
  void *tmp;
  size_t tmp_cap;
  /* Marks. A position is nodes + bytes used (it grows with every node and
   * every bump allocation). Rollback i to position p makes stale every mark
   * taken before it (gen <= i) at a position above p. rb keeps the recent
   * such (i, p), p increasing (a later rollback to a lower position covers
   * the earlier ones); rb_lost > 0: rollbacks up to rb_lost - 1 were dropped
   * from rb, so marks that old are only checked for consistency. */
  uint64_t nrollbacks;
  struct {
    uint64_t i;
    size_t pos;
  } rb[GV__RB_N];
  size_t nrb;
  uint64_t rb_lost;
  /* the last allocation that failed (for gv__oom's message): its size (and
   * oom_budget above: whether the budget refused it, else the allocator failed) */
  size_t oom_size;
};

/* GV_ENOMEM with the reason of a's last failed allocation (then forgotten):
 * "out of memory budget (max_bytes N)" when the budget refused it, else as
 * gv__oom_bytes. */
gv_status gv__oom(gv_arena *a, gv_error *err);

/* Rolls a back to m, which must be a mark of a that is not stale (internal
 * callers, which use their own marks). gv_arena_rollback checks first. */
void gv__rollback(gv_arena *a, const gv_mark *m);

/* The tag of an allocated node: in aux16, but for a keyset (whose aux16 holds
 * its flags) in its reserved word. */
static inline unsigned gv__tag_of(const gv_node *n) {
  return n->kind == GV_KEYSET ? (uint16_t)GV__CONT(n)->reserved : n->aux16;
}
/* Whether n may be a child of a node of a: an immediate, or a node tagged by
 * a or one of its parents. One compare per arena of the chain; a node of
 * another arena whose tag is the same (16 bits: 1 in 65,536 arenas) passes. */
static inline int gv__tagged(const gv_arena *a, const gv_node *n) {
  if (gv__is_imm(n)) return 1;
  unsigned t = gv__tag_of(n);
  for (; a; a = a->parent)
    if (t == a->tag) return 1;
  return 0;
}
/* Whether n was allocated by a or one of its parents (immediates belong to
 * every arena): exact, by the chunks' address ranges (checked builds). */
int gv__arena_owns(const gv_arena *a, const gv_node *n);
/* Constructors refuse a child of another arena (GV_EINVAL): by its tag
 * always, by the chunks too in checked builds (GROVE_CHECKED). */
#if defined(GROVE_CHECKED)
#define GV__CHECK_OWNED(a, n, ...)                                                                 \
  do {                                                                                             \
    if ((n) && (!gv__tagged((a), (n)) || !gv__arena_owns((a), (n))))                               \
      return gv__err(err, GV_EINVAL, __VA_ARGS__);                                                 \
  } while (0)
#else
#define GV__CHECK_OWNED(a, n, ...)                                                                 \
  do {                                                                                             \
    if ((n) && !gv__tagged((a), (n))) return gv__err(err, GV_EINVAL, __VA_ARGS__);                 \
  } while (0)
#endif

/* GV_EINVAL (and the message) for a writer given a frozen arena. */
gv_status gv__frozen_err(gv_error *err);
#define GV__WRITABLE(a)                                                                            \
  do {                                                                                             \
    if ((a) && (a)->frozen) return gv__frozen_err(err);                                            \
  } while (0)

/* Runs a builder under a mark (a function body: returns): on failure the arena is rolled back. */
#define GV__ATOMIC(a, expr)                                                                        \
  do {                                                                                             \
    if (!(a)) return gv__err(err, GV_EINVAL, "NULL arena");                                        \
    GV__WRITABLE(a);                                                                               \
    gv_mark m_ = gv_arena_mark(a);                                                                 \
    gv_status s_ = (expr);                                                                         \
    if (s_ != GV_OK) gv__rollback((a), &m_);                                                       \
    return s_;                                                                                     \
  } while (0)

/* GV_ERANGE (and the message) when an output of the given expanded size is
 * over the arena's max_output. */
gv_status gv__check_output(const gv_arena *a, uint64_t size, gv_error *err);

static inline size_t gv__used(const gv_arena *a) {
  return atomic_load_explicit(&a->used, memory_order_relaxed);
}
static inline void gv__set_used(gv_arena *a, size_t v) {
  atomic_store_explicit(&a->used, v, memory_order_relaxed);
}
/* The bytes used by a and its parents (a hint, as gv__used). */
static inline size_t gv__used_chain(const gv_arena *a) {
  size_t u = 0;
  for (; a; a = a->parent)
    u += gv__used(a);
  return u;
}

/* The hook an arena gets when its config names none (mimalloc; malloc in
 * sanitizer builds). */
const gv_allocator *gv__default_allocator(void);

/* Raw allocation through the hook, counted in the budget. NULL on failure. */
void *gv__raw_alloc(gv_arena *a, size_t size);
void *gv__raw_realloc(gv_arena *a, void *p, size_t old_size, size_t new_size);
/* gv__raw_alloc of a block that replaces one of `replaced` bytes freed right
 * after it (a table or scratch growing): the budget counts the growth only. */
void *gv__raw_alloc_replacing(gv_arena *a, size_t size, size_t replaced);
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
/* Whether n is an interned node of a or of a parent of a (immediates: yes).
 * A lookup by identity; it writes nothing. */
int gv__intern_has(const gv_arena *a, const gv_node *n);
/* The indexed sorted keyset of n keys registered under sethash, or NULL (the
 * caller checks that its keys are the ones it has). */
const gv_node *gv__intern_find_set(const gv_arena *a, uint64_t sethash, size_t n);
gv_status gv__intern_reserve(gv_arena *a); /* room for one more entry */
/* Room for n more entries (a hint: grows the table once instead of doubling
 * it as they come). */
gv_status gv__intern_reserve_n(gv_arena *a, size_t n);
/* Starts loading the slot a lookup of hash would look at first. */
void gv__intern_prefetch(const gv_arena *a, uint64_t hash);
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
 * Scratch memory of one call (memo.c). Writers -- calls that may build nodes
 * -- count it in the arena's budget while they hold it. Readers take it
 * straight from the arena's allocator hook and never touch the arena itself
 * (not its counters, table or chunks), so any number of readers may run while
 * one writer builds; their scratch is not counted in max_bytes.
 * ------------------------------------------------------------------------- */
typedef struct gv__mem {
  gv_arena *w;            /* a writer's arena (counted), or NULL */
  const gv_allocator *al; /* a reader's hook (not counted) */
  size_t *failed;         /* NULL, or where the size of a request that failed goes */
} gv__mem;
static inline gv__mem gv__mem_writer(gv_arena *a) {
  gv__mem m = {a, NULL, NULL};
  return m;
}
/* failed: NULL, or where the size of a failed request goes (gv__oom_bytes). */
static inline gv__mem gv__mem_reader(const gv_arena *a, size_t *failed) {
  gv__mem m = {NULL, &a->alloc, failed};
  return m;
}
/* realloc-style (new_size 0 frees); NULL on failure. */
void *gv__mem_realloc(gv__mem m, void *p, size_t old_size, size_t new_size);
/* GV_ENOMEM for a failure of m: gv__oom for a writer's arena, else
 * gv__oom_bytes with the size m noted. */
static inline gv_status gv__oom_mem(gv__mem m, gv_error *err) {
  return m.w ? gv__oom(m.w, err) : gv__oom_bytes(err, m.failed ? *m.failed : 0);
}

/* Growable scratch vector. It may start in a caller's buffer (fixed: never
 * freed or resized in place; copied out when it grows). Always free it. */
typedef struct gv__vec {
  void *p;
  size_t len, cap; /* in elements */
  size_t elem;
  int fixed; /* p is the caller's buffer */
} gv__vec;
static inline void gv__vec_init(gv__vec *v, size_t elem) {
  v->p = NULL;
  v->len = v->cap = 0;
  v->elem = elem;
  v->fixed = 0;
}
static inline void gv__vec_init_buf(gv__vec *v, size_t elem, void *buf, size_t cap) {
  v->p = buf;
  v->len = 0;
  v->cap = cap;
  v->elem = elem;
  v->fixed = 1;
}
gv_status gv__mvec_reserve(gv__mem m, gv__vec *v, size_t extra);
void gv__mvec_free(gv__mem m, gv__vec *v);
static inline gv_status gv__mvec_push(gv__mem m, gv__vec *v, const void *x) {
  if (v->len == v->cap) {
    gv_status s = gv__mvec_reserve(m, v, 1);
    if (s != GV_OK) return s;
  }
  memcpy((char *)v->p + v->len * v->elem, x, v->elem);
  v->len++;
  return GV_OK;
}
/* The writer's forms: memory counted in a's budget. */
static inline gv_status gv__vec_reserve(gv_arena *a, gv__vec *v, size_t extra) {
  return gv__mvec_reserve(gv__mem_writer(a), v, extra);
}
static inline void gv__vec_free(gv_arena *a, gv__vec *v) {
  gv__mvec_free(gv__mem_writer(a), v);
}
static inline gv_status gv__vec_push(gv_arena *a, gv__vec *v, const void *x) {
  return gv__mvec_push(gv__mem_writer(a), v, x);
}
#define GV__VEC_AT(v, T, i) (((T *)(v)->p)[i])

/* The memo of one call: pointer pair -> small value, open addressing. A
 * per-node pass memoizes the containers whose expanded size is at least
 * GV__MEMO_MIN, so its work is O(GV__MEMO_MIN x distinct nodes) however much
 * a tree shares (smaller subtrees are cheaper to walk again than to look up).
 * It turns the memo on only after `after` steps (one step: one child looked
 * at): GV__MEMO_AFTER, or fewer when the call's arena holds fewer child
 * pointers than that, since a tree of it without shared subtrees never needs
 * more steps than that. So trees that do not share pay nothing for it, and one
 * that does costs at most that many steps more. */
#define GV__MEMO_MIN 32
#define GV__MEMO_AFTER ((uint64_t)1 << 21)
typedef struct gv__memo_ent {
  const void *x, *y;
  uintptr_t v;
} gv__memo_ent;
typedef struct gv__memo {
  gv__memo_ent *t;
  size_t cap, len; /* cap a power of two, or 0 */
  gv__mem mem;
  uint64_t steps, after;
  int on;
} gv__memo;
/* a: the call's arena (NULL: none), whose size bounds the steps a tree of it
 * without shared subtrees can need (read as a hint: readers may run next to
 * its writer). */
static inline void gv__memo_init(gv__memo *m, gv__mem mem, const gv_arena *a) {
  m->t = NULL;
  m->cap = m->len = 0;
  m->mem = mem;
  m->steps = 0;
  m->after = GV__MEMO_AFTER;
  m->on = 0;
  if (a) {
    uint64_t room = gv__used_chain(a) / sizeof(gv_node *) + 64;
    if (room < m->after) m->after = room;
  }
}
/* Counts n steps; the memo is on once they pass m->after. */
static inline void gv__memo_step(gv__memo *m, uint64_t n) {
  m->steps += n;
  if (m->steps > m->after) m->on = 1;
}
/* Whether to look n up / record it: the memo is on and n is large enough. */
static inline int gv__memo_big(const gv__memo *m, const gv_node *n) {
  return m->on && gv__esize(n) >= GV__MEMO_MIN;
}
/* The entry of (x, y), or NULL. */
gv__memo_ent *gv__memo_get(const gv__memo *m, const void *x, const void *y);
/* Sets the value of (x, y) (adding the pair). GV_ENOMEM on failure. */
gv_status gv__memo_put(gv__memo *m, const void *x, const void *y, uintptr_t v);
void gv__memo_free(gv__memo *m);

/* ---------------------------------------------------------------------------
 * Interning nodes (node.c)
 * ------------------------------------------------------------------------- */
/* gv_str/gv_bytes without a mark of their own, for callers that hold one and
 * roll back on failure (the reader, copy.c); str data must be valid UTF-8
 * (the caller checked it). */
gv_status gv__blob_in(gv_arena *a, unsigned kind, const void *p, size_t len, const gv_node **out,
                      gv_error *err);
/* The hash gv__seq gives a list or tuple (kind) of n children whose hashes
 * are w[3..3+n); it fills w[0..3) (so w has room for n + 3 words). */
uint64_t gv__hash_seq(unsigned kind, uint64_t *w, size_t n);

/* gv__make_x without like and pre, and the grove-ordered keyset constructor
 * (no mark of their own), for containers.c, hostorder.c, copy.c and walk.c. */
gv_status gv__make_node(gv_arena *a, unsigned kind, const gv_node *meta, const gv_node *aux,
                        const gv_node *const *kids, size_t n, const gv_node **out, gv_error *err);
gv_status gv__keyset_build(gv_arena *a, const gv_node *const *keys, size_t n, const gv_node **out,
                           gv_error *err);
/* The keyset of keys[0..n) (a's nodes equal to src's keys, src a grove-ordered
 * keyset of any arena) in src's order: twin is a's node equal to src's sorted
 * twin (NULL when src is sorted). No sort and no scratch (copy.c). */
gv_status gv__keyset_like(gv_arena *a, const gv_node *const *keys, size_t n, const gv_node *src,
                          const gv_node *twin, const gv_node **out, gv_error *err);

/* ---------------------------------------------------------------------------
 * Key equality and the key order (keys.c)
 * ------------------------------------------------------------------------- */
/* Comparing nodes that may come from two arenas. Within one arena (and its
 * parents) a value is one node, so equality is a pointer compare; across
 * arenas a pair walk decides, and a gv__cmp remembers the pairs it found to be
 * the same value (a 64-pair cache, then, once the comparison has taken
 * memo.after steps, the memo) so that a pair is walked once however often two
 * DAGs repeat it: the work of one gv__cmp's comparisons is linear in the
 * distinct pairs of nodes they meet. Its memory comes from mem: a reader's
 * hook, a writer's budget, or for node functions (gv_key_cmp, gv_get) the
 * default allocator. When it fails, a comparison that can fail (can_fail)
 * stops and sets oom (its answer is then void: the caller reports GV_ENOMEM);
 * one that cannot goes on with the cache alone (correct, without the bound).
 * Every function below takes a gv__cmp *, NULL for keys of one arena and its
 * parents (the cache alone, no memory). */
typedef struct gv__cmp {
  gv__memo memo; /* the pairs found the same value (of GV__MEMO_MIN nodes or more) */
  int can_fail;
  int oom;  /* can_fail: the memo's memory failed; answers since are void */
  int lost; /* !can_fail: the memo's memory failed; the cache alone from then on */
  int cache_on;
  struct {
    const gv_node *x, *y;
  } cache[64];
} gv__cmp;
/* a: as for gv__memo_init. */
void gv__cmp_init(gv__cmp *c, gv__mem mem, const gv_arena *a, int can_fail);
/* For node functions: the default allocator, cannot fail, on after 4096 steps. */
void gv__cmp_init_nodes(gv__cmp *c);
void gv__cmp_free(gv__cmp *c);
/* Exact equality of two nodes of any kind and arenas (kind, payload, children,
 * metadata): 1, 0, or -1 when memory failed (c->oom). */
int gv__same_value(gv__cmp *c, const gv_node *x, const gv_node *y);
/* Python-equal keys (1 == 1.0 == True). */
int gv__key_eq(gv__cmp *c, const gv_node *x, const gv_node *y);
/* The same key value of the same types (1, 1.0 and True differ): one node
 * within an arena; x and y are keys. */
int gv__key_same(gv__cmp *c, const gv_node *x, const gv_node *y);
/* Leaves of one kind with the same payload. */
int gv__leaf_same(const gv_node *x, const gv_node *y);
enum { GV__KC_NONE, GV__KC_NUM, GV__KC_BYTES, GV__KC_STR, GV__KC_TUPLE, GV__KC_BAD };
/* The class of a key: numbers together, then None, bytes, str, tuple. */
int gv__key_class(const gv_node *k);
/* The order of a keyset whose keys are not all comparable: by type name
 * (NoneType < bool < bytes < float < int < str < tuple), then by value, tuples
 * element by element by the same rule. Total; non-keys after keys. */
int gv__key_cmp_mixed(gv__cmp *c, const gv_node *x, const gv_node *y);
/* The natural key order (numbers together; tuples by their first pair of
 * elements unequal in Python). Sets *incomparable (if not NULL) when the
 * deciding pair is incomparable in Python: the result then orders by class,
 * a total order that only serves to find repeated keys and such pairs. x and
 * y must be keys. */
int gv__key_cmp_nat(gv__cmp *c, const gv_node *x, const gv_node *y, int *incomparable);
/* gv_key_cmp under c. */
int gv__key_cmp(gv__cmp *c, const gv_node *x, const gv_node *y);
/* Stable bottom-up merge sort of idx[0..n) by keys, naturally or (mixed) by
 * type name first (tmp has room for n more). */
void gv__sort_idx(uint32_t *idx, uint32_t *tmp, size_t n, const gv_node *const *keys, int mixed);
/* A sort key: a 64-bit prefix of the key and its index. */
typedef struct gv__pk {
  uint64_t pre;
  uint32_t idx;
} gv__pk;
/* Sorts all-str, all-bytes or all-int keys by prefix first (pk has room for
 * 2n pairs). */
void gv__sort_prefix(uint32_t *idx, gv__pk *pk, size_t n, const gv_node *const *keys);

/* ---------------------------------------------------------------------------
 * Lookups (access.c)
 * ------------------------------------------------------------------------- */
/* Entry naming child at insertion index i of container n on a path: an int
 * node for positions, the key for dict kinds and keyed custom nodes. */
gv_status gv__path_entry(gv_arena *a, const gv_node *n, size_t i, const gv_node **out);
/* The insertion index of the key Python-equal to key in keyset ks, or
 * SIZE_MAX (also when c->oom). O(log n) (a number or tuple in a keyset of
 * mixed types: O(n)). */
size_t gv__keyset_find(gv__cmp *c, const gv_node *ks, const gv_node *key);
/* gv_get under c (NULL also when c->oom). */
const gv_node *gv__get(gv__cmp *c, const gv_node *n, const gv_node *key);

/* ---------------------------------------------------------------------------
 * Containers (containers.c; hostorder.c and copy.c where marked)
 * ------------------------------------------------------------------------- */
/* dict or defaultdict n rebuilt with its keyset's sorted twin (children
 * permuted); its hash comes from n's in O(1). */
gv_status gv__dict_sorted(gv_arena *a, const gv_node *n, const gv_node **out, gv_error *err);
/* Constructors without a mark of their own, for callers that hold one and
 * roll back on failure (the reader, flatten_with_path). */
gv_status gv__seq(gv_arena *a, unsigned kind, const gv_node *const *items, size_t n,
                  const gv_node *aux, const gv_node **out, gv_error *err);
/* gv__seq with the hash given (gv__hash_seq of the items' hashes), so that a
 * caller building many can compute them first and prefetch their slots. */
gv_status gv__seq_hashed(gv_arena *a, unsigned kind, const gv_node *const *items, size_t n,
                         uint64_t hash, const gv_node **out, gv_error *err);
/* What a container learns from its children (node.c's scan of them): leaves,
 * expanded sizes, depth + 1, the flags all have (all) and any has (any), and
 * whether a list or tuple of them is a shape (only ints, bools and Nones). */
typedef struct gv__kids_info {
  uint64_t leaves;
  uint64_t esum; /* the children's expanded sizes, saturating */
  size_t depth;
  unsigned all, any;
  int shape;
} gv__kids_info;
/* Interns a container or a metadata node other than a keyset; no mark of its
 * own. like, pre, known and fresh (NULL or 0, or a reordered dict's original,
 * a precomputed hash, what the children say, known to be absent): see node.c. */
gv_status gv__make_x(gv_arena *a, unsigned kind, const gv_node *meta, const gv_node *aux,
                     const gv_node *const *kids, size_t n, const gv__cont *like,
                     const uint64_t *pre, const gv__kids_info *known, int fresh,
                     const gv_node **out, gv_error *err);
/* What a container of kind learns from kids[0..n): GV_EINVAL (err names the
 * child) for a NULL child, a bad word, a child of another arena, GV_ERANGE
 * when the leaves overflow. */
gv_status gv__scan_kids(const gv_arena *a, unsigned kind, const gv_node *const *kids, size_t n,
                        gv__kids_info *ki, gv_error *err);
/* A tuple of n children with its hash and what they say (ki), as
 * gv__seq_known makes it; fresh: it is known to be absent from the arena and
 * its parents (one of kids was made just now, say), so no lookup. The common
 * case (no canonical twin needed, not too deep) without the general checks
 * (flatten_with_path's, whose children are its own nodes and entries). */
gv_status gv__tuple_known(gv_arena *a, const gv_node *const *kids, size_t n, uint64_t hash,
                          const gv__kids_info *ki, int fresh, const gv_node **out, gv_error *err);
/* gv__seq_hashed with what gv__scan_kids would learn from the items given
 * (a caller that made them gathered it as it went; checked builds scan them
 * anyway and compare). */
gv_status gv__seq_known(gv_arena *a, unsigned kind, const gv_node *const *items, size_t n,
                        uint64_t hash, const gv__kids_info *ki, const gv_node **out, gv_error *err);
gv_status gv__dictlike(gv_arena *a, unsigned kind, const gv_node *factory,
                       const gv_node *const *keys, const gv_node *const *values, size_t n,
                       const gv_node **out, gv_error *err);
/* A host-ordered keyset (hostorder.c; no mark of its own). */
gv_status gv__keyset_host(gv_arena *a, const gv_node *const *keys, size_t n, const uint32_t *order,
                          const gv_node **out, gv_error *err);
/* gv__keyset_like for a host-ordered src (hostorder.c): twin NULL when src is
 * a twin itself. */
gv_status gv__keyset_host_like(gv_arena *a, const gv_node *const *keys, size_t n,
                               const gv_node *src, const gv_node *twin, const gv_node **out,
                               gv_error *err);
/* gv_copy with every handle h replaced by map(ctx, h) (copy.c; for hosts
 * whose handle numbers differ between the encoding and the destination). */
gv_status gv__copy_map(gv_arena *dst, const gv_node *n, uint64_t (*map)(void *, uint64_t),
                       void *ctx, const gv_node **out, gv_error *err);

#endif /* GROVE_INTERNAL_H */
