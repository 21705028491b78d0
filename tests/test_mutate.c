/* SPDX-License-Identifier: MIT */
/* test_mutate.c -- gv_mutate (grove_mutate.h): determinism per seed, bounds held over
 * thousands of seeds, every mutation kind and every node kind reachable, outputs that encode,
 * decode and print back to the same node, the JSON and keep-types flags, crossover and the
 * dictionary across arenas, the host's leaf callback, arenas unchanged after failed calls,
 * and fail-the-Nth-allocation. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "grove_mutate.h"
#include "support.h"

#define RICH                                                                                       \
  "[{'b': [1, 2.5, 'x\\u00e9'], 'a': None, 1: (True, b'\\x00\\xff'), 2.0: &7, (1, 'k'): *}, "      \
  "OrderedDict({'p': -3, 'q': [4.0, nan]}), defaultdict(list, {False: 'v', 'w': {}}), "            \
  "deque([1, [2, 3]], maxlen=5), Point(x=1, y=(2, [3])), Name([1, {'q': 2}], meta=('m', 1)), "     \
  "KD({'b': [1], 'a': 2}), [], (), {}, -0.0, 123456789012345678, 'caf\\u00e9 \\U0001f600']"

static const char *const TREES[] = {
    RICH,
    "None",
    "7",
    "[1, 2, 3]",
    "{'a': 1, 'b': [True, None, 'x']}",
    "{\"k\": [1, 2.5, {\"z\": \"w\"}], \"n\": null, \"t\": true}",
    "((((((1,),),),),),)",
    "{1: 'one', 1.5: 'x', (1, 2): [b'b'], None: 0}",
    "Point(x=[1, 2], y={'a': (3,)})",
    "deque([], maxlen=0)",
};
#define NTREES (sizeof TREES / sizeof *TREES)

static gv_mutate_options bounded(void) {
  gv_mutate_options o;
  memset(&o, 0, sizeof o);
  o.max_size = 400;
  o.max_leaves = 60;
  o.max_depth = 12;
  o.max_wire = 900;
  return o;
}

static void fp(gv_arena *a, const gv_node *t, uint8_t out[16]) {
  gv_error e;
  cr_assert_eq(gv_fingerprint(a, t, out, &e), GV_OK, "%s", e.msg);
}

static void assert_fits(gv_arena *a, const gv_node *t, const gv_mutate_options *o,
                        const char *what) {
  gv_error e;
  cr_assert_eq(gv_mutate_fits(a, t, o, &e), GV_OK, "%s: %s", what, e.msg);
  cr_assert(!o->max_size || gv_expanded_size(t) <= o->max_size);
  cr_assert(!o->max_leaves || gv_num_leaves(t) <= o->max_leaves);
  cr_assert(!o->max_depth || gv_depth(t) <= o->max_depth);
  size_t wire = 0;
  cr_assert_eq(gv_encode(a, t, t_count_bytes, &wire, NULL), GV_OK);
  cr_assert(!o->max_wire || wire <= o->max_wire, "%s: %zu wire bytes", what, wire);
}

/* encode -> decode in a fresh arena -> the same fingerprint; decode into a -> the same node;
 * print -> parse -> the same node */
