/* SPDX-License-Identifier: MIT */
/* test_node.c -- constructors, interning, keysets and the key order, flags. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "support.h"

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
static const gv_node *F(gv_arena *a, double v) {
  const gv_node *n;
  cr_assert_eq(gv_float(a, v, &n, NULL), GV_OK);
  return n;
}

/* The keys of d in traversal order, printed with the key repr. */
static void order_of(gv_arena *a, const gv_node *const *keys, size_t n, const char *expect) {
  const gv_node *vals[16], *d;
  for (size_t i = 0; i < n; i++)
    vals[i] = I(a, (int64_t)i);
  gv_error e;
  cr_assert_eq(gv_dict(a, keys, vals, n, &d, &e), GV_OK, "%s", e.msg);
  char buf[256];
  gv__sbuf b = {buf, sizeof buf, 0, 0};
  buf[0] = 0;
  for (size_t i = 0; i < n; i++) {
    if (i) gv__sbuf_puts(&b, " ");
    gv__sbuf_repr_key(&b, gv_key(d, gv_order_index(d, i)));
  }
  cr_assert_str_eq(buf, expect);
}

Test(node, leaves_are_interned) {
  gv_arena *a = t_arena();
  cr_assert_eq(I(a, 5), I(a, 5));
  cr_assert_neq(I(a, 5), I(a, 6));
  cr_assert_eq(S(a, "x"), S(a, "x"));
  cr_assert_eq(F(a, NAN), F(a, -NAN));
  cr_assert_neq(F(a, 0.0), F(a, -0.0));
  const gv_node *t, *f, *n1, *n2, *s1, *s2;
  cr_assert_eq(gv_bool(a, true, &t, NULL), GV_OK);
  cr_assert_eq(gv_bool(a, false, &f, NULL), GV_OK);
  cr_assert_neq(t, f);
  cr_assert_neq(t, I(a, 1)); /* True and 1 are different leaves */
  cr_assert_eq(gv_none(a, &n1, NULL), GV_OK);
  cr_assert_eq(gv_none(a, &n2, NULL), GV_OK);
  cr_assert_eq(n1, n2);
  cr_assert_eq(gv_star(a, &s1, NULL), GV_OK);
  cr_assert_eq(gv_star(a, &s2, NULL), GV_OK);
  cr_assert_eq(s1, s2);
  cr_assert(gv_flags(s1) & GV_F_STRUCTURE);
  cr_assert(gv_flags(n1) & GV_F_HAS_NONE);
  gv_arena_free(a);
}

/* None, bool, *, and ints, floats and handles that fit are immediates: no
 * allocation, equal values equal words, the same hash and accessors as an
 * allocated leaf, and a value is either always or never immediate. */
