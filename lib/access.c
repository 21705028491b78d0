/* SPDX-License-Identifier: MIT */
/* access.c -- the O(1) accessors of nodes, key lookup, path entries (split
 * out of node.c). */
#include "internal.h"

/* ---------------------------------------------------------------------------
 * Accessors
 * ------------------------------------------------------------------------- */

gv_node_kind gv_kind(const gv_node *n) {
  return n ? (gv_node_kind)gv__kind(n) : GV_INVALID;
}
size_t gv_arity(const gv_node *n) {
  return n && !gv__is_leaf_kind(gv__kind(n)) ? gv__arity(n) : 0;
}
const gv_node *gv_child(const gv_node *n, size_t i) {
  if (!n || gv__is_leaf_kind(gv__kind(n)) || i >= gv__arity(n)) return NULL;
  return GV__CONT(n)->kids[i];
}
const gv_node *gv_key(const gv_node *n, size_t i) {
  if (!n || i >= gv_arity(n)) return NULL;
  const gv_node *ks = gv__keys_of(n);
  return ks ? GV__CONT(ks)->kids[i] : NULL;
}
size_t gv_order_index(const gv_node *n, size_t i) {
  if (!n || i >= gv_arity(n)) return i;
  return gv__trav_index(n, i);
}
uint64_t gv_num_leaves(const gv_node *n) {
  if (!gv__is_value(n)) return 0;
  return gv__is_container_kind(gv__kind(n)) ? GV__CONT(n)->num_leaves : 1;
}
uint64_t gv_expanded_size(const gv_node *n) {
  return gv__is_value(n) ? gv__esize(n) : 0;
}
size_t gv_depth(const gv_node *n) {
  return n && !gv__is_leaf_kind(gv__kind(n)) ? GV__CONT(n)->depth : 0;
}
uint64_t gv_hash(const gv_node *n) {
  return n ? gv__hash(n) : 0;
}
unsigned gv_flags(const gv_node *n) {
  return n ? gv__flags(n) & GV__F_PUBLIC : 0;
}
bool gv_is_nested(const gv_node *n) {
  return n && gv__is_container_kind(gv__kind(n));
}
bool gv_is_leaf(const gv_node *n) {
  return n && gv__is_leaf_kind(gv__kind(n));
}

bool gv_get_bool(const gv_node *n) {
  return n && gv__kind(n) == GV_BOOL && gv__sval(n) != 0;
}
int64_t gv_get_int(const gv_node *n) {
  return n && (gv__kind(n) == GV_INT || gv__kind(n) == GV_BOOL) ? gv__ival(n) : 0;
}
double gv_get_float(const gv_node *n) {
  return n && gv__kind(n) == GV_FLOAT ? gv__fval(n) : 0.0;
}
uint64_t gv_get_handle(const gv_node *n) {
  return n && gv__kind(n) == GV_HANDLE ? gv__sval(n) : 0;
}
/* The data of a str or bytes node of the given kind, or NULL (*len 0). */
static const char *blob_data(const gv_node *n, unsigned kind, size_t *len) {
  if (!n || gv__kind(n) != kind) {
    if (len) *len = 0;
    return NULL;
  }
  if (len) *len = GV__BLOB(n)->len;
  return GV__BLOB(n)->data;
}
const char *gv_get_str(const gv_node *n, size_t *len) {
  return blob_data(n, GV_STR, len);
}
const void *gv_get_bytes(const gv_node *n, size_t *len) {
  return blob_data(n, GV_BYTES, len);
}

