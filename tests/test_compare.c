/* SPDX-License-Identifier: MIT */
/* test_compare.c -- same_structure, same_paths, is_prefix. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "support.h"

#define DEEP 1000000

static gv_status same(gv_arena *a, const char *x, const char *y, gv_error *e) {
  const gv_node *nx = t_parse(a, x), *ny = t_parse(a, y);
  t_snapshot before = t_snap(a);
  gv_status s = gv_same_structure(a, nx, ny, e);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after), "same_structure changed the arena");
  return s;
}

static void mismatch(const char *x, const char *y, const char *msg) {
  gv_arena *a = t_arena();
  gv_error e;
  memset(&e, 0, sizeof e);
  cr_assert_eq(same(a, x, y, &e), GV_EMISMATCH, "%s vs %s", x, y);
  cr_assert_eq(e.status, GV_EMISMATCH);
  cr_assert_str_eq(e.msg, msg, "%s vs %s", x, y);
  gv_arena_free(a);
}

static void matches(const char *x, const char *y) {
  gv_arena *a = t_arena();
  gv_error e;
  memset(&e, 0, sizeof e);
  cr_assert_eq(same(a, x, y, &e), GV_OK, "%s vs %s: %s", x, y, e.msg);
  gv_arena_free(a);
}

static const gv_node *deep(gv_arena *a, gv_node_kind k, const gv_node *leaf, size_t depth) {
  const gv_node *n = leaf;
  for (size_t i = 0; i < depth; i++) {
    if (k == GV_LIST)
      cr_assert_eq(gv_list(a, &n, 1, &n, NULL), GV_OK);
    else
      cr_assert_eq(gv_tuple(a, &n, 1, &n, NULL), GV_OK);
  }
  return n;
}

/* ---------------------------------------------------------------------------
 * same_structure
 * ------------------------------------------------------------------------- */

Test(same_structure, matching_pairs) {
  matches("[1, 'a', None]", "[2.5, b'x', *]");
  matches("7", "None");
  matches("&3", "'s'");
  matches("{'b': [1], 'a': (1,)}", "OrderedDict({'a': (2,), 'b': [3]})");
  matches("defaultdict(list, {'a': 1})", "defaultdict(int, {'a': 2})");
  matches("defaultdict(list, {'a': 1, 'b': 2})", "{'b': 1, 'a': 2}");
  matches("OrderedDict({'x': 1, 'y': 2})", "OrderedDict({'y': 1, 'x': 2})");
  matches("deque([1, 2], maxlen=2)", "deque([3, 4])");
  matches("Point(x=1, y=[2])", "Point(x='a', y=[None])");
  matches("A([1, 2], meta=(1, 2))", "A([3, 4], meta=(1, 2))");
  matches("K({'a': 1, 'b': [2]})", "K({'a': 'x', 'b': [3]})");
  matches("[[], {}, (), deque([]), Empty()]", "[[], {}, (), deque([]), Empty()]");
  matches("{1: [1], 'a': 2}", "{1.0: [5], 'a': 3}");
  matches("{(1, 'x'): 1, (0, 'y'): 2}", "{(0, 'y'): 3, (1, 'x'): 4}");
}

Test(same_structure, leaf_against_container) {
  mismatch("[1, 2]", "[1, [2]]",
           "at (1,): don't have the same nested structure: expected a leaf, got list of 1 items");
  mismatch("None", "[]",
           "don't have the same nested structure: expected a leaf, got list of 0 items");
  mismatch("[[1]]", "[1]", "at (0,): expected list of 1 items, got int");
}

Test(same_structure, wrong_kind) {
  mismatch("[{'a': [1, 2]}]", "[{'a': (1, 2)}]",
           "at (0, 'a'): expected list of 2 items, got tuple of 2 items");
  mismatch("(1,)", "[1]", "expected tuple of 1 items, got list of 1 items");
  mismatch("deque([1])", "[1]", "expected deque of 1 items, got list of 1 items");
  mismatch("{'a': 1}", "['a']", "expected dict of 1 items, got list of 1 items");
  mismatch("OrderedDict({'a': 1})", "('a',)",
           "expected OrderedDict of 1 items, got tuple of 1 items");
  mismatch("Point(x=1, y=2)", "(1, 2)", "expected Point of 2 items, got tuple of 2 items");
  mismatch("(1, 2)", "Point(x=1, y=2)", "expected tuple of 2 items, got Point of 2 items");
  mismatch("A([1])", "[1]", "expected A of 1 items, got list of 1 items");
}

