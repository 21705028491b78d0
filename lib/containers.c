/* SPDX-License-Identifier: MIT */
/* containers.c -- the public constructors of containers (list, tuple, deque,
 * the dict kinds, namedtuple, custom, gv_rebuild) and their unmarked forms:
 * argument checks, identifier names, schemas and ctypes, a mark around each.
 * Nodes are hashed, checked and interned by node.c (gv__make_x, keysets). */
#include "internal.h"

static gv_status gv__make(gv_arena *a, unsigned kind, const gv_node *meta, const gv_node *aux,
                          const gv_node *const *kids, size_t n, const gv_node **out,
                          gv_error *err) {
  return gv__make_x(a, kind, meta, aux, kids, n, NULL, NULL, NULL, 0, out, err);
}

gv_status gv__seq(gv_arena *a, unsigned kind, const gv_node *const *items, size_t n,
                  const gv_node *aux, const gv_node **out, gv_error *err) {
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  return gv__make(a, kind, NULL, aux, items, n, out, err);
}

gv_status gv__seq_hashed(gv_arena *a, unsigned kind, const gv_node *const *items, size_t n,
                         uint64_t hash, const gv_node **out, gv_error *err) {
  return gv__make_x(a, kind, NULL, NULL, items, n, NULL, &hash, NULL, 0, out, err);
}

gv_status gv_list(gv_arena *a, const gv_node *const *items, size_t n, const gv_node **out,
                  gv_error *err) {
  GV__ATOMIC(a, gv__seq(a, GV_LIST, items, n, NULL, out, err));
}
gv_status gv_tuple(gv_arena *a, const gv_node *const *items, size_t n, const gv_node **out,
                   gv_error *err) {
  GV__ATOMIC(a, gv__seq(a, GV_TUPLE, items, n, NULL, out, err));
}

static gv_status gv__deque(gv_arena *a, const gv_node *const *items, size_t n, int64_t maxlen,
                           const gv_node **out, gv_error *err) {
  const gv_node *ml = NULL;
  if (maxlen >= 0) {
    gv_status s = gv_int(a, maxlen, &ml, err);
    if (s != GV_OK) return s;
  }
  return gv__seq(a, GV_DEQUE, items, n, ml, out, err);
}
gv_status gv_deque(gv_arena *a, const gv_node *const *items, size_t n, int64_t maxlen,
                   const gv_node **out, gv_error *err) {
  GV__ATOMIC(a, gv__deque(a, items, n, maxlen, out, err));
}

gv_status gv__dictlike(gv_arena *a, unsigned kind, const gv_node *factory,
                       const gv_node *const *keys, const gv_node *const *values, size_t n,
                       const gv_node **out, gv_error *err) {
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  const gv_node *ks = NULL; /* set by gv__keyset_build; gcc -O3 cannot see it */
  gv_status s = gv__keyset_build(a, keys, n, &ks, err);
  if (s != GV_OK) return s;
  return gv__make(a, kind, ks, factory, values, n, out, err);
}

gv_status gv_dict(gv_arena *a, const gv_node *const *keys, const gv_node *const *values, size_t n,
                  const gv_node **out, gv_error *err) {
  GV__ATOMIC(a, gv__dictlike(a, GV_DICT, NULL, keys, values, n, out, err));
}
gv_status gv_odict(gv_arena *a, const gv_node *const *keys, const gv_node *const *values, size_t n,
                   const gv_node **out, gv_error *err) {
  GV__ATOMIC(a, gv__dictlike(a, GV_ODICT, NULL, keys, values, n, out, err));
}

/* An identifier usable as a type or field name in the literal notation. The words the reader
 * takes as values are never names; before '(' it also takes Infinity and NaN as values and
 * the three reserved calls as themselves, so a type name cannot be one of those either. */
static int gv__ident_ok(const gv_node *s, int type_name) {
  static const char *const words[] = {"None",  "True",     "False", "null",        "true",
                                      "false", "inf",      "nan",   "OrderedDict", "defaultdict",
                                      "deque", "Infinity", "NaN"};
  if (!s || gv__kind(s) != GV_STR || GV__BLOB(s)->len == 0) return 0;
  const unsigned char *p = (const unsigned char *)GV__BLOB(s)->data;
  size_t len = GV__BLOB(s)->len;
  if (p[0] >= '0' && p[0] <= '9') return 0;
  for (size_t i = 0; i < len; i++) {
    unsigned c = p[i];
    if (!(c >= 0x80 || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
          (c >= 'A' && c <= 'Z')))
      return 0;
  }
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    if (!type_name && i >= 8) break;
    if (strlen(words[i]) == len && memcmp(words[i], p, len) == 0) return 0;
  }
  return 1;
}

gv_status gv_ddict(gv_arena *a, const gv_node *factory, const gv_node *const *keys,
                   const gv_node *const *values, size_t n, const gv_node **out, gv_error *err) {
  if (!gv__ident_ok(factory, 0))
    return gv__err(err, GV_EINVAL, "defaultdict factory must be an identifier str");
  GV__ATOMIC(a, gv__dictlike(a, GV_DDICT, factory, keys, values, n, out, err));
}

