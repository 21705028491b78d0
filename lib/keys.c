/* SPDX-License-Identifier: MIT */
/* keys.c -- the key order: key classes, comparison, key checks and the sorts
 * that keysets use (split out of node.c). */
#include "internal.h"

#include <math.h>

/* ---------------------------------------------------------------------------
 * Key order
 * ------------------------------------------------------------------------- */

int gv__key_class(const gv_node *k) {
  switch (gv__kind(k)) {
  case GV_NONE:
    return GV__KC_NONE;
  case GV_BOOL:
  case GV_INT:
  case GV_FLOAT:
    return GV__KC_NUM;
  case GV_BYTES:
    return GV__KC_BYTES;
  case GV_STR:
    return GV__KC_STR;
  case GV_TUPLE:
    return GV__KC_TUPLE;
  default:
    return GV__KC_BAD;
  }
}

/* Python type-name rank: NoneType < bool < bytes < float < int < str < tuple. */
static int gv__type_rank(const gv_node *k) {
  switch (gv__kind(k)) {
  case GV_NONE:
    return 0;
  case GV_BOOL:
    return 1;
  case GV_BYTES:
    return 2;
  case GV_FLOAT:
    return 3;
  case GV_INT:
    return 4;
  case GV_STR:
    return 5;
  default:
    return 6;
  }
}

static int gv__num_cmp(const gv_node *x, const gv_node *y) {
  int xf = gv__kind(x) == GV_FLOAT, yf = gv__kind(y) == GV_FLOAT;
  if (!xf && !yf) {
    int64_t a = gv__ival(x), b = gv__ival(y);
    return (a > b) - (a < b);
  }
  if (xf && yf) {
    double a = gv__fval(x), b = gv__fval(y);
    if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
    return (a > b) - (a < b);
  }
  /* exactly one float: compare int i with double d exactly */
  int sign = xf ? -1 : 1;
  int64_t i = gv__ival(xf ? y : x);
  double d = gv__fval(xf ? x : y);
  int r;
  if (isnan(d) || d >= 9223372036854775808.0)
    r = -1;
  else if (d < -9223372036854775808.0)
    r = 1;
  else {
    int64_t t = (int64_t)d;
    if (i != t)
      r = i < t ? -1 : 1;
    else {
      double frac = d - (double)t;
      r = frac > 0 ? -1 : frac < 0 ? 1 : 0;
    }
  }
  return sign * r;
}

/* Leaves of one kind with the same payload (for canonical leaves -- no bool,
 * no int-valued float -- that is Python equality too). */
int gv__leaf_same(const gv_node *x, const gv_node *y) {
  switch (gv__kind(x)) {
  case GV_STR:
  case GV_BYTES:
    return GV__BLOB(x)->len == GV__BLOB(y)->len &&
           memcmp(GV__BLOB(x)->data, GV__BLOB(y)->data, GV__BLOB(x)->len) == 0;
  case GV_NONE:
    return 1;
  default:
    return gv__sval(x) == gv__sval(y);
  }
}

/* ---------------------------------------------------------------------------
 * The same value across arenas. Within one arena (and its parents) a value is
 * one node; nodes of two arenas are compared by a pair walk over kids, then
 * metadata and aux (a tuple's twin and a keyset's sorted twin follow from the
 * kids), pruned by the stable hash. A pair found to be the same value goes into
 * a small direct-mapped cache and, once the walk has taken more than
 * cmp->memo.after steps, into the memo (pairs of subtrees of GV__MEMO_MIN
 * nodes or more): so a pair is walked once however often the two DAGs repeat
 * it, and the work is linear in the distinct pairs. Both arenas intern, so a
 * node is the same value as at most one node of the other side: the memo
 * holds at most as many pairs as the smaller side has distinct nodes.
 * ------------------------------------------------------------------------- */

#define GV__CMP_NODE_AFTER 4096u

void gv__cmp_init(gv__cmp *c, gv__mem mem, const gv_arena *a, int can_fail) {
  gv__memo_init(&c->memo, mem, a);
  c->can_fail = can_fail;
  c->oom = 0;
  c->lost = 0;
  c->cache_on = 0;
}

void gv__cmp_init_nodes(gv__cmp *c) {
  gv__mem mem = {NULL, gv__default_allocator(), NULL};
  gv__cmp_init(c, mem, NULL, 0);
  c->memo.after = GV__CMP_NODE_AFTER;
}

void gv__cmp_free(gv__cmp *c) {
  gv__memo_free(&c->memo);
}

