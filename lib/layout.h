/* SPDX-License-Identifier: MIT */
/* layout.h -- what a node is (private; included by internal.h first): the
 * layouts of allocated nodes, immediate leaves held in the pointer word, the
 * internal flags, and the inline readers every file uses on either (kind,
 * flags, hash, payload, expanded size, keysets' order and rank index). No
 * functions of their own but gv__hash_scalar (node.c). */
#ifndef GROVE_LAYOUT_H
#define GROVE_LAYOUT_H

#include "grove.h"

#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Node layouts. Every node starts with struct gv_node.
 * ------------------------------------------------------------------------- */

struct gv_node {
  uint64_t hash;
  uint8_t kind;
  uint8_t flags;
  uint16_t aux16; /* keyset: its GV__KS_ flags; every other node: its arena's tag */
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
 *   list:         meta NULL, aux NULL
 *   tuple:        meta NULL, or for a key with a number in a non-canonical
 *                 spelling (GV__F_NCKEY) its canonical twin: the same key
 *                 with bools and integral floats as ints, so that two keys
 *                 are equal in Python iff their twins are one node (the twin
 *                 is not part of the tuple's identity or hash); aux NULL
 *   dict/odict:   meta keyset, aux NULL
 *   ddict:        meta keyset, aux factory (str)
 *   namedtuple:   meta schema, aux NULL
 *   deque:        meta NULL, aux maxlen (int node) or NULL for None
 *   custom:       meta ctype, aux NULL
 *   keyset:       kids = keys in insertion order; meta = sorted twin (NULL
 *                 means itself); perm = sorted order (NULL when sorted).
 *                 A host-ordered keyset (GV__KS_HOST, hostorder.c) has the
 *                 host's order as perm and aux non-NULL (see there).
 *                 An indexed keyset (sorted, GV__KS_INDEX_MIN keys or more)
 *                 has its rank index right after its kids and a secondary
 *                 intern slot under its sethash.
 *   schema:       kids = [type name, field names...]
 *   ctype:        kids = [type name, keyset or NULL, explicit meta or NULL]
 *                 (arity 3 always; kids may be NULL) */
typedef struct gv__cont {
  gv_node h;
  uint32_t depth;
  uint32_t reserved; /* keysets: their arena's tag (see gv__tag_of); else 0 */
  union {
    uint64_t num_leaves; /* value kinds */
    uint64_t sethash;    /* indexed keysets: the order-free hash of the keys */
  };
  uint64_t esize; /* the node written out (gv_expanded_size), saturating */
  const gv_node *meta;
  const gv_node *aux;
  union {
    const uint32_t *perm; /* keysets: insertion index of the i-th sorted key */
    uint64_t vhash;       /* dict kinds: hash of the children in traversal order */
  };
  const gv_node *kids[];
} gv__cont;

/* keyset aux16 bits */
#define GV__KS_SORTED 1u  /* insertion order is the key order */
#define GV__KS_MIXED 2u   /* keys of several classes: ordered by type name first */
#define GV__KS_INDEXED 4u /* registered under its set hash, with a rank index */
#define GV__KS_HOST 16u   /* the order was given by the host (hostorder.c) */
#define GV__KS_INDEX_MIN 8u

#define GV__CONT(n) ((const gv__cont *)(const void *)(n))
#define GV__SCALAR(n) ((const gv__scalar *)(const void *)(n))
#define GV__BLOB(n) ((const gv__blob *)(const void *)(n))

/* ---------------------------------------------------------------------------
 * Immediate leaves. None, bool and *, and every int, float and handle whose
 * payload fits, are not allocated at all: the pointer word is the value.
 *   bit 0       1 (allocated nodes are 8-byte aligned: their bit 0 is 0)
 *   bits 1..5   the kind
 *   bits 8..63  the payload: an int in 56-bit two's complement, a handle
 *               below 2^56; a float keeps its own top 56 bits and must have
 *               its low 8 bits 0 (1.0, 0.5, -2.0 and every NaN do)
 * Whether a value is immediate depends on the value alone, so each leaf still
 * has exactly one representation and equal leaves are equal pointers. Its
 * hash, flags and payload are computed from the word; gv_arena_node_at() and
 * the node count do not see immediates. So: a `const gv_node *` may point
 * nowhere. Read it through gv__kind(), gv__hash(), gv__flags(), gv__arity()
 * and gv__sval() unless it is known to be a container or a str/bytes.
 * Immediates need a 64-bit pointer; elsewhere every leaf is allocated.
 * ------------------------------------------------------------------------- */

#if UINTPTR_MAX >= UINT64_MAX
#define GV__HAVE_IMM 1
#else
#define GV__HAVE_IMM 0
#endif

static inline uint64_t gv__word(const gv_node *n) {
  return (uint64_t)(uintptr_t)(const void *)n;
}
static inline int gv__is_imm(const gv_node *n) {
  return (gv__word(n) & 1u) != 0;
}
/* The kind of an immediate: None, bool, int, float, handle or *; GV_INVALID
 * for a word no constructor makes, so that nothing reads one as memory. */
static inline unsigned gv__imm_kind(const gv_node *n) {
  unsigned k = (unsigned)(gv__word(n) >> 1) & 31u;
  return (0x19Eu >> k) & 1u ? k : 0u;
}
/* The payload bits of an immediate, as a boxed scalar stores them in v.u. */
static inline uint64_t gv__imm_payload(const gv_node *n) {
  uint64_t w = gv__word(n);
  switch (gv__imm_kind(n)) {
  case GV_FLOAT:
    return w & ~(uint64_t)0xFF;
  case GV_INT: /* sign-extend 56 bits */
    return ((w >> 8) ^ (UINT64_C(1) << 55)) - (UINT64_C(1) << 55);
  default:
    return w >> 8;
  }
}
/* The immediate for scalar kind with payload bits u, or NULL when the value
 * must be allocated. */
static inline const gv_node *gv__imm(unsigned kind, uint64_t u) {
#if GV__HAVE_IMM
  uint64_t tag = ((uint64_t)kind << 1) | 1u;
  switch (kind) {
  case GV_INT: {
    uint64_t biased = u + (UINT64_C(1) << 55); /* in range iff below 2^56 */
    if (biased >> 56) return NULL;
    return (const gv_node *)(uintptr_t)((u << 8) | tag);
  }
  case GV_FLOAT:
    if (u & 0xFF) return NULL;
    return (const gv_node *)(uintptr_t)(u | tag);
  case GV_HANDLE:
    if (u >> 56) return NULL;
    return (const gv_node *)(uintptr_t)((u << 8) | tag);
  case GV_NONE:
  case GV_BOOL:
  case GV_STAR:
    return (const gv_node *)(uintptr_t)((u << 8) | tag);
  default:
    return NULL;
  }
#else
  (void)kind;
  (void)u;
  return NULL;
#endif
}
/* An immediate word that gv__imm() could have made (for checking pointers a
 * caller hands in). */
static inline int gv__imm_valid(const gv_node *n) {
  uint64_t w = gv__word(n);
  if (w & 0xC0u) return 0;
  unsigned k = gv__imm_kind(n);
  switch (k) {
  case GV_FLOAT: /* every NaN is the one NaN */
    if ((w & UINT64_C(0x7FF0000000000000)) == UINT64_C(0x7FF0000000000000) &&
        (w & UINT64_C(0x000FFFFFFFFFFF00)) != 0)
      return GV__HAVE_IMM && (w & ~(uint64_t)0xFF) == UINT64_C(0x7FF8000000000000);
    return GV__HAVE_IMM;
  case GV_INT:
  case GV_HANDLE:
    return GV__HAVE_IMM;
  case GV_BOOL:
    return GV__HAVE_IMM && (w >> 8) <= 1;
  case GV_NONE:
  case GV_STAR:
    return GV__HAVE_IMM && (w >> 8) == 0;
  default:
    return 0;
  }
}

/* Internal node flags (gv_flags() shows only the public ones). */
#define GV__F_PUBLIC 0x1Fu
#define GV__F_KEY                                                                                  \
  0x20u /* a key: a hashable leaf, or a tuple of keys at most GV_MAX_KEY_DEPTH deep */
#define GV__F_NCKEY 0x40u /* a key with a bool or an int-valued float in it (see gv__cont) */
#define GV__F_KIDS_CANONICAL 0x80u /* every child of this container is GV_F_CANONICAL */

/* A float equal to some int64 (then the int is its canonical spelling as a key). */
static inline int gv__float_is_int(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == (double)(int64_t)d;
}
/* Flags of a scalar leaf by kind (GV_INVALID..GV_STAR), not counting the one
 * that depends on the value (GV__F_NCKEY of an int-valued float). */
static const uint8_t gv__leaf_flag_tab[9] = {
    GV_F_CANONICAL,
    GV_F_CANONICAL | GV_F_HAS_NONE | GV__F_KEY,
    GV_F_CANONICAL | GV__F_KEY | GV__F_NCKEY,
    GV_F_CANONICAL | GV__F_KEY,
    GV_F_CANONICAL | GV__F_KEY,
    GV_F_CANONICAL | GV__F_KEY,
    GV_F_CANONICAL | GV__F_KEY,
    GV_F_CANONICAL,
    GV_F_CANONICAL | GV_F_STRUCTURE,
};
/* Flags of a scalar leaf of the given kind and payload. */
static inline unsigned gv__leaf_flags_v(unsigned kind, uint64_t u) {
  unsigned f = gv__leaf_flag_tab[kind];
  if (kind == GV_FLOAT && gv__float_is_int(u)) f |= GV__F_NCKEY;
  return f;
}
static inline unsigned gv__kind(const gv_node *n) {
  return gv__is_imm(n) ? gv__imm_kind(n) : n->kind;
}
/* A node's flags; for an immediate float, without GV__F_NCKEY (see
 * gv__flags_full), which only the canonical twins need. */
static inline unsigned gv__flags(const gv_node *n) {
  return gv__is_imm(n) ? gv__leaf_flag_tab[gv__imm_kind(n)] : n->flags;
}
static inline unsigned gv__flags_full(const gv_node *n) {
  return gv__is_imm(n) ? gv__leaf_flags_v(gv__imm_kind(n), gv__imm_payload(n)) : n->flags;
}
static inline uint32_t gv__arity(const gv_node *n) {
  return gv__is_imm(n) ? 0u : n->arity;
}
/* Stable hash of a scalar leaf (node.c); what gv_hash() gives for it. */
uint64_t gv__hash_scalar(unsigned kind, uint64_t payload);
static inline uint64_t gv__hash(const gv_node *n) {
  return gv__is_imm(n) ? gv__hash_scalar(gv__imm_kind(n), gv__imm_payload(n)) : n->hash;
}
/* Payload bits of a scalar leaf (None, bool, int, float, handle, *). */
static inline uint64_t gv__sval(const gv_node *n) {
  return gv__is_imm(n) ? gv__imm_payload(n) : GV__SCALAR(n)->v.u;
}
static inline int64_t gv__ival(const gv_node *n) {
  uint64_t u = gv__sval(n);
  int64_t v;
  memcpy(&v, &u, sizeof v);
  return v;
}
static inline double gv__fval(const gv_node *n) {
  uint64_t u = gv__sval(n);
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

static inline int gv__is_container_kind(unsigned k) {
  return k >= GV_LIST && k <= GV_CUSTOM;
}
static inline int gv__is_dict_kind(unsigned k) {
  return k == GV_DICT || k == GV_ODICT || k == GV_DDICT;
}
static inline int gv__is_leaf_kind(unsigned k) {
  return k >= GV_NONE && k <= GV_STAR;
}
/* Shorthands on nodes (immediates included). */
static inline int gv__is_leaf(const gv_node *n) {
  return gv__is_imm(n) || n->kind <= GV_STAR;
}
static inline int gv__is_container(const gv_node *n) {
  return !gv__is_imm(n) && gv__is_container_kind(n->kind);
}
/* A value node (leaf or container; not metadata), NULL and bad words refused. */
static inline int gv__is_value(const gv_node *n) {
  if (!n) return 0;
  if (gv__is_imm(n)) return gv__imm_valid(n);
  return n->kind >= GV_NONE && n->kind <= GV_CUSTOM;
}

/* Leaves under n as flatten counts them (a leaf counts 1). */
static inline uint64_t gv__num_leaves(const gv_node *n) {
  return gv__is_container(n) ? GV__CONT(n)->num_leaves : 1;
}
/* x + y, saturating. */
static inline uint64_t gv__sat_add(uint64_t x, uint64_t y) {
  return x > UINT64_MAX - y ? UINT64_MAX : x + y;
}
/* gv_expanded_size of any node: 1 per node, + the data bytes of str/bytes. */
static inline uint64_t gv__esize(const gv_node *n) {
  if (gv__is_imm(n)) return 1;
  if (n->kind == GV_STR || n->kind == GV_BYTES) return gv__sat_add(1, GV__BLOB(n)->len);
  if (n->kind <= GV_STAR) return 1;
  return GV__CONT(n)->esize;
}
/* The canonical twin of a key tuple (itself when it has none). */
static inline const gv_node *gv__canon(const gv_node *t) {
  return (t->flags & GV__F_NCKEY) ? GV__CONT(t)->meta : t;
}
/* Keyset of a dict kind, or NULL. */
static inline const gv__cont *gv__keyset_of(const gv_node *n) {
  return gv__is_dict_kind(gv__kind(n)) ? GV__CONT(GV__CONT(n)->meta) : NULL;
}
/* Keyset (node) of a dict kind or of a keyed custom node, or NULL. */
static inline const gv_node *gv__keys_of(const gv_node *n) {
  unsigned k = gv__kind(n);
  if (gv__is_dict_kind(k)) return GV__CONT(n)->meta;
  return k == GV_CUSTOM ? GV__CONT(GV__CONT(n)->meta)->kids[1] : NULL;
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

/* Keysets with a set-hash registration: a shuffled keyset of the same keys
 * finds its sorted twin through it and gets its permutation from the twin's
 * rank index (open addressing over key pointers, rank + 1 per slot) without
 * sorting. */
static inline int gv__secondary(const gv_node *n, uint64_t *h2) {
  if (n->kind != GV_KEYSET || !(n->aux16 & GV__KS_INDEXED)) return 0;
  *h2 = GV__CONT(n)->sethash;
  return 1;
}
static inline size_t gv__rank_cap(size_t n) {
  size_t c = 16;
  while (c < 2 * n)
    c *= 2;
  return c;
}
static inline size_t gv__rank_slot(const gv_node *k, size_t mask) {
  return (size_t)((gv__word(k) * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
}
static inline const uint32_t *gv__rank_index(const gv__cont *ks) {
  return (const uint32_t *)(const void *)(ks->kids + ks->h.arity);
}

#endif /* GROVE_LAYOUT_H */
