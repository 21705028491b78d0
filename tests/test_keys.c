/* SPDX-License-Identifier: MIT */
/* test_keys.c -- the key order (keys.c): type-name order at every level of a
 * tuple key, Python equality through canonical twins, O(1) key checks, keys
 * that share their subtuples (a 2^63-leaf key compares in microseconds), keys
 * of two arenas, and the expanded size. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "support.h"

static const gv_node *I(gv_arena *a, int64_t v) {
  const gv_node *n;
  cr_assert_eq(gv_int(a, v, &n, NULL), GV_OK);
  return n;
}
static const gv_node *F(gv_arena *a, double v) {
  const gv_node *n;
  cr_assert_eq(gv_float(a, v, &n, NULL), GV_OK);
  return n;
}
static const gv_node *B(gv_arena *a, bool v) {
  const gv_node *n;
  cr_assert_eq(gv_bool(a, v, &n, NULL), GV_OK);
  return n;
}
static const gv_node *Y(gv_arena *a, const char *s) {
  const gv_node *n;
  cr_assert_eq(gv_bytes(a, s, strlen(s), &n, NULL), GV_OK);
  return n;
}
static const gv_node *T(gv_arena *a, const gv_node *const *kids, size_t n) {
  const gv_node *t;
  gv_error e;
  cr_assert_eq(gv_tuple(a, kids, n, &t, &e), GV_OK, "%s", e.msg);
  return t;
}
static const gv_node *T1(gv_arena *a, const gv_node *x) {
  return T(a, &x, 1);
}
static const gv_node *T2(gv_arena *a, const gv_node *x, const gv_node *y) {
  const gv_node *k[2] = {x, y};
  return T(a, k, 2);
}
/* T_0 = leaf, T_j = (T_{j-1}, T_{j-1}): 2^k leaves in k + 1 nodes. */
static const gv_node *doubling(gv_arena *a, const gv_node *leaf, int k) {
  const gv_node *t = leaf;
  for (int i = 0; i < k; i++)
    t = T2(a, t, t);
  return t;
}

static const char *order(gv_arena *a, const gv_node *const *keys, size_t n) {
  static char buf[512];
  const gv_node *vals[16], *d;
  for (size_t i = 0; i < n; i++)
    vals[i] = I(a, (int64_t)i);
  gv_error e;
  cr_assert_eq(gv_dict(a, keys, vals, n, &d, &e), GV_OK, "%s", e.msg);
  gv__sbuf b = {buf, sizeof buf, 0, 0};
  buf[0] = 0;
  for (size_t i = 0; i < n; i++) {
    if (i) gv__sbuf_puts(&b, " ");
    gv__sbuf_repr_key(&b, gv_key(d, gv_order_index(d, i)));
  }
  return buf;
}

Test(keys, type_name_order_at_every_level_of_a_tuple) {
  gv_arena *a = t_arena();
  /* the dict: bytes before int, as for top-level keys */
  const gv_node *k1[2] = {T1(a, I(a, 1)), T1(a, Y(a, "x"))};
  cr_assert_str_eq(order(a, k1, 2), "(b'x',) (1,)");
  const gv_node *top[2] = {I(a, 1), Y(a, "x")};
  cr_assert_str_eq(order(a, top, 2), "b'x' 1");
  /* nested */
  const gv_node *k2[2] = {T1(a, T1(a, I(a, 1))), T1(a, T1(a, Y(a, "x")))};
  cr_assert_str_eq(order(a, k2, 2), "((b'x',),) ((1,),)");
  /* bool < bytes < float < int when the elements are incomparable */
  const gv_node *k3[4] = {T1(a, I(a, 7)), T1(a, F(a, 0.5)), T1(a, Y(a, "z")), T1(a, B(a, true))};
  cr_assert_str_eq(order(a, k3, 4), "(True,) (b'z',) (0.5,) (7,)");
  /* numbers stay comparable with each other */
  const gv_node *k4[3] = {T1(a, I(a, 2)), T1(a, F(a, 1.5)), T1(a, B(a, false))};
  cr_assert_str_eq(order(a, k4, 3), "(False,) (1.5,) (2,)");
  /* equal first elements of different types: the next pair decides */
  const gv_node *k5[2] = {T2(a, I(a, 1), I(a, 2)), T2(a, B(a, true), Y(a, "x"))};
  cr_assert_str_eq(order(a, k5, 2), "(True, b'x') (1, 2)");
  /* a shorter prefix first */
  const gv_node *k6[2] = {T2(a, I(a, 1), I(a, 2)), T1(a, F(a, 1.0))};
  cr_assert_str_eq(order(a, k6, 2), "(1.0,) (1, 2)");
  gv_arena_free(a);
}

