/* SPDX-License-Identifier: MIT */
/* hostorder.c -- keysets as values of their own, and keysets whose traversal
 * order the host decides (a binding whose language orders keys by a rule
 * grove does not know, e.g. Python's `sorted` with its fallbacks).
 *
 * A host-ordered keyset K of keys k[0..n) and order o[0..n) (o[r] = the
 * insertion index of the r-th key in traversal order) is laid out like any
 * keyset: kids = the keys in insertion order, perm = o, meta = its "sorted"
 * twin T. T holds the keys in traversal order and the identity order; every
 * host keyset has the GV__KS_HOST bit. Its identity is its keys and its order:
 * T's aux is a fixed marker word and K's aux is T, so the intern table (which
 * compares keys and aux) never confuses a host keyset with a grove-ordered one
 * or two host keysets of the same keys in different orders; the hash mixes
 * the order in too. Host keysets are never set-hash indexed. */
#include "internal.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#define GV__HOST_SEED 0x67726f7665686f73ull /* "grovehos" */

/* The aux of a twin: a word no node has (an immediate *). */
static const gv_node *gv__host_mark(void) {
  return (const gv_node *)(uintptr_t)(((uint64_t)GV_STAR << 1) | 1u);
}

static uint64_t gv__host_hash(const gv_node *const *keys, const uint32_t *order, size_t n) {
  XXH3_state_t st;
  memset(&st, 0, sizeof st);
  XXH3_64bits_reset_withSeed(&st, GV__HOST_SEED);
  uint64_t hdr = (uint64_t)GV_KEYSET | ((uint64_t)n << 8);
  XXH3_64bits_update(&st, &hdr, sizeof hdr);
  uint64_t buf[64];
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    buf[m++] = gv__hash(keys[i]);
    buf[m++] = order ? order[i] : i;
    if (m == 64) {
      XXH3_64bits_update(&st, buf, sizeof buf);
      m = 0;
    }
  }
  if (m) XXH3_64bits_update(&st, buf, m * sizeof *buf);
  return XXH3_64bits_digest(&st);
}

/* Interns the host keyset of keys with order (NULL: identity) and twin
 * (NULL: this is a twin). */
static gv_status gv__host_make(gv_arena *a, const gv_node *const *keys, const uint32_t *order,
                               size_t n, const gv_node *twin, const gv_node **out, gv_error *err) {
  gv__cand c;
  memset(&c, 0, sizeof c);
  c.hash = gv__host_hash(keys, order, n);
  c.kind = GV_KEYSET;
  c.arity = n;
  c.aux = twin ? twin : gv__host_mark();
  c.kids = keys;
  const gv_node *hit = gv__intern_find(a, &c);
  if (hit) {
    *out = hit;
    return GV_OK;
  }
  size_t depth = 0;
  uint64_t esize = 1; /* the keyset written out: itself and its keys */
  for (size_t i = 0; i < n; i++) {
    size_t d = gv__is_container(keys[i]) ? GV__CONT(keys[i])->depth : 0;
    if (d > depth) depth = d;
    esize = gv__sat_add(esize, gv__esize(keys[i]));
  }
  if (gv__intern_reserve(a) != GV_OK) return gv__oom(a, err);
  uint32_t *pcopy = NULL;
  if (twin) {
    if (!(pcopy = gv__alloc(a, n * sizeof *pcopy))) return gv__oom(a, err);
    memcpy(pcopy, order, n * sizeof *pcopy);
  }
  gv__cont *k = gv__alloc(a, sizeof *k + n * sizeof(gv_node *));
  if (!k) return gv__oom(a, err);
  k->h.hash = c.hash;
  k->h.kind = GV_KEYSET;
  k->h.flags = 0;
  k->h.aux16 = (uint16_t)(GV__KS_HOST | (twin ? 0u : GV__KS_SORTED));
  k->h.arity = (uint32_t)n;
  k->depth = (uint32_t)(depth + 1);
  k->reserved = a->tag;
  k->sethash = 0;
  k->esize = esize;
  k->meta = twin;
  k->aux = c.aux;
  k->perm = pcopy;
  if (n) memcpy((void *)k->kids, keys, n * sizeof(gv_node *));
  gv__intern_add(a, &k->h);
  *out = &k->h;
  return GV_OK;
}

/* Order for the duplicate check: handles by value, everything else by the key
 * order (whose equality is Python's). */
static int gv__host_cmp(const gv_node *x, const gv_node *y) {
  int hx = gv__kind(x) == GV_HANDLE, hy = gv__kind(y) == GV_HANDLE;
  if (hx != hy) return hx - hy;
  if (hx) {
    uint64_t u = gv__sval(x), v = gv__sval(y);
    return (u > v) - (u < v);
  }
  return gv__key_cmp(NULL, x, y); /* keys of a (and its parents): no memo needed */
}