Test(node, immediate_leaves) {
  gv_arena *a = t_arena();
  t_snapshot s0 = t_snap(a);
  const int64_t edge = INT64_C(1) << 55;
  const gv_node *lo = I(a, -edge), *hi = I(a, edge - 1), *z = I(a, 0), *one = F(a, 1.0);
  const gv_node *nan = F(a, NAN), *h, *nn, *t, *st;
  cr_assert_eq(gv_handle(a, (UINT64_C(1) << 56) - 1, &h, NULL), GV_OK);
  cr_assert_eq(gv_none(a, &nn, NULL), GV_OK);
  cr_assert_eq(gv_bool(a, true, &t, NULL), GV_OK);
  cr_assert_eq(gv_star(a, &st, NULL), GV_OK);
  t_snapshot s1 = t_snap(a);
  cr_assert_eq(s1.st.nodes, s0.st.nodes, "immediates made %zu nodes", s1.st.nodes);
  cr_assert_eq(s1.st.bytes_used, s0.st.bytes_used);
  cr_assert_eq(gv_get_int(lo), -edge);
  cr_assert_eq(gv_get_int(hi), edge - 1);
  cr_assert_eq(gv_get_int(z), 0);
  cr_assert_eq(gv_get_float(one), 1.0);
  cr_assert(isnan(gv_get_float(nan)));
  cr_assert_eq(gv_get_handle(h), (UINT64_C(1) << 56) - 1);
  cr_assert(gv_get_bool(t));
  cr_assert_eq(gv_kind(nn), GV_NONE);
  cr_assert_eq(gv_kind(st), GV_STAR);
  cr_assert_eq(gv_kind(one), GV_FLOAT);
  cr_assert_eq(gv_num_leaves(z), 1);
  cr_assert_eq(gv_arity(z), 0);
  cr_assert(gv_is_leaf(z) && !gv_is_nested(z));
  cr_assert_eq(gv_flags(nn), GV_F_CANONICAL | GV_F_HAS_NONE);
  /* just past the edges: allocated, still exact, still interned */
  const gv_node *lo1 = I(a, -edge - 1), *hi1 = I(a, edge), *third = F(a, 1.0 / 3.0), *h1;
  cr_assert_eq(gv_handle(a, UINT64_C(1) << 56, &h1, NULL), GV_OK);
  t_snapshot s2 = t_snap(a);
  cr_assert_eq(s2.st.nodes, s1.st.nodes + 4);
  cr_assert_eq(gv_get_int(lo1), -edge - 1);
  cr_assert_eq(gv_get_int(hi1), edge);
  cr_assert_eq(gv_get_float(third), 1.0 / 3.0);
  cr_assert_eq(gv_get_handle(h1), UINT64_C(1) << 56);
  cr_assert_eq(I(a, edge), hi1);
  cr_assert_eq(F(a, 1.0 / 3.0), third);
  /* the same hash as the stable definition gives any scalar */
  cr_assert_eq(gv_hash(I(a, 1)), UINT64_C(0x7cc0b427921c644a));
  cr_assert_neq(gv_hash(hi), gv_hash(hi1));
  /* containers take them like any leaf */
  const gv_node *kids[3] = {lo, hi1, nn}, *l;
  cr_assert_eq(gv_list(a, kids, 3, &l, NULL), GV_OK);
  cr_assert_eq(gv_child(l, 0), lo);
  cr_assert_eq(gv_num_leaves(l), 3);
  cr_assert(gv_flags(l) & GV_F_HAS_NONE);
  cr_assert_str_eq(t_repr(a, l), "[-36028797018963968, 36028797018963968, None]");
  gv_arena_free(a);
}

/* Words that are not nodes are refused, not read. */
Test(node, bad_immediate_words_refused) {
  gv_arena *a = t_arena();
  const gv_node *bad[] = {(const gv_node *)(uintptr_t)1u,               /* kind 0 */
                          (const gv_node *)(uintptr_t)((9u << 1) | 1u), /* a container kind */
                          (const gv_node *)(uintptr_t)((5u << 8) | (GV_BOOL << 1) | 1u)};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    const gv_node *l;
    gv_error e;
    cr_assert_eq(gv_list(a, &bad[i], 1, &l, &e), GV_EINVAL, "word %zu", i);
  }
  /* a NaN other than the one gv_float makes: it would be a second NaN leaf */
  const gv_node *nan2 = (const gv_node *)(uintptr_t)(UINT64_C(0xFFF8000000000000) |
                                                     (GV_FLOAT << 1) | 1u),
                *l;
  cr_assert_eq(gv_list(a, &nan2, 1, &l, NULL), GV_EINVAL);
  /* a word claiming to be a str is never read as one */
  const gv_node *str = (const gv_node *)(uintptr_t)((GV_STR << 1) | 1u);
  cr_assert_eq(gv_kind(str), GV_INVALID);
  cr_assert_null(gv_get_str(str, NULL));
  const char *out;
  size_t len;
  cr_assert_eq(gv_print_str(a, str, false, &out, &len, NULL), GV_EINVAL);
  gv_arena_free(a);
}

