/* SPDX-License-Identifier: MIT */
/* test_cross.c -- nodes of two arenas compared by value (keys.c, access.c,
 * compare.c, transform.c): the family T_k = (T_{k-1}, S_k, T_{k-1}), S_k a
 * tuple of 200 new pairs, whose key tuples repeat every subtuple twice per
 * level. Walked child by child it doubles per level (k = 30: 2^30 walks of
 * T_0); every comparison across arenas must answer it in time linear in its
 * distinct nodes. Built directly in two arenas, through the wire, and in a
 * child of a frozen parent; every function that compares nodes of two arenas
 * is asked (no timing is asserted: the test only ends if they are linear). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "support.h"

#define K_MAX 30

static const gv_node *I(gv_arena *a, int64_t v) {
  const gv_node *n;
  cr_assert_eq(gv_int(a, v, &n, NULL), GV_OK);
  return n;
}
static const gv_node *S(gv_arena *a, const char *s) {
  const gv_node *n;
  cr_assert_eq(gv_str(a, s, strlen(s), &n, NULL), GV_OK);
  return n;
}
static const gv_node *T(gv_arena *a, const gv_node *const *kids, size_t n) {
  const gv_node *t;
  gv_error e;
  cr_assert_eq(gv_tuple(a, kids, n, &t, &e), GV_OK, "%s", e.msg);
  return t;
}
static const gv_node *T2(gv_arena *a, const gv_node *x, const gv_node *y) {
  const gv_node *k[2] = {x, y};
  return T(a, k, 2);
}
static const gv_node *D(gv_arena *a, const gv_node *const *keys, const gv_node *const *vals,
                        size_t n) {
  const gv_node *d;
  gv_error e;
  cr_assert_eq(gv_dict(a, keys, vals, n, &d, &e), GV_OK, "%s", e.msg);
  return d;
}

/* S_l: 200 pairs (l, j), new at each level. */
static const gv_node *level(gv_arena *a, int l) {
  const gv_node *s[200];
  for (int j = 0; j < 200; j++)
    s[j] = T2(a, I(a, l), I(a, j));
  return T(a, s, 200);
}

/* fam[k] = T_k with T_0 = (leaf,); last: the last T_{k-1} of each level is
 * instead built from last_leaf (so V_k differs from T_k only at its last
 * leaf when last_leaf differs from leaf). */
static void family(gv_arena *a, const gv_node *leaf, const gv_node *last_leaf,
                   const gv_node **fam) {
  const gv_node *t = T(a, &leaf, 1), *v = T(a, &last_leaf, 1);
  fam[0] = v;
  for (int l = 1; l <= K_MAX; l++) {
    const gv_node *sl = level(a, l);
    const gv_node *kt[3] = {t, sl, t}, *kv[3] = {t, sl, v};
    v = T(a, kv, 3);
    t = T(a, kt, 3);
    fam[l] = v;
  }
}

typedef struct buf {
  char *p;
  size_t n, cap;
} buf;
static gv_status sink(void *ctx, const char *d, size_t n) {
  buf *b = ctx;
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2;
    b->p = realloc(b->p, b->cap);
    cr_assert_not_null(b->p);
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
  return GV_OK;
}
/* n of arena a encoded and decoded into b. */
static const gv_node *via_wire(gv_arena *a, gv_arena *b, const gv_node *n) {
  buf w = {NULL, 0, 0};
  gv_error e;
  cr_assert_eq(gv_encode(a, n, sink, &w, &e), GV_OK, "%s", e.msg);
  const gv_node *out;
  cr_assert_eq(gv_decode(b, w.p, w.n, &out, &e), GV_OK, "%s", e.msg);
  free(w.p);
  return out;
}

static const gv_node *copy(gv_arena *dst, const gv_node *n) {
  const gv_node *out;
  gv_error e;
  cr_assert_eq(gv_copy(dst, n, &out, &e), GV_OK, "%s", e.msg);
  return out;
}

static gv_status plus_one(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                          const gv_node **out) {
  (void)ctx;
  int64_t s = 0;
  for (size_t i = 0; i < n; i++)
    s += gv_get_int(v[i]);
  return gv_int(a, s, out, NULL);
}

/* Every comparison of x (arena a) with y (another arena) when they are the
 * same key: as keys, as dict keys, inside custom nodes' metadata. */
