/* SPDX-License-Identifier: MIT */
/* test_flatten.c -- flatten, structure, paths, pack_sequence_as. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "support.h"

/* Leaves of t printed with the repr, separated by spaces. */
static const char *leaves_of(gv_arena *a, const gv_node *t) {
  static char buf[4096];
  const gv_node *out[64];
  size_t n;
  gv_error e;
  cr_assert_eq(gv_flatten(t, out, 64, &n, &e), GV_OK, "%s", e.msg);
  buf[0] = 0;
  for (size_t i = 0; i < n; i++) {
    if (i) strcat(buf, " ");
    strcat(buf, t_repr(a, out[i]));
  }
  return buf;
}

Test(flatten, traversal_order) {
  gv_arena *a = t_arena();
  cr_assert_str_eq(leaves_of(a, t_parse(a, "[{'b': 1, 'a': [2, 3]}, (4, 5), 6]")), "2 3 1 4 5 6");
  cr_assert_str_eq(leaves_of(a, t_parse(a, "[[], {}, (), [[]], None]")), "None");
  cr_assert_str_eq(leaves_of(a, t_parse(a, "OrderedDict({'b': 2, 'a': 1})")), "2 1");
  cr_assert_str_eq(leaves_of(a, t_parse(a, "defaultdict(dv, {'b': 2, 'a': 1})")), "1 2");
  cr_assert_str_eq(leaves_of(a, t_parse(a, "{100: 'world!', 6: 'Hello'}")), "'Hello' 'world!'");
  cr_assert_str_eq(leaves_of(a, t_parse(a, "Point(x=1, y=[2, {'z': 3, 'y': 4}])")), "1 2 4 3");
  cr_assert_str_eq(leaves_of(a, t_parse(a, "TD({'y': 1, 'x': 2})")), "1 2");
  cr_assert_str_eq(leaves_of(a, t_parse(a, "deque([1, [2]], maxlen=4)")), "1 2");
  cr_assert_str_eq(leaves_of(a, t_parse(a, "7")), "7");
  gv_arena_free(a);
}

Test(flatten, small_buffer_is_an_error_and_writes_nothing) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[1, [2, 3]]"), *out[3] = {NULL, NULL, NULL};
  size_t n = 0;
  gv_error e;
  cr_assert_eq(gv_flatten(t, out, 2, &n, &e), GV_ERANGE);
  cr_assert_eq(n, 3);
  cr_assert_null(out[0]);
  cr_assert_eq(gv_flatten(t, out, 3, &n, &e), GV_OK);
  cr_assert_eq(gv_get_int(out[2]), 3);
  gv_arena_free(a);
}

Test(flatten, structure) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[1, (2, 3), {'b': 4, 'a': None}]"), *s, *s2;
  cr_assert_eq(gv_structure(a, t, &s, NULL), GV_OK);
  cr_assert_str_eq(t_repr(a, s), "[*, (*, *), {'b': *, 'a': *}]");
  cr_assert(gv_flags(s) & GV_F_STRUCTURE);
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_structure(a, s, &s2, NULL), GV_OK);
  cr_assert_eq(s2, s); /* O(1), the same node */
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  /* empty subtrees are shared, not rebuilt */
  const gv_node *u = t_parse(a, "[[], 1]"), *us;
  cr_assert_eq(gv_structure(a, u, &us, NULL), GV_OK);
  cr_assert_eq(gv_child(us, 0), gv_child(u, 0));
  gv_arena_free(a);
}

typedef struct paths {
  gv_arena *a;
  char buf[2048];
} paths;

static gv_status collect(void *ctx, const gv_node *const *path, size_t depth, const gv_node *leaf) {
  paths *p = ctx;
  char tmp[256];
  gv__sbuf b = {tmp, sizeof tmp, 0, 0};
  gv__sbuf_path(&b, path, depth);
  strcat(p->buf, tmp);
  strcat(p->buf, "=");
  strcat(p->buf, t_repr(p->a, leaf));
  strcat(p->buf, ";");
  return GV_OK;
}

static gv_status stop_at_second(void *ctx, const gv_node *const *path, size_t depth,
                                const gv_node *leaf) {
  int *count = ctx;
  (void)path, (void)depth, (void)leaf;
  return ++*count == 2 ? GV_EUSER + 1 : GV_OK;
}