static size_t gv__cache_slot(const gv_node *x, const gv_node *y) {
  return (size_t)(((gv__word(x) ^ (gv__word(y) * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull) >>
                  (64 - 6));
}

static int gv__known_same(gv__cmp *c, const gv_node *x, const gv_node *y) {
  if (!c->cache_on) {
    memset(c->cache, 0, sizeof c->cache);
    c->cache_on = 1;
    return 0;
  }
  size_t h = gv__cache_slot(x, y);
  if (c->cache[h].x == x && c->cache[h].y == y) return 1;
  return c->memo.len && gv__memo_get(&c->memo, x, y) != NULL;
}

/* Records that x and y are the same value. 0, or -1 when the memo's memory
 * failed and c can fail (c->oom is then set). */
static int gv__note_same(gv__cmp *c, const gv_node *x, const gv_node *y) {
  size_t h = gv__cache_slot(x, y);
  c->cache[h].x = x;
  c->cache[h].y = y;
  if (c->lost || !gv__memo_big(&c->memo, x)) return 0;
  if (gv__memo_put(&c->memo, x, y, 1) == GV_OK) return 0;
  if (c->can_fail) {
    c->oom = 1;
    return -1;
  }
  c->lost = 1; /* no memory: the cache alone from here on (correct, without the bound) */
  return 0;
}

/* The references compared: kids, then meta (not a tuple's or keyset's twin,
 * which follows from the kids), then aux. */
static size_t gv__same_nrefs(const gv_node *n) {
  unsigned k = n->kind;
  return (size_t)n->arity + (k == GV_TUPLE || k == GV_KEYSET ? 0u : 2u);
}
static const gv_node *gv__same_ref(const gv_node *n, size_t i) {
  const gv__cont *c = GV__CONT(n);
  if (i < n->arity) return c->kids[i];
  return i == n->arity ? c->meta : c->aux;
}

/* 1 if x and y (allocated containers or metadata nodes of one kind, hash and
 * arity) are the same value, 0 if not, -1 when memory failed and c can fail. */
static int gv__same_walk(gv__cmp *c, const gv_node *x, const gv_node *y) {
  if (gv__known_same(c, x, y)) return 1;
  typedef struct {
    const gv_node *x, *y;
    size_t i;
  } frame;
  frame buf[GV_MAX_KEY_DEPTH + 1]; /* a key never needs more */
  gv__vec st;
  gv__vec_init_buf(&st, sizeof(frame), buf, GV_MAX_KEY_DEPTH + 1);
  frame f0 = {x, y, 0};
  GV__VEC_AT(&st, frame, 0) = f0;
  st.len = 1;
  int r = 1;
  while (st.len) {
    frame *f = &GV__VEC_AT(&st, frame, st.len - 1);
    if (f->i == gv__same_nrefs(f->x)) {
      if (gv__note_same(c, f->x, f->y) < 0) {
        r = -1;
        break;
      }
      st.len--;
      continue;
    }
    const gv_node *a = gv__same_ref(f->x, f->i), *b = gv__same_ref(f->y, f->i);
    f->i++;
    gv__memo_step(&c->memo, 1);
    if (a == b) continue;
    r = 0;
    if (!a || !b || gv__is_imm(a) || gv__is_imm(b) || a->kind != b->kind) break;
    if (a->kind <= GV_STAR) {
      if (!gv__leaf_same(a, b)) break;
      r = 1;
      continue;
    }
    if (a->hash != b->hash || a->arity != b->arity) break;
    r = 1;
    if (gv__known_same(c, a, b)) continue;
    frame nf = {a, b, 0};
    if (c->memo.mem.w || c->memo.mem.al) {
      if (gv__mvec_push(c->memo.mem, &st, &nf) != GV_OK) {
        r = -1; /* only nodes that are not keys nest this deep: their callers can fail */
        c->oom = 1;
        break;
      }
    } else {
      if (st.len == st.cap) { /* deeper than a key: callers without memory compare keys only */
        r = 0;
        break;
      }
      GV__VEC_AT(&st, frame, st.len++) = nf;
    }
  }
  if (c->memo.mem.w || c->memo.mem.al) gv__mvec_free(c->memo.mem, &st);
  return r;
}

int gv__same_value(gv__cmp *c, const gv_node *x, const gv_node *y) {
  if (x == y) return 1;
  if (!x || !y || gv__is_imm(x) || gv__is_imm(y) || x->kind != y->kind) return 0;
  if (x->kind <= GV_STAR) return gv__leaf_same(x, y);
  if (x->hash != y->hash || x->arity != y->arity) return 0;
  if (c) return gv__same_walk(c, x, y);
  gv__cmp own; /* keys of one arena (and its parents): the cache alone, no memory */
  gv__mem none = {NULL, NULL, NULL};
  gv__cmp_init(&own, none, NULL, 0);
  own.lost = 1;
  return gv__same_walk(&own, x, y);
}

/* The same value of the same types (True and 1 differ). */
int gv__key_same(gv__cmp *c, const gv_node *x, const gv_node *y) {
  if (x == y) return 1;
  unsigned k = gv__kind(x);
  if (k != gv__kind(y)) return 0;
  if (k != GV_TUPLE) return gv__leaf_same(x, y);
  return gv__same_value(c, x, y) > 0;
}

/* Python's x == y for two keys (1 == 1.0 == True; NaN equals NaN here). Key
 * tuples compare through their canonical twins: within one arena that is one
 * pointer compare. A non-key equals only itself. */
int gv__key_eq(gv__cmp *c, const gv_node *x, const gv_node *y) {
  if (x == y) return 1;
  if (!x || !y) return 0;
  if (!(gv__flags(x) & gv__flags(y) & GV__F_KEY)) /* handles (host keysets) by value */
    return gv__kind(x) == GV_HANDLE && gv__kind(y) == GV_HANDLE && gv__sval(x) == gv__sval(y);
  int cx = gv__key_class(x);
  if (cx != gv__key_class(y)) return 0;
  switch (cx) {
  case GV__KC_NONE:
    return 1;
  case GV__KC_NUM:
    return gv__num_cmp(x, y) == 0;
  case GV__KC_BYTES:
  case GV__KC_STR:
    return gv__leaf_same(x, y);
  default:
    return gv__key_same(c, gv__canon(x), gv__canon(y));
  }
}

/* Orders non-keys (after every key, by hash; a handle and its equal of
 * another arena are equal). Returns 2 when both are keys. */
static int gv__nonkey_cmp(const gv_node *x, const gv_node *y) {
  int kx = x && (gv__flags(x) & GV__F_KEY), ky = y && (gv__flags(y) & GV__F_KEY);
  if (kx && ky) return 2;
  if (!x || !y) return x ? 1 : -1;
  if (kx != ky) return kx ? -1 : 1;
  uint64_t hx = gv__hash(x), hy = gv__hash(y);
  if (hx != hy) return hx < hy ? -1 : 1;
  if (gv__kind(x) == GV_HANDLE && gv__kind(y) == GV_HANDLE && gv__sval(x) == gv__sval(y)) return 0;
  return gv__word(x) < gv__word(y) ? -1 : 1;
}

/* The natural order: numbers together, str by code point, bytes, tuples by
 * their first pair of elements that are not equal in Python. Where that pair
 * (or the keys themselves) are of different classes -- incomparable in
 * Python -- *incomparable is set and the classes decide (None < numbers <
 * bytes < str < tuple), so that this is a total order all the same. x and y
 * are keys. Iterative: a tuple compares as its first unequal pair, so the loop
 * descends into that pair and never comes back up. */
int gv__key_cmp_nat(gv__cmp *c, const gv_node *x, const gv_node *y, int *incomparable) {
  for (;;) {
    if (x == y) return 0;
    int cx = gv__key_class(x), cy = gv__key_class(y);
    if (cx != cy) {
      if (incomparable) *incomparable = 1;
      return cx < cy ? -1 : 1;
    }
    switch (cx) {
    case GV__KC_NONE:
      return 0;
    case GV__KC_NUM:
      return gv__num_cmp(x, y);
    case GV__KC_BYTES:
    case GV__KC_STR: {
      size_t lx = GV__BLOB(x)->len, ly = GV__BLOB(y)->len;
      int r = memcmp(GV__BLOB(x)->data, GV__BLOB(y)->data, lx < ly ? lx : ly);
      if (r) return r < 0 ? -1 : 1;
      return (lx > ly) - (lx < ly);
    }
    default: {
      const gv_node *const *a = GV__CONT(x)->kids, *const *b = GV__CONT(y)->kids;
      size_t nx = x->arity, ny = y->arity, n = nx < ny ? nx : ny, i;
      for (i = 0; i < n; i++)
        if (!gv__key_eq(c, a[i], b[i])) break;
      if (c && c->oom) return 0;
      if (i == n) return (nx > ny) - (nx < ny);
      x = a[i];
      y = b[i];
    }
    }
  }
}

/* The order of keys that are not all comparable: by type name, then by value
 * within a type, tuples element by element by the same rule (so True and 1
 * differ here: type names first). A total order; x and y are keys. */
static int gv__key_cmp_typed(gv__cmp *c, const gv_node *x, const gv_node *y) {
  for (;;) {
    if (x == y) return 0;
    int rx = gv__type_rank(x), ry = gv__type_rank(y);
    if (rx != ry) return rx < ry ? -1 : 1;
    switch (gv__kind(x)) {
    case GV_NONE:
      return 0;
    case GV_BOOL:
    case GV_INT:
      return gv__num_cmp(x, y);
    case GV_FLOAT: { /* -0.0 and 0.0 differ here (a tuple may hold either): -0.0 first */
      int r = gv__num_cmp(x, y);
      if (r == 0 && gv__sval(x) != gv__sval(y)) r = signbit(gv__fval(x)) ? -1 : 1;
      return r;
    }
    case GV_STR:
    case GV_BYTES:
      return gv__key_cmp_nat(c, x, y, NULL);
    default: { /* the first pair not the same value of the same type decides */
      const gv_node *const *a = GV__CONT(x)->kids, *const *b = GV__CONT(y)->kids;
      size_t nx = x->arity, ny = y->arity, n = nx < ny ? nx : ny, i;
      for (i = 0; i < n; i++)
        if (!gv__key_same(c, a[i], b[i])) break;
      if (c && c->oom) return 0;
      if (i == n) return (nx > ny) - (nx < ny);
      x = a[i];
      y = b[i];
    }
    }
  }
}

int gv__key_cmp_mixed(gv__cmp *c, const gv_node *x, const gv_node *y) {
  int r = gv__nonkey_cmp(x, y);
  return r != 2 ? r : gv__key_cmp_typed(c, x, y);
}

/* As in a dict of just x and y: natural when they are comparable, else by
 * type name first. */
int gv__key_cmp(gv__cmp *c, const gv_node *x, const gv_node *y) {
  if (x == y) return 0;
  int r = gv__nonkey_cmp(x, y);
  if (r != 2) return r;
  int inc = 0;
  r = gv__key_cmp_nat(c, x, y, &inc);
  return inc ? gv__key_cmp_typed(c, x, y) : r;
}

int gv_key_cmp(const gv_node *x, const gv_node *y) {
  if (x == y) return 0;
  gv__cmp c;
  gv__cmp_init_nodes(&c);
  int r = gv__key_cmp(&c, x, y);
  gv__cmp_free(&c);
  return r;
}

bool gv_is_key(const gv_node *n) {
  if (!n || (gv__is_imm(n) && !gv__imm_valid(n))) return false;
  return (gv__flags(n) & GV__F_KEY) != 0;
}

/* Stable bottom-up merge sort of idx[0..n) (tmp has room for n more). */
void gv__sort_idx(uint32_t *idx, uint32_t *tmp, size_t n, const gv_node *const *keys, int mixed) {
  uint32_t *src = idx, *dst = tmp;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const gv_node *x = keys[src[i]], *y = keys[src[j]];
        int r = mixed ? gv__key_cmp_typed(NULL, x, y) : gv__key_cmp_nat(NULL, x, y, NULL);
        dst[k++] = r <= 0 ? src[i++] : src[j++];
      }
      while (i < mid)
        dst[k++] = src[i++];
      while (j < hi)
        dst[k++] = src[j++];
    }
    uint32_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != idx) memcpy(idx, src, n * sizeof *idx);
}