static void assert_round_trips(gv_arena *a, const gv_node *t) {
  t_fixed w = {.len = 0};
  gv_error e;
  cr_assert_eq(gv_encode(a, t, t_fixed_sink, &w, &e), GV_OK, "%s", e.msg);
  const gv_node *d = NULL;
  cr_assert_eq(gv_decode(a, w.p, w.len, &d, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(d, t, "decode(encode(t)) is another node");
  gv_arena *b = t_arena();
  cr_assert_eq(gv_decode(b, w.p, w.len, &d, &e), GV_OK, "%s", e.msg);
  uint8_t x[16], y[16];
  fp(a, t, x);
  fp(b, d, y);
  cr_assert(memcmp(x, y, 16) == 0, "another arena decodes another tree");
  gv_arena_free(b);
  const char *s = NULL;
  size_t len = 0;
  cr_assert_eq(gv_print_str(a, t, false, &s, &len, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_parse(a, s, len, &d, &e), GV_OK, "%s: %s", s, e.msg);
  cr_assert_eq(d, t, "parse(print(t)) is another node: %s", s);
}

/* Every node kind in t (a DAG walked as written out; the bounds keep it small). */
static unsigned kinds_in(const gv_node *t) {
  const gv_node *stack[4096];
  size_t n = 0;
  unsigned seen = 0;
  stack[n++] = t;
  while (n) {
    const gv_node *v = stack[--n];
    seen |= 1u << gv_kind(v);
    for (size_t i = 0; i < gv_arity(v) && n < 4096; i++)
      stack[n++] = gv_child(v, i);
  }
  return seen;
}

Test(mutate, deterministic_per_seed) {
  gv_arena *a = t_arena(), *b = t_arena();
  gv_mutate_options o = bounded();
  for (size_t ti = 0; ti < NTREES; ti++) {
    const gv_node *ta = t_parse(a, TREES[ti]), *tb = t_parse(b, TREES[ti]);
    o.other = t_parse(b, "{'o': [10, 'other'], 'p': (1.25,)}"); /* crossover across arenas */
    for (uint64_t seed = 0; seed < 300; seed++) {
      const gv_node *x = NULL, *y = NULL, *z = NULL;
      gv_mutation ix, iy, iz;
      gv_error e;
      cr_assert_eq(gv_mutate(a, ta, seed, &o, &x, &ix, &e), GV_OK, "%s", e.msg);
      cr_assert_eq(gv_mutate(b, tb, seed, &o, &y, &iy, &e), GV_OK, "%s", e.msg);
      cr_assert_eq(gv_mutate(a, ta, seed, &o, &z, &iz, &e), GV_OK, "%s", e.msg);
      cr_assert_eq(x, z, "tree %zu seed %llu: two calls, two results", ti,
                   (unsigned long long)seed);
      cr_assert(ix.kind == iy.kind && ix.depth == iy.depth && ix.tries == iy.tries &&
                ix.kind == iz.kind);
      uint8_t fx[16], fy[16];
      fp(a, x, fx);
      fp(b, y, fy);
      cr_assert(memcmp(fx, fy, 16) == 0, "tree %zu seed %llu: arenas disagree (%s)", ti,
                (unsigned long long)seed, gv_mutation_name(ix.kind));
    }
  }
  /* different seeds: different trees, mostly */
  const gv_node *t = t_parse(a, RICH), *x = NULL, *y = NULL;
  int differ = 0;
  for (uint64_t seed = 0; seed < 50; seed++) {
    cr_assert_eq(gv_mutate(a, t, seed, &o, &x, NULL, NULL), GV_OK);
    cr_assert_eq(gv_mutate(a, t, seed + 1000, &o, &y, NULL, NULL), GV_OK);
    differ += x != y;
  }
  cr_assert_gt(differ, 40);
  gv_arena_free(a);
  gv_arena_free(b);
}

Test(mutate, bounds_always_held_and_outputs_round_trip) {
  gv_arena *a = t_arena();
  const gv_node *other = t_parse(a, RICH);
  size_t calls = 0, changed = 0;
  for (size_t ti = 0; ti < NTREES; ti++) {
    for (int variant = 0; variant < 4; variant++) {
      gv_mutate_options o = bounded();
      if (variant == 1) o.max_size = 40, o.max_wire = 0;   /* tight size */
      if (variant == 2) o.max_depth = 3, o.max_leaves = 8; /* shallow, few leaves */
      if (variant == 3) o.max_wire = 120, o.other = other; /* small encodings, crossover */
      const gv_node *t = t_parse(a, TREES[ti]);
      gv_mark mk = gv_arena_mark(a);
      for (uint64_t seed = 0; seed < 500; seed++) { /* a chain: each result mutated again */
        const gv_node *r = NULL;
        gv_mutation info;
        gv_error e;
        cr_assert_eq(gv_mutate(a, t, seed * 7919 + ti, &o, &r, &info, &e), GV_OK, "%s", e.msg);
        assert_fits(a, r, &o, gv_mutation_name(info.kind));
        cr_assert((info.kind == GV_MUT_NONE) == (r == t));
        if (seed % 25 == 0) assert_round_trips(a, r);
        changed += r != t;
        calls++;
        t = r;
      }
      cr_assert_eq(gv_arena_rollback(a, &mk), GV_OK);
    }
  }
  cr_assert_eq(calls, NTREES * 4 * 500);
  cr_assert_gt(changed, calls * 9 / 10, "%zu of %zu calls changed the tree", changed, calls);
  gv_arena_free(a);
}

Test(mutate, over_the_bounds_shrinks) {
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, RICH), *r = NULL;
  gv_mutate_options o;
  memset(&o, 0, sizeof o);
  o.max_size = 10;
  o.max_depth = 1;
  for (uint64_t seed = 0; seed < 200; seed++) {
    gv_mutation info;
    cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, NULL), GV_OK);
    cr_assert_eq(info.kind, GV_MUT_SHRINK);
    assert_fits(a, r, &o, "shrink");
  }
  /* bounds nothing meets: GV_ERANGE, the arena as it was */
  memset(&o, 0, sizeof o);
  o.max_wire = 4; /* the smallest encoding is 6 bytes */
  t_snapshot s0 = t_snap(a);
  gv_error e;
  r = NULL;
  cr_assert_eq(gv_mutate(a, t, 1, &o, &r, NULL, &e), GV_ERANGE);
  cr_assert(strstr(e.msg, "not even None"), "%s", e.msg);
  cr_assert_null(r);
  t_snapshot s1 = t_snap(a);
  cr_assert(t_snap_eq(&s0, &s1));
  gv_arena_free(a);
}

