/* SPDX-License-Identifier: MIT */
/* test_children.c -- frozen arenas, child arenas over them, gv_copy sharing what a parent
 * holds, gv_arena_compact; fail-the-Nth-allocation for each. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

static gv_arena *child_of(gv_arena *p, size_t max_bytes) {
  gv_arena_config cfg = {.max_bytes = max_bytes, .parent = p};
  gv_arena *c = NULL;
  cr_assert_eq(gv_arena_new(&cfg, &c), GV_OK);
  return c;
}

typedef struct sbuf {
  char p[4096];
  size_t len;
} sbuf;
static gv_status w_sbuf(void *ctx, const char *d, size_t len) {
  sbuf *b = ctx;
  if (b->len + len >= sizeof b->p) return GV_ERANGE;
  memcpy(b->p + b->len, d, len);
  b->len += len;
  b->p[b->len] = 0;
  return GV_OK;
}
/* The literal text of n, by the reader gv_print (works on frozen arenas too). */
static const char *repr(const gv_arena *a, const gv_node *n) {
  static sbuf b;
  b.len = 0;
  b.p[0] = 0;
  cr_assert_eq(gv_print(a, n, w_sbuf, &b, NULL), GV_OK);
  return b.p;
}
static void fp(const gv_arena *a, const gv_node *n, uint8_t out[16]) {
  cr_assert_eq(gv_fingerprint(a, n, out, NULL), GV_OK);
}

/* A frozen parent holding a record's keysets (insertion and sorted order) and a tree. */
#define REC "{'name': 'x', 'id': 1, 'tags': ['a', 'b'], 'pos': (1.5, 2.5), 'zz': None, 'aa': 0}"

Test(children, interning_finds_the_parents_nodes) {
  gv_arena *p = t_arena();
  const gv_node *pt = t_parse(p, REC);
  const gv_node *big =
      t_parse(p, "[" REC ", {'k': [1, 2, 3]}, 'shared string', b'by', 12345678901234567890.5]");
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  cr_assert(gv_arena_frozen(p));
  gv_stats ps0, ps1;
  gv_arena_stats(p, &ps0);
  t_snapshot psnap = t_snap(p);

  gv_arena *c = child_of(p, 0);
  cr_assert_eq(gv_arena_parent(c), p);
  cr_assert(!gv_arena_frozen(c));
  /* the same text: the parent's node, and nothing built in the child */
  cr_assert_eq(t_parse(c, REC), pt);
  cr_assert_eq(
      t_parse(c, "[" REC ", {'k': [1, 2, 3]}, 'shared string', b'by', 12345678901234567890.5]"),
      big);
  gv_stats cs;
  gv_arena_stats(c, &cs);
  cr_assert_eq(cs.nodes, 0);
  cr_assert_gt(cs.hits, 0);
  /* a new tree around parent subtrees: only the new nodes are the child's */
  const gv_node *t = t_parse(c, "(" REC ", 'shared string', [1, 2, 3], 'new')");
  cr_assert_eq(gv_child(t, 0), pt);
  cr_assert_eq(gv_child(t, 1), gv_child(big, 2));
  cr_assert_eq(gv_child(t, 2), gv_child(gv_child(big, 1), 0));
  gv_arena_stats(c, &cs);
  cr_assert_eq(cs.nodes, 2, "'new' and the tuple: %zu", cs.nodes);
  /* the parent is untouched: no node, no counter */
  gv_arena_stats(p, &ps1);
  cr_assert_eq(memcmp(&ps0, &ps1, sizeof ps0), 0);
  t_snapshot psnap1 = t_snap(p);
  cr_assert(t_snap_eq(&psnap, &psnap1));
  /* keys and keysets are the parent's */
  const gv_node *d = t_parse(c, "{'aa': 7, 'id': 8, 'name': 9, 'pos': 10, 'tags': 11, 'zz': 12}");
  cr_assert_eq(gv_key(d, 0), gv_key(pt, 5));
  cr_assert_eq(gv_meta(d), gv_keyset_twin(gv_meta(pt))); /* sorted order: the parent's twin */
  gv_arena_free(c);
  gv_arena_free(p);
}

