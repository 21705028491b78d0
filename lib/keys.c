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

int gv_key_cmp(const gv_node *x, const gv_node *y) {
  if (x == y) return 0;
  if (!x || !y) return x ? 1 : -1;
  int cx = gv__key_class(x), cy = gv__key_class(y);
  if (cx != cy) return cx < cy ? -1 : 1;
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
  case GV__KC_TUPLE: { /* bounded: keys nest at most GV_MAX_KEY_DEPTH */
    size_t nx = x->arity, ny = y->arity;
    for (size_t i = 0; i < nx && i < ny; i++) {
      int r = gv_key_cmp(GV__CONT(x)->kids[i], GV__CONT(y)->kids[i]);
      if (r) return r;
    }
    return (nx > ny) - (nx < ny);
  }
  default: { /* not keys: by hash, for a total order all the same */
    uint64_t hx = gv__hash(x), hy = gv__hash(y);
    return (hx > hy) - (hx < hy);
  }
  }
}

int gv__key_eq(const gv_node *x, const gv_node *y) {
  return gv_key_cmp(x, y) == 0;
}

int gv__key_cmp_mixed(const gv_node *x, const gv_node *y) {
  int rx = gv__type_rank(x), ry = gv__type_rank(y);
  if (rx != ry) return rx < ry ? -1 : 1;
  return gv_key_cmp(x, y);
}

bool gv_is_key(const gv_node *n) {
  if (!n) return false;
  if (gv__is_imm(n)) return gv__imm_valid(n) && gv__key_class(n) != GV__KC_BAD;
  if (n->kind != GV_TUPLE) return gv__key_class(n) != GV__KC_BAD;
  if (GV__CONT(n)->depth > GV_MAX_KEY_DEPTH) return false;
  for (size_t i = 0; i < n->arity; i++)
    if (!gv_is_key(GV__CONT(n)->kids[i])) return false;
  return true;
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
        int r = mixed ? gv__key_cmp_mixed(x, y) : gv_key_cmp(x, y);
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
  return gv_key_cmp(keys[x->idx], keys[y->idx]) <= 0;
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