gv_status gv__keyset_host(gv_arena *a, const gv_node *const *keys, size_t n, const uint32_t *order,
                          const gv_node **out, gv_error *err) {
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  if (n > UINT32_MAX) return gv__err(err, GV_ERANGE, "too many keys: %zu", n);
  if (n && (!keys || !order)) return gv__err(err, GV_EINVAL, "NULL keys or order");
  for (size_t i = 0; i < n; i++) {
    const gv_node *k = keys[i];
    if (!k) return gv__err(err, GV_EINVAL, "key %zu is NULL", i);
    if (!gv_is_key(k) && !(gv__is_value(k) && gv__kind(k) == GV_HANDLE))
      return gv__err(err, GV_EINVAL, "key %zu is not a key or handle (a %s)", i,
                     gv_type_name(k, NULL));
    GV__CHECK_OWNED(a, k, "key %zu is a node of another arena", i);
  }
  if (n > SIZE_MAX / (4 * sizeof(gv_node *))) return gv__oom(a, err);
  /* scratch: sorted keys[n] | merge[n] | seen bitmap */
  size_t words = n / 64 + 1;
  char *t = gv__tmp(a, 2 * n * sizeof(gv_node *) + words * sizeof(uint64_t));
  if (!t) return gv__oom(a, err);
  const gv_node **srt = (const gv_node **)(void *)t, **mrg = srt + n;
  uint64_t *seen = (uint64_t *)(void *)(mrg + n);
  memset(seen, 0, words * sizeof *seen);
  int identity = 1;
  for (size_t r = 0; r < n; r++) {
    uint32_t o = order[r];
    if (o >= n || (seen[o / 64] >> (o % 64)) & 1u)
      return gv__err(err, GV_EINVAL, "order is not a permutation of 0..%zu", n ? n - 1 : 0);
    seen[o / 64] |= UINT64_C(1) << (o % 64);
    if (o != r) identity = 0;
  }
  /* repeated keys: a merge sort of a copy, then neighbours */
  if (n) memcpy(srt, keys, n * sizeof *srt); /* keys may be NULL when n is 0 */
  const gv_node **src = srt, **dst = mrg;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        dst[k++] = gv__host_cmp(src[i], src[j]) <= 0 ? src[i++] : src[j++];
      while (i < mid)
        dst[k++] = src[i++];
      while (j < hi)
        dst[k++] = src[j++];
    }
    const gv_node **x = src;
    src = dst;
    dst = x;
  }
  for (size_t i = 1; i < n; i++) {
    if (gv__host_cmp(src[i - 1], src[i]) == 0) {
      if (err) {
        gv__sbuf b = {err->msg, sizeof err->msg, 0, 0};
        gv__sbuf_puts(&b, "repeated key ");
        gv__sbuf_repr_key(&b, src[i]);
        err->status = GV_EKEY;
        err->line = err->column = err->offset = 0;
      }
      return GV_EKEY;
    }
  }
  /* the twin: the keys in traversal order (scratch reused for them) */
  for (size_t r = 0; r < n; r++)
    srt[r] = keys[order[r]];
  const gv_node *twin;
  gv_status s = gv__host_make(a, srt, NULL, n, NULL, &twin, err);
  if (s != GV_OK || identity) {
    if (s == GV_OK) *out = twin;
    return s;
  }
  return gv__host_make(a, keys, order, n, twin, out, err);
}

gv_status gv__keyset_host_like(gv_arena *a, const gv_node *const *keys, size_t n,
                               const gv_node *src, const gv_node *twin, const gv_node **out,
                               gv_error *err) {
  return gv__host_make(a, keys, twin ? GV__CONT(src)->perm : NULL, n, twin, out, err);
}

gv_status gv_keyset(gv_arena *a, const gv_node *const *keys, size_t n, const gv_node **out,
                    gv_error *err) {
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  GV__ATOMIC(a, gv__keyset_build(a, keys, n, out, err));
}

gv_status gv_keyset_ordered(gv_arena *a, const gv_node *const *keys, size_t n,
                            const uint32_t *order, const gv_node **out, gv_error *err) {
  GV__ATOMIC(a, gv__keyset_host(a, keys, n, order, out, err));
}

bool gv_keyset_host_ordered(const gv_node *ks) {
  return ks && !gv__is_imm(ks) && ks->kind == GV_KEYSET && (ks->aux16 & GV__KS_HOST) != 0;
}

static gv_status gv__dict_ks(gv_arena *a, gv_node_kind kind, const gv_node *keyset,
                             const gv_node *factory, const gv_node *const *values, size_t n,
                             const gv_node **out, gv_error *err) {
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  if (!gv__is_dict_kind((unsigned)kind))
    return gv__err(err, GV_EINVAL, "kind must be dict, OrderedDict or defaultdict");
  if (!keyset || gv__is_imm(keyset) || keyset->kind != GV_KEYSET)
    return gv__err(err, GV_EINVAL, "not a keyset");
  if (keyset->arity != n)
    return gv__err(err, GV_EINVAL, "keyset has %u keys, got %zu values", (unsigned)keyset->arity,
                   n);
  if (kind == GV_DDICT) {
    size_t len = 0;
    if (!factory || gv__kind(factory) != GV_STR || (gv_get_str(factory, &len), len == 0))
      return gv__err(err, GV_EINVAL, "defaultdict factory must be a non-empty str");
  } else if (factory) {
    return gv__err(err, GV_EINVAL, "only a defaultdict has a factory");
  }
  return gv__make_node(a, (unsigned)kind, keyset, factory, values, n, out, err);
}

gv_status gv_dict_with_keyset(gv_arena *a, gv_node_kind kind, const gv_node *keyset,
                              const gv_node *factory, const gv_node *const *values, size_t n,
                              const gv_node **out, gv_error *err) {
  GV__ATOMIC(a, gv__dict_ks(a, kind, keyset, factory, values, n, out, err));
}

static gv_status gv__dict_ordered(gv_arena *a, const gv_node *const *keys,
                                  const gv_node *const *values, size_t n, const uint32_t *order,
                                  const gv_node **out, gv_error *err) {
  const gv_node *ks;
  gv_status s = gv__keyset_host(a, keys, n, order, &ks, err);
  if (s != GV_OK) return s;
  return gv__dict_ks(a, GV_DICT, ks, NULL, values, n, out, err);
}

gv_status gv_dict_ordered(gv_arena *a, const gv_node *const *keys, const gv_node *const *values,
                          size_t n, const uint32_t *order, const gv_node **out, gv_error *err) {
  GV__ATOMIC(a, gv__dict_ordered(a, keys, values, n, order, out, err));
}
