/* SPDX-License-Identifier: MIT */
/* test_dag.c -- hostile DAGs: a few hundred bytes that describe a tree of 2^63
 * nodes. Every per-node pass runs in O(distinct nodes) (a test that regresses
 * hangs and hits the ctest timeout); the passes that follow the tree written
 * out refuse it past max_output. Also the error-message and wire fixes of the
 * same issue. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

static gv_arena *limited(uint64_t max_output) {
  gv_arena_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_output = max_output;
  gv_arena *a = NULL;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  return a;
}

/* The first reproducer: a dict whose key is T_k, T_j = (T_j-1, T_j-1). */
static size_t dict_key_wire(unsigned char *b, int k) {
  size_t n = 0;
  memcpy(b, "GRV\x01", 4);
  n = 4;
  b[n++] = (unsigned char)(k + 4);
  b[n++] = 0x04, b[n++] = 0x02; /* int 1 */
  for (int i = 0; i < k; i++)
    b[n++] = 0x11, b[n++] = 0x02, b[n++] = 0x00, b[n++] = 0x00; /* (prev, prev) */
  memcpy(b + n, "\x20\x01\x00\x01\x12\x01\x00", 7);             /* keyset, None, dict */
  return n + 7;
}

/* The second, as in the issue: L_0 = 1, L_j = [L_j-1, L_j-1] (2^63 leaves);
 * with empty_base, L_0 = [] (no leaf at all). */
static size_t list_bomb_wire(unsigned char *b, int k, int empty_base) {
  size_t n = 0;
  memcpy(b, "GRV\x01", 4);
  n = 4;
  b[n++] = (unsigned char)(k + 1);
  if (empty_base)
    b[n++] = 0x10, b[n++] = 0x00; /* [] */
  else
    b[n++] = 0x04, b[n++] = 0x02; /* 1 */
  for (int i = 0; i < k; i++)
    b[n++] = 0x10, b[n++] = 0x02, b[n++] = 0x00, b[n++] = 0x00;
  return n;
}

static const gv_node *pair_list(gv_arena *a, const gv_node *x) {
  const gv_node *two[2] = {x, x}, *l;
  cr_assert_eq(gv_list(a, two, 2, &l, NULL), GV_OK);
  return l;
}
static const gv_node *doubling_list(gv_arena *a, const gv_node *leaf, int k) {
  const gv_node *t = leaf;
  for (int i = 0; i < k; i++)
    t = pair_list(a, t);
  return t;
}