/* A shuffled keyset whose sorted twin exists takes its order from the twin;
 * the result is the same as sorting would give, and keys that only equal the
 * twin's in value (1 vs 1.0) still go through the sort. */
Test(node, keyset_order_from_twin) {
  gv_arena *a = t_arena();
  enum { N = 40 };
  const gv_node *k[N], *v[N], *d0, *d1, *d2;
  char buf[8];
  for (int i = 0; i < N; i++) {
    snprintf(buf, sizeof buf, "k%02d", i);
    k[i] = S(a, buf);
    v[i] = I(a, i);
  }
  cr_assert_eq(gv_dict(a, k, v, N, &d0, NULL), GV_OK); /* sorted: the twin */
  cr_assert(gv_keyset_sorted(gv_meta(d0)));
  for (int r = 0; r < 2; r++) {
    const gv_node *sk[N], *sv[N];
    for (int i = 0; i < N; i++) {
      int j = (i * 7 + r * 3) % N; /* a permutation: 7 and 40 are coprime */
      sk[i] = k[j];
      sv[i] = v[j];
    }
    cr_assert_eq(gv_dict(a, sk, sv, N, r ? &d2 : &d1, NULL), GV_OK);
  }
  for (const gv_node *d = d1;; d = d2) {
    cr_assert(!gv_keyset_sorted(gv_meta(d)));
    cr_assert_eq(gv_keyset_twin(gv_meta(d)), gv_meta(d0));
    for (size_t i = 0; i < N; i++) {
      cr_assert_eq(gv_key(d, gv_order_index(d, i)), k[i], "key %zu", i);
      cr_assert_eq(gv_child(d, gv_order_index(d, i)), v[i]);
    }
    const gv_node *o;
    cr_assert_eq(gv_order(a, d, &o, NULL, NULL), GV_OK);
    cr_assert_eq(o, d0);
    if (d == d2) break;
  }
  /* a repeated key among otherwise matching keys: found by the sort */
  const gv_node *rk[N], *dd;
  memcpy(rk, k, sizeof rk);
  rk[0] = k[5];
  rk[5] = k[0];
  rk[7] = k[5];
  gv_error e;
  cr_assert_eq(gv_dict(a, rk, v, N, &dd, &e), GV_EKEY);
  cr_assert(strstr(e.msg, "repeated key 'k05'"), "%s", e.msg);
  /* int keys, and 1.0 in place of 1: the same set by value, another keyset */
  const gv_node *ik[N], *fk[N], *di, *df;
  for (int i = 0; i < N; i++)
    ik[i] = fk[N - 1 - i] = I(a, i);
  fk[N - 2] = F(a, 1.0);
  cr_assert_eq(gv_dict(a, ik, v, N, &di, NULL), GV_OK);
  cr_assert_eq(gv_dict(a, fk, v, N, &df, NULL), GV_OK);
  cr_assert_neq(gv_keyset_twin(gv_meta(df)), gv_meta(di));
  cr_assert_eq(gv_key(df, gv_order_index(df, 1)), fk[N - 2]);
  cr_assert_eq(gv_key(df, gv_order_index(df, 2)), I(a, 2));
  gv_arena_free(a);
}

Test(node, scalars_read_back) {
  gv_arena *a = t_arena();
  cr_assert_eq(gv_get_int(I(a, INT64_MIN)), INT64_MIN);
  cr_assert_eq(gv_get_float(F(a, 2.5)), 2.5);
  const gv_node *h, *b;
  cr_assert_eq(gv_handle(a, 17, &h, NULL), GV_OK);
  cr_assert_eq(gv_get_handle(h), 17);
  cr_assert_eq(gv_bytes(a, "\0\1", 2, &b, NULL), GV_OK);
  size_t len;
  const unsigned char *p = gv_get_bytes(b, &len);
  cr_assert_eq(len, 2);
  cr_assert_eq(p[1], 1);
  cr_assert_str_eq(gv_get_str(S(a, "héllo"), &len), "héllo");
  cr_assert_eq(len, 6);
  gv_arena_free(a);
}