static void check_equal(gv_arena *a, gv_arena *b, const gv_node *x, const gv_node *y) {
  gv_error e;
  cr_assert(gv_is_key(x) && gv_is_key(y));
  cr_assert_eq(gv_key_cmp(x, y), 0);
  cr_assert_eq(gv_key_cmp(y, x), 0);
  /* dicts {x: 1, 'a': 2} and {y: 1, 'a': 2} (mixed keysets: the typed order) */
  const gv_node *ka[2] = {x, S(a, "a")}, *va[2] = {I(a, 1), I(a, 2)};
  const gv_node *kb[2] = {y, S(b, "a")}, *vb[2] = {I(b, 1), I(b, 2)};
  const gv_node *da = D(a, ka, va, 2), *db = D(b, kb, vb, 2);
  cr_assert_eq(gv_get(da, y), va[0]);
  cr_assert_eq(gv_get(db, x), vb[0]);
  /* and a dict of tuple keys only (the natural order): {(x, 1): 1, (x, 'z'): 2} */
  const gv_node *kn[2] = {T2(a, x, I(a, 1)), T2(a, x, S(a, "z"))};
  const gv_node *dn = D(a, kn, va, 2);
  cr_assert_eq(gv_get(dn, T2(b, y, I(b, 1))), va[0]);
  cr_assert_eq(gv_get(dn, T2(b, y, S(b, "z"))), va[1]);
  cr_assert_lt(gv_key_cmp(T2(a, x, I(a, 1)), T2(b, y, S(b, "z"))), 0); /* int < str */
  cr_assert_eq(gv_same_structure(a, da, db, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_structure(b, db, da, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_paths(a, da, db, &e), GV_OK, "%s", e.msg);
  bool r = false;
  cr_assert_eq(gv_is_prefix(a, da, db, &r, &e), GV_OK, "%s", e.msg);
  cr_assert(r);
  /* custom nodes whose metadata and keys are x and y */
  const gv_node *ca, *cb, *ch = I(a, 5);
  cr_assert_eq(gv_custom(a, S(a, "C"), &x, &ch, 1, x, &ca, &e), GV_OK, "%s", e.msg);
  ch = I(b, 5);
  cr_assert_eq(gv_custom(b, S(b, "C"), &y, &ch, 1, y, &cb, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_structure(a, ca, cb, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_paths(a, ca, cb, &e), GV_OK, "%s", e.msg);
  /* map of two trees of two arenas: pairs children by key */
  const gv_node *trees[2] = {da, db}, *out;
  cr_assert_eq(gv_map(a, plus_one, NULL, trees, 2, false, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_get_int(gv_get(out, x)), 2);
  cr_assert_eq(gv_get_int(gv_get(out, S(a, "a"))), 4);
  cr_assert_eq(gv_map_up_to(a, da, plus_one, NULL, trees, 2, &out, &e), GV_OK, "%s", e.msg);
  /* copies land on the node the destination has */
  cr_assert_eq(copy(a, y), x);
  cr_assert_eq(copy(b, da), db);
}

/* x and y differ at their last leaf only. */
static void check_unequal(gv_arena *a, gv_arena *b, const gv_node *x, const gv_node *y, int sign) {
  gv_error e;
  cr_assert_eq(gv_key_cmp(x, y) > 0 ? 1 : -1, sign);
  cr_assert_eq(gv_key_cmp(y, x) > 0 ? 1 : -1, -sign);
  const gv_node *ka[2] = {x, S(a, "a")}, *va[2] = {I(a, 1), I(a, 2)};
  const gv_node *kb[2] = {y, S(b, "a")}, *vb[2] = {I(b, 1), I(b, 2)};
  const gv_node *da = D(a, ka, va, 2), *db = D(b, kb, vb, 2);
  cr_assert_null(gv_get(da, y));
  cr_assert_null(gv_get(db, x));
  cr_assert_eq(gv_same_structure(a, da, db, &e), GV_EMISMATCH);
  cr_assert(strstr(e.msg, "dictionary key mismatch"), "%s", e.msg);
  cr_assert_eq(gv_same_paths(a, da, db, &e), GV_EMISMATCH);
  bool r = true;
  cr_assert_eq(gv_is_prefix(a, da, db, &r, &e), GV_OK, "%s", e.msg);
  cr_assert_not(r);
  const gv_node *ca, *cb, *ch = I(a, 5);
  cr_assert_eq(gv_custom(a, S(a, "C"), NULL, &ch, 1, x, &ca, &e), GV_OK, "%s", e.msg);
  ch = I(b, 5);
  cr_assert_eq(gv_custom(b, S(b, "C"), NULL, &ch, 1, y, &cb, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_structure(a, ca, cb, &e), GV_EMISMATCH);
  cr_assert(strstr(e.msg, "custom node data mismatch"), "%s", e.msg);
  const gv_node *trees[2] = {da, db}, *out;
  cr_assert_eq(gv_map(a, plus_one, NULL, trees, 2, false, &out, &e), GV_EMISMATCH);
  cr_assert_neq(copy(a, y), x);
}

/* T_k of arena a against arena b's, every k, the T's equal and the V's
 * (last leaf 1, not 0) greater. */
static void check_family(gv_arena *a, gv_arena *b, const gv_node *const *ta,
                         const gv_node *const *tb, const gv_node *const *vb) {
  for (int k = 0; k <= K_MAX; k++) {
    check_equal(a, b, ta[k], tb[k]);
    check_unequal(a, b, ta[k], vb[k], -1);
  }
}

Test(cross, family_built_in_two_arenas) {
  gv_arena *a = t_arena(), *b = t_arena();
  const gv_node *ta[K_MAX + 1], *tb[K_MAX + 1], *vb[K_MAX + 1];
  family(a, I(a, 0), I(a, 0), ta);
  family(b, I(b, 0), I(b, 0), tb);
  family(b, I(b, 0), I(b, 1), vb);
  check_family(a, b, ta, tb, vb);
  gv_arena_free(a);
  gv_arena_free(b);
}

/* As the issue found it: the key decoded from the wire into a second arena. */
Test(cross, family_through_the_wire) {
  gv_arena *a = t_arena(), *src = t_arena(), *b = t_arena();
  const gv_node *ta[K_MAX + 1], *ts[K_MAX + 1], *vs[K_MAX + 1], *tb[K_MAX + 1], *vb[K_MAX + 1];
  family(a, I(a, 0), I(a, 0), ta);
  family(src, I(src, 0), I(src, 0), ts);
  family(src, I(src, 0), I(src, 1), vs);
  for (int k = 0; k <= K_MAX; k++) {
    tb[k] = via_wire(src, b, ts[k]);
    vb[k] = via_wire(src, b, vs[k]);
  }
  check_family(a, b, ta, tb, vb);
  gv_arena_free(a);
  gv_arena_free(src);
  gv_arena_free(b);
}

/* Keys with True where the other side has 1: equal in Python, compared
 * through their canonical twins (and different as the same value: is_prefix
 * and same_paths compare entries by identity). */
Test(cross, family_through_canonical_twins) {
  gv_arena *a = t_arena(), *b = t_arena();
  const gv_node *ta[K_MAX + 1], *tb[K_MAX + 1], *t;
  family(a, I(a, 1), I(a, 1), ta);
  cr_assert_eq(gv_bool(b, true, &t, NULL), GV_OK);
  family(b, t, t, tb);
  for (int k = 0; k <= K_MAX; k += 5) {
    cr_assert_eq(gv_key_cmp(ta[k], tb[k]), 0);
    const gv_node *v = I(a, 7), *d = D(a, &ta[k], &v, 1);
    cr_assert_eq(gv_get(d, tb[k]), v);
    const gv_node *w = I(b, 7), *db = D(b, &tb[k], &w, 1);
    gv_error e;
    cr_assert_eq(gv_same_structure(a, d, db, &e), GV_OK, "%s", e.msg);
    cr_assert_eq(gv_same_paths(a, d, db, &e), GV_EMISMATCH); /* 1 and True: two entries */
  }
  gv_arena_free(a);
  gv_arena_free(b);
}

/* A child of a frozen parent that holds T_k's lower levels compares with a
 * third arena the same way. */
Test(cross, family_in_a_child_arena) {
  gv_arena *p = t_arena(), *b = t_arena();
  const gv_node *tp[K_MAX + 1], *tb[K_MAX + 1], *vb[K_MAX + 1];
  family(p, I(p, 0), I(p, 0), tp);
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  gv_arena_config cfg = {0};
  cfg.parent = p;
  gv_arena *c;
  cr_assert_eq(gv_arena_new(&cfg, &c), GV_OK);
  family(b, I(b, 0), I(b, 0), tb);
  family(b, I(b, 0), I(b, 1), vb);
  /* the child's T_k are its parent's; dicts of them are the child's own */
  check_family(c, b, tp, tb, vb);
  gv_arena_free(p);
  gv_arena_free(c);
  gv_arena_free(b);
}

/* A reader whose allocator fails while it compares keys of two arenas says
 * GV_ENOMEM (never a wrong answer), and so does a writer over its budget. */
Test(cross, out_of_memory_is_an_error_not_an_answer) {
  t_hook h = {0};
  gv_allocator al = {t_hook_realloc, &h};
  gv_arena_config cfg = {0};
  cfg.alloc = &al;
  gv_arena *a, *b = t_arena();
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *ta[K_MAX + 1], *tb[K_MAX + 1];
  family(a, I(a, 0), I(a, 0), ta);
  family(b, I(b, 0), I(b, 0), tb);
  const gv_node *one = I(a, 1), *da = D(a, &ta[K_MAX], &one, 1);
  one = I(b, 1);
  const gv_node *db = D(b, &tb[K_MAX], &one, 1);
  int oom = 0, ok = 0;
  for (long n = 1; n < 64; n++) {
    h.armed = 1;
    h.calls = 0;
    h.fail_at = n;
    gv_error e;
    gv_status s = gv_same_structure(a, da, db, &e);
    gv_status p = gv_same_paths(a, da, db, &e);
    h.armed = 0;
    cr_assert(s == GV_OK || s == GV_ENOMEM, "%d %s", s, e.msg);
    cr_assert(p == GV_OK || p == GV_ENOMEM, "%d %s", p, e.msg);
    oom += s == GV_ENOMEM;
    ok += s == GV_OK;
  }
  cr_assert_gt(oom, 0);
  cr_assert_gt(ok, 0);
  gv_arena_free(a);
  gv_arena_free(b);
}

/* Metadata that is not a key (a list holding one list twice, 60 times over, each time below
 * 30 lists of one: 1,860 deep, 2^60 leaves) compares by value across arenas too. */
Test(cross, deep_shared_metadata) {
  gv_arena *a = t_arena(), *b = t_arena();
  const gv_node *ma = I(a, 0), *mb = I(b, 0), *mc = I(b, 0);
  for (int i = 0; i < 60; i++) {
    const gv_node *ka[2] = {ma, ma}, *kb[2] = {mb, mb}, *kc[2] = {mc, i == 0 ? I(b, 1) : mc};
    cr_assert_eq(gv_list(a, ka, 2, &ma, NULL), GV_OK);
    cr_assert_eq(gv_list(b, kb, 2, &mb, NULL), GV_OK);
    cr_assert_eq(gv_list(b, kc, 2, &mc, NULL), GV_OK);
    for (int j = 0; j < 30; j++) {
      cr_assert_eq(gv_list(a, &ma, 1, &ma, NULL), GV_OK);
      cr_assert_eq(gv_list(b, &mb, 1, &mb, NULL), GV_OK);
      cr_assert_eq(gv_list(b, &mc, 1, &mc, NULL), GV_OK);
    }
  }
  const gv_node *ca, *cb, *cc, *ch = I(a, 5);
  gv_error e;
  cr_assert_eq(gv_custom(a, S(a, "C"), NULL, &ch, 1, ma, &ca, &e), GV_OK, "%s", e.msg);
  ch = I(b, 5);
  cr_assert_eq(gv_custom(b, S(b, "C"), NULL, &ch, 1, mb, &cb, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_custom(b, S(b, "C"), NULL, &ch, 1, mc, &cc, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_structure(a, ca, cb, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_structure(a, ca, cc, &e), GV_EMISMATCH);
  cr_assert(strstr(e.msg, "custom node data mismatch"), "%s", e.msg);
  const gv_node *trees[2] = {ca, cb}, *out;
  cr_assert_eq(gv_map(a, plus_one, NULL, trees, 2, false, &out, &e), GV_OK, "%s", e.msg);
  gv_arena_free(a);
  gv_arena_free(b);
}

/* Host-ordered dicts may have handles as keys; a handle of 2^56 or more is
 * allocated, so its equal of another arena is another node: looked up and
 * compared by value. */
Test(cross, big_handles_as_keys) {
  gv_arena *a = t_arena(), *b = t_arena();
  const gv_node *ka[2], *kb[2], *v[2] = {I(a, 1), I(a, 2)}, *d;
  uint32_t order[2] = {1, 0};
  for (int i = 0; i < 2; i++) {
    cr_assert_eq(gv_handle(a, ((uint64_t)1 << 60) + (uint64_t)i, &ka[i], NULL), GV_OK);
    cr_assert_eq(gv_handle(b, ((uint64_t)1 << 60) + (uint64_t)i, &kb[i], NULL), GV_OK);
    cr_assert_neq(ka[i], kb[i]);
  }
  cr_assert_eq(gv_dict_ordered(a, ka, v, 2, order, &d, NULL), GV_OK);
  cr_assert_eq(gv_get(d, kb[0]), v[0]);
  cr_assert_eq(gv_get(d, kb[1]), v[1]);
  cr_assert_eq(gv_key_cmp(ka[1], kb[1]), 0);
  cr_assert_neq(gv_key_cmp(ka[0], kb[1]), 0);
  cr_assert_eq(gv_key_cmp(ka[0], kb[1]), -gv_key_cmp(kb[1], ka[0]));
  const gv_node *db;
  cr_assert_eq(gv_copy(b, d, &db, NULL), GV_OK);
  gv_error e;
  cr_assert_eq(gv_same_structure(a, d, db, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_paths(a, d, db, &e), GV_OK, "%s", e.msg);
  gv_arena_free(a);
  gv_arena_free(b);
}