Test(children, shuffled_keysets_use_the_parents_sorted_twin) {
  gv_arena *p = t_arena();
  /* 12 keys: an indexed keyset; the parent holds the sorted one */
  const gv_node *s = t_parse(p, "{'a': 0, 'b': 0, 'c': 0, 'd': 0, 'e': 0, 'f': 0, 'g': 0, 'h': 0, "
                                "'i': 0, 'j': 0, 'k': 0, 'l': 0}");
  cr_assert(gv_keyset_sorted(gv_meta(s)));
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  gv_arena *c = child_of(p, 0);
  const gv_node *t = t_parse(c, "{'l': 1, 'b': 2, 'k': 3, 'c': 4, 'j': 5, 'd': 6, 'i': 7, 'e': 8, "
                                "'h': 9, 'f': 10, 'g': 11, 'a': 12}");
  cr_assert_eq(gv_keyset_twin(gv_meta(t)), gv_meta(s));
  cr_assert_eq(gv_child(t, gv_order_index(t, 0)), (const gv_node *)gv_child(t, 11));
  const gv_node *o = NULL;
  cr_assert_eq(gv_order(c, t, &o, NULL, NULL), GV_OK);
  cr_assert_eq(gv_meta(o), gv_meta(s));
  cr_assert_str_eq(repr(c, o),
                   "{'a': 12, 'b': 2, 'c': 4, 'd': 6, 'e': 8, 'f': 10, 'g': 11, 'h': 9, "
                   "'i': 7, 'j': 5, 'k': 3, 'l': 1}");
  gv_arena_free(c);
  gv_arena_free(p);
}

Test(children, budget_counts_only_the_child) {
  gv_arena *p = t_arena();
  /* a parent tree of a few hundred KiB */
  char *text = malloc(1 << 20);
  size_t n = 0;
  n += (size_t)sprintf(text + n, "[");
  for (int j = 0; j < 50; j++) {
    n += (size_t)sprintf(text + n, "[");
    for (int i = j * 100; i < j * 100 + 100; i++)
      n += (size_t)sprintf(text + n, "{'key%d': 'value number %d', 'k': [%d, %d]}, ", i, i, i,
                           i + 1);
    n += (size_t)sprintf(text + n, "], ");
  }
  sprintf(text + n, "]");
  const gv_node *pt = t_parse(p, text);
  gv_stats ps;
  gv_arena_stats(p, &ps);
  cr_assert_gt(ps.bytes_reserved, 512 * 1024);
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  /* a child of 16 KiB: parsing the whole text again is free, wrapping it costs a few bytes */
  gv_arena *c = child_of(p, 16 * 1024);
  const gv_node *again = NULL;
  cr_assert_eq(gv_parse(c, text, strlen(text), &again, NULL), GV_OK);
  cr_assert_eq(again, pt);
  const gv_node *w = NULL;
  cr_assert_eq(gv_list(c, &pt, 1, &w, NULL), GV_OK);
  gv_stats cs;
  gv_arena_stats(c, &cs);
  cr_assert_leq(cs.bytes_reserved, 16 * 1024);
  cr_assert_eq(cs.nodes, 1);
  /* but its own big tree does not fit, and fails without harm */
  t_snapshot c0 = t_snap(c), p0 = t_snap(p);
  gv_error e;
  n = 0;
  n += (size_t)sprintf(text + n, "[");
  for (int i = 0; i < 2000; i++)
    n += (size_t)sprintf(text + n, "'fresh %d', ", i);
  sprintf(text + n, "]");
  const gv_node *x = NULL;
  cr_assert_eq(gv_parse(c, text, strlen(text), &x, &e), GV_ENOMEM);
  t_snapshot c1 = t_snap(c), p1 = t_snap(p);
  cr_assert(t_snap_eq(&c0, &c1));
  cr_assert(t_snap_eq(&p0, &p1));
  /* a bad literal too */
  cr_assert_eq(gv_parse(c, "[1, 'new', {'a': ", 17, &x, &e), GV_EPARSE);
  c1 = t_snap(c);
  p1 = t_snap(p);
  cr_assert(t_snap_eq(&c0, &c1));
  cr_assert(t_snap_eq(&p0, &p1));
  cr_assert_eq(gv_child(w, 0), pt); /* earlier nodes still valid */
  free(text);
  gv_arena_free(c);
  gv_arena_free(p);
}