Test(node, null_tolerant_accessors) {
  cr_assert_eq(gv_kind(NULL), GV_INVALID);
  cr_assert_eq(gv_arity(NULL), 0);
  cr_assert_null(gv_child(NULL, 0));
  cr_assert_null(gv_key(NULL, 0));
  cr_assert_eq(gv_num_leaves(NULL), 0);
  cr_assert_eq(gv_depth(NULL), 0);
  cr_assert_eq(gv_hash(NULL), 0);
  cr_assert_eq(gv_flags(NULL), 0);
  cr_assert(!gv_is_nested(NULL));
  cr_assert(!gv_is_leaf(NULL));
  cr_assert_null(gv_get_str(NULL, NULL));
  cr_assert_null(gv_meta(NULL));
  cr_assert_eq(gv_deque_maxlen(NULL), -1);
  cr_assert_null(gv_get(NULL, NULL));
  gv_arena *a = t_arena();
  cr_assert_null(gv_child(I(a, 1), 0));
  cr_assert_eq(gv_get_int(S(a, "x")), 0);
  gv_arena_free(a);
}

Test(node, invalid_utf8_rejected) {
  gv_arena *a = t_arena();
  const gv_node *n;
  gv_error e;
  const char *bad[] = {"\xff", "\xc0\x80", "\xed\xa0\x80" /* surrogate */, "a\xe2\x82",
                       "\xf4\x90\x80\x80"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    t_snapshot s0 = t_snap(a);
    cr_assert_eq(gv_str(a, bad[i], strlen(bad[i]), &n, &e), GV_EINVAL, "case %zu", i);
    cr_assert(strstr(e.msg, "UTF-8"));
    t_snapshot s1 = t_snap(a);
    cr_assert(t_snap_eq(&s0, &s1));
  }
  cr_assert_eq(gv_str(a, "\xf0\x9f\x98\x80", 4, &n, &e), GV_OK);
  gv_arena_free(a);
}

Test(node, same_tree_twice_is_same_pointer_and_no_new_bytes) {
  gv_arena *a = t_arena();
  const gv_node *roots[2];
  t_snapshot after_first;
  for (int r = 0; r < 2; r++) {
    const gv_node *keys[3] = {S(a, "b"), S(a, "a"), S(a, "c")}, *vals[3], *inner[2], *l, *d;
    inner[0] = I(a, 1);
    inner[1] = F(a, 2.5);
    cr_assert_eq(gv_list(a, inner, 2, &l, NULL), GV_OK);
    vals[0] = l;
    vals[1] = I(a, 3);
    vals[2] = S(a, "z");
    cr_assert_eq(gv_dict(a, keys, vals, 3, &d, NULL), GV_OK);
    cr_assert_eq(gv_tuple(a, &d, 1, &roots[r], NULL), GV_OK);
    if (r == 0) after_first = t_snap(a);
  }
  t_snapshot after_second = t_snap(a);
  cr_assert_eq(roots[0], roots[1]);
  cr_assert_eq(after_first.st.bytes_reserved, after_second.st.bytes_reserved);
  cr_assert_eq(after_first.st.nodes, after_second.st.nodes);
  cr_assert_gt(after_second.st.hits, after_first.st.hits);
  gv_arena_free(a);
}

Test(node, kinds_with_same_children_differ) {
  gv_arena *a = t_arena();
  const gv_node *kids[2] = {I(a, 1), I(a, 2)}, *l, *t, *d0, *d1;
  cr_assert_eq(gv_list(a, kids, 2, &l, NULL), GV_OK);
  cr_assert_eq(gv_tuple(a, kids, 2, &t, NULL), GV_OK);
  cr_assert_neq(l, t);
  cr_assert_neq(gv_hash(l), gv_hash(t));
  cr_assert_eq(gv_deque(a, kids, 2, -1, &d0, NULL), GV_OK);
  cr_assert_eq(gv_deque(a, kids, 2, 3, &d1, NULL), GV_OK);
  cr_assert_neq(d0, d1);
  cr_assert_eq(gv_deque_maxlen(d1), 3);
  cr_assert_eq(gv_deque_maxlen(d0), -1);
  gv_arena_free(a);
}