Test(dag, dict_key_sharing_its_subtuples_decodes_at_once) {
  gv_arena *a = t_arena();
  unsigned char w[600];
  size_t n = dict_key_wire(w, 63);
  cr_assert_lt(n, 300);
  const gv_node *d = NULL;
  gv_error e;
  cr_assert_eq(gv_decode(a, w, n, &d, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_kind(d), GV_DICT);
  const gv_node *k = gv_key(d, 0);
  cr_assert(gv_is_key(k));
  cr_assert_eq(gv_depth(k), 63);
  cr_assert_eq(gv_num_leaves(k), (uint64_t)1 << 63);
  /* re-encoded byte for byte, fingerprinted, ordered, compared */
  t_fixed out;
  out.len = 0;
  cr_assert_eq(gv_encode(a, d, t_fixed_sink, &out, &e), GV_OK);
  cr_assert_eq(out.len, n);
  cr_assert(memcmp(out.p, w, n) == 0);
  uint8_t fp[16];
  cr_assert_eq(gv_fingerprint(a, d, fp, &e), GV_OK);
  const gv_node *o;
  cr_assert_eq(gv_order(a, d, &o, NULL, &e), GV_OK);
  cr_assert_eq(o, d);
  cr_assert_eq(gv_same_structure(a, d, d, &e), GV_OK);
  gv_arena_free(a);
}

Test(dag, two_equal_shared_keys_are_a_repeated_key) {
  gv_arena *a = t_arena();
  /* records: 1, True, T_1..T_63 of 1, U_1..U_63 of True, keyset(T, U), None, None, dict */
  unsigned char w[1200];
  size_t n = 0;
  const int k = 63;
  memcpy(w, "GRV\x01", 4);
  n = 4;
  size_t nrec = 2 + 2 * (size_t)k + 4;
  w[n++] = (unsigned char)(0x80 | (nrec & 0x7f)), w[n++] = (unsigned char)(nrec >> 7);
  w[n++] = 0x04, w[n++] = 0x02; /* 1 */
  w[n++] = 0x03;                /* True */
  /* T_1 = (1, 1): refs back 1 (True) -> no: 1 is two back */
  w[n++] = 0x11, w[n++] = 0x02, w[n++] = 0x01, w[n++] = 0x01;
  for (int i = 1; i < k; i++)
    w[n++] = 0x11, w[n++] = 0x02, w[n++] = 0x00, w[n++] = 0x00;
  /* U_1 = (True, True): True is k + 1 records back */
  w[n++] = 0x11, w[n++] = 0x02, w[n++] = (unsigned char)k, w[n++] = (unsigned char)k;
  for (int i = 1; i < k; i++)
    w[n++] = 0x11, w[n++] = 0x02, w[n++] = 0x00, w[n++] = 0x00;
  /* keyset(T_k, U_k): T_k is k records back */
  w[n++] = 0x20, w[n++] = 0x02, w[n++] = (unsigned char)k, w[n++] = 0x00;
  w[n++] = 0x01, w[n++] = 0x01;                               /* None, None */
  w[n++] = 0x12, w[n++] = 0x02, w[n++] = 0x01, w[n++] = 0x00; /* dict */
  const gv_node *d = NULL;
  gv_error e;
  cr_assert_eq(gv_decode(a, w, n, &d, &e), GV_EWIRE, "%s", e.msg);
  cr_assert(strstr(e.msg, "repeated key ((((((("), "%s", e.msg);
  cr_assert_eq(strlen(e.msg), sizeof e.msg - 1);
  cr_assert_str_eq(e.msg + sizeof e.msg - 4, "...");
  gv_arena_free(a);
}

Test(dag, output_bomb_is_refused_before_any_output) {
  unsigned char w[600];
  size_t n = list_bomb_wire(w, 63, 0);
  gv_arena *a = limited(100000000);
  const gv_node *t = NULL, *r = NULL;
  gv_error e;
  cr_assert_eq(gv_decode(a, w, n, &t, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_num_leaves(t), (uint64_t)1 << 63);
  cr_assert_eq(gv_expanded_size(t), UINT64_MAX);
  size_t bytes = 0;
  cr_assert_eq(gv_print(a, t, t_count_bytes, &bytes, &e), GV_ERANGE);
  cr_assert_eq(bytes, 0);
  cr_assert(strstr(e.msg, "output too large"), "%s", e.msg);
  cr_assert(strstr(e.msg, "max_output is 100000000"), "%s", e.msg);
  cr_assert_eq(gv_print_json(a, t, t_count_bytes, &bytes, &e), GV_ERANGE);
  const char *s;
  size_t len;
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_print_str(a, t, false, &s, &len, &e), GV_ERANGE);
  size_t cnt = 0;
  cr_assert_eq(gv_walk_paths(a, t, t_count_paths, &cnt, &e), GV_ERANGE);
  cr_assert_eq(gv_flatten_with_path(a, t, &r, &e), GV_ERANGE);
  cr_assert_eq(gv_traverse(a, t, true, t_visit_keep, NULL, &r, &e), GV_ERANGE);
  cr_assert_eq(gv_map(a, t_map_first, NULL, &t, 1, true, &r, &e), GV_ERANGE);
  cr_assert_eq(gv_map_shape(a, t_map_first, NULL, t, &r, &e), GV_ERANGE);
  cr_assert_eq(gv_map_up_to(a, t, t_map_first, NULL, &t, 1, &r, &e), GV_ERANGE);
  cr_assert_eq(gv_pack_sequence_as(a, t, NULL, 0, &r, &e), GV_ECOUNT); /* 2^63 leaves */
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  /* the per-node passes need no limit */
  cr_assert_eq(gv_structure(a, t, &r, &e), GV_OK);
  cr_assert_eq(gv_lists_to_tuples(a, t, &r, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_kind(r), GV_TUPLE);
  cr_assert_eq(gv_depth(r), 63);
  cr_assert_eq(gv_same_paths(a, t, r, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_structure(a, t, r, &e), GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "expected list of 2 items, got tuple of 2 items");
  const gv_node *buf[1];
  cr_assert_eq(gv_flatten(t, buf, 1, &len, &e), GV_ERANGE);
  gv_arena_free(a);
  /* without a limit, a tree with no leaf has nothing for map to walk */
  a = t_arena();
  n = list_bomb_wire(w, 63, 1);
  cr_assert_eq(gv_decode(a, w, n, &t, &e), GV_OK);
  cr_assert_eq(gv_num_leaves(t), 0);
  cr_assert_eq(gv_flatten(t, buf, 0, &len, &e), GV_OK);
  cr_assert_eq(len, 0);
  cr_assert_eq(gv_map(a, t_map_first, NULL, &t, 1, true, &r, &e), GV_OK);
  cr_assert_eq(r, t);
  cr_assert_eq(gv_pack_sequence_as(a, t, NULL, 0, &r, &e), GV_OK);
  cr_assert_eq(r, t);
  gv_arena_free(a);
}

/* 2^63 leaves: structure, lists_to_tuples, order, the comparisons, wire. */
Test(dag, per_node_passes_are_linear_in_distinct_nodes) {
  gv_arena *a = t_arena(), *b = t_arena();
  const gv_node *one, *two, *star, *x, *y, *r, *s;
  gv_error e;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  cr_assert_eq(gv_int(b, 2, &two, NULL), GV_OK);
  cr_assert_eq(gv_star(a, &star, NULL), GV_OK);
  x = doubling_list(a, one, 63);
  y = doubling_list(b, two, 63);
  cr_assert_eq(gv_num_leaves(x), (uint64_t)1 << 63);
  cr_assert_eq(gv_structure(a, x, &s, &e), GV_OK);
  cr_assert_eq(s, doubling_list(a, star, 63));
  cr_assert_eq(gv_lists_to_tuples(a, x, &r, &e), GV_OK);
  cr_assert_eq(gv_depth(r), 63);
  cr_assert_eq(gv_same_structure(a, x, y, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_paths(a, x, y, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_paths(a, x, r, &e), GV_OK, "%s", e.msg);
  bool pre = false;
  cr_assert_eq(gv_is_prefix(a, s, x, &pre, &e), GV_OK);
  cr_assert(pre);
  /* a difference at the very end of one branch */
  const gv_node *z, *kids[2] = {doubling_list(a, one, 62), doubling_list(a, one, 61)};
  cr_assert_eq(gv_list(a, kids, 2, &z, NULL), GV_OK);
  cr_assert_eq(gv_same_structure(a, x, z, &e), GV_EMISMATCH);
  cr_assert(strstr(e.msg, "at (1, 0, 0, 0"), "%s", e.msg);
  cr_assert_eq(gv_same_paths(a, x, z, &e), GV_EMISMATCH);
  cr_assert(strstr(e.msg, "paths in a missing in b: [(1, 0, 0,"), "%s", e.msg);
  cr_assert_str_eq(e.msg + strlen(e.msg) - 3, "...");
  uint8_t f1[16], f2[16];
  cr_assert_eq(gv_fingerprint(a, x, f1, &e), GV_OK);
  const gv_node *x2 = doubling_list(b, one, 63); /* 1 is an immediate: fine in b */
  cr_assert_eq(gv_fingerprint(b, x2, f2, &e), GV_OK);
  cr_assert(memcmp(f1, f2, 16) == 0);
  /* dicts whose keys need sorting, shared at every level */
  const gv_node *kb = t_parse(a, "'b'"), *ka = t_parse(a, "'a'"), *d = one, *o;
  for (int i = 0; i < 63; i++) {
    const gv_node *keys[2] = {kb, ka}, *vals[2] = {d, d};
    cr_assert_eq(gv_dict(a, keys, vals, 2, &d, NULL), GV_OK);
  }
  bool changed = false;
  cr_assert_eq(gv_order(a, d, &o, &changed, &e), GV_OK, "%s", e.msg);
  cr_assert(changed);
  cr_assert(gv_flags(o) & GV_F_CANONICAL);
  const gv_node *want = one;
  for (int i = 0; i < 63; i++) {
    const gv_node *keys[2] = {ka, kb}, *vals[2] = {want, want};
    cr_assert_eq(gv_dict(a, keys, vals, 2, &want, NULL), GV_OK);
  }
  cr_assert_eq(o, want);
  gv_arena_free(a);
  gv_arena_free(b);
}

/* A chain of 100 levels, each [0, the level below], over a 0 at the bottom. */
static const gv_node *zero_chain(gv_arena *a) {
  const gv_node *t;
  cr_assert_eq(gv_int(a, 0, &t, NULL), GV_OK);
  for (int i = 0; i < 100; i++) {
    const gv_node *kids[2] = {t, t};
    cr_assert_eq(gv_int(a, 0, &kids[0], NULL), GV_OK);
    cr_assert_eq(gv_list(a, kids, 2, &t, NULL), GV_OK);
  }
  return t;
}

/* flatten_with_path counts the entries of the paths too: a chain of depth d
 * with a leaf at every level has d^2/2 of them. */
Test(dag, flatten_with_path_counts_path_entries) {
  gv_arena *a = limited(5000);
  const gv_node *t = zero_chain(a), *r;
  /* 201 nodes written out, 101 leaves, 100 * 101 / 2 + 100 = 5150 entries */
  cr_assert_eq(gv_expanded_size(t), 201);
  gv_error e;
  cr_assert_eq(gv_flatten_with_path(a, t, &r, &e), GV_ERANGE);
  size_t cnt = 0;
  cr_assert_eq(gv_walk_paths(a, t, t_count_paths, &cnt, &e), GV_OK);
  cr_assert_eq(cnt, 101);
  gv_arena_free(a);
  a = limited(6000);
  t = zero_chain(a);
  cr_assert_eq(gv_flatten_with_path(a, t, &r, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_arity(r), 101);
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * Messages and the wire
 * ------------------------------------------------------------------------- */

Test(dag, long_repeated_keys_end_with_dots) {
  gv_arena *a = t_arena();
  char big[1200];
  memset(big, 'k', sizeof big);
  const gv_node *k, *v, *d;
  cr_assert_eq(gv_str(a, big, sizeof big, &k, NULL), GV_OK);
  cr_assert_eq(gv_int(a, 1, &v, NULL), GV_OK);
  const gv_node *keys[2] = {k, k}, *vals[2] = {v, v};
  gv_error e;
  cr_assert_eq(gv_dict(a, keys, vals, 2, &d, &e), GV_EKEY);
  cr_assert_eq(strlen(e.msg), sizeof e.msg - 1);
  cr_assert_str_eq(e.msg + sizeof e.msg - 4, "...");
  /* the parser's inner buffer was 400 bytes */
  char text[3000];
  snprintf(text, sizeof text, "{'%.1200s': 1, '%.1200s': 2}", big, big);
  cr_assert_eq(gv_parse(a, text, strlen(text), &d, &e), GV_EKEY);
  cr_assert(strncmp(e.msg, "line 1, column ", 15) == 0, "%s", e.msg);
  cr_assert_eq(strlen(e.msg), sizeof e.msg - 1);
  cr_assert_str_eq(e.msg + sizeof e.msg - 4, "...");
  gv_arena_free(a);
}

Test(dag, json_error_path_is_cut_before_the_message) {
  gv_arena *a = t_arena();
  for (int depth = 200; depth <= 300; depth += 25) {
    const gv_node *t;
    cr_assert_eq(gv_bytes(a, "x", 1, &t, NULL), GV_OK);
    for (int i = 0; i < depth; i++)
      cr_assert_eq(gv_list(a, &t, 1, &t, NULL), GV_OK);
    size_t n = 0;
    gv_error e;
    cr_assert_eq(gv_print_json(a, t, t_count_bytes, &n, &e), GV_EINVAL);
    cr_assert(strncmp(e.msg, "at (0, 0, 0", 11) == 0, "%s", e.msg);
    cr_assert(strstr(e.msg, ", ...): bytes is not representable in JSON") ||
                  strstr(e.msg, "): bytes is not representable in JSON"),
              "depth %d: %s", depth, e.msg);
    const char *tail = "bytes is not representable in JSON";
    cr_assert_str_eq(e.msg + strlen(e.msg) - strlen(tail), tail);
  }
  gv_arena_free(a);
}

static gv_status fail_at_b(void *ctx, const gv_node *const *path, size_t depth,
                           const gv_node *leaf) {
  (void)ctx, (void)path, (void)depth;
  return gv_get_int(leaf) == 2 ? GV_EUSER + 3 : GV_OK;
}

Test(dag, walk_paths_reports_its_callback) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[{'a': 1, 'b': 2}]");
  gv_error e;
  memset(&e, 0, sizeof e);
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_walk_paths(a, t, fail_at_b, NULL, &e), GV_EUSER + 3);
  cr_assert_eq(e.status, GV_EUSER + 3);
  cr_assert_str_eq(e.msg, "at (0, 'b'): callback failed with status 67 (GV_EUSER)");
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  gv_arena_free(a);
}

Test(dag, deque_maxlen_int64_max_round_trips) {
  gv_arena *a = t_arena(), *b = t_arena();
  const gv_node *one, *d, *back;
  gv_error e;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  cr_assert_eq(gv_deque(a, &one, 1, INT64_MAX, &d, NULL), GV_OK);
  t_fixed w;
  w.len = 0;
  cr_assert_eq(gv_encode(a, d, t_fixed_sink, &w, &e), GV_OK);
  cr_assert_eq(gv_decode(b, w.p, w.len, &back, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_deque_maxlen(back), INT64_MAX);
  cr_assert_eq(gv_decode(a, w.p, w.len, &back, &e), GV_OK);
  cr_assert_eq(back, d);
  gv_arena_free(a);
  gv_arena_free(b);
}

/* The same_paths case: depth 16,000 with a leaf at every level took
 * 2.0 GB as one path tuple per leaf; as shared prefixes it is linear. */
Test(dag, same_paths_of_a_deep_chain_with_leaves_everywhere) {
  gv_arena *a = t_arena();
  const gv_node *x, *y, *z;
  gv_error e;
  cr_assert_eq(gv_int(a, 0, &x, NULL), GV_OK);
  cr_assert_eq(gv_int(a, 1, &y, NULL), GV_OK);
  const gv_node *zero = x, *one = y, *prev = x;
  for (int i = 0; i < 16000; i++) {
    const gv_node *kx[2] = {zero, x}, *ky[2] = {one, y};
    prev = x;
    cr_assert_eq(gv_list(a, kx, 2, &x, NULL), GV_OK);
    cr_assert_eq(gv_tuple(a, ky, 2, &y, NULL), GV_OK);
  }
  cr_assert_eq(gv_same_paths(a, x, y, &e), GV_OK, "%s", e.msg);
  const gv_node *kz[3] = {zero, prev, one}; /* x with one more leaf at the top */
  cr_assert_eq(gv_list(a, kz, 3, &z, NULL), GV_OK);
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_same_paths(a, z, x, &e), GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "don't have the same paths: paths in a missing in b: [(2,)]; paths "
                          "in b missing in a: []");
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after), "same_paths wrote the arena");
  gv_arena_free(a);
}