static gv_status host_fn(void *ctx, gv_arena *a, const gv_node *leaf, uint64_t seed,
                         const gv_node **out) {
  int *mode = ctx;
  (void)leaf;
  if (*mode == 1) return GV_EUSER + 3;
  return gv_handle(a, 1000 + seed % 7, out, NULL);
}

Test(mutate, every_mutation_kind_is_reachable) {
  gv_arena *a = t_arena(), *b = t_arena();
  const gv_node *t = t_parse(a, RICH);
  const gv_node *dict[2] = {t_parse(b, "'dictionary-entry'"), t_parse(b, "[b'\\x7f', 1e300]")};
  int mode = 0;
  gv_mutate_options o = bounded();
  o.max_size = 2000, o.max_wire = 0, o.max_leaves = 0;
  o.other = t_parse(b, "{'donor': [1, {'deep': 'x'}], 'k2': (2, 3)}");
  o.dict = dict;
  o.ndict = 2;
  o.leaf_fn = host_fn;
  o.leaf_ctx = &mode;
  size_t seen[GV_MUT_COUNT] = {0};
  for (uint64_t seed = 0; seed < 6000; seed++) {
    const gv_node *r = NULL;
    gv_mutation info;
    cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, NULL), GV_OK);
    seen[info.kind]++;
  }
  for (int k = GV_MUT_INT; k < GV_MUT_COUNT; k++) {
    if (k == GV_MUT_SHRINK) continue; /* only over the bounds (above) */
    cr_assert_gt(seen[k], 0, "%s never drawn", gv_mutation_name((gv_mutation_kind)k));
  }
  cr_assert_eq(seen[GV_MUT_NONE], 0);
  /* one kind at a time: it is the one applied */
  for (int k = GV_MUT_INT; k < GV_MUT_COUNT; k++) {
    if (k == GV_MUT_SHRINK) continue;
    o.kinds = GV_MUT_BIT(k);
    for (uint64_t seed = 0; seed < 40; seed++) {
      const gv_node *r = NULL;
      gv_mutation info;
      cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, NULL), GV_OK);
      cr_assert((int)info.kind == k || info.kind == GV_MUT_NONE, "%s asked, %s applied",
                gv_mutation_name((gv_mutation_kind)k), gv_mutation_name(info.kind));
    }
  }
  gv_arena_free(a);
  gv_arena_free(b);
}