Test(node, hash_is_stable) {
  /* pinned: the Merkle hash is a content address and must not drift */
  gv_arena *a = t_arena();
  const gv_node *kids[2] = {I(a, 1), S(a, "a")}, *l;
  cr_assert_eq(gv_list(a, kids, 2, &l, NULL), GV_OK);
  gv_arena_config cfg = {0, 0, NULL, 12345, 0, NULL};
  gv_arena *b;
  cr_assert_eq(gv_arena_new(&cfg, &b), GV_OK);
  const gv_node *k2[2] = {I(b, 1), S(b, "a")}, *l2;
  cr_assert_eq(gv_list(b, k2, 2, &l2, NULL), GV_OK);
  cr_assert_eq(gv_hash(l), gv_hash(l2), "hash depends on the arena");
  cr_assert_eq(gv_hash(I(a, 1)), UINT64_C(0x7cc0b427921c644a), "int 1 hash %llx",
               (unsigned long long)gv_hash(I(a, 1)));
  gv_arena_free(a);
  gv_arena_free(b);
}

Test(node, key_order_natural) {
  gv_arena *a = t_arena();
  const gv_node *k1[3] = {S(a, "b"), S(a, "a"), S(a, "ab")};
  order_of(a, k1, 3, "'a' 'ab' 'b'");
  const gv_node *k2[3] = {I(a, 100), I(a, 6), I(a, -1)};
  order_of(a, k2, 3, "-1 6 100");
  const gv_node *t, *f;
  cr_assert_eq(gv_bool(a, true, &t, NULL), GV_OK);
  cr_assert_eq(gv_bool(a, false, &f, NULL), GV_OK);
  const gv_node *k3[4] = {F(a, 2.5), I(a, 2), t, F(a, -0.5)}; /* numbers together */
  order_of(a, k3, 4, "-0.5 True 2 2.5");
  const gv_node *p1[2] = {I(a, 1), I(a, 2)}, *p2[2] = {I(a, 1), I(a, 1)}, *p3[1] = {I(a, 1)};
  const gv_node *t1, *t2, *t3;
  cr_assert_eq(gv_tuple(a, p1, 2, &t1, NULL), GV_OK);
  cr_assert_eq(gv_tuple(a, p2, 2, &t2, NULL), GV_OK);
  cr_assert_eq(gv_tuple(a, p3, 1, &t3, NULL), GV_OK);
  const gv_node *k4[3] = {t1, t2, t3};
  order_of(a, k4, 3, "(1,) (1, 1) (1, 2)");
  (void)f;
  gv_arena_free(a);
}

Test(node, key_order_mixed_types_by_type_name) {
  gv_arena *a = t_arena();
  const gv_node *none, *by, *t, *tup;
  cr_assert_eq(gv_none(a, &none, NULL), GV_OK);
  cr_assert_eq(gv_bytes(a, "z", 1, &by, NULL), GV_OK);
  cr_assert_eq(gv_bool(a, true, &t, NULL), GV_OK);
  const gv_node *one = I(a, 1);
  cr_assert_eq(gv_tuple(a, &one, 1, &tup, NULL), GV_OK);
  /* NoneType < bool < bytes < float < int < str < tuple */
  const gv_node *k[7] = {tup, S(a, "s"), I(a, 5), F(a, 9.5), by, t, none};
  order_of(a, k, 7, "None True b'z' 9.5 5 's' (1,)");
  const gv_node *k2[3] = {S(a, "a"), I(a, 10), I(a, 2)};
  order_of(a, k2, 3, "2 10 'a'");
  gv_arena_free(a);
}

