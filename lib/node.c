/* SPDX-License-Identifier: MIT */
/* node.c -- stable hashes, leaves, and the interning of containers, metadata
 * nodes and keysets with their flags (public container constructors:
 * containers.c; accessors: access.c; key order: keys.c). */
#include "internal.h"

#include <math.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#define GV__HASH_SEED 0x67726f7665763031ull /* "grovev01" */

/* ---------------------------------------------------------------------------
 * Stable hashing: XXH3-64 over a canonical little-endian byte string.
 * ------------------------------------------------------------------------- */

static inline void gv__le64(unsigned char *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(p, &v, sizeof v); /* one store, which the hash's loads can forward */
#else
  for (int i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
#endif
}

uint64_t gv__hash_scalar(unsigned kind, uint64_t payload) {
  unsigned char b[16];
  gv__le64(b, kind);
  gv__le64(b + 8, payload);
  return XXH3_64bits_withSeed(b, sizeof b, GV__HASH_SEED);
}

/* The set hash of n keys whose hashes add up to acc (in-process only). */
static uint64_t gv__set_hash(uint64_t acc, size_t n) {
  uint64_t x = acc ^ ((uint64_t)n * 0x9E3779B97F4A7C15ull);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return x;
}

static uint64_t gv__hash_blob(unsigned kind, const void *p, size_t len) {
  /* one shot over the data; kind and length go into the seed */
  uint64_t seed = GV__HASH_SEED ^ ((uint64_t)kind * 0x9E3779B97F4A7C15ull) ^ (uint64_t)len;
  return XXH3_64bits_withSeed(p, len, seed);
}

/* Hash of a container or metadata node. With sum non-NULL, *sum also gets
 * the order-free set hash of the children (keysets). */
static uint64_t gv__hash_cont_sum(unsigned kind, const gv_node *meta, const gv_node *aux,
                                  const gv_node *const *kids, size_t n, uint64_t *sum) {
  enum { BLK = 256 }; /* one shot up to BLK children (the same hash as streaming) */
  unsigned char b[8 * (BLK + 3)];
  uint64_t acc = 0;
  gv__le64(b, (uint64_t)kind | ((uint64_t)n << 8));
  gv__le64(b + 8, meta ? gv__hash(meta) : 0);
  gv__le64(b + 16, aux ? gv__hash(aux) : 0);
  /* runs of one child (the * of a structure) hash once */
  const gv_node *last = NULL;
  uint64_t lasth = 0;
  if (n <= BLK) {
    for (size_t i = 0; i < n; i++) {
      if (kids[i] != last) {
        last = kids[i];
        lasth = last ? gv__hash(last) : 0;
      }
      uint64_t h = lasth;
      acc += h;
      gv__le64(b + 24 + 8 * i, h);
    }
    if (sum) *sum = gv__set_hash(acc, n);
    return XXH3_64bits_withSeed(b, 24 + 8 * n, GV__HASH_SEED);
  }
  XXH3_state_t st;
  memset(&st, 0, sizeof st); /* reset_withSeed reads the old seed field */
  XXH3_64bits_reset_withSeed(&st, GV__HASH_SEED);
  XXH3_64bits_update(&st, b, 24);
  for (size_t i = 0; i < n; i += BLK) {
    size_t m = n - i < BLK ? n - i : BLK;
    for (size_t j = 0; j < m; j++) {
      if (kids[i + j] != last) {
        last = kids[i + j];
        lasth = last ? gv__hash(last) : 0;
      }
      uint64_t h = lasth;
      acc += h;
      gv__le64(b + 8 * j, h);
    }
    XXH3_64bits_update(&st, b, 8 * m);
  }
  if (sum) *sum = gv__set_hash(acc, n);
  return XXH3_64bits_digest(&st);
}

static uint64_t gv__hash_cont(unsigned kind, const gv_node *meta, const gv_node *aux,
                              const gv_node *const *kids, size_t n) {
  return gv__hash_cont_sum(kind, meta, aux, kids, n, NULL);
}

/* Dict kinds hash their children in traversal order separately (vhash), so a
 * dict and its reordering share it and the ordering pass hashes in O(1). */
static uint64_t gv__hash_vals(const gv_node *const *kids, size_t n, const uint32_t *perm) {
  enum { BLK = 256 }; /* one shot up to BLK children (the same hash as streaming) */
  unsigned char b[8 * BLK];
  const gv_node *last = NULL; /* runs of one child (the * of a structure) hash once */
  uint64_t lasth = 0;
  if (n <= BLK) {
    for (size_t j = 0; j < n; j++) {
      const gv_node *k = kids[perm ? perm[j] : j];
      if (k != last) {
        last = k;
        lasth = gv__hash(k);
      }
      gv__le64(b + 8 * j, lasth);
    }
    return XXH3_64bits_withSeed(b, 8 * n, GV__HASH_SEED);
  }
  XXH3_state_t st;
  memset(&st, 0, sizeof st); /* reset_withSeed reads the old seed field */
  XXH3_64bits_reset_withSeed(&st, GV__HASH_SEED);
  for (size_t i = 0; i < n; i += BLK) {
    size_t m = n - i < BLK ? n - i : BLK;
    for (size_t j = 0; j < m; j++) {
      const gv_node *k = kids[perm ? perm[i + j] : i + j];
      if (k != last) {
        last = k;
        lasth = gv__hash(k);
      }
      gv__le64(b + 8 * j, lasth);
    }
    XXH3_64bits_update(&st, b, 8 * m);
  }
  return XXH3_64bits_digest(&st);
}

static uint64_t gv__hash_dict(unsigned kind, size_t n, const gv_node *meta, const gv_node *aux,
                              uint64_t vhash) {
  unsigned char b[32];
  gv__le64(b, (uint64_t)kind | ((uint64_t)n << 8));
  gv__le64(b + 8, meta->hash);
  gv__le64(b + 16, aux ? aux->hash : 0);
  gv__le64(b + 24, vhash);
  return XXH3_64bits_withSeed(b, sizeof b, GV__HASH_SEED);
}

uint64_t gv__hash_seq(unsigned kind, uint64_t *w, size_t n) {
  w[0] = (uint64_t)kind | ((uint64_t)n << 8);
  w[1] = w[2] = 0; /* no meta, no aux */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return XXH3_64bits_withSeed(w, 8 * (n + 3), GV__HASH_SEED);
#else
  XXH3_state_t st;
  memset(&st, 0, sizeof st); /* reset_withSeed reads the old seed field */
  XXH3_64bits_reset_withSeed(&st, GV__HASH_SEED);
  for (size_t i = 0; i < n + 3; i++) {
    unsigned char b[8];
    gv__le64(b, w[i]);
    XXH3_64bits_update(&st, b, 8);
  }
  return XXH3_64bits_digest(&st);
#endif
}

/* ---------------------------------------------------------------------------
 * Leaves
 * ------------------------------------------------------------------------- */

/* A leaf that must be allocated: interned under a mark of its own. */
static gv_status gv__leaf_boxed(gv_arena *a, unsigned kind, uint64_t u, const gv_node **out,
                                gv_error *err) {
  gv__cand c;
  c.hash = gv__hash_scalar(kind, u);
  c.kind = kind;
  c.arity = 0;
  c.u = u;
  gv_mark m = gv_arena_mark(a);
  const gv_node *n = gv__intern_find(a, &c);
  if (n) {
    *out = n;
    return GV_OK;
  }
  gv__scalar *s;
  if (gv__intern_reserve(a) != GV_OK || !(s = gv__alloc(a, sizeof *s))) {
    gv__rollback(a, &m);
    return gv__oom(a, err);
  }
  s->h.hash = c.hash;
  s->h.kind = (uint8_t)kind;
  s->h.flags = (uint8_t)gv__leaf_flags_v(kind, u);
  s->h.aux16 = a->tag;
  s->h.arity = 0;
  s->v.u = u;
  gv__intern_add(a, &s->h);
  *out = &s->h;
  return GV_OK;
}

/* Inlined into each scalar constructor: an immediate costs a few instructions. */
static inline gv_status gv__leaf(gv_arena *a, unsigned kind, uint64_t u, const gv_node **out,
                                 gv_error *err) {
  if (!a || !out) return gv__err(err, GV_EINVAL, "NULL argument");
  GV__WRITABLE(a);
  const gv_node *imm = gv__imm(kind, u);
  if (imm) {
    *out = imm;
    return GV_OK;
  }
  return gv__leaf_boxed(a, kind, u, out, err);
}

gv_status gv_none(gv_arena *a, const gv_node **out, gv_error *err) {
  return gv__leaf(a, GV_NONE, 0, out, err);
}
gv_status gv_star(gv_arena *a, const gv_node **out, gv_error *err) {
  return gv__leaf(a, GV_STAR, 0, out, err);
}
gv_status gv_bool(gv_arena *a, bool v, const gv_node **out, gv_error *err) {
  return gv__leaf(a, GV_BOOL, v ? 1u : 0u, out, err);
}
gv_status gv_int(gv_arena *a, int64_t v, const gv_node **out, gv_error *err) {
  return gv__leaf(a, GV_INT, (uint64_t)v, out, err);
}
gv_status gv_handle(gv_arena *a, uint64_t h, const gv_node **out, gv_error *err) {
  return gv__leaf(a, GV_HANDLE, h, out, err);
}
gv_status gv_float(gv_arena *a, double v, const gv_node **out, gv_error *err) {
  uint64_t u;
  if (isnan(v)) v = NAN;
  memcpy(&u, &v, sizeof u);
  if (isnan(v)) u = 0x7ff8000000000000ull; /* one NaN */
  return gv__leaf(a, GV_FLOAT, u, out, err);
}

/* Valid UTF-8 without surrogates or overlong forms; returns the offset of the
 * first bad byte, or len. */
static size_t gv__utf8_check(const unsigned char *s, size_t len) {
  size_t i = 0;
  while (i < len) {
    unsigned c = s[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t n;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (len - i <= n) return i;
    for (size_t k = 1; k <= n; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3Fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += n + 1;
  }
  return len;
}

gv_status gv__blob_in(gv_arena *a, unsigned kind, const void *p, size_t len, const gv_node **out,
                      gv_error *err) {
  gv__cand c;
  c.hash = gv__hash_blob(kind, p, len);
  c.kind = kind;
  c.arity = 0;
  c.data = p;
  c.len = len;
  const gv_node *n = gv__intern_find(a, &c);
  if (n) {
    *out = n;
    return GV_OK;
  }
  gv__blob *b;
  if (len > SIZE_MAX - sizeof *b - 1 || gv__intern_reserve(a) != GV_OK ||
      !(b = gv__alloc(a, sizeof *b + len + 1)))
    return gv__oom(a, err);
  b->h.hash = c.hash;
  b->h.kind = (uint8_t)kind;
  b->h.flags = GV_F_CANONICAL | GV__F_KEY;
  b->h.aux16 = a->tag;
  b->h.arity = 0;
  b->len = len;
  if (len) memcpy(b->data, p, len);
  b->data[len] = '\0';
  gv__intern_add(a, &b->h);
  *out = &b->h;
  return GV_OK;
}

static gv_status gv__blob_make(gv_arena *a, unsigned kind, const void *p, size_t len,
                               const gv_node **out, gv_error *err) {
  if (!a || !out || (!p && len)) return gv__err(err, GV_EINVAL, "NULL argument");
  GV__WRITABLE(a);
  if (kind == GV_STR) {
    size_t bad = gv__utf8_check(p, len);
    if (bad != len) return gv__err(err, GV_EINVAL, "invalid UTF-8 in str at byte %zu", bad);
  }
  gv_mark m = gv_arena_mark(a);
  gv_status s = gv__blob_in(a, kind, p, len, out, err);
  if (s != GV_OK) gv__rollback(a, &m);
  return s;
}

gv_status gv_str(gv_arena *a, const char *s, size_t len, const gv_node **out, gv_error *err) {
  return gv__blob_make(a, GV_STR, s, len, out, err);
}
gv_status gv_bytes(gv_arena *a, const void *p, size_t len, const gv_node **out, gv_error *err) {
  return gv__blob_make(a, GV_BYTES, p, len, out, err);
}

/* ---------------------------------------------------------------------------
 * Containers and metadata nodes
 * ------------------------------------------------------------------------- */

static unsigned gv__child_flag_mask(unsigned kind) {
  (void)kind;
  return GV_F_CANONICAL | GV_F_STRUCTURE;
}

gv_status gv__scan_kids(const gv_arena *a, unsigned kind, const gv_node *const *kids, size_t n,
                        gv__kids_info *ki, gv_error *err) {
  int value = gv__is_container_kind(kind);
  uint64_t leaves = 0, esum = 0, imm = 0; /* imm: immediate children (a leaf, size 1 each) */
  size_t depth = 0;
  unsigned all = GV_F_CANONICAL | GV_F_STRUCTURE | GV__F_KEY;
  unsigned any = kind == GV_LIST ? GV_F_HAS_LIST : 0;
  int shape = kind == GV_LIST || kind == GV_TUPLE;
  for (size_t i = 0; i < n; i++) {
    const gv_node *k = kids[i];
    if (!k) {
      if (kind == GV_CTYPE) continue;
      return gv__err(err, GV_EINVAL, "NULL child %zu", i);
    }
    if (gv__is_imm(k)) {
      if ((gv__word(k) & 0xFFu) == ((GV_INT << 1) | 1u)) { /* the common case: an int */
        all &= GV_F_CANONICAL | GV__F_KEY;
        imm++;
        continue;
      }
      if (gv__word(k) == ((GV_STAR << 1) | 1u)) { /* *, what structure builds */
        all &= GV_F_CANONICAL | GV_F_STRUCTURE;
        shape = 0;
        imm++;
        continue;
      }
      if (!gv__imm_valid(k)) return gv__err(err, GV_EINVAL, "child %zu is not a node", i);
      unsigned kk = gv__imm_kind(k), f = gv__flags_full(k);
      all &= f;
      any |= f & (GV_F_HAS_NONE | GV__F_NCKEY);
      shape &= !((0x190u >> kk) & 1u); /* float, handle, * */
      imm++;
      continue;
    }
    if (value && !gv__is_value(k))
      return gv__err(err, GV_EINVAL, "child %zu is not a value node", i);
    GV__CHECK_OWNED(a, k, "child %zu is a node of another arena", i);
    all &= k->flags;
    any |= k->flags & (GV_F_HAS_LIST | GV_F_HAS_NONE | GV__F_NCKEY);
    esum = gv__sat_add(esum, gv__esize(k));
    unsigned kk = k->kind;
    if (shape && kk != GV_INT && kk != GV_BOOL && kk != GV_NONE) shape = 0;
    if (gv__is_leaf_kind(kk)) {
      leaves++;
      continue;
    }
    uint64_t nl = GV__CONT(k)->num_leaves;
    size_t d = GV__CONT(k)->depth;
    if (value && gv__is_container_kind(kk)) {
      if (nl > UINT64_MAX - leaves) return gv__err(err, GV_ERANGE, "too many leaves");
      leaves += nl;
    }
    if (d > depth) depth = d;
  }
  if (imm > UINT64_MAX - leaves) return gv__err(err, GV_ERANGE, "too many leaves");
  ki->leaves = leaves + imm;
  ki->esum = gv__sat_add(esum, imm);
  ki->depth = depth + 1;
  ki->all = all;
  ki->any = any;
  ki->shape = shape;
  return GV_OK;
}

/* The flags of a container of kind whose children say ki (a dict kind's
 * keyset may take GV_F_CANONICAL off). */
static inline unsigned gv__cont_flags(unsigned kind, const gv__kids_info *ki) {
  unsigned flags = (ki->all & gv__child_flag_mask(kind)) | (ki->any & ~GV__F_NCKEY) |
                   (ki->shape ? GV_F_SHAPE : 0);
  if (ki->all & GV_F_CANONICAL) flags |= GV__F_KIDS_CANONICAL;
  if (kind == GV_TUPLE && (ki->all & GV__F_KEY) && ki->depth <= GV_MAX_KEY_DEPTH)
    flags |= GV__F_KEY | (ki->any & GV__F_NCKEY);
  return flags;
}

static gv_status gv__make_h(gv_arena *a, unsigned kind, const gv_node *meta, const gv_node *aux,
                            const gv_node *const *kids, size_t n, const gv__cont *like,
                            const gv_node **out, gv_error *err) {
  return gv__make_x(a, kind, meta, aux, kids, n, like, NULL, NULL, 0, out, err);
}

/* The canonical twin of a key tuple with children kids: each bool or
 * int-valued float as an int, each tuple child as its own twin. */
static gv_status gv__twin(gv_arena *a, const gv_node *const *kids, size_t n, const gv_node **out,
                          gv_error *err) {
  const gv_node *small[16], **ck = small;
  if (n > 16) {
    if (n > SIZE_MAX / sizeof *ck || !(ck = gv__raw_alloc(a, n * sizeof *ck)))
      return gv__oom(a, err);
  }
  gv_status s = GV_OK;
  for (size_t i = 0; i < n && s == GV_OK; i++) {
    const gv_node *k = kids[i];
    ck[i] = k;
    if (!(gv__flags_full(k) & GV__F_NCKEY)) continue;
    if (gv__kind(k) == GV_TUPLE)
      ck[i] = GV__CONT(k)->meta;
    else if (gv__kind(k) == GV_BOOL)
      s = gv_int(a, gv__ival(k), &ck[i], err);
    else
      s = gv_int(a, (int64_t)gv__fval(k), &ck[i], err);
  }
  if (s == GV_OK) s = gv__make_h(a, GV_TUPLE, NULL, NULL, ck, n, NULL, out, err);
  if (ck != small) gv__raw_free(a, ck, n * sizeof *ck);
  return s;
}

/* Allocates and interns a container or metadata node known to be absent. */
static inline gv_status gv__cont_new(gv_arena *a, uint64_t hash, unsigned kind, unsigned flags,
                                     const gv_node *meta, const gv_node *aux,
                                     const gv_node *const *kids, size_t n, size_t depth,
                                     uint64_t leaves, uint64_t esize, uint64_t vhash,
                                     const gv_node **out, gv_error *err) {
  gv__cont *k;
  if (gv__intern_reserve(a) != GV_OK || !(k = gv__alloc(a, sizeof *k + n * sizeof(gv_node *))))
    return gv__oom(a, err);
  k->h.hash = hash;
  k->h.kind = (uint8_t)kind;
  k->h.flags = (uint8_t)flags;
  k->h.aux16 = a->tag;
  k->h.arity = (uint32_t)n;
  k->depth = (uint32_t)depth;
  k->reserved = 0;
  k->num_leaves = leaves;
  k->esize = esize;
  k->meta = meta;
  k->aux = aux;
  if (gv__is_dict_kind(kind))
    k->vhash = vhash;
  else
    k->perm = NULL;
  if (n) memcpy((void *)k->kids, kids, n * sizeof(gv_node *));
  gv__intern_add(a, &k->h);
  *out = &k->h;
  return GV_OK;
}

/* Interns a container (value kinds: kids must be values) or a metadata node
 * other than a keyset (kids may be NULL for ctype). like: NULL, or a dict
 * kind whose children these are, reordered for the sorted twin of its keyset
 * (meta): then what it learned from them holds as it is. pre: NULL, or the
 * node's hash as the caller computed it (gv__hash_seq; not for dict kinds).
 * fresh: the caller knows no equal node exists (see gv__tuple_known), so the
 * lookup is skipped (it still counts as one; checked builds look anyway). */
gv_status gv__make_x(gv_arena *a, unsigned kind, const gv_node *meta, const gv_node *aux,
                     const gv_node *const *kids, size_t n, const gv__cont *like,
                     const uint64_t *pre, const gv__kids_info *known, int fresh,
                     const gv_node **out, gv_error *err) {
  if (n > UINT32_MAX) return gv__err(err, GV_ERANGE, "too many children: %zu", n);
  if (n && !kids) return gv__err(err, GV_EINVAL, "NULL children");
  if (kind == GV_TUPLE) meta = NULL; /* a template's twin (gv_rebuild): made anew below */
  GV__CHECK_OWNED(a, meta, "metadata node of another arena");
  GV__CHECK_OWNED(a, aux, "a node of another arena in the metadata");
  gv__kids_info ki;
  gv_status st;
  unsigned flags = 0;
  uint64_t esize;
  if (like) { /* the same children, the same keys: only the order changes */
    ki.depth = like->depth;
    ki.leaves = like->num_leaves;
    esize = like->esize;
    flags = like->h.flags & ~(unsigned)GV_F_CANONICAL;
    if (flags & GV__F_KIDS_CANONICAL) flags |= GV_F_CANONICAL; /* the twin is sorted */
    goto hash;
  }
  if (known) {
    ki = *known;
#if defined(GROVE_CHECKED)
    gv__kids_info chk;
    if ((st = gv__scan_kids(a, kind, kids, n, &chk, err)) != GV_OK) return st;
    if (chk.leaves != ki.leaves || chk.esum != ki.esum || chk.depth != ki.depth ||
        chk.all != ki.all || chk.any != ki.any || chk.shape != ki.shape)
      return gv__err(err, GV_EINVAL, "internal: what the children say differs");
#endif
  } else if ((st = gv__scan_kids(a, kind, kids, n, &ki, err)) != GV_OK) {
    return st;
  }
  if (ki.depth > a->max_depth || ki.depth > UINT32_MAX)
    return gv__err(err, GV_EDEPTH, "nesting deeper than max_depth (%zu)", a->max_depth);
  if (gv__is_container_kind(kind)) {
    flags = gv__cont_flags(kind, &ki);
    if ((kind == GV_DICT || kind == GV_DDICT) && !(meta->aux16 & GV__KS_SORTED))
      flags &= ~GV_F_CANONICAL;
  }
  /* expanded size: the node, its children, and what printing it writes of its
   * metadata (keys, field names, type name, factory, maxlen, custom meta) */
  esize = gv__sat_add(1, ki.esum);
  if (meta && kind != GV_TUPLE) esize = gv__sat_add(esize, GV__CONT(meta)->esize);
  if (aux && (kind == GV_DDICT || kind == GV_DEQUE)) esize = gv__sat_add(esize, gv__esize(aux));
hash:;
  gv__cand c;
  uint64_t vhash = 0;
  if (gv__is_dict_kind(kind)) {
    const uint32_t *order = kind == GV_ODICT ? NULL : GV__CONT(meta)->perm;
    /* a reordered dict keeps the hash of its children in traversal order */
    vhash = like ? like->vhash : gv__hash_vals(kids, n, order);
    c.hash = gv__hash_dict(kind, n, meta, aux, vhash);
  } else if (pre) {
    c.hash = *pre;
#if defined(GROVE_CHECKED)
    if (c.hash != gv__hash_cont(kind, meta, aux, kids, n))
      return gv__err(err, GV_EINVAL, "internal: a precomputed hash differs");
#endif
  } else {
    c.hash = gv__hash_cont(kind, meta, aux, kids, n);
  }
  c.kind = kind;
  c.arity = n;
  c.meta = meta;
  c.aux = aux;
  c.kids = kids;
#if !defined(GROVE_CHECKED)
  if (fresh) {
    a->lookups++;
  } else
#endif
  {
    const gv_node *hit = gv__intern_find(a, &c);
    if (hit) {
      if (fresh) return gv__err(err, GV_EINVAL, "internal: a node said to be new exists");
      *out = hit;
      return GV_OK;
    }
  }
  if (flags & GV__F_NCKEY) { /* a key that needs its canonical twin */
    st = gv__twin(a, kids, n, &meta, err);
    if (st != GV_OK) return st;
  }
  return gv__cont_new(a, c.hash, kind, flags, meta, aux, kids, n, ki.depth, ki.leaves, esize, vhash,
                      out, err);
}

gv_status gv__seq_known(gv_arena *a, unsigned kind, const gv_node *const *items, size_t n,
                        uint64_t hash, const gv__kids_info *ki, const gv_node **out,
                        gv_error *err) {
  return gv__make_x(a, kind, NULL, NULL, items, n, NULL, &hash, ki, 0, out, err);
}

gv_status gv__tuple_known(gv_arena *a, const gv_node *const *kids, size_t n, uint64_t hash,
                          const gv__kids_info *ki, int fresh, const gv_node **out, gv_error *err) {
#if !defined(GROVE_CHECKED)
  unsigned flags = gv__cont_flags(GV_TUPLE, ki);
  if (!(flags & GV__F_NCKEY) && ki->depth <= a->max_depth && ki->depth <= UINT32_MAX &&
      n <= UINT32_MAX) { /* the common case, as gv__make_x does it */
    if (fresh) {
      a->lookups++;
    } else {
      gv__cand c;
      c.hash = hash;
      c.kind = GV_TUPLE;
      c.arity = n;
      c.meta = c.aux = NULL;
      c.kids = kids;
      const gv_node *hit = gv__intern_find(a, &c);
      if (hit) {
        *out = hit;
        return GV_OK;
      }
    }
    return gv__cont_new(a, hash, GV_TUPLE, flags, NULL, NULL, kids, n, ki->depth, ki->leaves,
                        gv__sat_add(1, ki->esum), 0, out, err);
  }
#endif
  return gv__make_x(a, GV_TUPLE, NULL, NULL, kids, n, NULL, &hash, ki, fresh, out, err);
}

gv_status gv__make_node(gv_arena *a, unsigned kind, const gv_node *meta, const gv_node *aux,
                        const gv_node *const *kids, size_t n, const gv_node **out, gv_error *err) {
  return gv__make_h(a, kind, meta, aux, kids, n, NULL, out, err);
}

/* Allocates and interns a keyset known to be absent. twin NULL and perm NULL:
 * a sorted keyset (indexed from GV__KS_INDEX_MIN keys on); else twin is its
 * sorted twin and perm its sorted order. */
static gv_status gv__keyset_new(gv_arena *a, const gv_node *const *keys, size_t n, uint64_t hash,
                                uint64_t sethash, const gv_node *twin, const uint32_t *perm,
                                unsigned bits, const gv_node **out, gv_error *err) {
  gv__kids_info ki;
  if (twin) { /* the same keys: the same depth */
    ki.depth = GV__CONT(twin)->depth;
  } else {
    gv_status st = gv__scan_kids(a, GV_KEYSET, keys, n, &ki, err);
    if (st != GV_OK) return st;
  }
  int indexed = !perm && n >= GV__KS_INDEX_MIN;
  size_t cap = indexed ? gv__rank_cap(n) : 0;
  if (gv__intern_reserve(a) != GV_OK) return gv__oom(a, err);
  uint32_t *pcopy = NULL;
  if (perm) {
    if (!(pcopy = gv__alloc(a, n * sizeof *pcopy))) return gv__oom(a, err);
    memcpy(pcopy, perm, n * sizeof *pcopy);
  }
  gv__cont *k = gv__alloc(a, sizeof *k + n * sizeof(gv_node *) + cap * sizeof(uint32_t));
  if (!k) return gv__oom(a, err);
  k->h.hash = hash;
  k->h.kind = GV_KEYSET;
  k->h.flags = 0;
  k->h.aux16 = (uint16_t)(bits | (perm ? 0u : GV__KS_SORTED) | (indexed ? GV__KS_INDEXED : 0u));
  k->h.arity = (uint32_t)n;
  k->depth = (uint32_t)ki.depth;
  k->reserved = a->tag;
  k->sethash = sethash;
  k->esize = twin ? GV__CONT(twin)->esize : gv__sat_add(1, ki.esum);
  k->meta = twin;
  k->aux = NULL;
  k->perm = pcopy;
  if (n) memcpy((void *)k->kids, keys, n * sizeof(gv_node *));
  if (indexed) {
    uint32_t *ix = (uint32_t *)(void *)(k->kids + n);
    size_t mask = cap - 1;
    memset(ix, 0, cap * sizeof *ix);
    for (size_t r = 0; r < n; r++) {
      size_t i = gv__rank_slot(keys[r], mask);
      while (ix[i])
        i = (i + 1) & mask;
      ix[i] = (uint32_t)(r + 1);
    }
  }
  gv__intern_add(a, &k->h);
  *out = &k->h;
  return GV_OK;
}

/* The sorted order of keys through twin's rank index: perm[r] = the position
 * in keys of twin's key r. 0 unless keys are exactly a permutation of twin's
 * keys (the same nodes). */
static int gv__perm_from_twin(const gv_node *twin, const gv_node *const *keys, size_t n,
                              uint32_t *perm) {
  const gv__cont *t = GV__CONT(twin);
  const uint32_t *ix = gv__rank_index(t);
  size_t mask = gv__rank_cap(n) - 1;
  for (size_t r = 0; r < n; r++)
    perm[r] = UINT32_MAX;
  for (size_t j = 0; j < n; j++) {
    const gv_node *k = keys[j];
    size_t i = gv__rank_slot(k, mask);
    uint32_t r;
    for (;;) {
      r = ix[i];
      if (r == 0) return 0;
      if (t->kids[r - 1] == k) break;
      i = (i + 1) & mask;
    }
    if (perm[r - 1] != UINT32_MAX) return 0; /* a key given twice */
    perm[r - 1] = (uint32_t)j;
  }
  return 1;
}

/* The keyset of keys[0..n) if a (or a parent) holds it, else NULL; c is its
 * candidate, *sethash (if not NULL) its set hash. */
static const gv_node *gv__keyset_lookup(gv_arena *a, const gv_node *const *keys, size_t n,
                                        gv__cand *c, uint64_t *sethash) {
  c->hash = gv__hash_cont_sum(GV_KEYSET, NULL, NULL, keys, n, sethash);
  c->kind = GV_KEYSET;
  c->arity = n;
  c->meta = c->aux = NULL;
  c->kids = keys;
  return gv__intern_find(a, c);
}

/* The keyset of keys[0..n): interned, with its sorted order and sorted twin. */
/* known: -1, or the aux16 bits of keys already known to be sorted. */
static gv_status gv__keyset(gv_arena *a, const gv_node *const *keys, size_t n, int known,
                            const gv_node **out, gv_error *err) {
  if (n > UINT32_MAX) return gv__err(err, GV_ERANGE, "too many keys: %zu", n);
  if (n && !keys) return gv__err(err, GV_EINVAL, "NULL keys");
  for (size_t i = 0; i < n; i++)
    if (!keys[i]) return gv__err(err, GV_EINVAL, "key %zu is NULL", i);
  gv__cand c;
  uint64_t sethash;
  const gv_node *hit = gv__keyset_lookup(a, keys, n, &c, &sethash);
  if (hit) {
    *out = hit;
    return GV_OK;
  }
  if (known >= 0)
    return gv__keyset_new(a, keys, n, c.hash, sethash, NULL, NULL, (unsigned)known, out, err);
  if (n >= GV__KS_INDEX_MIN) {
    /* the same keys in another order may be here already: then no sort, and
     * no check either (they are the twin's keys, checked when it was made) */
    const gv_node *twin = gv__intern_find_set(a, sethash, n);
    if (twin) {
      uint32_t *perm = gv__tmp(a, n * sizeof *perm);
      if (!perm) return gv__oom(a, err);
      if (gv__perm_from_twin(twin, keys, n, perm))
        return gv__keyset_new(a, keys, n, c.hash, 0, twin, perm, twin->aux16 & GV__KS_MIXED, out,
                              err);
    }
  }
  unsigned classes = 0, kinds = 0;
  for (size_t i = 0; i < n; i++) {
    if (!gv_is_key(keys[i])) {
      return gv__err(err, GV_EINVAL, "key %zu is not hashable (a %s)", i,
                     gv_type_name(keys[i], NULL));
    }
    /* before the sort compares them (as gv__keyset_new would after) */
    GV__CHECK_OWNED(a, keys[i], "key %zu is a node of another arena", i);
    kinds |= 1u << gv__kind(keys[i]);
    classes |= 1u << gv__key_class(keys[i]);
  }
  int mixed = (classes & (classes - 1)) != 0;
  if (n < 2) /* nothing to sort or repeat */
    return gv__keyset_new(a, keys, n, c.hash, sethash, NULL, NULL, 0, out, err);
  /* tmp: twin keys[n] | idx[n] | merge[n] (or prefix pairs[2n]) */
  if (n > SIZE_MAX / 64) return gv__oom(a, err);
  char *t = gv__tmp(a, n * (sizeof(gv_node *) + sizeof(uint32_t) + 2 * sizeof(gv__pk)));
  if (!t) return gv__oom(a, err);
  const gv_node **sorted = (const gv_node **)(void *)t;
  gv__pk *pk = (gv__pk *)(void *)(t + n * sizeof(gv_node *));
  uint32_t *idx = (uint32_t *)(void *)(pk + 2 * n), *merge = (uint32_t *)(void *)pk;
  if (kinds == 1u << GV_STR || kinds == 1u << GV_BYTES || kinds == 1u << GV_INT) {
    gv__sort_prefix(idx, pk, n, keys);
  } else {
    for (size_t i = 0; i < n; i++)
      idx[i] = (uint32_t)i;
    gv__sort_idx(idx, merge, n, keys, 0);
  }
  for (size_t i = 1; i < n; i++) {
    /* sorted naturally, a repeated key is next to its twin, and if any two
     * keys are incomparable in Python then two neighbours are: the keyset is
     * then ordered by type name first (mixed) */
    int inc = 0;
    if (gv__key_cmp_nat(NULL, keys[idx[i - 1]], keys[idx[i]], &inc) == 0) {
      if (err) {
        gv__sbuf b = {err->msg, sizeof err->msg, 0, 0};
        err->msg[0] = '\0';
        gv__sbuf_puts(&b, "repeated key ");
        gv__sbuf_repr_key(&b, keys[idx[i]]);
        if (b.truncated) gv__err_cut(err);
        err->status = GV_EKEY;
        err->line = err->column = err->offset = 0;
      }
      return GV_EKEY;
    }
    if (inc) mixed = 1;
  }
  if (mixed) gv__sort_idx(idx, merge, n, keys, 1);
  int is_sorted = 1;
  for (size_t i = 0; i < n; i++) {
    if (idx[i] != i) is_sorted = 0;
    sorted[i] = keys[idx[i]];
  }
  unsigned bits = mixed ? GV__KS_MIXED : 0u;
  if (is_sorted) return gv__keyset_new(a, keys, n, c.hash, sethash, NULL, NULL, bits, out, err);
  const gv_node *twin;
  gv_status s = gv__keyset(a, sorted, n, (int)bits, &twin, err);
  if (s != GV_OK) return s;
  return gv__keyset_new(a, keys, n, c.hash, 0, twin, idx, bits, out, err);
}

gv_status gv__keyset_build(gv_arena *a, const gv_node *const *keys, size_t n, const gv_node **out,
                           gv_error *err) {
  return gv__keyset(a, keys, n, -1, out, err);
}

gv_status gv__keyset_like(gv_arena *a, const gv_node *const *keys, size_t n, const gv_node *src,
                          const gv_node *twin, const gv_node **out, gv_error *err) {
  unsigned bits = src->aux16 & GV__KS_MIXED;
  if (!twin) return gv__keyset(a, keys, n, (int)bits, out, err);
  gv__cand c;
  const gv_node *hit = gv__keyset_lookup(a, keys, n, &c, NULL);
  if (hit) {
    *out = hit;
    return GV_OK;
  }
  return gv__keyset_new(a, keys, n, c.hash, 0, twin, GV__CONT(src)->perm, bits, out, err);
}