Test(mutate, what_each_kind_does) {
  gv_arena *a = t_arena();
  gv_mutate_options o;
  memset(&o, 0, sizeof o);
  const gv_node *r, *t;
  gv_mutation info;
  for (uint64_t seed = 0; seed < 100; seed++) {
    o.kinds = GV_MUT_BIT(GV_MUT_INT);
    t = t_parse(a, "[5]");
    cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, NULL), GV_OK);
    cr_assert(gv_kind(gv_child(r, 0)) == GV_INT && gv_get_int(gv_child(r, 0)) != 5);
    o.kinds = GV_MUT_BIT(GV_MUT_DELETE);
    t = t_parse(a, "[1, 2, 3]");
    cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, NULL), GV_OK);
    cr_assert(gv_kind(r) == GV_LIST && gv_arity(r) == 2 && info.depth == 0);
    o.kinds = GV_MUT_BIT(GV_MUT_KEY_ORDER);
    t = t_parse(a, "{'a': 1, 'b': 2, 'c': 3}");
    cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, NULL), GV_OK);
    cr_assert(r != t && gv_same_structure(a, t, r, NULL) == GV_OK); /* same keys, new order */
    o.kinds = GV_MUT_BIT(GV_MUT_KEY_COLLIDE);
    t = t_parse(a, "{1: 'a', 'x': 2}");
    cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, NULL), GV_OK);
    cr_assert_eq(info.kind, GV_MUT_KEY_COLLIDE);
    cr_assert(gv_get(r, gv_child(t_parse(a, "[1]"), 0)) == gv_get(t, gv_key(t, 0)));
    cr_assert(gv_kind(gv_key(r, 0)) == GV_FLOAT || gv_kind(gv_key(r, 0)) == GV_BOOL);
    o.kinds = GV_MUT_BIT(GV_MUT_DEEPEN);
    t = t_parse(a, "7");
    cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, NULL), GV_OK);
    size_t levels = 0; /* one container or many, each holding the next */
    for (const gv_node *v = r; v != t; v = gv_child(v, 0), levels++)
      cr_assert(gv_arity(v) == 1, "deepen made %s", t_repr(a, r));
    cr_assert(levels >= 1 && levels == gv_depth(r) && levels <= 2048);
    o.kinds = GV_MUT_BIT(GV_MUT_SWAP);
    t = t_parse(a, "(1, 'b')");
    cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, NULL), GV_OK);
    cr_assert_eq(r, t_parse(a, "('b', 1)"));
  }
  gv_arena_free(a);
}

Test(mutate, every_node_kind_is_reachable_from_a_list_of_one_int) {
  gv_arena *a = t_arena();
  gv_mutate_options o;
  memset(&o, 0, sizeof o);
  o.max_size = 120;
  o.max_depth = 6;
  const gv_node *t = t_parse(a, "[1]");
  unsigned seen = 0;
  for (uint64_t seed = 0; seed < 20000; seed++) {
    cr_assert_eq(gv_mutate(a, t, seed, &o, &t, NULL, NULL), GV_OK);
    seen |= kinds_in(t);
  }
  for (unsigned k = GV_NONE; k <= GV_CUSTOM; k++)
    cr_assert(seen & (1u << k), "node kind %u never made", k);
  gv_arena_free(a);
}

Test(mutate, json_flag_keeps_a_json_form) {
  gv_arena *a = t_arena();
  gv_mutate_options o = bounded();
  o.flags = GV_MUTATE_JSON;
  const gv_node *t = t_parse(a, "{\"k\": [1, 2.5, {\"z\": \"w\"}], \"n\": null, \"t\": true}");
  for (uint64_t seed = 0; seed < 5000; seed++) {
    gv_error e;
    cr_assert_eq(gv_mutate(a, t, seed, &o, &t, NULL, &e), GV_OK, "%s", e.msg);
    const char *s;
    size_t len;
    cr_assert_eq(gv_print_str(a, t, true, &s, &len, &e), GV_OK, "seed %llu: %s",
                 (unsigned long long)seed, e.msg);
    cr_assert_eq(kinds_in(t) &
                     ~((1u << GV_NONE) | (1u << GV_BOOL) | (1u << GV_INT) | (1u << GV_FLOAT) |
                       (1u << GV_STR) | (1u << GV_LIST) | (1u << GV_DICT)),
                 0u);
  }
  gv_arena_free(a);
}

