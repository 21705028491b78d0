/* SPDX-License-Identifier: MIT */
/* test_transform.c -- traverse, map, map_up_to, map_shape, lists_to_tuples, order. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "support.h"

#define DEEP 1000000

/* ---------------------------------------------------------------------------
 * Callbacks
 * ------------------------------------------------------------------------- */

typedef struct rec {
  gv_arena *a;
  char log[4096];
  const char *replace_kind; /* type name whose subtrees are replaced ... */
  const gv_node *replacement;
  const char *none_kind; /* ... or mapped to None */
  int inc_ints;          /* replace every int by int + 1 */
  int fail_at;           /* 1-based visit that fails with GV_EUSER (0: never) */
  int visits;
  int logging;
} rec;

static gv_status trav_cb(void *ctx, gv_arena *a, const gv_node *node, gv_visit *action,
                         const gv_node **replacement) {
  rec *r = ctx;
  r->visits++;
  if (r->logging) {
    if (r->log[0]) strcat(r->log, "; ");
    strcat(r->log, t_repr(a, node));
  }
  if (r->fail_at && r->visits == r->fail_at) return GV_EUSER;
  const char *tn = gv_type_name(node, NULL);
  if (r->replace_kind && strcmp(tn, r->replace_kind) == 0) {
    *action = GV_VISIT_REPLACE;
    *replacement = r->replacement;
  } else if (r->none_kind && strcmp(tn, r->none_kind) == 0) {
    *action = GV_VISIT_NONE;
  } else if (r->inc_ints && gv_kind(node) == GV_INT) {
    *action = GV_VISIT_REPLACE;
    return gv_int(a, gv_get_int(node) + 1, replacement, NULL);
  } else {
    *action = GV_VISIT_KEEP;
  }
  return GV_OK;
}

static rec *new_rec(gv_arena *a) {
  static rec r;
  memset(&r, 0, sizeof r);
  r.a = a;
  r.logging = 1;
  return &r;
}

static const gv_node *trav(gv_arena *a, const gv_node *t, bool top_down, rec *r) {
  const gv_node *out = NULL;
  gv_error e;
  cr_assert_eq(gv_traverse(a, t, top_down, trav_cb, r, &out, &e), GV_OK, "%s", e.msg);
  return out;
}

typedef struct mctx {
  int calls;
  int fail_at;
  char log[2048];
} mctx;

/* Sum of the ints (bools count) of the n values; floats stay floats. */
static gv_status add_fn(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                        const gv_node **out) {
  mctx *c = ctx;
  if (c) {
    c->calls++;
    if (c->fail_at && c->calls == c->fail_at) return GV_EUSER + 1;
  }
  int64_t s = 0;
  for (size_t i = 0; i < n; i++) {
    if (gv_kind(v[i]) != GV_INT && gv_kind(v[i]) != GV_BOOL) {
      *out = v[0];
      return GV_OK;
    }
    s += gv_get_int(v[i]);
  }
  return gv_int(a, s + (n == 1 ? 10 : 0), out, NULL);
}

/* The repr of every value joined by '|' as one str; logs the calls. */
static gv_status str_fn(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                        const gv_node **out) {
  mctx *c = ctx;
  char buf[512] = "";
  for (size_t i = 0; i < n; i++) {
    if (i) strcat(buf, "|");
    strcat(buf, t_repr(a, v[i]));
  }
  if (c) {
    c->calls++;
    if (c->log[0]) strcat(c->log, "; ");
    strcat(c->log, buf);
  }
  return gv_str(a, buf, strlen(buf), out, NULL);
}

/* A deep list [[[...leaf...]]] of the given depth. */
static const gv_node *deep_list(gv_arena *a, const gv_node *leaf, size_t depth) {
  const gv_node *n = leaf;
  for (size_t i = 0; i < depth; i++)
    cr_assert_eq(gv_list(a, &n, 1, &n, NULL), GV_OK);
  return n;
}

/* The node at the bottom of a chain of one-child containers. */
static const gv_node *bottom(const gv_node *n, size_t *depth) {
  size_t d = 0;
  while (gv_is_nested(n) && gv_arity(n) == 1) {
    n = gv_child(n, 0);
    d++;
  }
  *depth = d;
  return n;
}

static const char *ALL_KINDS =
    "[1, 2.5, 'x', b'y', None, True, &7, *, (1, 2), {'b': 1, 'a': 2}, OrderedDict({'b': 1, 'a': "
    "2}), defaultdict(list, {'b': 1, 'a': 2}), Point(x=1, y=2), deque([1, 2], maxlen=3), "
    "Node([1, 2], meta='m'), KN({'q': 1, 'p': 2}), [], ()]";

/* ---------------------------------------------------------------------------
 * traverse
 * ------------------------------------------------------------------------- */

