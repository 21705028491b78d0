/* SPDX-License-Identifier: MIT */
/* test_misuse.c -- what callers get wrong: every public function given every
 * node of an arena (metadata nodes included: GV_EINVAL where a value is
 * expected, never a crash), marks of another arena or gone stale, nodes of one
 * arena used in another, and comparisons across arenas. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "support.h"

/* Every node kind: keysets, schemas and ctypes come with them. */
static const char *const RICH =
    "[{'b': 1, 'a': [2, 3]}, (4, 5.5, None, True), OrderedDict({'z': b'x', 'y': &7}), "
    "defaultdict(list, {3: 'three', 1: *}), P(x=1, y=(2, 'q')), deque([1, [2]], maxlen=4), "
    "C({'k': [1], 'j': 2}, meta=('m', 1)), D([1, 2]), E([]), {(True, (1.0,)): 1, (b'k',): 2}, "
    "[], {}, (), 1e300, -7, 'long string', 123456789012345678]";

static gv_status f_const(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                         const gv_node **out) {
  (void)a, (void)v, (void)n;
  *out = ctx;
  return GV_OK;
}
static gv_status t_replace(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                           const gv_node **rep) {
  (void)a, (void)node;
  *act = GV_VISIT_REPLACE;
  *rep = ctx;
  return GV_OK;
}