Test(mutate, keep_types_and_host_leaves) {
  gv_arena *a = t_arena();
  gv_mutate_options o = bounded();
  o.flags = GV_MUTATE_KEEP_TYPES | GV_MUTATE_HOST_LEAVES;
  const gv_node *t = t_parse(a, "[Point(x=1, y=[2, &3]), KD({'b': [1], 'a': 2}), {'k': *}]");
  for (uint64_t seed = 0; seed < 5000; seed++) {
    cr_assert_eq(gv_mutate(a, t, seed, &o, &t, NULL, NULL), GV_OK);
    const gv_node *stack[4096];
    size_t n = 0;
    stack[n++] = t;
    while (n) {
      const gv_node *v = stack[--n];
      size_t len;
      if (gv_kind(v) == GV_NAMEDTUPLE) {
        const char *name = gv_type_name(v, &len);
        cr_assert(strcmp(name, "Point") == 0 && gv_arity(v) == 2);
        cr_assert_eq(strcmp(gv_get_str(gv_field_name(v, 1), &len), "y"), 0);
      }
      if (gv_kind(v) == GV_CUSTOM)
        cr_assert(strcmp(gv_type_name(v, &len), "KD") == 0 && gv_arity(v) == 2 &&
                  gv_custom_keyed(v));
      if (gv_kind(v) == GV_HANDLE) cr_assert_eq(gv_get_handle(v), 3u); /* never changed */
      for (size_t i = 0; i < gv_arity(v) && n < 4096; i++)
        stack[n++] = gv_child(v, i);
    }
  }
  gv_arena_free(a);
}

Test(mutate, host_leaf_callback) {
  gv_arena *a = t_arena();
  int mode = 0;
  gv_mutate_options o;
  memset(&o, 0, sizeof o);
  o.kinds = GV_MUT_BIT(GV_MUT_HOST_LEAF);
  o.leaf_fn = host_fn;
  o.leaf_ctx = &mode;
  const gv_node *t = t_parse(a, "['a', 2]"), *r = NULL;
  gv_mutation info;
  cr_assert_eq(gv_mutate(a, t, 3, &o, &r, &info, NULL), GV_OK);
  cr_assert_eq(info.kind, GV_MUT_HOST_LEAF);
  cr_assert(gv_kind(gv_child(r, 0)) == GV_HANDLE || gv_kind(gv_child(r, 1)) == GV_HANDLE);
  /* its failure: returned as given, the arena as it was */
  mode = 1;
  t_snapshot s0 = t_snap(a);
  gv_error e;
  r = NULL;
  cr_assert_eq(gv_mutate(a, t, 3, &o, &r, &info, &e), GV_EUSER + 3);
  cr_assert(strstr(e.msg, "leaf callback failed with status 67"), "%s", e.msg);
  cr_assert_null(r);
  t_snapshot s1 = t_snap(a);
  cr_assert(t_snap_eq(&s0, &s1));
  gv_arena_free(a);
}

Test(mutate, nothing_applies_and_bad_arguments) {
  gv_arena *a = t_arena();
  gv_mutate_options o;
  memset(&o, 0, sizeof o);
  o.kinds = GV_MUT_BIT(GV_MUT_FLOAT);
  const gv_node *t = t_parse(a, "[1, 'x']"), *r = NULL;
  gv_mutation info;
  t_snapshot s0 = t_snap(a);
  cr_assert_eq(gv_mutate(a, t, 9, &o, &r, &info, NULL), GV_OK);
  cr_assert(r == t && info.kind == GV_MUT_NONE && info.tries == 16);
  t_snapshot s1 = t_snap(a);
  cr_assert(t_snap_eq(&s0, &s1), "a call that changed nothing left nodes behind");
  gv_error e;
  cr_assert_eq(gv_mutate(NULL, t, 1, NULL, &r, NULL, &e), GV_EINVAL);
  cr_assert_eq(gv_mutate(a, t, 1, NULL, NULL, NULL, &e), GV_EINVAL);
  cr_assert_eq(gv_mutate(a, gv_meta(t_parse(a, "{'a': 1}")), 1, NULL, &r, NULL, &e), GV_EINVAL);
  const gv_node *bad[1] = {NULL};
  o.kinds = 0;
  o.dict = bad;
  o.ndict = 1;
  cr_assert_eq(gv_mutate(a, t, 1, &o, &r, NULL, &e), GV_EINVAL);
  cr_assert(strstr(e.msg, "options.dict[0]"), "%s", e.msg);
  cr_assert_str_eq(gv_mutation_name(GV_MUT_KEY_COLLIDE), "key-collide");
  cr_assert_str_eq(gv_mutation_name((gv_mutation_kind)99), "?");
  cr_assert_eq(gv_arena_freeze(a), GV_OK);
  cr_assert_eq(gv_mutate(a, t, 1, NULL, &r, NULL, &e), GV_EINVAL);
  gv_arena_free(a);
}

/* fail-the-Nth-allocation: every failure is GV_ENOMEM with a message and leaves the arena as
 * it was; the call that finally succeeds gives what an unlimited arena gives. */