Test(same_structure, arity) {
  mismatch("(1, 2)", "(1, 2, 3)", "tuple arity mismatch: expected 2 items, got 3");
  mismatch("[0, [1]]", "[0, []]", "at (1,): list arity mismatch: expected 1 items, got 0");
  mismatch("deque([1, 2])", "deque([1])", "deque arity mismatch: expected 2 items, got 1");
  mismatch("P(x=1, y=2)", "P(x=1, y=2, z=3)", "namedtuple arity mismatch: expected 2 items, got 3");
  mismatch("A([1])", "A([1, 2])", "custom node arity mismatch: expected 1 items, got 2");
}

Test(same_structure, dictionary_keys) {
  mismatch("{'a': 1, 'b': 2}", "{'a': 1, 'c': 2, 'd': 3}",
           "dictionary key mismatch: missing key(s) ['b'], extra key(s) ['c', 'd']");
  mismatch("[1, {'x': OrderedDict({2: 0, 1: 0})}]", "[1, {'x': {1: 0}}]",
           "at (1, 'x'): dictionary key mismatch: missing key(s) [2], extra key(s) []");
  mismatch("{'b': [1], 'a': (1,)}", "{'a': [1], 'b': [1]}",
           "at ('a',): expected tuple of 1 items, got list of 1 items");
  mismatch("{1: [1]}", "{1.0: (1,)}", "at (1,): expected list of 1 items, got tuple of 1 items");
  mismatch("{(1, 'x'): [1]}", "{(1, 'x'): (1,)}",
           "at ((1, 'x'),): expected list of 1 items, got tuple of 1 items");
}

Test(same_structure, namedtuple_types) {
  mismatch("Point(x=1, y=2)", "Vec(x=1, y=2)",
           "namedtuple type mismatch: expected Point(x, y), got Vec(x, y)");
  mismatch("[Point(x=1, y=2)]", "[Point(x=1, z=2)]",
           "at (0,): namedtuple type mismatch: expected Point(x, y), got Point(x, z)");
  mismatch("P(x=[1])", "P(x=(1,))", "at (0,): expected list of 1 items, got tuple of 1 items");
}

Test(same_structure, custom_nodes) {
  mismatch("A([1])", "B([1])", "custom node type mismatch: expected A, got B");
  mismatch("A([1], meta=1)", "A([1], meta=2)", "custom node data mismatch: expected 1, got 2");
  mismatch("A([1], meta='m')", "A([1])", "custom node data mismatch: expected 'm', got None");
  mismatch("K({'a': 1})", "K({'b': 1})", "custom node data mismatch: expected ('a',), got ('b',)");
  mismatch("K({'a': [1]})", "K({'a': (1,)})",
           "at ('a',): expected list of 1 items, got tuple of 1 items");
  mismatch("A([0, [1]])", "A([0, (1,)])",
           "at (1,): expected list of 1 items, got tuple of 1 items");
}

Test(same_structure, identical_and_null) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[1, {'a': 2}]");
  cr_assert_eq(gv_same_structure(a, t, t, NULL), GV_OK);
  cr_assert_eq(gv_same_structure(a, t, NULL, NULL), GV_EINVAL);
  gv_arena_free(a);
}

Test(same_structure, deep_million) {
  gv_arena *a = t_arena();
  const gv_node *one, *two, *none;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  cr_assert_eq(gv_int(a, 2, &two, NULL), GV_OK);
  cr_assert_eq(gv_none(a, &none, NULL), GV_OK);
  const gv_node *x = deep(a, GV_LIST, one, DEEP), *y = deep(a, GV_LIST, two, DEEP);
  const gv_node *inner = deep(a, GV_TUPLE, none, 1), *z = deep(a, GV_LIST, inner, DEEP - 1);
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_same_structure(a, x, y, NULL), GV_OK);
  gv_error e;
  cr_assert_eq(gv_same_structure(a, x, z, &e), GV_EMISMATCH);
  cr_assert(strncmp(e.msg, "at (0, 0, 0, ", 13) == 0, "%s", e.msg);
  cr_assert(strstr(e.msg, "...") != NULL);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * same_paths
 * ------------------------------------------------------------------------- */

static gv_status paths(gv_arena *a, const char *x, const char *y, gv_error *e) {
  const gv_node *nx = t_parse(a, x), *ny = t_parse(a, y);
  t_snapshot before = t_snap(a);
  gv_status s = gv_same_paths(a, nx, ny, e);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after), "same_paths changed the arena");
  return s;
}