Test(children, a_frozen_arena_refuses_every_writer) {
  gv_arena *p = t_arena();
  const gv_node *t = t_parse(p, "[{'b': 1, 'a': [2, 'x']}, (3, None)]");
  const gv_node *l = t_parse(p, "[1, 2, 3]");
  gv_mark m = gv_arena_mark(p);
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  cr_assert_eq(gv_arena_freeze(p), GV_OK); /* twice is fine */
  cr_assert_eq(gv_arena_freeze(NULL), GV_EINVAL);
  t_snapshot s0 = t_snap(p);
  const gv_node *o = NULL, *k = NULL;
  const char *str = NULL;
  size_t len = 0;
  gv_error e;
  const gv_node *kids[2] = {t, l};
  gv_status st[32];
  size_t ns = 0;
  st[ns++] = gv_int(p, 5, &o, &e);
  st[ns++] = gv_int(p, INT64_MAX, &o, &e);
  st[ns++] = gv_none(p, &o, &e);
  st[ns++] = gv_float(p, 0.1, &o, &e);
  st[ns++] = gv_str(p, "x", 1, &o, &e);
  st[ns++] = gv_bytes(p, "x", 1, &o, &e);
  st[ns++] = gv_list(p, kids, 2, &o, &e);
  st[ns++] = gv_tuple(p, kids, 2, &o, &e);
  st[ns++] = gv_parse(p, "[1]", 3, &o, &e);
  st[ns++] = gv_decode(p, "GRV", 3, &o, &e);
  st[ns++] = gv_structure(p, t, &o, &e);
  st[ns++] = gv_order(p, t, &o, NULL, &e);
  st[ns++] = gv_lists_to_tuples(p, t, &o, &e);
  st[ns++] = gv_map(p, t_map_first, NULL, &t, 1, true, &o, &e);
  st[ns++] = gv_map_up_to(p, t, t_map_first, NULL, &t, 1, &o, &e);
  st[ns++] = gv_map_shape(p, t_map_first, NULL, t, &o, &e);
  st[ns++] = gv_traverse(p, t, true, t_visit_keep, NULL, &o, &e);
  size_t npaths = 0;
  st[ns++] = gv_walk_paths(p, t, t_count_paths, &npaths, &e);
  st[ns++] = gv_flatten_with_path(p, t, &o, &e);
  st[ns++] = gv_pack_sequence_as(p, l, kids, 3, &o, &e);
  st[ns++] = gv_print_str(p, t, false, &str, &len, &e);
  st[ns++] = gv_copy(p, t, &o, &e);
  st[ns++] = gv_keyset(p, kids, 0, &k, &e);
  st[ns++] = gv_dict(p, NULL, NULL, 0, &o, &e);
  st[ns++] = gv_rebuild(p, l, (const gv_node *const[]){l, l, l}, &o, &e);
  for (size_t i = 0; i < ns; i++)
    cr_assert_eq(st[i], GV_EINVAL, "call %zu: %s", i, gv_status_name(st[i]));
  cr_assert_eq(npaths, 0, "walk_paths called back before refusing");
  cr_assert(strstr(e.msg, "frozen") != NULL, "%s", e.msg);
  cr_assert_eq(gv_arena_rollback(p, &m), GV_EINVAL);
  t_snapshot s1 = t_snap(p);
  cr_assert(t_snap_eq(&s0, &s1));
  /* readers work */
  cr_assert_eq(gv_same_structure(p, t, t, NULL), GV_OK);
  cr_assert_str_eq(repr(p, t), "[{'b': 1, 'a': [2, 'x']}, (3, None)]");
  uint8_t f[16];
  fp(p, t, f);
  gv_arena_free(p);
}