static gv_status gv__namedtuple(gv_arena *a, const gv_node *type_name, const gv_node *const *fields,
                                const gv_node *const *values, size_t n, const gv_node **out,
                                gv_error *err) {
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  if (!gv__ident_ok(type_name, 1))
    return gv__err(err, GV_EINVAL, "namedtuple type name must be an identifier str");
  if (n && !fields) return gv__err(err, GV_EINVAL, "NULL fields");
  if (n >= UINT32_MAX) return gv__err(err, GV_ERANGE, "too many fields");
  for (size_t i = 0; i < n; i++) {
    if (!gv__ident_ok(fields[i], 0))
      return gv__err(err, GV_EINVAL, "namedtuple field %zu must be an identifier str", i);
  }
  /* field names are interned: equal names are equal pointers */
  if (n <= 64) {
    for (size_t i = 1; i < n; i++)
      for (size_t j = 0; j < i; j++)
        if (fields[i] == fields[j])
          return gv__err(err, GV_EKEY, "repeated namedtuple field name '%s'",
                         GV__BLOB(fields[i])->data);
  } else {
    const gv_node *ks; /* a keyset dedups exactly */
    gv_status s = gv__keyset_build(a, fields, n, &ks, err);
    if (s != GV_OK) return s;
  }
  const gv_node **sk = gv__tmp(a, (n + 1) * sizeof *sk);
  if (!sk) return gv__oom(a, err);
  sk[0] = type_name;
  if (n) memcpy(sk + 1, fields, n * sizeof *sk);
  const gv_node *schema;
  gv_status s = gv__make(a, GV_SCHEMA, NULL, NULL, sk, n + 1, &schema, err);
  if (s != GV_OK) return s;
  return gv__make(a, GV_NAMEDTUPLE, schema, NULL, values, n, out, err);
}

gv_status gv_namedtuple(gv_arena *a, const gv_node *type_name, const gv_node *const *fields,
                        const gv_node *const *values, size_t n, const gv_node **out,
                        gv_error *err) {
  GV__ATOMIC(a, gv__namedtuple(a, type_name, fields, values, n, out, err));
}

static gv_status gv__custom(gv_arena *a, const gv_node *type_name, const gv_node *const *keys,
                            const gv_node *const *children, size_t n, const gv_node *meta,
                            const gv_node **out, gv_error *err) {
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  if (!gv__ident_ok(type_name, 1))
    return gv__err(err, GV_EINVAL, "custom node type name must be an identifier str");
  if (meta && !gv__is_value(meta)) return gv__err(err, GV_EINVAL, "metadata is not a value node");
  const gv_node *ks = NULL, *implicit = NULL;
  if (keys) {
    gv_status s = gv__keyset_build(a, keys, n, &ks, err);
    if (s != GV_OK) return s;
    s = gv__make(a, GV_TUPLE, NULL, NULL, keys, n, &implicit, err);
    if (s != GV_OK) return s;
    if (meta == implicit) meta = NULL; /* the default, stated explicitly */
  }
  const gv_node *ct_kids[3] = {type_name, ks, meta}, *ct;
  gv_status s = gv__make(a, GV_CTYPE, NULL, NULL, ct_kids, 3, &ct, err);
  if (s != GV_OK) return s;
  return gv__make(a, GV_CUSTOM, ct, meta ? NULL : implicit, children, n, out, err);
}

gv_status gv_custom(gv_arena *a, const gv_node *type_name, const gv_node *const *keys,
                    const gv_node *const *children, size_t n, const gv_node *meta,
                    const gv_node **out, gv_error *err) {
  GV__ATOMIC(a, gv__custom(a, type_name, keys, children, n, meta, out, err));
}

gv_status gv_rebuild(gv_arena *a, const gv_node *tmpl, const gv_node *const *children,
                     const gv_node **out, gv_error *err) {
  if (!tmpl || !gv__is_container_kind(gv__kind(tmpl)) || !out)
    return gv__err(err, GV_EINVAL, "gv_rebuild needs a container template");
  const gv__cont *t = GV__CONT(tmpl);
  GV__ATOMIC(a, gv__make(a, gv__kind(tmpl), t->meta, t->aux, children, gv__arity(tmpl), out, err));
}

static gv_status gv__dict_sorted_in(gv_arena *a, const gv_node *n, const gv_node **out,
                                    gv_error *err) {
  const gv__cont *d = GV__CONT(n), *ks = GV__CONT(d->meta);
  if (!ks->perm) {
    *out = n;
    return GV_OK;
  }
  size_t len = gv__arity(n);
  if (len > SIZE_MAX / sizeof(gv_node *)) return gv__oom(a, err);
  const gv_node **v = gv__tmp(a, len * sizeof *v);
  if (!v) return gv__oom(a, err);
  for (size_t i = 0; i < len; i++)
    v[i] = d->kids[ks->perm[i]];
  /* the twin is sorted: its traversal order is its insertion order, so the
   * children's traversal order, and their hash, are unchanged */
  return gv__make_x(a, n->kind, ks->meta, d->aux, v, len, d, NULL, NULL, 0, out, err);
}

gv_status gv__dict_sorted(gv_arena *a, const gv_node *n, const gv_node **out, gv_error *err) {
  if (!n || (gv__kind(n) != GV_DICT && gv__kind(n) != GV_DDICT) || !out)
    return gv__err(err, GV_EINVAL, "gv__dict_sorted needs a dict or defaultdict");
  GV__ATOMIC(a, gv__dict_sorted_in(a, n, out, err));
}