const gv_node *gv_meta(const gv_node *n) {
  if (!n) return NULL;
  if (gv__is_dict_kind(gv__kind(n)) || gv__kind(n) == GV_NAMEDTUPLE || gv__kind(n) == GV_CUSTOM)
    return GV__CONT(n)->meta;
  return NULL;
}
const gv_node *gv_ddict_factory(const gv_node *n) {
  return n && gv__kind(n) == GV_DDICT ? GV__CONT(n)->aux : NULL;
}
int64_t gv_deque_maxlen(const gv_node *n) {
  if (!n || gv__kind(n) != GV_DEQUE || !GV__CONT(n)->aux) return -1;
  return gv__ival(GV__CONT(n)->aux);
}
const gv_node *gv_field_name(const gv_node *n, size_t i) {
  if (!n || gv__kind(n) != GV_NAMEDTUPLE || i >= gv__arity(n)) return NULL;
  return GV__CONT(GV__CONT(n)->meta)->kids[i + 1];
}
const gv_node *gv_custom_meta(const gv_node *n) {
  if (!n || gv__kind(n) != GV_CUSTOM) return NULL;
  const gv_node *m = GV__CONT(GV__CONT(n)->meta)->kids[2];
  return m ? m : GV__CONT(n)->aux;
}
bool gv_custom_keyed(const gv_node *n) {
  return n && gv__kind(n) == GV_CUSTOM && GV__CONT(GV__CONT(n)->meta)->kids[1] != NULL;
}
bool gv_keyset_sorted(const gv_node *ks) {
  return ks && gv__kind(ks) == GV_KEYSET && (ks->aux16 & GV__KS_SORTED);
}
const gv_node *gv_keyset_twin(const gv_node *ks) {
  if (!ks || gv__kind(ks) != GV_KEYSET) return NULL;
  return GV__CONT(ks)->meta ? GV__CONT(ks)->meta : ks;
}

size_t gv__keyset_find(gv__cmp *c, const gv_node *ksn, const gv_node *key) {
  const gv__cont *ks = GV__CONT(ksn);
  if (ks->h.aux16 & GV__KS_HOST) { /* the host's order (its keys may be handles): scan */
    for (size_t i = 0; i < ks->h.arity; i++) {
      if (gv__key_eq(c, ks->kids[i], key)) return i;
      if (c && c->oom) return SIZE_MAX;
    }
    return SIZE_MAX;
  }
  if (!gv_is_key(key)) return SIZE_MAX;
  int mixed = (ks->h.aux16 & GV__KS_MIXED) != 0;
  size_t lo = 0, hi = ks->h.arity;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2, ix = ks->perm ? ks->perm[mid] : mid;
    int r = mixed ? gv__key_cmp_mixed(c, ks->kids[ix], key)
                  : gv__key_cmp_nat(c, ks->kids[ix], key, NULL);
    if (c && c->oom) return SIZE_MAX;
    if (r == 0) return ix;
    if (r < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* a mixed keyset ranks bool < float < int first, so a number equal to a
   * key of another numeric type (1.0 for 1, True for 1), or a tuple holding
   * one, is not where the search looks: scan for it */
  unsigned kk = gv__kind(key);
  if (mixed && (kk == GV_BOOL || kk == GV_INT || kk == GV_FLOAT || kk == GV_TUPLE)) {
    for (size_t i = 0; i < ks->h.arity; i++) {
      if (gv__key_eq(c, ks->kids[i], key)) return i;
      if (c && c->oom) return SIZE_MAX;
    }
  }
  return SIZE_MAX;
}

const gv_node *gv__get(gv__cmp *c, const gv_node *n, const gv_node *key) {
  if (!n || !key) return NULL;
  const gv_node *ks = gv__keys_of(n);
  if (!ks) return NULL;
  size_t ix = gv__keyset_find(c, ks, key);
  return ix == SIZE_MAX ? NULL : GV__CONT(n)->kids[ix];
}

const gv_node *gv_get(const gv_node *n, const gv_node *key) {
  gv__cmp c;
  gv__cmp_init_nodes(&c);
  const gv_node *r = gv__get(&c, n, key);
  gv__cmp_free(&c);
  return r;
}

gv_status gv__path_entry(gv_arena *a, const gv_node *n, size_t i, const gv_node **out) {
  const gv_node *k = gv_key(n, i);
  if (k) {
    *out = k;
    return GV_OK;
  }
  return gv_int(a, (int64_t)i, out, NULL);
}