Test(flatten, paths) {
  gv_arena *a = t_arena();
  paths p;
  p.a = a;
  p.buf[0] = 0;
  const gv_node *t = t_parse(
      a, "({'b': [2, 3], 'a': (1,)}, TD({'x': 4, 'y': TL([5, 6])}), Point(x=8, y=9), [[]])");
  cr_assert_eq(gv_walk_paths(a, t, collect, &p, NULL), GV_OK);
  cr_assert_str_eq(p.buf, "(0, 'a', 0)=1;(0, 'b', 0)=2;(0, 'b', 1)=3;(1, 'x')=4;(1, 'y', 0)=5;"
                          "(1, 'y', 1)=6;(2, 0)=8;(2, 1)=9;");
  p.buf[0] = 0;
  cr_assert_eq(gv_walk_paths(a, t_parse(a, "5"), collect, &p, NULL), GV_OK);
  cr_assert_str_eq(p.buf, "()=5;");
  const gv_node *fw;
  cr_assert_eq(gv_flatten_with_path(a, t_parse(a, "[{'foo': 42}]"), &fw, NULL), GV_OK);
  cr_assert_str_eq(t_repr(a, fw), "[((0, 'foo'), 42)]");
  cr_assert_eq(gv_flatten_with_path(a, t_parse(a, "[[], {'a': {}}, None]"), &fw, NULL), GV_OK);
  cr_assert_str_eq(t_repr(a, fw), "[((2,), None)]");
  /* a callback's failure is returned and rolls back */
  int count = 0;
  const gv_node *big = t_parse(a, "[1, 2, 3]");
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_walk_paths(a, big, stop_at_second, &count, NULL), GV_EUSER + 1);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  gv_arena_free(a);
}

static const gv_node *pack(gv_arena *a, const char *s, const char *leaves, gv_status want,
                           const char *msg) {
  const gv_node *st = t_parse(a, s), *l = t_parse(a, leaves), *out = NULL;
  const gv_node *items[16];
  for (size_t i = 0; i < gv_arity(l); i++)
    items[i] = gv_child(l, i);
  gv_error e;
  t_snapshot before = t_snap(a);
  gv_status got = gv_pack_sequence_as(a, st, items, gv_arity(l), &out, &e);
  cr_assert_eq(got, want, "%s: %s", s, e.msg);
  if (msg) cr_assert_str_eq(e.msg, msg);
  if (got != GV_OK) {
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after));
  }
  return out;
}

Test(flatten, pack_sequence_as) {
  gv_arena *a = t_arena();
  cr_assert_str_eq(t_repr(a, pack(a, "{'b': 20, 'a': 10}", "[1, 2]", GV_OK, NULL)),
                   "{'b': 2, 'a': 1}");
  cr_assert_str_eq(t_repr(a, pack(a, "[[], {'a': {}}, None, ()]", "[7]", GV_OK, NULL)),
                   "[[], {'a': {}}, 7, ()]");
  cr_assert_str_eq(t_repr(a, pack(a, "deque([10, 20], maxlen=5)", "[1, 2]", GV_OK, NULL)),
                   "deque([1, 2], maxlen=5)");
  cr_assert_str_eq(t_repr(a, pack(a, "Point(x=10, y=(20,))", "[1, 2]", GV_OK, NULL)),
                   "Point(x=1, y=(2,))");
  cr_assert_str_eq(t_repr(a, pack(a, "10", "[[1]]", GV_OK, NULL)), "[1]");
  pack(a, "[10, 20]", "[1]", GV_ECOUNT, "too few leaves: structure holds 2, got 1");
  pack(a, "[10, 20]", "[1, 2, 3]", GV_ECOUNT, "too many leaves: structure holds 2, got 3");
  pack(a, "10", "[]", GV_ECOUNT, "too few leaves: structure holds 1, got 0");
  /* template leaves equal to the new ones give the template itself */
  const gv_node *t = t_parse(a, "[1, {'b': 2}]");
  cr_assert_eq(pack(a, "[1, {'b': 2}]", "[1, 2]", GV_OK, NULL), t);
  gv_arena_free(a);
}

Test(flatten, deep_million) {
  gv_arena *a = t_arena();
  const gv_node *n;
  cr_assert_eq(gv_int(a, 0, &n, NULL), GV_OK);
  for (int i = 0; i < 1000000; i++)
    cr_assert_eq(gv_list(a, &n, 1, &n, NULL), GV_OK);
  const gv_node *out[1], *s;
  size_t k;
  cr_assert_eq(gv_flatten(n, out, 1, &k, NULL), GV_OK);
  cr_assert_eq(k, 1);
  cr_assert_eq(gv_get_int(out[0]), 0);
  cr_assert_eq(gv_structure(a, n, &s, NULL), GV_OK);
  cr_assert_eq(gv_depth(s), 1000000);
  int count = 0;
  cr_assert_eq(gv_walk_paths(a, n, stop_at_second, &count, NULL), GV_OK);
  cr_assert_eq(count, 1);
  const gv_node *seven;
  cr_assert_eq(gv_int(a, 7, &seven, NULL), GV_OK);
  const gv_node *packed;
  cr_assert_eq(gv_pack_sequence_as(a, n, &seven, 1, &packed, NULL), GV_OK);
  cr_assert_eq(gv_depth(packed), 1000000);
  cr_assert_eq(gv_flatten(packed, out, 1, &k, NULL), GV_OK);
  cr_assert_eq(out[0], seven);
  gv_arena_free(a);
}