Test(node, repeated_keys_are_errors) {
  gv_arena *a = t_arena();
  const gv_node *t, *d, *v[3] = {I(a, 0), I(a, 1), I(a, 2)};
  cr_assert_eq(gv_bool(a, true, &t, NULL), GV_OK);
  gv_error e;
  const gv_node *k1[2] = {S(a, "a"), S(a, "a")};
  t_snapshot s0 = t_snap(a);
  cr_assert_eq(gv_dict(a, k1, v, 2, &d, &e), GV_EKEY);
  cr_assert(strstr(e.msg, "repeated key"), "%s", e.msg);
  t_snapshot s1 = t_snap(a);
  cr_assert(t_snap_eq(&s0, &s1));
  const gv_node *k2[3] = {I(a, 1), S(a, "x"), t}; /* 1 == True in Python */
  cr_assert_eq(gv_dict(a, k2, v, 3, &d, &e), GV_EKEY);
  const gv_node *k3[2] = {I(a, 2), F(a, 2.0)};
  cr_assert_eq(gv_dict(a, k3, v, 2, &d, &e), GV_EKEY);
  const gv_node *lst;
  cr_assert_eq(gv_list(a, NULL, 0, &lst, NULL), GV_OK);
  const gv_node *k4[1] = {lst};
  cr_assert_eq(gv_dict(a, k4, v, 1, &d, &e), GV_EINVAL);
  gv_arena_free(a);
}

Test(node, keysets_shared_and_twins) {
  gv_arena *a = t_arena();
  const gv_node *kb[2] = {S(a, "b"), S(a, "a")}, *ka[2] = {S(a, "a"), S(a, "b")};
  const gv_node *v1[2] = {I(a, 1), I(a, 2)}, *v2[2] = {I(a, 3), I(a, 4)};
  const gv_node *d1, *d2, *d3;
  cr_assert_eq(gv_dict(a, kb, v1, 2, &d1, NULL), GV_OK);
  cr_assert_eq(gv_dict(a, kb, v2, 2, &d2, NULL), GV_OK);
  cr_assert_eq(gv_dict(a, ka, v1, 2, &d3, NULL), GV_OK);
  cr_assert_eq(gv_meta(d1), gv_meta(d2));
  cr_assert(!gv_keyset_sorted(gv_meta(d1)));
  cr_assert(gv_keyset_sorted(gv_meta(d3)));
  cr_assert_eq(gv_keyset_twin(gv_meta(d1)), gv_meta(d3));
  cr_assert_eq(gv_keyset_twin(gv_meta(d3)), gv_meta(d3));
  cr_assert(!(gv_flags(d1) & GV_F_CANONICAL));
  cr_assert(gv_flags(d3) & GV_F_CANONICAL);
  cr_assert_eq(gv_get(d1, S(a, "a")), I(a, 2));
  cr_assert_eq(gv_get(d1, S(a, "b")), I(a, 1));
  cr_assert_null(gv_get(d1, S(a, "c")));
  cr_assert_eq(gv_order_index(d1, 0), 1);
  /* OrderedDict order is its own: always canonical at its level */
  const gv_node *od;
  cr_assert_eq(gv_odict(a, kb, v1, 2, &od, NULL), GV_OK);
  cr_assert(gv_flags(od) & GV_F_CANONICAL);
  cr_assert_eq(gv_order_index(od, 0), 0);
  gv_arena_free(a);
}