/* Sort keys for the common cases: all str, all bytes or all int keys sort by a
 * 64-bit prefix first (big-endian bytes, or the int with its sign flipped),
 * falling back to the full comparison on a tie. Returns 0 if not applicable. */

static uint64_t gv__prefix(const gv_node *k) {
  if (gv__kind(k) == GV_INT) return gv__sval(k) ^ (UINT64_C(1) << 63);
  const unsigned char *p = (const unsigned char *)GV__BLOB(k)->data;
  size_t len = GV__BLOB(k)->len;
  uint64_t v = 0;
  for (size_t i = 0; i < 8; i++)
    v = (v << 8) | (i < len ? p[i] : 0u);
  return v;
}

static int gv__pk_le(const gv__pk *x, const gv__pk *y, const gv_node *const *keys) {
  if (x->pre != y->pre) return x->pre < y->pre;
  return gv__key_cmp_nat(NULL, keys[x->idx], keys[y->idx], NULL) <= 0;
}

void gv__sort_prefix(uint32_t *idx, gv__pk *pk, size_t n, const gv_node *const *keys) {
  gv__pk *src = pk, *dst = pk + n;
  for (size_t i = 0; i < n; i++) {
    src[i].pre = gv__prefix(keys[i]);
    src[i].idx = (uint32_t)i;
  }
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        dst[k++] = gv__pk_le(&src[i], &src[j], keys) ? src[i++] : src[j++];
      while (i < mid)
        dst[k++] = src[i++];
      while (j < hi)
        dst[k++] = src[j++];
    }
    gv__pk *t = src;
    src = dst;
    dst = t;
  }
  for (size_t i = 0; i < n; i++)
    idx[i] = src[i].idx;
}