Test(children, parent_must_be_frozen_and_children_do_not_see_each_other) {
  gv_arena *p = t_arena(), *c = NULL;
  const gv_node *pt = t_parse(p, "['p', 1.25]");
  gv_arena_config cfg = {.parent = p};
  cr_assert_eq(gv_arena_new(&cfg, &c), GV_EINVAL);
  cr_assert_null(c);
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  gv_arena *c1 = child_of(p, 0), *c2 = child_of(p, 0);
  const gv_node *x1 = t_parse(c1, "['only', 'in', 'c1', ['p', 1.25]]");
  gv_stats s2;
  gv_arena_stats(c2, &s2);
  cr_assert_eq(s2.nodes, 0);
  const gv_node *x2 = t_parse(c2, "['only', 'in', 'c1', ['p', 1.25]]");
  cr_assert_neq(x1, x2);
  cr_assert_eq(gv_child(x1, 3), pt);
  cr_assert_eq(gv_child(x2, 3), pt);
  gv_arena_stats(c2, &s2);
  cr_assert_eq(s2.nodes, 4);
  /* equal by value everywhere */
  uint8_t f1[16], f2[16];
  fp(c1, x1, f1);
  fp(c2, x2, f2);
  cr_assert_eq(memcmp(f1, f2, 16), 0);
  cr_assert_eq(gv_same_paths(c1, x1, x2, NULL), GV_OK);
  gv_arena_free(c1);
  gv_arena_free(c2);
  gv_arena_free(p);
}

Test(children, freeing_the_parent_first_keeps_children_valid) {
  gv_arena *p = t_arena();
  const gv_node *pt = t_parse(p, "{'keep': ['me', 'alive'], 'n': 0.1}");
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  gv_arena *c = child_of(p, 0);
  gv_arena_free(p); /* the owner lets go; the child still holds it */
  const gv_node *t = t_parse(c, "[{'keep': ['me', 'alive'], 'n': 0.1}, 'new']");
  cr_assert_eq(gv_child(t, 0), pt);
  cr_assert_str_eq(repr(c, t), "[{'keep': ['me', 'alive'], 'n': 0.1}, 'new']");
  gv_arena_free(c); /* and now both go (ASan's leak check sees it) */
}

Test(children, chains_and_grandchildren) {
  gv_arena *g = t_arena();
  const gv_node *gt = t_parse(g, "('grand', [1, 2])");
  cr_assert_eq(gv_arena_freeze(g), GV_OK);
  gv_arena *p = child_of(g, 0);
  const gv_node *pt = t_parse(p, "[('grand', [1, 2]), 'parent']");
  cr_assert_eq(gv_child(pt, 0), gt);
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  gv_arena *c = child_of(p, 0);
  const gv_node *ct = t_parse(c, "{'x': [('grand', [1, 2]), 'parent'], 'y': ('grand', [1, 2])}");
  cr_assert_eq(gv_child(ct, 0), pt);
  cr_assert_eq(gv_child(ct, 1), gt);
  const gv_node *c2 = NULL;
  cr_assert_eq(gv_copy(c, gt, &c2, NULL), GV_OK);
  cr_assert_eq(c2, gt);
  gv_arena_free(p); /* middle of the chain first */
  gv_arena_free(g);
  cr_assert_str_eq(repr(c, ct), "{'x': [('grand', [1, 2]), 'parent'], 'y': ('grand', [1, 2])}");
  gv_arena_free(c);
}

Test(children, constructors_accept_parent_nodes_as_children) {
  gv_arena *p = t_arena(), *other = t_arena();
  const gv_node *pt = t_parse(p, "['from', 'parent']");
  const gv_node *ot = t_parse(other, "['from', 'elsewhere']");
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  gv_arena *c = child_of(p, 0);
  const gv_node *kids[2] = {pt, pt}, *out = NULL;
  cr_assert_eq(gv_tuple(c, kids, 2, &out, NULL), GV_OK);
  kids[1] = ot;
  gv_status s = gv_tuple(c, kids, 2, &out, NULL);
  cr_assert_eq(s, GV_EINVAL); /* refused in every build */
  gv_arena_free(c);
  gv_arena_free(other);
  gv_arena_free(p);
}

/* ---- gv_copy ---- */