Test(node, flags_and_counts) {
  gv_arena *a = t_arena();
  const gv_node *n, *e0, *sh, *nsh, *l, *t;
  cr_assert_eq(gv_none(a, &n, NULL), GV_OK);
  cr_assert_eq(gv_tuple(a, NULL, 0, &e0, NULL), GV_OK);
  cr_assert(gv_flags(e0) & GV_F_SHAPE);
  cr_assert(gv_flags(e0) & GV_F_STRUCTURE);
  const gv_node *k[3] = {I(a, 2), n, I(a, 3)};
  cr_assert_eq(gv_tuple(a, k, 3, &sh, NULL), GV_OK);
  cr_assert(gv_flags(sh) & GV_F_SHAPE);
  const gv_node *k2[2] = {I(a, 1), F(a, 2.0)};
  cr_assert_eq(gv_tuple(a, k2, 2, &nsh, NULL), GV_OK);
  cr_assert(!(gv_flags(nsh) & GV_F_SHAPE));
  cr_assert(!(gv_flags(sh) & GV_F_HAS_LIST));
  const gv_node *k3[2] = {sh, e0};
  cr_assert_eq(gv_list(a, k3, 2, &l, NULL), GV_OK);
  cr_assert(gv_flags(l) & GV_F_HAS_LIST);
  cr_assert_eq(gv_tuple(a, &l, 1, &t, NULL), GV_OK);
  cr_assert(gv_flags(t) & GV_F_HAS_LIST);
  cr_assert_eq(gv_num_leaves(t), 3);
  cr_assert_eq(gv_depth(t), 3);
  cr_assert_eq(gv_num_leaves(e0), 0);
  cr_assert_eq(gv_depth(e0), 1);
  cr_assert(gv_is_nested(e0));
  cr_assert(!gv_is_nested(n));
  gv_arena_free(a);
}

Test(node, namedtuple_and_custom) {
  gv_arena *a = t_arena();
  const gv_node *f[2] = {S(a, "x"), S(a, "y")}, *v[2] = {I(a, 1), I(a, 2)}, *p, *p2, *bad;
  gv_error e;
  cr_assert_eq(gv_namedtuple(a, S(a, "Point"), f, v, 2, &p, &e), GV_OK);
  cr_assert_eq(gv_namedtuple(a, S(a, "Point"), f, v, 2, &p2, &e), GV_OK);
  cr_assert_eq(p, p2);
  size_t len;
  cr_assert_str_eq(gv_type_name(p, &len), "Point");
  cr_assert_eq(gv_field_name(p, 1), S(a, "y"));
  const gv_node *dup[2] = {S(a, "x"), S(a, "x")};
  cr_assert_eq(gv_namedtuple(a, S(a, "Point"), dup, v, 2, &bad, &e), GV_EKEY);
  cr_assert_eq(gv_namedtuple(a, S(a, "deque"), f, v, 2, &bad, &e), GV_EINVAL);
  cr_assert_eq(gv_namedtuple(a, S(a, "1x"), f, v, 2, &bad, &e), GV_EINVAL);
  const gv_node *c1, *c2, *ck, *keys[2] = {S(a, "b"), S(a, "a")};
  cr_assert_eq(gv_custom(a, S(a, "Tracked"), NULL, v, 2, NULL, &c1, &e), GV_OK);
  cr_assert_eq(gv_custom(a, S(a, "Tracked"), NULL, v, 2, I(a, 9), &c2, &e), GV_OK);
  cr_assert_neq(c1, c2);
  cr_assert_eq(gv_custom_meta(c2), I(a, 9));
  cr_assert_null(gv_custom_meta(c1));
  cr_assert_eq(gv_custom(a, S(a, "TD"), keys, v, 2, NULL, &ck, &e), GV_OK);
  cr_assert(gv_custom_keyed(ck));
  cr_assert_eq(gv_key(ck, 0), S(a, "b"));
  cr_assert_eq(gv_order_index(ck, 0), 0); /* custom: the order given */
  cr_assert_eq(gv_get(ck, S(a, "a")), I(a, 2));
  const gv_node *kt, *ck2;
  cr_assert_eq(gv_tuple(a, keys, 2, &kt, NULL), GV_OK);
  cr_assert_eq(gv_custom_meta(ck), kt);
  cr_assert_eq(gv_custom(a, S(a, "TD"), keys, v, 2, kt, &ck2, &e), GV_OK);
  cr_assert_eq(ck2, ck); /* explicit default metadata is the default */
  gv_arena_free(a);
}