Test(traverse, top_down_visit_order) {
  gv_arena *a = t_arena();
  rec *r = new_rec(a);
  const gv_node *t = t_parse(a, "[(1, 2), [3], {\"a\": 4}]");
  cr_assert_eq(trav(a, t, true, r), t);
  cr_assert_str_eq(r->log, "[(1, 2), [3], {'a': 4}]; (1, 2); 1; 2; [3]; 3; {'a': 4}; 4");
  gv_arena_free(a);
}

Test(traverse, bottom_up_visit_order) {
  gv_arena *a = t_arena();
  rec *r = new_rec(a);
  const gv_node *t = t_parse(a, "[(1, 2), [3], {\"a\": 4}]");
  cr_assert_eq(trav(a, t, false, r), t);
  cr_assert_str_eq(r->log, "1; 2; (1, 2); 3; [3]; 4; {'a': 4}; [(1, 2), [3], {'a': 4}]");
  gv_arena_free(a);
}

Test(traverse, order_follows_sorted_keys_and_insertion_order) {
  gv_arena *a = t_arena();
  rec *r = new_rec(a);
  trav(a, t_parse(a, "[{'b': 1, 'a': 2}, OrderedDict({'d': 3, 'c': 4})]"), true, r);
  cr_assert_str_eq(r->log, "[{'b': 1, 'a': 2}, OrderedDict({'d': 3, 'c': 4})]; {'b': 1, 'a': 2}; "
                           "2; 1; OrderedDict({'d': 3, 'c': 4}); 3; 4");
  gv_arena_free(a);
}

Test(traverse, top_down_replace_is_not_descended) {
  gv_arena *a = t_arena();
  rec *r = new_rec(a);
  r->replace_kind = "tuple";
  r->replacement = t_parse(a, "'T'");
  const gv_node *out = trav(a, t_parse(a, "[(1, 2), [3, (4,)], {'a': 4}]"), true, r);
  cr_assert_str_eq(t_repr(a, out), "['T', [3, 'T'], {'a': 4}]");
  cr_assert_str_eq(r->log,
                   "[(1, 2), [3, (4,)], {'a': 4}]; (1, 2); [3, (4,)]; 3; (4,); {'a': 4}; 4");
  gv_arena_free(a);
}

Test(traverse, top_down_none_is_not_descended) {
  gv_arena *a = t_arena();
  rec *r = new_rec(a);
  r->none_kind = "list";
  const gv_node *t = t_parse(a, "(1, [2, [3]], {'a': [4]})");
  const gv_node *out = trav(a, t, true, r);
  cr_assert_str_eq(t_repr(a, out), "(1, None, {'a': None})");
  cr_assert_str_eq(r->log, "(1, [2, [3]], {'a': [4]}); 1; [2, [3]]; {'a': [4]}; [4]");
  /* the root itself */
  r = new_rec(a);
  r->none_kind = "tuple";
  cr_assert_str_eq(t_repr(a, trav(a, t, true, r)), "None");
  gv_arena_free(a);
}

Test(traverse, bottom_up_sees_rebuilt_node) {
  gv_arena *a = t_arena();
  rec *r = new_rec(a);
  r->inc_ints = 1;
  const gv_node *out = trav(a, t_parse(a, "[(1, 2), [3], {\"a\": 4}]"), false, r);
  cr_assert_str_eq(t_repr(a, out), "[(2, 3), [4], {'a': 5}]");
  cr_assert_str_eq(r->log, "1; 2; (2, 3); 3; [4]; 4; {'a': 5}; [(2, 3), [4], {'a': 5}]");
  gv_arena_free(a);
}

Test(traverse, bottom_up_replace_and_none) {
  gv_arena *a = t_arena();
  rec *r = new_rec(a);
  r->replace_kind = "list";
  r->replacement = t_parse(a, "'L'");
  r->logging = 0;
  cr_assert_str_eq(t_repr(a, trav(a, t_parse(a, "([1, [2]], {'a': []})"), false, r)),
                   "('L', {'a': 'L'})");
  r = new_rec(a);
  r->none_kind = "dict";
  r->logging = 0;
  cr_assert_str_eq(t_repr(a, trav(a, t_parse(a, "[{'a': {'b': 1}}, 2]"), false, r)), "[None, 2]");
  gv_arena_free(a);
}

Test(traverse, every_kind_both_ways) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, ALL_KINDS);
  for (int td = 0; td < 2; td++) {
    rec *r = new_rec(a);
    r->logging = 0;
    cr_assert_eq(trav(a, t, td != 0, r), t);
    cr_assert_eq(r->visits, 35, "visits %d", r->visits);
    r = new_rec(a);
    r->logging = 0;
    r->inc_ints = 1;
    const gv_node *out = trav(a, t, td != 0, r);
    cr_assert_str_eq(t_repr(a, out),
                     "[2, 2.5, 'x', b'y', None, True, &7, *, (2, 3), {'b': 2, 'a': 3}, "
                     "OrderedDict({'b': 2, 'a': 3}), defaultdict(list, {'b': 2, 'a': 3}), "
                     "Point(x=2, y=3), deque([2, 3], maxlen=3), Node([2, 3], meta='m'), "
                     "KN({'q': 2, 'p': 3}), [], ()]");
  }
  gv_arena_free(a);
}