Test(children, copy_shares_what_the_parent_holds) {
  gv_arena *p = t_arena();
  const gv_node *pt = t_parse(p, "{'shared': [1, 2, {'deep': 'x'}], 'k': 'v'}");
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  gv_arena *c1 = child_of(p, 0), *c2 = child_of(p, 0);
  /* a tree of the parent: itself, O(1), nothing built */
  const gv_node *o = NULL;
  cr_assert_eq(gv_copy(c1, pt, &o, NULL), GV_OK);
  cr_assert_eq(o, pt);
  gv_stats s;
  gv_arena_stats(c1, &s);
  cr_assert_eq(s.nodes, 0);
  /* a tree of c1 with parent subtrees, into c2: those are shared, the rest copied */
  const gv_node *x =
      t_parse(c1, "[{'shared': [1, 2, {'deep': 'x'}], 'k': 'v'}, ['c1', 'own'], 'k']");
  cr_assert_eq(gv_copy(c2, x, &o, NULL), GV_OK);
  cr_assert_neq(o, x);
  cr_assert_eq(gv_child(o, 0), pt);
  cr_assert_eq(gv_child(o, 2), gv_key(pt, 1));
  gv_arena_stats(c2, &s);
  cr_assert_eq(s.nodes, 4, "['c1', 'own'], its two strs, the root: %zu", s.nodes);
  uint8_t f1[16], f2[16];
  fp(c1, x, f1);
  fp(c2, o, f2);
  cr_assert_eq(memcmp(f1, f2, 16), 0);
  /* a foreign tree equal to the parent's: interning finds the parent's */
  gv_arena *f = t_arena();
  const gv_node *ft = t_parse(f, "{'shared': [1, 2, {'deep': 'x'}], 'k': 'v'}");
  cr_assert_eq(gv_copy(c2, ft, &o, NULL), GV_OK);
  cr_assert_eq(o, pt);
  gv_arena_free(f);
  gv_arena_free(c1);
  gv_arena_free(c2);
  gv_arena_free(p);
}

Test(children, copy_budget_failure_leaves_both_untouched) {
  gv_arena *p = t_arena();
  const gv_node *pt = t_parse(p, "['parent', 'strings']");
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  gv_arena *src = t_arena();
  char text[20000];
  size_t n = 0;
  n += (size_t)sprintf(text + n, "[['parent', 'strings'], ");
  for (int i = 0; i < 600; i++)
    n += (size_t)sprintf(text + n, "'s%d', ", i);
  sprintf(text + n, "]");
  const gv_node *x = t_parse(src, text);
  gv_arena *c = child_of(p, 8 * 1024);
  t_snapshot c0 = t_snap(c), p0 = t_snap(p);
  const gv_node *o = NULL;
  gv_error e;
  cr_assert_eq(gv_copy(c, x, &o, &e), GV_ENOMEM);
  t_snapshot c1 = t_snap(c), p1 = t_snap(p);
  cr_assert(t_snap_eq(&c0, &c1));
  cr_assert(t_snap_eq(&p0, &p1));
  cr_assert_eq(gv_copy(c, gv_child(x, 0), &o, &e), GV_OK);
  cr_assert_eq(o, pt);
  gv_arena_free(c);
  gv_arena_free(src);
  gv_arena_free(p);
}

/* ---- gv_arena_compact ---- */