Test(same_paths, equal_sets) {
  gv_arena *a = t_arena();
  gv_error e;
  const char *pairs[][2] = {
      {"[1, 2]", "(10, 20)"},
      {"[1, 2]", "deque([1, 2])"},
      {"[]", "{}"},
      {"[[], 1]", "([()], 2)"},
      {"{'a': 1, 'b': [2, 3]}", "OrderedDict({'b': (5, 6), 'a': 0})"},
      {"P(x=1, y=2)", "[1, 2]"},
      {"K({'a': 1})", "{'a': 1}"},
      {"A([1, 2])", "(3, 4)"},
      {"defaultdict(list, {'z': [1]})", "{'z': (None,)}"},
      {"7", "'x'"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    cr_assert_eq(paths(a, pairs[i][0], pairs[i][1], &e), GV_OK, "%s vs %s: %s", pairs[i][0],
                 pairs[i][1], e.msg);
  gv_arena_free(a);
}

Test(same_paths, differences) {
  gv_arena *a = t_arena();
  gv_error e;
  cr_assert_eq(paths(a, "1", "[1]", &e), GV_EMISMATCH);
  cr_assert_eq(e.status, GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "don't have the same paths: paths in a missing in b: [()]; paths in b "
                          "missing in a: [(0,)]");
  cr_assert_eq(paths(a, "[1, [2]]", "(1, 2)", &e), GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "don't have the same paths: paths in a missing in b: [(1, 0)]; paths in "
                          "b missing in a: [(1,)]");
  cr_assert_eq(paths(a, "{'a': 1, 'b': {'c': 2}}", "{'a': 5, 'b': {'d': 2}, 'e': 0}", &e),
               GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "don't have the same paths: paths in a missing in b: [('b', 'c')]; "
                          "paths in b missing in a: [('b', 'd'), ('e',)]");
  cr_assert_eq(paths(a, "[1, 2, 3]", "[1, 2]", &e), GV_EMISMATCH);
  cr_assert_str_eq(e.msg, "don't have the same paths: paths in a missing in b: [(2,)]; paths in b "
                          "missing in a: []");
  gv_arena_free(a);
}

Test(same_paths, deep_million) {
  gv_arena *a = t_arena();
  const gv_node *one;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  const gv_node *x = deep(a, GV_LIST, one, DEEP), *y = deep(a, GV_TUPLE, one, DEEP),
                *z = deep(a, GV_TUPLE, one, DEEP - 1);
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_same_paths(a, x, y, NULL), GV_OK);
  gv_error e;
  cr_assert_eq(gv_same_paths(a, x, z, &e), GV_EMISMATCH);
  cr_assert(strncmp(e.msg, "don't have the same paths", 25) == 0, "%s", e.msg);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * is_prefix
 * ------------------------------------------------------------------------- */

static bool prefix(gv_arena *a, const char *s, const char *t) {
  bool r = false;
  gv_error e;
  cr_assert_eq(gv_is_prefix(a, t_parse(a, s), t_parse(a, t), &r, &e), GV_OK, "%s", e.msg);
  return r;
}

Test(is_prefix, cases) {
  gv_arena *a = t_arena();
  cr_assert(prefix(a, "[1, 2]", "[[1], {'a': 2}]"));
  cr_assert(prefix(a, "{'a': None}", "{'a': [1]}"));
  cr_assert(prefix(a, "1", "[1, 2]"));
  cr_assert(prefix(a, "OrderedDict({'b': 1, 'a': 2})", "{'a': [1], 'b': (2,)}"));
  cr_assert(prefix(a, "P(x=1, y=2)", "P(x=[1], y=2)"));
  cr_assert(prefix(a, "A([1])", "A([(1, 2)])"));
  cr_assert(prefix(a, "deque([1], maxlen=1)", "deque([[0]])"));
  cr_assert(!prefix(a, "[1, [2]]", "[1, 2]"));
  cr_assert(!prefix(a, "[1]", "(1,)"));
  cr_assert(!prefix(a, "[1]", "[1, 2]"));
  cr_assert(!prefix(a, "{'a': 1}", "{'b': 1}"));
  cr_assert(!prefix(a, "P(x=1, y=2)", "Q(x=1, y=2)"));
  cr_assert(!prefix(a, "A([1])", "B([1])"));
  gv_arena_free(a);
}

Test(is_prefix, deep_million_and_no_side_effects) {
  gv_arena *a = t_arena();
  const gv_node *one, *pair;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  pair = t_parse(a, "(1, 2)");
  const gv_node *s = deep(a, GV_LIST, one, DEEP), *t = deep(a, GV_LIST, pair, DEEP),
                *u = deep(a, GV_TUPLE, pair, DEEP);
  t_snapshot before = t_snap(a);
  bool r = false;
  cr_assert_eq(gv_is_prefix(a, s, t, &r, NULL), GV_OK);
  cr_assert(r);
  cr_assert_eq(gv_is_prefix(a, t, s, &r, NULL), GV_OK);
  cr_assert(!r);
  cr_assert_eq(gv_is_prefix(a, s, u, &r, NULL), GV_OK);
  cr_assert(!r);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  gv_arena_free(a);
}

/* same_paths against the definition: the sets of flatten_with_path's path
 * tuples (interned, so compared as pointers), on random small trees whose
 * entries collide on purpose (0, 0.0, False, 1, True, 'a' as keys; positions). */
typedef struct rng {
  uint64_t s;
} rng;
static unsigned rnd(rng *r, unsigned n) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return (unsigned)(r->s % n);
}

static const gv_node *rand_tree(gv_arena *a, rng *r, int depth) {
  static const char *const leaves[] = {"1", "None", "'x'", "2.5", "*"};
  static const char *const keys[] = {"0", "0.0", "False", "1", "True", "'a'", "(0,)", "(0, 1)"};
  unsigned kind = depth <= 0 ? 0 : rnd(r, 7);
  if (kind == 0) return t_parse(a, leaves[rnd(r, 5)]);
  size_t n = rnd(r, 4);
  const gv_node *kids[4], *ks[4], *out = NULL;
  for (size_t i = 0; i < n; i++)
    kids[i] = rand_tree(a, r, depth - 1);
  switch (kind) {
  case 1:
    cr_assert_eq(gv_list(a, kids, n, &out, NULL), GV_OK);
    break;
  case 2:
    cr_assert_eq(gv_tuple(a, kids, n, &out, NULL), GV_OK);
    break;
  case 3:
  case 4: { /* dict or OrderedDict with distinct keys (Python-equal ones clash: retry) */
    for (size_t i = 0; i < n; i++)
      ks[i] = t_parse(a, keys[rnd(r, 8)]);
    gv_status s =
        kind == 3 ? gv_dict(a, ks, kids, n, &out, NULL) : gv_odict(a, ks, kids, n, &out, NULL);
    if (s == GV_EKEY) return t_parse(a, "{}");
    cr_assert_eq(s, GV_OK);
    break;
  }
  case 5: {
    const gv_node *nm = t_parse(a, "'C'");
    cr_assert_eq(gv_custom(a, nm, NULL, kids, n, NULL, &out, NULL), GV_OK);
    break;
  }
  default:
    cr_assert_eq(gv_deque(a, kids, n, -1, &out, NULL), GV_OK);
  }
  return out;
}

static int ptr_in(const gv_node *p, const gv_node *fwp) {
  for (size_t i = 0; i < gv_arity(fwp); i++)
    if (gv_child(gv_child(fwp, i), 0) == p) return 1;
  return 0;
}

/* The paths of x missing from y, in x's order, printed as same_paths does. */
static void missing(const gv_node *fx, const gv_node *fy, char *out, size_t cap) {
  gv__sbuf b = {out, cap, 0, 0};
  out[0] = 0;
  int first = 1;
  for (size_t i = 0; i < gv_arity(fx); i++) {
    const gv_node *p = gv_child(gv_child(fx, i), 0);
    if (ptr_in(p, fy)) continue;
    if (!first) gv__sbuf_puts(&b, ", ");
    first = 0;
    gv__sbuf_repr_key(&b, p);
  }
}

Test(same_paths, agrees_with_the_path_sets) {
  gv_arena *a = t_arena();
  rng r = {0x9E3779B97F4A7C15ull};
  int equal = 0, differ = 0;
  for (int round = 0; round < 3000; round++) {
    const gv_node *x = rand_tree(a, &r, 3), *y = rand_tree(a, &r, 3), *fx, *fy;
    if (rnd(&r, 4) == 0) { /* same shape, other leaves and kinds: often equal */
      cr_assert_eq(gv_lists_to_tuples(a, x, &y, NULL), GV_OK);
    }
    cr_assert_eq(gv_flatten_with_path(a, x, &fx, NULL), GV_OK);
    cr_assert_eq(gv_flatten_with_path(a, y, &fy, NULL), GV_OK);
    int same = 1;
    for (size_t i = 0; i < gv_arity(fx) && same; i++)
      same = ptr_in(gv_child(gv_child(fx, i), 0), fy);
    for (size_t i = 0; i < gv_arity(fy) && same; i++)
      same = ptr_in(gv_child(gv_child(fy, i), 0), fx);
    gv_error e;
    gv_status s = gv_same_paths(a, x, y, &e);
    cr_assert_eq(s, same ? GV_OK : GV_EMISMATCH, "%s vs %s: %s", t_repr(a, x), t_repr(a, y),
                 s == GV_OK ? "" : e.msg);
    if (same) {
      equal++;
      continue;
    }
    differ++;
    char mx[600], my[600], want[1300];
    missing(fx, fy, mx, sizeof mx);
    missing(fy, fx, my, sizeof my);
    snprintf(want, sizeof want,
             "don't have the same paths: paths in a missing in b: [%s]; paths in b missing in a: "
             "[%s]",
             mx, my);
    if (strlen(want) < sizeof e.msg - 1)
      cr_assert_str_eq(e.msg, want, "%s vs %s", t_repr(a, x), t_repr(a, y));
  }
  cr_assert_gt(equal, 100);
  cr_assert_gt(differ, 100);
  gv_arena_free(a);
}