Test(keys, python_equal_tuple_keys_are_one_key) {
  gv_arena *a = t_arena();
  const gv_node *one = T1(a, I(a, 1)), *tru = T1(a, B(a, true)), *flo = T1(a, F(a, 1.0));
  cr_assert_neq(one, tru);
  cr_assert_neq(one, flo);
  cr_assert_eq(gv_key_cmp(one, tru), 0);
  cr_assert_eq(gv_key_cmp(flo, tru), 0);
  cr_assert_eq(gv_key_cmp(T1(a, F(a, -0.0)), T1(a, I(a, 0))), 0);
  cr_assert_neq(gv_key_cmp(T1(a, F(a, 1.5)), one), 0);
  /* the hash does not change: a twin is not part of a tuple's identity */
  cr_assert_neq(gv_hash(one), gv_hash(tru));
  const gv_node *keys[2] = {one, tru}, *vals[2] = {I(a, 0), I(a, 1)}, *d;
  gv_error e;
  cr_assert_eq(gv_dict(a, keys, vals, 2, &d, &e), GV_EKEY);
  cr_assert(strstr(e.msg, "repeated key"), "%s", e.msg);
  cr_assert_eq(gv_dict(a, keys, vals, 1, &d, &e), GV_OK);
  cr_assert_eq(gv_get(d, flo), vals[0]);
  cr_assert_eq(gv_get(d, tru), vals[0]);
  cr_assert_null(gv_get(d, T1(a, I(a, 2))));
  /* a big int-valued float becomes a boxed int in the twin */
  const gv_node *bigf = T1(a, F(a, 1e17)), *bigi = T1(a, I(a, 100000000000000000));
  cr_assert_eq(gv_key_cmp(bigf, bigi), 0);
  gv_arena_free(a);
}

Test(keys, key_checks_are_flags) {
  gv_arena *a = t_arena();
  const gv_node *h, *st, *l;
  cr_assert_eq(gv_handle(a, 5, &h, NULL), GV_OK);
  cr_assert_eq(gv_star(a, &st, NULL), GV_OK);
  cr_assert_eq(gv_list(a, NULL, 0, &l, NULL), GV_OK);
  cr_assert(gv_is_key(I(a, 1)));
  cr_assert(gv_is_key(F(a, NAN)));
  cr_assert_not(gv_is_key(h));
  cr_assert_not(gv_is_key(st));
  cr_assert_not(gv_is_key(l));
  cr_assert_not(gv_is_key(T1(a, h)));
  cr_assert_not(gv_is_key(T2(a, I(a, 1), l)));
  cr_assert_not(gv_is_key(NULL));
  /* nested at most GV_MAX_KEY_DEPTH deep */
  const gv_node *t = I(a, 1);
  for (int i = 0; i < GV_MAX_KEY_DEPTH; i++)
    t = T1(a, t);
  cr_assert(gv_is_key(t));
  cr_assert_not(gv_is_key(T1(a, t)));
  /* metadata nodes are not keys */
  const gv_node *keys[1] = {I(a, 1)}, *vals[1] = {I(a, 2)}, *d;
  cr_assert_eq(gv_dict(a, keys, vals, 1, &d, NULL), GV_OK);
  cr_assert_not(gv_is_key(gv_meta(d)));
  gv_arena_free(a);
}

/* The reproducer, through the C API: keys that share their own
 * subtuples. 2^63 leaves each; every check below is O(depth). */