/* Expects GV_EINVAL for a metadata node, else one of the allowed statuses. */
#define EXPECT(call, ok1, ok2)                                                                     \
  do {                                                                                             \
    gv_status s_ = (call);                                                                         \
    if (meta)                                                                                      \
      cr_assert_eq(s_, GV_EINVAL, "%s on node %zu (%s): %s", #call, i, tn, gv_status_name(s_));    \
    else                                                                                           \
      cr_assert(s_ == GV_OK || s_ == (ok1) || s_ == (ok2), "%s on node %zu (%s): %s %s", #call, i, \
                tn, gv_status_name(s_), e.msg);                                                    \
  } while (0)

Test(misuse, every_public_function_on_every_node) {
  gv_arena *a = t_arena();
  const gv_node *root = t_parse(a, RICH), *one = t_parse(a, "1"), *lst = t_parse(a, "[1]");
  const gv_node *tname = t_parse(a, "'T'");
  gv_stats st;
  gv_arena_stats(a, &st);
  size_t nmeta = 0;
  for (size_t i = 0; i < st.nodes; i++) {
    const gv_node *n = gv_arena_node_at(a, i), *out = NULL;
    cr_assert_not_null(n);
    gv_node_kind k = gv_kind(n);
    int meta = k == GV_KEYSET || k == GV_SCHEMA || k == GV_CTYPE;
    nmeta += (size_t)meta;
    const char *tn = gv_type_name(n, NULL);
    gv_error e;
    e.msg[0] = '\0';
    /* accessors: any answer, no crash */
    (void)gv_arity(n), (void)gv_child(n, 0), (void)gv_key(n, 0), (void)gv_order_index(n, 0);
    (void)gv_depth(n), (void)gv_hash(n), (void)gv_flags(n), (void)gv_get_bool(n);
    (void)gv_get_int(n), (void)gv_get_float(n), (void)gv_get_handle(n);
    (void)gv_get_str(n, NULL), (void)gv_get_bytes(n, NULL), (void)gv_meta(n);
    (void)gv_ddict_factory(n), (void)gv_deque_maxlen(n), (void)gv_field_name(n, 0);
    (void)gv_custom_meta(n), (void)gv_custom_keyed(n), (void)gv_keyset_sorted(n);
    (void)gv_keyset_twin(n), (void)gv_get(n, one), (void)gv_get(root, n);
    (void)gv_key_cmp(n, one), (void)gv_key_cmp(one, n), (void)gv_key_cmp(n, n);
    if (meta) {
      cr_assert_eq(gv_num_leaves(n), 0);
      cr_assert_eq(gv_expanded_size(n), 0);
      cr_assert_not(gv_is_nested(n));
      cr_assert_not(gv_is_leaf(n));
      cr_assert_not(gv_is_key(n));
    }
    /* flatten and friends */
    const gv_node *buf[64];
    size_t cnt = 0;
    if (gv_num_leaves(n) <= 64) EXPECT(gv_flatten(n, buf, 64, &cnt, &e), GV_OK, GV_OK);
    cr_assert(meta || gv_flatten(n, buf, 0, &cnt, &e) == (gv_num_leaves(n) ? GV_ERANGE : GV_OK));
    EXPECT(gv_structure(a, n, &out, &e), GV_OK, GV_OK);
    cnt = 0;
    EXPECT(gv_walk_paths(a, n, t_count_paths, &cnt, &e), GV_OK, GV_OK);
    EXPECT(gv_flatten_with_path(a, n, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_pack_sequence_as(a, n, buf, 0, &out, &e), GV_ECOUNT, GV_ECOUNT);
    cr_assert_eq(gv_pack_sequence_as(a, lst, &n, 1, &out, &e), meta ? GV_EINVAL : GV_OK);
    /* transforms */
    EXPECT(gv_traverse(a, n, true, t_visit_keep, NULL, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_traverse(a, n, false, t_visit_keep, NULL, &out, &e), GV_OK, GV_OK);
    cr_assert_eq(gv_traverse(a, lst, true, t_replace, (void *)n, &out, &e),
                 meta ? GV_EINVAL : GV_OK);
    EXPECT(gv_map(a, t_map_first, NULL, &n, 1, true, &out, &e), GV_OK, GV_OK);
    const gv_node *two[2] = {n, n};
    EXPECT(gv_map(a, t_map_first, NULL, two, 2, false, &out, &e), GV_OK, GV_OK);
    cr_assert_eq(gv_map(a, f_const, (void *)n, &lst, 1, true, &out, &e), meta ? GV_EINVAL : GV_OK);
    EXPECT(gv_map_up_to(a, n, t_map_first, NULL, &n, 1, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_map_up_to(a, one, t_map_first, NULL, &n, 1, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_map_shape(a, t_map_first, NULL, n, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_lists_to_tuples(a, n, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_order(a, n, &out, NULL, &e), GV_OK, GV_OK);
    /* compare */
    bool pre;
    EXPECT(gv_same_structure(a, n, n, &e), GV_OK, GV_OK);
    EXPECT(gv_same_structure(a, n, lst, &e), GV_EMISMATCH, GV_EMISMATCH);
    EXPECT(gv_same_structure(a, lst, n, &e), GV_EMISMATCH, GV_EMISMATCH);
    EXPECT(gv_same_paths(a, n, n, &e), GV_OK, GV_OK);
    EXPECT(gv_same_paths(a, n, lst, &e), GV_EMISMATCH, GV_EMISMATCH);
    EXPECT(gv_same_paths(a, lst, n, &e), GV_EMISMATCH, GV_EMISMATCH);
    EXPECT(gv_is_prefix(a, n, n, &pre, &e), GV_OK, GV_OK);
    EXPECT(gv_is_prefix(a, lst, n, &pre, &e), GV_OK, GV_OK);
    EXPECT(gv_is_prefix(a, n, lst, &pre, &e), GV_OK, GV_OK);
    /* text and wire */
    size_t len = 0;
    const char *str;
    EXPECT(gv_print(a, n, t_count_bytes, &len, &e), GV_OK, GV_OK);
    EXPECT(gv_print_json(a, n, t_count_bytes, &len, &e), GV_EINVAL, GV_EINVAL);
    EXPECT(gv_print_str(a, n, false, &str, &len, &e), GV_OK, GV_OK);
    EXPECT(gv_encode(a, n, t_count_bytes, &len, &e), GV_OK, GV_OK);
    uint8_t fp[16];
    EXPECT(gv_fingerprint(a, n, fp, &e), GV_OK, GV_OK);
    /* as a part of a new node */
    EXPECT(gv_list(a, &n, 1, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_tuple(a, &n, 1, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_deque(a, &n, 1, 2, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_dict(a, &one, &n, 1, &out, &e), GV_OK, GV_OK);
    EXPECT(gv_dict(a, &n, &one, 1, &out, &e), GV_EINVAL, GV_EINVAL); /* non-keys */
    EXPECT(gv_odict(a, &n, &one, 1, &out, &e), GV_EINVAL, GV_EINVAL);
    EXPECT(gv_ddict(a, n, &one, &one, 1, &out, &e), GV_EINVAL, GV_EINVAL);
    EXPECT(gv_namedtuple(a, n, &n, &one, 1, &out, &e), GV_EINVAL, GV_EINVAL);
    EXPECT(gv_custom(a, n, NULL, &one, 1, NULL, &out, &e), GV_EINVAL, GV_EINVAL);
    cr_assert_eq(gv_custom(a, tname, NULL, &one, 1, n, &out, &e), meta ? GV_EINVAL : GV_OK);
    if (gv_is_nested(n) || meta) {
      const gv_node *kids[64];
      size_t ar = gv_arity(n) < 64 ? gv_arity(n) : 0;
      for (size_t j = 0; j < ar; j++)
        kids[j] = gv_child(n, j);
      if (gv_arity(n) < 64) EXPECT(gv_rebuild(a, n, kids, &out, &e), GV_OK, GV_OK);
    }
  }
  cr_assert_gt(nmeta, 5, "keysets, schemas and ctypes were listed");
  gv_arena_free(a);
}

Test(misuse, metadata_crashes_of_the_issue) {
  gv_arena *a = t_arena();
  const gv_node *d = t_parse(a, "{'a': 1}"), *c = t_parse(a, "C({'k': 1})");
  const gv_node *ks = gv_meta(d), *ct = gv_meta(c), *out;
  const gv_node *buf[1];
  size_t n = 99;
  gv_error e;
  /* gv_num_leaves said 1 and gv_flatten wrote 3 pointers into a 1-slot buffer */
  cr_assert_eq(gv_num_leaves(ks), 0);
  cr_assert_eq(gv_flatten(ks, buf, 1, &n, &e), GV_EINVAL);
  cr_assert_eq(n, 0);
  size_t cnt = 0;
  cr_assert_eq(gv_walk_paths(a, ct, t_count_paths, &cnt, &e), GV_EINVAL);
  cr_assert(strstr(e.msg, "not a value node"), "%s", e.msg);
  cr_assert_eq(gv_flatten_with_path(a, ct, &out, &e), GV_EINVAL);
  cr_assert_eq(gv_same_paths(a, ct, d, &e), GV_EINVAL);
  cr_assert_eq(gv_same_paths(a, ct, ct, &e), GV_EINVAL);
  gv_arena_free(a);
}

Test(misuse, marks_of_another_arena_or_stale_are_refused) {
  gv_arena *a = t_arena(), *b = t_arena();
  t_parse(a, "[1, 2, 'x']");
  for (int i = 0; i < 1000; i++) {
    char t[32];
    snprintf(t, sizeof t, "['b%d']", i);
    t_parse(b, t);
  }
  gv_mark mb = gv_arena_mark(b);
  t_snapshot sa = t_snap(a);
  /* the issue: stats went to nodes=0, used=8000056 */
  cr_assert_eq(gv_arena_rollback(a, &mb), GV_EINVAL);
  t_snapshot sa2 = t_snap(a);
  cr_assert(t_snap_eq(&sa, &sa2));
  gv_mark zero;
  memset(&zero, 0, sizeof zero);
  cr_assert_eq(gv_arena_rollback(a, &zero), GV_EINVAL);
  cr_assert_eq(gv_arena_rollback(a, NULL), GV_EINVAL);
  cr_assert_eq(gv_arena_rollback(NULL, &mb), GV_EINVAL);
  /* nested marks: inner then outer, and the same mark twice */
  gv_mark m1 = gv_arena_mark(a);
  t_snapshot s1 = t_snap(a);
  t_parse(a, "['one']");
  gv_mark m2 = gv_arena_mark(a);
  t_snapshot s2 = t_snap(a);
  t_parse(a, "['two']");
  cr_assert_eq(gv_arena_rollback(a, &m2), GV_OK);
  t_snapshot now = t_snap(a);
  cr_assert(t_snap_eq(&now, &s2));
  t_parse(a, "['three']");
  cr_assert_eq(gv_arena_rollback(a, &m2), GV_OK);
  cr_assert_eq(gv_arena_rollback(a, &m1), GV_OK);
  now = t_snap(a);
  cr_assert(t_snap_eq(&now, &s1));
  /* m2 went stale with the rollback to m1, even once the arena grew again */
  t_parse(a, "['four', 'five', 'six', 'seven']");
  t_snapshot s3 = t_snap(a);
  cr_assert_eq(gv_arena_rollback(a, &m2), GV_EINVAL);
  now = t_snap(a);
  cr_assert(t_snap_eq(&now, &s3));
  /* an edited mark does not fit */
  gv_mark bad = gv_arena_mark(a);
  bad.nodes += 5;
  cr_assert_eq(gv_arena_rollback(a, &bad), GV_EINVAL);
  bad = gv_arena_mark(a);
  bad.chunk = (const void *)&bad;
  cr_assert_eq(gv_arena_rollback(a, &bad), GV_EINVAL);
  now = t_snap(a);
  cr_assert(t_snap_eq(&now, &s3));
  /* failed operations roll back on their own; an outer mark stays good */
  gv_mark m3 = gv_arena_mark(a);
  const gv_node *o;
  for (int i = 0; i < 40; i++)
    cr_assert_eq(gv_parse(a, "[1, 'unterminated", 17, &o, NULL), GV_EPARSE);
  t_parse(a, "['eight']");
  cr_assert_eq(gv_arena_rollback(a, &m3), GV_OK);
  now = t_snap(a);
  cr_assert(t_snap_eq(&now, &s3));
  gv_arena_free(a);
  gv_arena_free(b);
}

/* A stale mark whose cut would split a node that is still interned. */
Test(misuse, stale_mark_cutting_a_live_node_is_refused) {
  gv_arena *a = t_arena();
  gv_mark m1 = gv_arena_mark(a);
  t_parse(a, "'a'");
  gv_mark m2 = gv_arena_mark(a); /* one small node */
  cr_assert_eq(gv_arena_rollback(a, &m1), GV_OK);
  for (int i = 0; i < 20; i++) { /* 20 rollbacks push m1's out of the record */
    gv_mark t = gv_arena_mark(a);
    t_parse(a, "'x'");
    cr_assert_eq(gv_arena_rollback(a, &t), GV_OK);
  }
  const gv_node *big = t_parse(a, "'a much longer string than the first one'");
  cr_assert_eq(gv_arena_rollback(a, &m2), GV_EINVAL);
  cr_assert_str_eq(gv_get_str(big, NULL), "a much longer string than the first one");
  gv_arena_free(a);
}

Test(misuse, nodes_of_another_arena) {
  gv_arena *a = t_arena(), *b = t_arena();
  const gv_node *x = t_parse(a, "['from a', 'x']"), *out = NULL;
  gv_error e;
  t_snapshot before = t_snap(b);
  gv_status s = gv_list(b, &x, 1, &out, &e);
  /* refused in every build (by the arena tag; checked builds also by the chunks) */
  cr_assert_eq(s, GV_EINVAL);
  cr_assert_str_eq(e.msg, "child 0 is a node of another arena");
  t_snapshot after = t_snap(b);
  cr_assert(t_snap_eq(&before, &after));
  const gv_node *k = t_parse(a, "'key'"), *v = t_parse(b, "1"), *bk = t_parse(b, "'key'");
  cr_assert_eq(gv_dict(b, &k, &v, 1, &out, &e), GV_EINVAL);
  cr_assert_str_eq(e.msg, "key 0 is a node of another arena");
  const gv_node *two[2] = {bk, k};
  cr_assert_eq(gv_dict_ordered(b, two, two, 2, (const uint32_t[]){1, 0}, &out, &e), GV_EINVAL);
  cr_assert_eq(gv_dict(b, &bk, &x, 1, &out, &e), GV_EINVAL); /* a value */
  const gv_node *kids[2] = {v, v};
  cr_assert_eq(gv_rebuild(b, x, kids, &out, &e), GV_OK); /* a list: nothing of a's kept */
  cr_assert_eq(gv_rebuild(b, x, GV__CONT(x)->kids, &out, &e), GV_EINVAL);
  const gv_node *d = t_parse(a, "{'key': 1}"), *one = v;
  cr_assert_eq(gv_rebuild(b, d, &one, &out, &e), GV_EINVAL); /* a's keyset */
  cr_assert_str_eq(e.msg, "metadata node of another arena");
  cr_assert_eq(gv_dict_with_keyset(b, GV_DICT, gv_meta(d), NULL, &one, 1, &out, &e), GV_EINVAL);
  const gv_node *big = t_parse(a, "1234567890123456789"), *nm = t_parse(a, "'Point'");
  cr_assert_eq(gv_tuple(b, &big, 1, &out, &e), GV_EINVAL); /* boxed leaves carry the tag too */
  cr_assert_eq(gv_custom(b, nm, NULL, &v, 1, NULL, &out, &e), GV_EINVAL); /* the type name */
  /* a copy is the way across */
  cr_assert_eq(gv_copy(b, x, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_list(b, &out, 1, &out, &e), GV_OK, "%s", e.msg);
  /* immediates belong to every arena */
  const gv_node *i5;
  cr_assert_eq(gv_int(a, 5, &i5, NULL), GV_OK);
  cr_assert_eq(gv_list(b, &i5, 1, &out, &e), GV_OK, "%s", e.msg);
  gv_arena_free(a);
  gv_arena_free(b);
}

Test(misuse, comparisons_across_arenas) {
  gv_arena *a = t_arena(), *b = t_arena();
  const char *t1 = "[P(x=1, y=2), C({'k': [1], 'j': 2}, meta=('m', (1, 2.5))), D([1]), "
                   "{(1, 'a'): 3, 'z': 4}, OrderedDict({'q': 1})]";
  const gv_node *x = t_parse(a, t1), *y = t_parse(b, t1);
  gv_error e;
  /* the issue: "namedtuple type mismatch: expected P(x, y), got P(x, y)" */
  cr_assert_eq(gv_same_structure(a, x, y, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_structure(b, y, x, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_paths(a, x, y, &e), GV_OK, "%s", e.msg);
  bool pre = false;
  cr_assert_eq(gv_is_prefix(a, x, y, &pre, &e), GV_OK);
  cr_assert(pre);
  const gv_node *z =
      t_parse(b, "[P(x=1, z=2), C({'k': [1], 'j': 2}, meta=('m', (1, 2.5))), D([1]), "
                 "{(1, 'a'): 3, 'z': 4}, OrderedDict({'q': 1})]");
  cr_assert_eq(gv_same_structure(a, x, z, &e), GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "at (0,): namedtuple type mismatch: expected P(x, y), got P(x, z)");
  z = t_parse(b, "[P(x=1, y=2), C({'k': [1], 'j': 2}, meta=('m', (1, 2.0))), D([1]), "
                 "{(1, 'a'): 3, 'z': 4}, OrderedDict({'q': 1})]");
  cr_assert_eq(gv_same_structure(a, x, z, &e), GV_EMISMATCH);
  cr_assert(strstr(e.msg, "at (1,): custom node data mismatch"), "%s", e.msg);
  gv_arena_free(a);
  gv_arena_free(b);
}