Test(traverse, unchanged_subtrees_are_shared) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[{'a': [1, 2], 'b': 'x'}, ('y', 'z'), [3]]");
  for (int td = 0; td < 2; td++) {
    rec *r = new_rec(a);
    r->logging = 0;
    r->inc_ints = 1;
    const gv_node *out = trav(a, t, td != 0, r);
    cr_assert_str_eq(t_repr(a, out), "[{'a': [2, 3], 'b': 'x'}, ('y', 'z'), [4]]");
    cr_assert_eq(gv_child(out, 1), gv_child(t, 1));
    cr_assert_eq(gv_child(gv_child(out, 0), 1), gv_child(gv_child(t, 0), 1));
  }
  gv_arena_free(a);
}

Test(traverse, callback_failure_rolls_back) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[(100, 200), [300], {'a': 400}]");
  for (int td = 0; td < 2; td++) {
    rec *r = new_rec(a);
    r->logging = 0;
    r->inc_ints = 1;
    r->fail_at = 6;
    t_snapshot before = t_snap(a);
    const gv_node *out = NULL;
    gv_error e;
    cr_assert_eq(gv_traverse(a, t, td != 0, trav_cb, r, &out, &e), GV_EUSER);
    cr_assert_eq(e.status, GV_EUSER);
    cr_assert_null(out);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after));
  }
  gv_arena_free(a);
}

Test(traverse, replace_with_null_is_einval) {
  gv_arena *a = t_arena();
  rec *r = new_rec(a);
  r->logging = 0;
  r->replace_kind = "int";
  r->replacement = NULL;
  const gv_node *out = NULL;
  gv_error e;
  cr_assert_eq(gv_traverse(a, t_parse(a, "[[1]]"), true, trav_cb, r, &out, &e), GV_EINVAL);
  cr_assert_str_eq(e.msg, "at (0, 0): callback returned no value node");
  gv_arena_free(a);
}