Test(keys, shared_subtuples_compare_in_linear_time) {
  gv_arena *a = t_arena();
  const gv_node *x = doubling(a, I(a, 1), 63), *y = doubling(a, B(a, true), 63);
  const gv_node *z = doubling(a, F(a, 1.0), 63);
  cr_assert(gv_is_key(x));
  cr_assert(gv_is_key(y));
  cr_assert_eq(gv_key_cmp(x, y), 0);
  cr_assert_eq(gv_key_cmp(z, y), 0);
  /* one differing leaf at the far end */
  const gv_node *w =
      T2(a, doubling(a, I(a, 1), 62), T2(a, doubling(a, I(a, 1), 61), doubling(a, I(a, 2), 61)));
  cr_assert_lt(gv_key_cmp(y, w), 0);
  cr_assert_gt(gv_key_cmp(w, x), 0);
  /* a dict with two equal such keys: GV_EKEY, and the message is cut */
  const gv_node *keys[2] = {x, y}, *vals[2] = {I(a, 0), I(a, 1)}, *d;
  gv_error e;
  cr_assert_eq(gv_dict(a, keys, vals, 2, &d, &e), GV_EKEY);
  cr_assert(strncmp(e.msg, "repeated key ((((", 17) == 0, "%s", e.msg);
  size_t len = strlen(e.msg);
  cr_assert_eq(len, sizeof e.msg - 1);
  cr_assert_str_eq(e.msg + len - 3, "...");
  const gv_node *keys2[2] = {x, w};
  cr_assert_eq(gv_dict(a, keys2, vals, 2, &d, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_key(d, gv_order_index(d, 0)), x);
  cr_assert_eq(gv_get(d, y), vals[0]);
  cr_assert_eq(gv_get(d, z), vals[0]);
  gv_arena_free(a);
}

Test(keys, keys_of_two_arenas) {
  gv_arena *a = t_arena(), *b = t_arena();
  const gv_node *x = doubling(a, I(a, 1), 50), *y = doubling(b, B(b, true), 50);
  const gv_node *x2 = doubling(b, I(b, 1), 50);
  cr_assert_eq(gv_key_cmp(x, y), 0);
  cr_assert_eq(gv_key_cmp(x, x2), 0);
  const gv_node *w = T2(b, doubling(b, I(b, 1), 49), doubling(b, I(b, 2), 49));
  cr_assert_lt(gv_key_cmp(x, w), 0);
  cr_assert_gt(gv_key_cmp(w, x), 0);
  /* a dict of arena a looked up with a key of arena b */
  const gv_node *keys[2] = {x, T1(a, Y(a, "k"))}, *vals[2] = {I(a, 3), I(a, 4)}, *d;
  cr_assert_eq(gv_dict(a, keys, vals, 2, &d, NULL), GV_OK);
  cr_assert_eq(gv_get(d, y), vals[0]);
  cr_assert_eq(gv_get(d, T1(b, Y(b, "k"))), vals[1]);
  cr_assert_null(gv_get(d, w));
  gv_arena_free(a);
  gv_arena_free(b);
}

Test(keys, non_keys_sort_after_keys) {
  gv_arena *a = t_arena();
  const gv_node *h, *l;
  cr_assert_eq(gv_handle(a, 5, &h, NULL), GV_OK);
  cr_assert_eq(gv_list(a, NULL, 0, &l, NULL), GV_OK);
  cr_assert_lt(gv_key_cmp(I(a, 1), h), 0);
  cr_assert_gt(gv_key_cmp(l, T1(a, I(a, 1))), 0);
  cr_assert_neq(gv_key_cmp(l, h), 0);
  cr_assert_eq(gv_key_cmp(l, h), -gv_key_cmp(h, l));
  gv_arena_free(a);
}

Test(keys, expanded_size) {
  gv_arena *a = t_arena();
  /* [1, 'ab', {'k': 2}]: list 1, int 1, str 1 + 2 bytes, dict 1 + value 1 +
   * keyset (1 + 'k' 1 + 1 byte) */
  const gv_node *t = t_parse(a, "[1, 'ab', {'k': 2}]");
  cr_assert_eq(gv_expanded_size(t), 1 + 1 + 3 + (1 + 1 + 3));
  cr_assert_eq(gv_expanded_size(I(a, 5)), 1);
  cr_assert_eq(gv_expanded_size(NULL), 0);
  cr_assert_eq(gv_expanded_size(gv_meta(gv_child(t, 2))), 0);
  /* P(x=1): namedtuple 1 + value 1 + schema (1 + 'P' 2 + 'x' 2) */
  cr_assert_eq(gv_expanded_size(t_parse(a, "P(x=1)")), 1 + 1 + 5);
  /* deque([], maxlen=3): 1 + maxlen 1 */
  cr_assert_eq(gv_expanded_size(t_parse(a, "deque([], maxlen=3)")), 2);
  /* shared subtrees count once per occurrence, saturating */
  const gv_node *e;
  cr_assert_eq(gv_list(a, NULL, 0, &e, NULL), GV_OK);
  const gv_node *d = e;
  for (int i = 0; i < 63; i++) {
    const gv_node *two[2] = {d, d};
    cr_assert_eq(gv_list(a, two, 2, &d, NULL), GV_OK);
  }
  cr_assert_eq(gv_expanded_size(d), UINT64_MAX); /* 2^64 - 1 */
  cr_assert_eq(gv_num_leaves(d), 0);
  const gv_node *two[2] = {d, d};
  cr_assert_eq(gv_list(a, two, 2, &d, NULL), GV_OK);
  cr_assert_eq(gv_expanded_size(d), UINT64_MAX);
  gv_arena_free(a);
}

/* A fuzz_ops finding: in the type-name order (keys not all comparable) a
 * tuple compares as its first pair of children that are not the very same
 * value, and -0.0 against 0.0 compared equal there, so ((-0.0,), 2.0) and
 * ((0.0,), 1) were "equal": lookups missed and same_paths(t, structure(t))
 * failed. -0.0 now sorts before 0.0 in that order. */
Test(keys, typed_order_tells_signed_zeros_apart) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "{(1,): 'int', (b'x',): 'bytes', ((-0.0,), 2.0): 'm', "
                                "((0.0,), 1): 'p', (True, 2.5): 'b'}");
  for (size_t i = 0; i < gv_arity(t); i++)
    cr_assert_eq(gv_get(t, gv_key(t, i)), gv_child(t, i), "key %zu", i);
  const gv_node *s;
  gv_error e;
  cr_assert_eq(gv_structure(a, t, &s, NULL), GV_OK);
  cr_assert_eq(gv_same_paths(a, t, s, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_structure(a, t, s, &e), GV_OK, "%s", e.msg);
  /* the type-name order: bool < bytes < int < tuple first elements */
  cr_assert_str_eq(
      order(a,
            (const gv_node *const[]){t_parse(a, "((0.0,), 1)"), t_parse(a, "((-0.0,), 2.0)"),
                                     t_parse(a, "(b'x',)")},
            3),
      "(b'x',) ((-0.0,), 2.0) ((0.0,), 1)");
  gv_arena_free(a);
}