Test(flatten, budget_failure_rolls_back) {
  gv_arena_config cfg = {256 * 1024, 0, NULL, 0, 0, NULL};
  gv_arena *a;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *n, *items[200];
  for (int i = 0; i < 200; i++)
    cr_assert_eq(gv_int(a, i, &items[i], NULL), GV_OK);
  cr_assert_eq(gv_list(a, items, 200, &n, NULL), GV_OK);
  /* grow until the structure pass no longer fits */
  gv_status s = GV_OK;
  for (int round = 0; round < 10000 && s == GV_OK; round++) {
    const gv_node *x, *st;
    cr_assert_eq(gv_int(a, 1000 + round, &x, NULL), GV_OK);
    const gv_node *pair[2] = {n, x};
    if (gv_list(a, pair, 2, &n, NULL) != GV_OK) break;
    t_snapshot before = t_snap(a);
    s = gv_structure(a, n, &st, NULL);
    if (s != GV_OK) {
      cr_assert_eq(s, GV_ENOMEM);
      t_snapshot after = t_snap(a);
      cr_assert(t_snap_eq(&before, &after));
    }
  }
  const gv_node *out[1];
  size_t k;
  cr_assert_eq(gv_flatten(items[5], out, 1, &k, NULL), GV_OK);
  cr_assert_eq(gv_get_int(out[0]), 5);
  gv_arena_free(a);
}

/* flatten_with_path against its definition: one (path, leaf) tuple per leaf,
 * built here from gv_walk_paths with the public constructors. Nodes are
 * interned, so the two results must be the very same node. */
typedef struct fwp_ref {
  gv_arena *a;
  const gv_node **pairs;
  size_t n, cap;
} fwp_ref;

static gv_status fwp_collect(void *ctx, const gv_node *const *path, size_t depth,
                             const gv_node *leaf) {
  fwp_ref *r = ctx;
  const gv_node *p, *two[2];
  cr_assert_eq(gv_tuple(r->a, path, depth, &p, NULL), GV_OK);
  two[0] = p;
  two[1] = leaf;
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 64;
    r->pairs = realloc(r->pairs, r->cap * sizeof *r->pairs);
    cr_assert_not_null(r->pairs);
  }
  cr_assert_eq(gv_tuple(r->a, two, 2, &r->pairs[r->n++], NULL), GV_OK);
  return GV_OK;
}

static void fwp_check(gv_arena *a, const gv_node *t) {
  const gv_node *got, *want;
  gv_error e;
  /* the fast path first, so that it builds its tuples itself */
  cr_assert_eq(gv_flatten_with_path(a, t, &got, &e), GV_OK, "%s", e.msg);
  fwp_ref r = {a, NULL, 0, 0};
  cr_assert_eq(gv_walk_paths(a, t, fwp_collect, &r, NULL), GV_OK);
  cr_assert_eq(gv_list(a, r.pairs, r.n, &want, NULL), GV_OK);
  free(r.pairs);
  cr_assert_eq((size_t)gv_arity(got), (size_t)gv_num_leaves(t));
  cr_assert(got == want, "flatten_with_path differs: %s", t_repr(a, got));
  /* what it says of its nodes, against the public constructors' in an arena
   * of its own (here they found flatten_with_path's nodes) */
  gv_arena *b = t_arena();
  const gv_node *tb;
  cr_assert_eq(gv_copy(b, t, &tb, NULL), GV_OK);
  fwp_ref rb = {b, NULL, 0, 0};
  cr_assert_eq(gv_walk_paths(b, tb, fwp_collect, &rb, NULL), GV_OK);
  cr_assert_eq(gv_list(b, rb.pairs, rb.n, &want, NULL), GV_OK);
  free(rb.pairs);
  for (size_t i = 0; i <= gv_arity(got); i++) {
    const gv_node *x = i ? gv_child(got, i - 1) : got, *y = i ? gv_child(want, i - 1) : want;
    for (int k = 0; k < 2 && i; k++) { /* the pair, then its path */
      cr_assert_eq(gv_hash(x), gv_hash(y));
      cr_assert_eq(gv_flags(x), gv_flags(y), "pair %zu", i - 1);
      cr_assert_eq(gv_depth(x), gv_depth(y), "pair %zu", i - 1);
      cr_assert_eq(gv_expanded_size(x), gv_expanded_size(y), "pair %zu", i - 1);
      cr_assert_eq(gv_num_leaves(x), gv_num_leaves(y), "pair %zu", i - 1);
      x = gv_child(x, 0);
      y = gv_child(y, 0);
    }
    if (i == 0) {
      cr_assert_eq(gv_hash(x), gv_hash(y));
      cr_assert_eq(gv_flags(x), gv_flags(y));
      cr_assert_eq(gv_depth(x), gv_depth(y));
      cr_assert_eq(gv_expanded_size(x), gv_expanded_size(y));
      cr_assert_eq(gv_num_leaves(x), gv_num_leaves(y));
    }
  }
  gv_arena_free(b);
}