Test(traverse, deep_million) {
  gv_arena *a = t_arena();
  const gv_node *one, *t;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  t = deep_list(a, one, DEEP);
  for (int td = 0; td < 2; td++) {
    rec *r = new_rec(a);
    r->logging = 0;
    cr_assert_eq(trav(a, t, td != 0, r), t);
    cr_assert_eq(r->visits, DEEP + 1);
    r = new_rec(a);
    r->logging = 0;
    r->inc_ints = 1;
    const gv_node *out = trav(a, t, td != 0, r);
    size_t d;
    cr_assert_eq(gv_get_int(bottom(out, &d)), 2);
    cr_assert_eq(d, DEEP);
  }
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * map
 * ------------------------------------------------------------------------- */

static const gv_node *map1(gv_arena *a, gv_map_fn f, void *ctx, const gv_node *t,
                           bool none_is_leaf) {
  const gv_node *out = NULL;
  gv_error e;
  cr_assert_eq(gv_map(a, f, ctx, &t, 1, none_is_leaf, &out, &e), GV_OK, "%s", e.msg);
  return out;
}

static gv_status mapn(gv_arena *a, gv_map_fn f, void *ctx, const char *const *texts, size_t n,
                      bool none_is_leaf, const gv_node **out, gv_error *e) {
  const gv_node *trees[8];
  for (size_t i = 0; i < n; i++)
    trees[i] = t_parse(a, texts[i]);
  return gv_map(a, f, ctx, trees, n, none_is_leaf, out, e);
}

Test(map, one_tree_every_kind) {
  gv_arena *a = t_arena();
  mctx c = {0};
  const gv_node *out = map1(a, str_fn, &c, t_parse(a, ALL_KINDS), true);
  cr_assert_str_eq(t_repr(a, out),
                   "['1', '2.5', \"'x'\", \"b'y'\", 'None', 'True', '&7', '*', ('1', '2'), "
                   "{'b': '1', 'a': '2'}, OrderedDict({'b': '1', 'a': '2'}), defaultdict(list, "
                   "{'b': '1', 'a': '2'}), Point(x='1', y='2'), deque(['1', '2'], maxlen=3), "
                   "Node(['1', '2'], meta='m'), KN({'q': '1', 'p': '2'}), [], ()]");
  /* dict leaves are visited in sorted-key order, OrderedDict in insertion order */
  cr_assert_str_eq(c.log, "1; 2.5; 'x'; b'y'; None; True; &7; *; 1; 2; 2; 1; 1; 2; 2; 1; 1; 2; "
                          "1; 2; 1; 2; 1; 2");
  gv_arena_free(a);
}

Test(map, none_is_leaf_one_tree) {
  gv_arena *a = t_arena();
  mctx c = {0};
  const gv_node *t = t_parse(a, "[None, 1, {'a': None}]");
  cr_assert_str_eq(t_repr(a, map1(a, str_fn, &c, t, true)), "['None', '1', {'a': 'None'}]");
  cr_assert_eq(c.calls, 3);
  memset(&c, 0, sizeof c);
  cr_assert_str_eq(t_repr(a, map1(a, str_fn, &c, t, false)), "[None, '1', {'a': None}]");
  cr_assert_eq(c.calls, 1);
  /* a None root with none_is_leaf = false stays None, f never called */
  memset(&c, 0, sizeof c);
  const gv_node *none = t_parse(a, "None");
  cr_assert_eq(map1(a, str_fn, &c, none, false), none);
  cr_assert_eq(c.calls, 0);
  gv_arena_free(a);
}

Test(map, several_trees) {
  gv_arena *a = t_arena();
  const gv_node *out;
  gv_error e;
  const char *t3[] = {"[1, {'b': 2, 'a': 3}, (4,)]", "[10, OrderedDict({'a': 30, 'b': 20}), (40,)]",
                      "[100, defaultdict(int, {'a': 300, 'b': 200}), (400,)]"};
  cr_assert_eq(mapn(a, add_fn, NULL, t3, 3, true, &out, &e), GV_OK, "%s", e.msg);
  /* the first tree decides kinds and order */
  cr_assert_str_eq(t_repr(a, out), "[111, {'b': 222, 'a': 333}, (444,)]");
  mctx c = {0};
  const char *t2[] = {"OrderedDict({'b': 1, 'a': 2})", "{'a': 'x', 'b': 'y'}"};
  cr_assert_eq(mapn(a, str_fn, &c, t2, 2, true, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_str_eq(t_repr(a, out), "OrderedDict({'b': \"1|'y'\", 'a': \"2|'x'\"})");
  cr_assert_str_eq(c.log, "1|'y'; 2|'x'");
  /* the others may hold any leaf where the first has one, None included... */
  const char *t4[] = {"[1, 2]", "[None, 'q']"};
  cr_assert_eq(mapn(a, str_fn, NULL, t4, 2, true, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_str_eq(t_repr(a, out), "['1|None', \"2|'q'\"]");
  /* ...but with none_is_leaf = false None is an empty node, not a leaf */
  cr_assert_eq(mapn(a, str_fn, NULL, t4, 2, false, &out, &e), GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "at (0,): expected a leaf, got None");
  /* deque maxlen, defaultdict factory, dict key order are ignored */
  const char *t5[] = {"deque([1], maxlen=2)", "deque([2])"};
  cr_assert_eq(mapn(a, add_fn, NULL, t5, 2, true, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_str_eq(t_repr(a, out), "deque([3], maxlen=2)");
  gv_arena_free(a);
}

Test(map, none_is_leaf_false_several_trees) {
  gv_arena *a = t_arena();
  const gv_node *out;
  gv_error e;
  mctx c = {0};
  const char *ok[] = {"[None, 1]", "[None, 2]"};
  cr_assert_eq(mapn(a, str_fn, &c, ok, 2, false, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_str_eq(t_repr(a, out), "[None, '1|2']");
  cr_assert_eq(c.calls, 1);
  const char *bad[] = {"[None, 1]", "[3, 2]"};
  cr_assert_eq(mapn(a, str_fn, NULL, bad, 2, false, &out, &e), GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "at (0,): expected None, got 3");
  const char *bad2[] = {"None", "[1]"};
  cr_assert_eq(mapn(a, str_fn, NULL, bad2, 2, false, &out, &e), GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "expected None, got list");
  /* with none_is_leaf = true the same pair is fine */
  cr_assert_eq(mapn(a, str_fn, NULL, bad, 2, true, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_str_eq(t_repr(a, out), "['None|3', '1|2']");
  gv_arena_free(a);
}

Test(map, mismatch_messages) {
  gv_arena *a = t_arena();
  const gv_node *out;
  gv_error e;
  struct {
    const char *x, *y, *msg;
  } cases[] = {
      {"[1, 2]", "(1, 2)", "expected list of 2 items, got tuple of 2 items"},
      {"[1, [2]]", "[1, [2, 3]]", "at (1,): list arity mismatch: expected 1 items, got 2"},
      {"{'a': 1}", "{'a': [1]}",
       "at ('a',): don't have the same nested structure: expected a "
       "leaf, got list of 1 items"},
      {"[{'a': 1, 'b': 2}]", "[{'a': 1, 'c': 2}]",
       "at (0,): dictionary key mismatch: missing key(s) ['b'], extra key(s) ['c']"},
      {"[1, (2, [3])]", "[1, (2, 4)]", "at (1, 1): expected list of 1 items, got int"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *tt[] = {cases[i].x, cases[i].y};
    t_snapshot before = t_snap(a);
    out = NULL;
    cr_assert_eq(mapn(a, add_fn, NULL, tt, 2, true, &out, &e), GV_EMISMATCH, "case %zu", i);
    cr_assert_str_eq(e.msg, cases[i].msg);
    cr_assert_null(out);
    (void)before;
  }
  /* the third tree is checked too */
  const char *t3[] = {"[1]", "[2]", "(3,)"};
  cr_assert_eq(mapn(a, add_fn, NULL, t3, 3, true, &out, &e), GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "expected list of 1 items, got tuple of 1 items");
  gv_arena_free(a);
}

Test(map, no_trees) {
  gv_arena *a = t_arena();
  const gv_node *out = NULL;
  gv_error e;
  cr_assert_eq(gv_map(a, add_fn, NULL, NULL, 0, true, &out, &e), GV_EINVAL);
  cr_assert_str_eq(e.msg, "must provide at least one structure");
  const gv_node *shallow = t_parse(a, "[1, 2]");
  cr_assert_eq(gv_map_up_to(a, shallow, add_fn, NULL, NULL, 0, &out, &e), GV_EINVAL);
  cr_assert_str_eq(e.msg, "must provide at least one structure");
  cr_assert_null(out);
  gv_arena_free(a);
}

Test(map, sharing_and_identity) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[('x', 'y'), [1], {'a': 'z'}]");
  /* only ints change: the str subtrees come back as the very same nodes */
  const gv_node *out = map1(a, add_fn, NULL, t, true);
  cr_assert_str_eq(t_repr(a, out), "[('x', 'y'), [11], {'a': 'z'}]");
  cr_assert_eq(gv_child(out, 0), gv_child(t, 0));
  cr_assert_eq(gv_child(out, 2), gv_child(t, 2));
  const gv_node *trees[2] = {t, t}, *o2;
  cr_assert_eq(gv_map(a, add_fn, NULL, trees, 2, true, &o2, NULL), GV_OK);
  cr_assert_str_eq(t_repr(a, o2), "[('x', 'y'), [2], {'a': 'z'}]");
  cr_assert_eq(gv_child(o2, 0), gv_child(t, 0));
  gv_arena_free(a);
}

Test(map, callback_failure_rolls_back) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[1, [2, 3], {'a': 4}]");
  const gv_node *trees[2] = {t, t};
  for (size_t n = 1; n <= 2; n++) {
    mctx c = {0};
    c.fail_at = 3;
    t_snapshot before = t_snap(a);
    const gv_node *out = NULL;
    gv_error e;
    cr_assert_eq(gv_map(a, add_fn, &c, trees, n, true, &out, &e), GV_EUSER + 1);
    cr_assert_eq(e.status, GV_EUSER + 1);
    cr_assert(strstr(e.msg, "at (1, 1): ") == e.msg, "%s", e.msg);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after));
  }
  gv_arena_free(a);
}

Test(map, deep_million) {
  gv_arena *a = t_arena();
  const gv_node *one, *two;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  cr_assert_eq(gv_int(a, 2, &two, NULL), GV_OK);
  const gv_node *trees[2] = {deep_list(a, one, DEEP), deep_list(a, two, DEEP)}, *out;
  size_t d;
  cr_assert_eq(gv_map(a, add_fn, NULL, trees, 1, true, &out, NULL), GV_OK);
  cr_assert_eq(gv_get_int(bottom(out, &d)), 11);
  cr_assert_eq(d, DEEP);
  cr_assert_eq(gv_map(a, add_fn, NULL, trees, 2, true, &out, NULL), GV_OK);
  cr_assert_eq(gv_get_int(bottom(out, &d)), 3);
  cr_assert_eq(d, DEEP);
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * map_up_to
 * ------------------------------------------------------------------------- */

Test(map_up_to, subtrees_at_the_leaves_of_shallow) {
  gv_arena *a = t_arena();
  mctx c = {0};
  const gv_node *s = t_parse(a, "[1, {'b': 2, 'a': None}]");
  const gv_node *trees[2] = {t_parse(a, "[[1, 2], {'a': (3,), 'b': 4}]"),
                             t_parse(a, "[5, OrderedDict({'b': {'x': 6}, 'a': 7})]")},
                *out;
  gv_error e;
  cr_assert_eq(gv_map_up_to(a, s, str_fn, &c, trees, 2, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_str_eq(t_repr(a, out), "['[1, 2]|5', {'b': \"4|{'x': 6}\", 'a': '(3,)|7'}]");
  /* None in shallow is a leaf (a slot) */
  cr_assert_str_eq(c.log, "[1, 2]|5; (3,)|7; 4|{'x': 6}");
  gv_arena_free(a);
}

Test(map_up_to, every_kind) {
  gv_arena *a = t_arena();
  const gv_node *s = t_parse(a, ALL_KINDS), *out;
  gv_error e;
  cr_assert_eq(gv_map_up_to(a, s, add_fn, NULL, &s, 1, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_str_eq(t_repr(a, out),
                   "[11, 2.5, 'x', b'y', None, 11, &7, *, (11, 12), {'b': 11, 'a': 12}, "
                   "OrderedDict({'b': 11, 'a': 12}), defaultdict(list, {'b': 11, 'a': 12}), "
                   "Point(x=11, y=12), deque([11, 12], maxlen=3), Node([11, 12], meta='m'), "
                   "KN({'q': 11, 'p': 12}), [], ()]");
  gv_arena_free(a);
}

Test(map_up_to, mismatches) {
  gv_arena *a = t_arena();
  const gv_node *out = NULL;
  gv_error e;
  struct {
    const char *s, *t, *msg;
  } cases[] = {
      {"[1, [2, 3]]", "[1, 5]", "at (1,): expected list of 2 items, got int"},
      {"[1, [2, 3]]", "[1, (2, 3)]", "at (1,): expected list of 2 items, got tuple of 2 items"},
      {"{'a': 1}", "{'b': 1}", "dictionary key mismatch: missing key(s) ['a'], extra key(s) ['b']"},
      {"(None, [1])", "(1, [])", "at (1,): list arity mismatch: expected 1 items, got 0"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const gv_node *s = t_parse(a, cases[i].s), *t = t_parse(a, cases[i].t);
    t_snapshot before = t_snap(a);
    cr_assert_eq(gv_map_up_to(a, s, add_fn, NULL, &t, 1, &out, &e), GV_EMISMATCH, "case %zu", i);
    cr_assert_str_eq(e.msg, cases[i].msg);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after));
  }
  gv_arena_free(a);
}

Test(map_up_to, callback_failure_rolls_back) {
  gv_arena *a = t_arena();
  const gv_node *s = t_parse(a, "[1, 2, 3]"), *t = t_parse(a, "[[1], [2], [3]]"), *out = NULL;
  mctx c = {0};
  c.fail_at = 2;
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_map_up_to(a, s, add_fn, &c, &t, 1, &out, NULL), GV_EUSER + 1);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  gv_arena_free(a);
}

Test(map_up_to, deep_million) {
  gv_arena *a = t_arena();
  const gv_node *one, *leaf;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  leaf = t_parse(a, "[5, 6]");
  const gv_node *s = deep_list(a, one, DEEP), *t = deep_list(a, leaf, DEEP), *out;
  gv_error e;
  cr_assert_eq(gv_map_up_to(a, s, str_fn, NULL, &t, 1, &out, &e), GV_OK, "%s", e.msg);
  size_t d;
  cr_assert_str_eq(t_repr(a, bottom(out, &d)), "'[5, 6]'");
  cr_assert_eq(d, DEEP);
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * map_shape
 * ------------------------------------------------------------------------- */

Test(map_shape, shapes_are_leaves) {
  gv_arena *a = t_arena();
  mctx c = {0};
  const gv_node *out;
  gv_error e;
  const gv_node *t = t_parse(a, "{'a': (1, 2), 'b': [3, True, None], 'c': (1, 2.0), 'd': [], "
                                "'e': [(1,), 2], 'f': deque([1])}");
  cr_assert_eq(gv_map_shape(a, str_fn, &c, t, &out, &e), GV_OK, "%s", e.msg);
  cr_assert_str_eq(t_repr(a, out),
                   "{'a': '(1, 2)', 'b': '[3, True, None]', 'c': ('1', '2.0'), 'd': '[]', "
                   "'e': ['(1,)', '2'], 'f': deque(['1'])}");
  /* the root itself */
  cr_assert_eq(gv_map_shape(a, str_fn, NULL, t_parse(a, "(4, 5)"), &out, &e), GV_OK);
  cr_assert_str_eq(t_repr(a, out), "'(4, 5)'");
  cr_assert_eq(gv_map_shape(a, str_fn, NULL, t_parse(a, "()"), &out, &e), GV_OK);
  cr_assert_str_eq(t_repr(a, out), "'()'");
  cr_assert_eq(gv_map_shape(a, str_fn, NULL, t_parse(a, "7"), &out, &e), GV_OK);
  cr_assert_str_eq(t_repr(a, out), "'7'");
  gv_arena_free(a);
}

Test(map_shape, every_kind) {
  gv_arena *a = t_arena();
  const gv_node *out;
  cr_assert_eq(gv_map_shape(a, str_fn, NULL, t_parse(a, ALL_KINDS), &out, NULL), GV_OK);
  cr_assert_str_eq(t_repr(a, out),
                   "['1', '2.5', \"'x'\", \"b'y'\", 'None', 'True', '&7', '*', '(1, 2)', "
                   "{'b': '1', 'a': '2'}, OrderedDict({'b': '1', 'a': '2'}), defaultdict(list, "
                   "{'b': '1', 'a': '2'}), Point(x='1', y='2'), deque(['1', '2'], maxlen=3), "
                   "Node(['1', '2'], meta='m'), KN({'q': '1', 'p': '2'}), '[]', '()']");
  gv_arena_free(a);
}

Test(map_shape, failure_and_deep) {
  gv_arena *a = t_arena();
  mctx c = {0};
  c.fail_at = 2;
  const gv_node *out = NULL;
  const gv_node *t = t_parse(a, "[(1, 2), (3, 4.5), 5]");
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_map_shape(a, add_fn, &c, t, &out, NULL), GV_EUSER + 1);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  const gv_node *d = deep_list(a, t_parse(a, "[1.5, 2.5]"), DEEP);
  cr_assert_eq(gv_map_shape(a, str_fn, NULL, d, &out, NULL), GV_OK);
  size_t depth;
  cr_assert_str_eq(t_repr(a, bottom(out, &depth)), "['1.5', '2.5']");
  cr_assert_eq(depth, DEEP);
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * lists_to_tuples
 * ------------------------------------------------------------------------- */

static const gv_node *l2t(gv_arena *a, const gv_node *t) {
  const gv_node *out = NULL;
  gv_error e;
  cr_assert_eq(gv_lists_to_tuples(a, t, &out, &e), GV_OK, "%s", e.msg);
  return out;
}

Test(lists_to_tuples, every_kind) {
  gv_arena *a = t_arena();
  cr_assert_str_eq(t_repr(a, l2t(a, t_parse(a, ALL_KINDS))),
                   "(1, 2.5, 'x', b'y', None, True, &7, *, (1, 2), {'b': 1, 'a': 2}, "
                   "OrderedDict({'b': 1, 'a': 2}), defaultdict(list, {'b': 1, 'a': 2}), "
                   "Point(x=1, y=2), deque([1, 2], maxlen=3), Node([1, 2], meta='m'), "
                   "KN({'q': 1, 'p': 2}), (), ())");
  cr_assert_str_eq(t_repr(a, l2t(a, t_parse(a, "deque([[1], 2])"))), "deque([(1,), 2])");
  cr_assert_str_eq(t_repr(a, l2t(a, t_parse(a, "{'x': 4, 'y': [5, [6]]}"))),
                   "{'x': 4, 'y': (5, (6,))}");
  cr_assert_str_eq(t_repr(a, l2t(a, t_parse(a, "Point(x=[1], y=C([[2]]))"))),
                   "Point(x=(1,), y=C([(2,)]))");
  cr_assert_str_eq(t_repr(a, l2t(a, t_parse(a, "[]"))), "()");
  gv_arena_free(a);
}

Test(lists_to_tuples, o1_without_lists_and_sharing) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "({'a': (1, 2)}, deque([3]), 'x')");
  t_snapshot before = t_snap(a);
  cr_assert_eq(l2t(a, t), t);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  const gv_node *u = t_parse(a, "[{'a': (1, 2)}, ([3],), 'x']"), *o = l2t(a, u);
  cr_assert_str_eq(t_repr(a, o), "({'a': (1, 2)}, ((3,),), 'x')");
  cr_assert_eq(gv_child(o, 0), gv_child(u, 0));
  gv_arena_free(a);
}

Test(lists_to_tuples, deep_million) {
  gv_arena *a = t_arena();
  const gv_node *one;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  const gv_node *out = l2t(a, deep_list(a, one, DEEP));
  size_t d;
  cr_assert_eq(bottom(out, &d), one);
  cr_assert_eq(d, DEEP);
  cr_assert_eq(gv_kind(out), GV_TUPLE);
  cr_assert_eq(gv_kind(gv_child(out, 0)), GV_TUPLE);
  cr_assert_eq(gv_flags(out) & GV_F_HAS_LIST, 0);
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * order
 * ------------------------------------------------------------------------- */

static const char *order_str(gv_arena *a, const char *text, bool *changed) {
  const gv_node *t = t_parse(a, text), *out = NULL;
  gv_error e;
  cr_assert_eq(gv_order(a, t, &out, changed, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(*changed, out != t);
  return t_repr(a, out);
}

Test(order, cases) {
  gv_arena *a = t_arena();
  bool ch;
  cr_assert_str_eq(order_str(a, "{'b': 1, 'a': 2}", &ch), "{'a': 2, 'b': 1}");
  cr_assert(ch);
  cr_assert_str_eq(order_str(a, "{'a': 2, 'b': 1}", &ch), "{'a': 2, 'b': 1}");
  cr_assert(!ch);
  cr_assert_str_eq(order_str(a, "[{'b': {'d': 4, 'c': 3}, 'a': 1}]", &ch),
                   "[{'a': 1, 'b': {'c': 3, 'd': 4}}]");
  cr_assert(ch);
  cr_assert_str_eq(order_str(a, "OrderedDict({'b': {'z': 1, 'y': 2}, 'a': 3})", &ch),
                   "OrderedDict({'b': {'y': 2, 'z': 1}, 'a': 3})");
  cr_assert(ch);
  cr_assert_str_eq(order_str(a, "OrderedDict({'b': 1, 'a': 3})", &ch),
                   "OrderedDict({'b': 1, 'a': 3})");
  cr_assert(!ch);
  cr_assert_str_eq(order_str(a, "defaultdict(list, {'b': 1, 'a': 2})", &ch),
                   "defaultdict(list, {'a': 2, 'b': 1})");
  cr_assert(ch);
  cr_assert_str_eq(order_str(a, "Point(x={'b': 1, 'a': 2}, y=3)", &ch),
                   "Point(x={'a': 2, 'b': 1}, y=3)");
  cr_assert(ch);
  cr_assert_str_eq(order_str(a, "{3: 'c', 1: 'a', 2: {'z': 0, 'y': [1]}}", &ch),
                   "{1: 'a', 2: {'y': [1], 'z': 0}, 3: 'c'}");
  gv_arena_free(a);
}

Test(order, every_kind) {
  gv_arena *a = t_arena();
  bool ch;
  cr_assert_str_eq(order_str(a, ALL_KINDS, &ch),
                   "[1, 2.5, 'x', b'y', None, True, &7, *, (1, 2), {'a': 2, 'b': 1}, "
                   "OrderedDict({'b': 1, 'a': 2}), defaultdict(list, {'a': 2, 'b': 1}), "
                   "Point(x=1, y=2), deque([1, 2], maxlen=3), Node([1, 2], meta='m'), "
                   "KN({'q': 1, 'p': 2}), [], ()]");
  cr_assert(ch);
  cr_assert_str_eq(order_str(a, "deque([C([{'b': 1, 'a': 2}])], maxlen=1)", &ch),
                   "deque([C([{'a': 2, 'b': 1}])], maxlen=1)");
  cr_assert(ch);
  gv_arena_free(a);
}

Test(order, canonical_is_o1_and_shares) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[{'a': [1, {'x': 2}], 'b': OrderedDict({'z': 1, 'y': 2})}, (3,)]");
  cr_assert(gv_flags(t) & GV_F_CANONICAL);
  t_snapshot before = t_snap(a);
  const gv_node *out = NULL;
  bool ch = true;
  cr_assert_eq(gv_order(a, t, &out, &ch, NULL), GV_OK);
  cr_assert_eq(out, t);
  cr_assert(!ch);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  /* only the path to the unsorted dict is rebuilt */
  const gv_node *u = t_parse(a, "[{'a': [1, 2]}, [{'b': 1, 'a': {'x': 1}}, (5, 6)], 'q']");
  cr_assert_eq(gv_order(a, u, &out, &ch, NULL), GV_OK);
  cr_assert(ch);
  cr_assert_str_eq(t_repr(a, out), "[{'a': [1, 2]}, [{'a': {'x': 1}, 'b': 1}, (5, 6)], 'q']");
  cr_assert_eq(gv_child(out, 0), gv_child(u, 0));
  cr_assert_eq(gv_child(gv_child(out, 1), 1), gv_child(gv_child(u, 1), 1));
  const gv_node *d = gv_child(gv_child(out, 1), 0);
  cr_assert_eq(gv_get(d, t_parse(a, "'a'")),
               gv_get(gv_child(gv_child(u, 1), 0), t_parse(a, "'a'")));
  cr_assert(gv_flags(out) & GV_F_CANONICAL);
  /* ordering again is O(1) */
  const gv_node *again;
  cr_assert_eq(gv_order(a, out, &again, NULL, NULL), GV_OK);
  cr_assert_eq(again, out);
  gv_arena_free(a);
}

Test(order, deep_million) {
  gv_arena *a = t_arena();
  const gv_node *dict = t_parse(a, "{'b': 1, 'a': 2}"), *t = deep_list(a, dict, DEEP), *out;
  bool ch = false;
  cr_assert_eq(gv_order(a, t, &out, &ch, NULL), GV_OK);
  cr_assert(ch);
  size_t d;
  cr_assert_str_eq(t_repr(a, bottom(out, &d)), "{'a': 2, 'b': 1}");
  cr_assert_eq(d, DEEP);
  t_snapshot before = t_snap(a);
  const gv_node *again;
  cr_assert_eq(gv_order(a, out, &again, &ch, NULL), GV_OK);
  cr_assert_eq(again, out);
  cr_assert(!ch);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  gv_arena_free(a);
}