Test(children, compact_keeps_only_what_the_roots_reach) {
  gv_arena *a = t_arena();
  char text[64];
  for (int i = 0; i < 500; i++) { /* garbage */
    snprintf(text, sizeof text, "[%d, 'garbage %d', (%d.5,)]", i, i, i);
    (void)t_parse(a, text);
  }
  const gv_node *shared = t_parse(a, "{'s': ['shared', 'subtree'], 'n': 123456789012345678}");
  const gv_node *roots[3];
  roots[0] = t_parse(a, "[{'s': ['shared', 'subtree'], 'n': 123456789012345678}, 'one']");
  roots[1] = t_parse(a, "({'s': ['shared', 'subtree'], 'n': 123456789012345678}, b'two')");
  roots[2] = shared;
  uint8_t before[3][16];
  for (int i = 0; i < 3; i++)
    fp(a, roots[i], before[i]);
  gv_stats sa, sf;
  gv_arena_stats(a, &sa);
  t_snapshot a0 = t_snap(a);
  gv_arena *f = NULL;
  const gv_node *out[3];
  gv_error e;
  cr_assert_eq(gv_arena_compact(a, roots, 3, &f, out, &e), GV_OK, "%s", e.msg);
  t_snapshot a1 = t_snap(a);
  cr_assert(t_snap_eq(&a0, &a1)); /* a is only read */
  gv_arena_stats(f, &sf);
  cr_assert_lt(sf.nodes, sa.nodes / 10);
  cr_assert_lt(sf.bytes_used, sa.bytes_used / 5);
  for (int i = 0; i < 3; i++) {
    uint8_t after[16];
    fp(f, out[i], after);
    cr_assert_eq(memcmp(before[i], after, 16), 0);
    cr_assert_eq(gv_hash(out[i]), gv_hash(roots[i]));
  }
  /* what the roots share is one node in f */
  cr_assert_eq(gv_child(out[0], 0), out[2]);
  cr_assert_eq(gv_child(out[1], 0), out[2]);
  /* exactly the reached nodes: the shared dict, its keyset and twin, 5 strs, a list, the big
   * int, 'one', the list, b'two', the tuple */
  cr_assert_eq(t_parse(f, "[{'s': ['shared', 'subtree'], 'n': 123456789012345678}, 'one']"),
               out[0]);
  gv_arena_stats(f, &sf);
  size_t nodes = sf.nodes;
  /* swap: free the old arena, the new one stands alone */
  gv_arena_free(a);
  cr_assert_str_eq(repr(f, out[1]),
                   "({'s': ['shared', 'subtree'], 'n': 123456789012345678}, b'two')");
  /* out_roots may be roots; an empty set gives an empty arena */
  gv_arena *f2 = NULL;
  const gv_node *again[2] = {out[0], out[1]};
  cr_assert_eq(gv_arena_compact(f, again, 2, &f2, again, NULL), GV_OK);
  gv_arena_stats(f2, &sf);
  cr_assert_eq(sf.nodes, nodes);
  cr_assert_eq(gv_hash(again[0]), gv_hash(out[0]));
  gv_arena *f3 = NULL;
  cr_assert_eq(gv_arena_compact(f, NULL, 0, &f3, NULL, NULL), GV_OK);
  gv_arena_stats(f3, &sf);
  cr_assert_eq(sf.nodes, 0);
  gv_arena_free(f3);
  cr_assert_eq(gv_arena_compact(NULL, NULL, 0, &f3, NULL, NULL), GV_EINVAL);
  cr_assert_null(f3);
  const gv_node *bad = (const gv_node *)(uintptr_t)0x3F; /* a word no constructor makes */
  cr_assert_eq(gv_arena_compact(f, &bad, 1, &f3, out, NULL), GV_EINVAL);
  gv_arena_free(f);
  gv_arena_free(f2);
}

Test(children, compact_of_a_child_shares_the_parent) {
  gv_arena *p = t_arena();
  const gv_node *pt = t_parse(p, "{'ref': ['erence', 1.25], 'x': 'y'}");
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  gv_arena *c = child_of(p, 64 * 1024);
  for (int i = 0; i < 50; i++) {
    char text[64];
    snprintf(text, sizeof text, "['garbage', %d.5]", i);
    (void)t_parse(c, text);
  }
  const gv_node *r = t_parse(c, "[{'ref': ['erence', 1.25], 'x': 'y'}, 'kept']");
  gv_arena *f = NULL;
  const gv_node *out = NULL;
  cr_assert_eq(gv_arena_compact(c, &r, 1, &f, &out, NULL), GV_OK);
  cr_assert_eq(gv_arena_parent(f), p);
  cr_assert_eq(gv_child(out, 0), pt);
  gv_stats s;
  gv_arena_stats(f, &s);
  cr_assert_eq(s.nodes, 2, "'kept', the list, and nothing of the parent: %zu", s.nodes);
  cr_assert_eq(s.max_bytes, 64 * 1024);
  gv_arena_free(c);
  gv_arena_free(p);
  cr_assert_str_eq(repr(f, out), "[{'ref': ['erence', 1.25], 'x': 'y'}, 'kept']");
  /* over the budget (the tree takes about 3 KB with its table): no arena, roots unchanged */
  gv_arena_config cfg = {.max_bytes = 2048};
  gv_arena *small = NULL, *g = NULL;
  cr_assert_eq(gv_arena_new(&cfg, &small), GV_OK);
  const gv_node *keep = out;
  gv_error e;
  cr_assert_eq(gv_arena_compact(small, &out, 1, &g, &out, &e), GV_ENOMEM);
  cr_assert_null(g);
  cr_assert_eq(out, keep);
  gv_arena_free(small);
  gv_arena_free(f);
}