Test(flatten, flatten_with_path_as_defined) {
  gv_arena *a = t_arena();
  fwp_check(a, t_parse(a, "5"));
  fwp_check(a, t_parse(a, "[]"));
  fwp_check(a, t_parse(a, "({'b': [2, 3], 'a': (1,)}, TD({'x': 4, 'y': TL([5, 6])}), "
                          "Point(x=8, y=9), [[]], deque([1, [2]], maxlen=3))"));
  /* keys that are tuples, bools and integral floats (tuples with a twin) */
  fwp_check(a, t_parse(a, "{(1, 'a'): [1, {True: 2, 2.0: 3}], (True, 2.5): {(False,): 4}}"));
  /* more leaves in one container than a batch, between containers */
  char text[8192], *w = text;
  w += sprintf(w, "[");
  for (int i = 0; i < 300; i++)
    w += sprintf(w, i % 97 == 5 ? "[%d, {'k': %d}], " : "%d, ", i, i);
  sprintf(w, "{'z': 1}]");
  fwp_check(a, t_parse(a, text));
  /* shared subtrees: one dict under many prefixes, the same leaves */
  const gv_node *d = t_parse(a, "{'b': [1, 2], 'a': 3}"), *l = d;
  for (int i = 0; i < 6; i++) {
    const gv_node *two[2] = {l, l};
    cr_assert_eq(gv_list(a, two, 2, &l, NULL), GV_OK);
  }
  fwp_check(a, l); /* 64 copies of d: 192 paths */
  /* a chain: paths up to 200 entries long */
  const gv_node *c = t_parse(a, "'end'");
  for (int i = 0; i < 200; i++) {
    const gv_node *kids[2];
    cr_assert_eq(gv_int(a, i, &kids[0], NULL), GV_OK);
    kids[1] = c;
    cr_assert_eq(gv_tuple(a, kids, 2, &c, NULL), GV_OK);
  }
  fwp_check(a, c);
  /* again on the same trees: every tuple already there, nothing new */
  t_snapshot before = t_snap(a);
  const gv_node *r;
  cr_assert_eq(gv_flatten_with_path(a, c, &r, NULL), GV_OK);
  t_snapshot after = t_snap(a);
  cr_assert_eq(before.st.nodes, after.st.nodes);
  gv_arena_free(a);
}

/* The rebuild walk looks ahead along chains of rebuilt lists and tuples;
 * results are what rebuilding each node in turn gives. */
Test(flatten, structure_of_chains) {
  gv_arena *a = t_arena();
  const gv_node *c, *s, *star;
  cr_assert_eq(gv_star(a, &star, NULL), GV_OK);
  /* [0, (1, [2, (3, ... 'x')])], and its structure built by hand */
  const gv_node *want = star;
  cr_assert_eq(gv_str(a, "x", 1, &c, NULL), GV_OK);
  for (int i = 0; i < 1000; i++) {
    const gv_node *kids[3] = {NULL, c, NULL}, *wk[3] = {star, want, star};
    size_t n = (size_t)(i % 3) + 1; /* arity 1, 2 or 3: the chain child last */
    cr_assert_eq(gv_int(a, i, &kids[0], NULL), GV_OK);
    if (n == 1) kids[0] = c, wk[0] = want;
    if (n == 3) {
      kids[1] = kids[0];
      kids[2] = c;
      wk[1] = star;
      wk[2] = want;
    }
    if (n == 2) kids[1] = c;
    cr_assert_eq((i % 2 ? gv_list : gv_tuple)(a, kids, n, &c, NULL), GV_OK);
    cr_assert_eq((i % 2 ? gv_list : gv_tuple)(a, wk, n, &want, NULL), GV_OK);
  }
  cr_assert_eq(gv_structure(a, c, &s, NULL), GV_OK);
  cr_assert(s == want);
  gv_arena_free(a);
}