Test(mutate, fail_the_nth_allocation) {
  t_hook h = {0};
  gv_allocator al = {t_hook_realloc, &h};
  gv_arena_config cfg = {0, 0, &al, 3, 0, NULL};
  gv_arena *a = NULL, *ref = t_arena();
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *t = t_parse(a, RICH), *tref = t_parse(ref, RICH);
  const gv_node *dict[1] = {t_parse(ref, "{'from': ['the', 'dictionary']}")};
  gv_mutate_options o = bounded();
  o.max_size = 3000, o.max_leaves = 0, o.max_wire = 1500;
  o.other = t_parse(ref, "{'donor': [1, {'deep': 'x'}], 'k2': (2, 3)}");
  o.dict = dict;
  o.ndict = 1;
  size_t leaves = (size_t)gv_num_leaves(t), failures = 0;
  const gv_node **before = malloc(leaves * sizeof *before),
                **after = malloc(leaves * sizeof *after);
  cr_assert_eq(gv_flatten(t, before, leaves, &leaves, NULL), GV_OK);
  for (uint64_t seed = 0; seed < 120; seed++) {
    const gv_node *want = NULL, *r = NULL;
    gv_mutation wi, ri;
    cr_assert_eq(gv_mutate(ref, tref, seed, &o, &want, &wi, NULL), GV_OK);
    for (long n = 1;; n++) {
      t_snapshot s0 = t_snap(a);
      gv_mark mk = gv_arena_mark(a);
      h.armed = 1, h.calls = 0, h.fail_at = n;
      gv_error e;
      gv_status s = gv_mutate(a, t, seed, &o, &r, &ri, &e);
      h.armed = 0;
      if (s == GV_OK) {
        uint8_t x[16], y[16];
        fp(a, r, x);
        fp(ref, want, y);
        cr_assert(memcmp(x, y, 16) == 0 && ri.kind == wi.kind,
                  "seed %llu: allocation %ld failing changed the result", (unsigned long long)seed,
                  n);
        cr_assert_eq(gv_arena_rollback(a, &mk), GV_OK);
        break;
      }
      failures++;
      cr_assert_eq(s, GV_ENOMEM, "seed %llu, allocation %ld: %s", (unsigned long long)seed, n,
                   e.msg);
      cr_assert(e.msg[0]);
      t_snapshot s1 = t_snap(a);
      cr_assert(t_snap_eq(&s0, &s1), "seed %llu, allocation %ld: the arena changed",
                (unsigned long long)seed, n);
      size_t got = 0;
      cr_assert_eq(gv_flatten(t, after, leaves, &got, NULL), GV_OK);
      cr_assert(got == leaves && memcmp(before, after, got * sizeof *after) == 0);
    }
  }
  cr_assert_gt(failures, 100);
  free(before);
  free(after);
  gv_arena_free(a);
  gv_arena_free(ref);
}

/* No recursion: a 100,000-deep chain is mutated at any depth (places, rebuilds, the bounds,
 * deepen and flatten all loop), within the default stack. */
Test(mutate, deep_trees) {
  gv_arena *a = t_arena();
  const gv_node *t = NULL;
  cr_assert_eq(gv_int(a, 1, &t, NULL), GV_OK);
  for (int i = 0; i < 100000; i++)
    cr_assert_eq(gv_list(a, &t, 1, &t, NULL), GV_OK);
  gv_mutate_options o;
  memset(&o, 0, sizeof o);
  o.max_wire = 1 << 22;
  for (uint64_t seed = 0; seed < 12; seed++) {
    const gv_node *r = NULL;
    gv_mutation info;
    gv_error e;
    cr_assert_eq(gv_mutate(a, t, seed, &o, &r, &info, &e), GV_OK, "%s", e.msg);
    cr_assert(r != t && info.kind != GV_MUT_NONE);
  }
  o.max_depth = 1000; /* over the bounds: shrunk to a subtree 1000 deep at most */
  const gv_node *r = NULL;
  gv_mutation info;
  cr_assert_eq(gv_mutate(a, t, 5, &o, &r, &info, NULL), GV_OK);
  cr_assert(info.kind == GV_MUT_SHRINK && gv_depth(r) <= 1000 && gv_depth(r) >= 999);
  gv_arena_free(a);
}