Test(node, depth_limit) {
  gv_arena_config cfg = {0, 10, NULL, 0, 0, NULL};
  gv_arena *a;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *n = I(a, 0);
  gv_error e;
  gv_status s = GV_OK;
  int i;
  for (i = 0; i < 20 && s == GV_OK; i++)
    s = gv_list(a, &n, 1, &n, &e);
  cr_assert_eq(s, GV_EDEPTH);
  cr_assert_eq(i, 11);
  cr_assert_eq(gv_depth(n), 10);
  gv_arena_free(a);
}

Test(node, rebuild_keeps_metadata) {
  gv_arena *a = t_arena();
  const gv_node *keys[2] = {S(a, "b"), S(a, "a")}, *v[2] = {I(a, 1), I(a, 2)}, *d, *r;
  cr_assert_eq(gv_ddict(a, S(a, "list"), keys, v, 2, &d, NULL), GV_OK);
  const gv_node *w[2] = {I(a, 5), I(a, 6)};
  cr_assert_eq(gv_rebuild(a, d, w, &r, NULL), GV_OK);
  cr_assert_eq(gv_kind(r), GV_DDICT);
  cr_assert_eq(gv_ddict_factory(r), S(a, "list"));
  cr_assert_eq(gv_meta(r), gv_meta(d));
  cr_assert_eq(gv_child(r, 0), I(a, 5));
  cr_assert_eq(gv_rebuild(a, I(a, 1), w, &r, NULL), GV_EINVAL);
  gv_arena_free(a);
}

/* gv_get finds a key by Python equality, also where the keyset mixes types
 * (and so ranks bool < float < int before comparing values). */
Test(node, get_matches_python_equal_keys) {
  gv_arena *a = t_arena();
  const gv_node *plain = t_parse(a, "{1: 'one', 2.5: 'x', 3: 'three'}");
  const gv_node *mixed = t_parse(a, "{1: 'one', 'a': 'A', 2.5: 'x', None: 'n', False: 'f'}");
  const gv_node *tr, *fl1, *fl3, *one, *none;
  cr_assert_eq(gv_bool(a, true, &tr, NULL), GV_OK);
  cr_assert_eq(gv_float(a, 1.0, &fl1, NULL), GV_OK);
  cr_assert_eq(gv_float(a, 3.0, &fl3, NULL), GV_OK);
  cr_assert_eq(gv_none(a, &none, NULL), GV_OK);
  one = I(a, 1);
  size_t len;
  cr_assert_str_eq(gv_get_str(gv_get(plain, fl1), &len), "one");
  cr_assert_str_eq(gv_get_str(gv_get(plain, tr), &len), "one");
  cr_assert_str_eq(gv_get_str(gv_get(plain, fl3), &len), "three");
  cr_assert_str_eq(gv_get_str(gv_get(mixed, one), &len), "one");
  cr_assert_str_eq(gv_get_str(gv_get(mixed, fl1), &len), "one");
  cr_assert_str_eq(gv_get_str(gv_get(mixed, tr), &len), "one");
  cr_assert_str_eq(gv_get_str(gv_get(mixed, I(a, 0)), &len), "f");
  cr_assert_str_eq(gv_get_str(gv_get(mixed, F(a, 0.0)), &len), "f");
  cr_assert_str_eq(gv_get_str(gv_get(mixed, F(a, 2.5)), &len), "x");
  cr_assert_str_eq(gv_get_str(gv_get(mixed, S(a, "a")), &len), "A");
  cr_assert_str_eq(gv_get_str(gv_get(mixed, none), &len), "n");
  cr_assert_null(gv_get(mixed, I(a, 2)));
  cr_assert_null(gv_get(mixed, S(a, "b")));
  gv_arena_free(a);
}