/* ---- fail-the-Nth-allocation ---- */

static const char *BIGTEXT =
    "[{'b': [1, 2], 'a': 'x', 'c': {'z': 1.5, 'y': (1, 'q')}}, 'shared', b'bytes', "
    "OrderedDict({'k': 1, 'j': 2}), Point(x=1, y=2), deque([1, 2], maxlen=4), "
    "{'l': 1, 'k': 2, 'j': 3, 'i': 4, 'h': 5, 'g': 6, 'f': 7, 'e': 8, 'd': 9, 'c': 10}, "
    "{(1, True): 'nc', (2.0, 'x'): 'key'}, 123456789012345678901.5, 'more', 'strings']";

Test(children, faults_in_child_builds_copy_and_compact) {
  t_hook h = {0};
  gv_allocator al = {t_hook_realloc, &h};
  gv_arena_config pc = {.alloc = &al};
  gv_arena *p = NULL;
  cr_assert_eq(gv_arena_new(&pc, &p), GV_OK);
  (void)t_parse(p, "[{'b': [1, 2], 'a': 'x'}, 'shared', Point(x=1, y=2)]");
  cr_assert_eq(gv_arena_freeze(p), GV_OK);
  t_snapshot p0 = t_snap(p);
  gv_arena *src = t_arena();
  const gv_node *x = t_parse(src, BIGTEXT);
  uint8_t fx[16];
  fp(src, x, fx);
  long total = 0;
  for (int which = 0; which < 4; which++) {
    for (long n = 1;; n++) {
      gv_arena_config cc = {.alloc = &al, .parent = p};
      gv_arena *c = NULL;
      h.armed = 0;
      if (which == 0) { /* the child's creation itself */
        h.armed = 1, h.calls = 0, h.fail_at = n;
        gv_status s = gv_arena_new(&cc, &c);
        h.armed = 0;
        if (s == GV_OK) {
          gv_arena_free(c);
          break;
        }
        cr_assert_eq(s, GV_ENOMEM);
        cr_assert_null(c);
        total++;
        continue;
      }
      cr_assert_eq(gv_arena_new(&cc, &c), GV_OK);
      const gv_node *pre = t_parse(c, "['made', 'before', ('arming',)]");
      t_snapshot c0 = t_snap(c);
      const gv_node *o = NULL;
      gv_arena *f = NULL;
      gv_error e;
      gv_status s;
      h.armed = 1, h.calls = 0, h.fail_at = n;
      if (which == 1)
        s = gv_parse(c, BIGTEXT, strlen(BIGTEXT), &o, &e);
      else if (which == 2)
        s = gv_copy(c, x, &o, &e);
      else
        s = gv_arena_compact(c, (const gv_node *const[]){x, pre}, 2, &f,
                             (const gv_node *[]){NULL, NULL}, &e);
      h.armed = 0;
      t_snapshot c1 = t_snap(c), p1 = t_snap(p);
      cr_assert(t_snap_eq(&p0, &p1), "the parent changed (%d, %ld)", which, n);
      if (s == GV_OK) {
        if (which == 3) {
          cr_assert_not_null(f);
          gv_arena_free(f);
        } else {
          uint8_t fo2[16];
          fp(c, o, fo2);
          cr_assert_eq(memcmp(fo2, fx, 16), 0);
        }
        gv_arena_free(c);
        break;
      }
      cr_assert_eq(s, GV_ENOMEM, "%d, %ld: %s", which, n, e.msg);
      cr_assert(strstr(e.msg, "memory") != NULL, "%s", e.msg);
      cr_assert(t_snap_eq(&c0, &c1), "the child changed (%d, %ld)", which, n);
      cr_assert_null(f);
      cr_assert_str_eq(repr(c, pre), "['made', 'before', ('arming',)]");
      total++;
      gv_arena_free(c);
    }
  }
  cr_assert_gt(total, 10);
  gv_arena_free(src);
  gv_arena_free(p);
}
