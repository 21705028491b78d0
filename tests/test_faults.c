/* SPDX-License-Identifier: MIT */
/* test_faults.c -- out-of-memory fault injection through the allocator hook.
 *
 * The arena gets a gv_allocator that fails the N-th growing allocation of a
 * call. For every public function that allocates, on a handful of trees built
 * before the hook is armed, N runs 1, 2, ... until the call succeeds; after
 * each failure the call must have returned GV_ENOMEM with a message, the
 * arena's stats and intern-table digest must equal the snapshot taken before
 * the call, and every tree made earlier must still flatten to the same leaves. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

/* ---- the fixture: an arena with the hook and trees built before arming ---- */
#define MAX_KEPT 64

typedef struct kept {
  const gv_node *t;
  const gv_node **leaves;
  size_t n;
} kept;

typedef struct fx {
  t_hook h;
  gv_allocator al;
  gv_arena *a;
  gv_error err;
  kept kept[MAX_KEPT];
  size_t nkept;
  size_t iter; /* which variant of the call (constructors vary their input) */
  const gv_node *x, *y, *m, *z, *sx, *kz; /* see fx_init */
  const gv_node *dag, *dagd, *chain;      /* shared subtrees; a chain of 300 */
  const gv_node *wide;                    /* 200 leaves and two lists in one list */
  const gv_node *rdag, *rdag2, *rdagd;    /* deeper: readers memoize past 2^21 steps */
  const gv_node *bigs[20], *nct[20];      /* boxed int-valued floats; key tuples */
  const gv_node *keys[40], *vals[40], *names[8];
  const gv_node **xleaves;
  size_t nx;
  unsigned char *enc;
  size_t enclen;
  char text[8192];
} fx;

static fx F;

static void keep(const gv_node *t) {
  if (!t || F.nkept == MAX_KEPT) return;
  kept *k = &F.kept[F.nkept++];
  size_t nl = (size_t)gv_num_leaves(t);
  k->t = t;
  k->leaves = malloc(sizeof *k->leaves * (nl ? nl : 1));
  cr_assert_not_null(k->leaves);
  cr_assert_eq(gv_flatten(t, k->leaves, nl, &k->n, NULL), GV_OK);
}

static void check_kept(const char *what, long n) {
  for (size_t i = 0; i < F.nkept; i++) {
    kept *k = &F.kept[i];
    const gv_node **v = malloc(sizeof *v * (k->n ? k->n : 1));
    size_t got = 0;
    cr_assert_eq(gv_flatten(k->t, v, k->n, &got, NULL), GV_OK);
    cr_assert(got == k->n && (got == 0 || memcmp(v, k->leaves, got * sizeof *v) == 0),
              "%s (allocation %ld failing): tree %zu no longer flattens to its leaves", what, n, i);
    free(v);
  }
}

typedef struct mbuf {
  char *p;
  size_t len, cap;
} mbuf;
static gv_status w_buf(void *ctx, const char *d, size_t len) {
  mbuf *b = ctx;
  if (b->len + len + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + len + 1)
      cap *= 2;
    b->p = realloc(b->p, cap);
    cr_assert_not_null(b->p);
    b->cap = cap;
  }
  memcpy(b->p + b->len, d, len);
  b->len += len;
  b->p[b->len] = 0;
  return GV_OK;
}

static void fx_init(void) {
  memset(&F, 0, sizeof F);
  F.al.realloc = t_hook_realloc;
  F.al.ctx = &F.h;
  /* max_output: flatten_with_path of the chain needs its exact path count */
  gv_arena_config cfg = {0, 0, &F.al, 7, 60000, NULL};
  cr_assert_eq(gv_arena_new(&cfg, &F.a), GV_OK);
  /* x: 50 keys in reverse order, each [i, (i, 'vI'), {'z': i, 'a': None}] */
  char *w = F.text;
  w += sprintf(w, "{");
  for (int i = 49; i >= 0; i--)
    w += sprintf(w, "'k%02d': [%d, (%d, 'v%d'), {'z': %d, 'a': None}], ", i, i, i, i, i);
  sprintf(w, "}");
  F.x = t_parse(F.a, F.text);
  /* y: the same structure, other leaves */
  w = F.text;
  w += sprintf(w, "{");
  for (int i = 0; i < 50; i++)
    w += sprintf(w, "'k%02d': [%d.5, (-%d, b'w'), {'a': %d, 'z': 'q'}], ", i, i, i, i);
  sprintf(w, "}");
  F.y = t_parse(F.a, F.text);
  F.m = t_parse(F.a, "{'k00': [1, 2]}");
  F.z = t_parse(F.a, "[OrderedDict({'b': [1], 'a': 2}), defaultdict(list, {'y': [1], 'x': 2}), "
                     "deque([1, [2]], maxlen=3), Point(x=1, y=(2, [3])), "
                     "Name([1, {'q': 2}], meta=('m', 1)), KD({'b': [1], 'a': 2}), "
                     "b'xy', &5, *, 1.5, -0.0, None, True, 'h\\u00e9', (), [], {}]");
  cr_assert_eq(gv_structure(F.a, F.x, &F.sx, NULL), GV_OK);
  cr_assert_eq(gv_custom_keyed(gv_child(F.z, 5)), true);
  F.kz = gv_child(F.z, 5);
  for (int i = 0; i < 40; i++) {
    char b[32];
    int n = sprintf(b, "fresh_key_%d", (i * 17) % 40);
    cr_assert_eq(gv_str(F.a, b, (size_t)n, &F.keys[i], NULL), GV_OK);
    cr_assert_eq(gv_int(F.a, 1000 + i, &F.vals[i], NULL), GV_OK);
  }
  for (int i = 0; i < 8; i++) {
    char b[16];
    int n = sprintf(b, "f%d", i);
    cr_assert_eq(gv_str(F.a, b, (size_t)n, &F.names[i], NULL), GV_OK);
  }
  mbuf e = {NULL, 0, 0};
  cr_assert_eq(gv_encode(F.a, F.z, w_buf, &e, NULL), GV_OK);
  F.enc = (unsigned char *)e.p;
  F.enclen = e.len;
  /* text for gv_parse: fresh values of every kind */
  sprintf(F.text,
          "[{'new_b': OrderedDict({'p': 1, 'o': [2, 3]}), 'new_a': defaultdict(set, "
          "{'s': deque([4, (5,)], maxlen=9)})}, NewPoint(u=b'\\x01\\x02', v=&99, w=*), "
          "NewName({'r': 7.25, 'c': 'caf\\u00e9'}, meta=[1, 2]), 123456789, nan, -inf, "
          "%s]",
          "[(11, 12), {31: 'x', 30: 'y'}, OrderedDict(), Empty(), NewC([])]");
  F.nx = (size_t)gv_num_leaves(F.x);
  F.xleaves = malloc(sizeof *F.xleaves * F.nx);
  size_t got = 0;
  cr_assert_eq(gv_flatten(F.x, F.xleaves, F.nx, &got, NULL), GV_OK);
  const gv_node *all[] = {F.x, F.y, F.m, F.z, F.sx};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    keep(all[i]);
}

/* fx_init, then shared subtrees, a chain, and key leaves for twins (only the
 * tests below use them: the others keep their arena as it was). */
static void fx_init_dag(void) {
  fx_init();
  /* DAGs: levels of a pair of the level below -- lists (F.dag at 12 levels,
   * F.rdag and F.rdag2 at 24) and unsorted dicts (F.dagd, 12 levels) */
  const gv_node *l1 = t_parse(F.a, "[1, 'a']"), *l2 = t_parse(F.a, "[2.5, b'b']");
  const gv_node *kb = t_parse(F.a, "'b'"), *ka = t_parse(F.a, "'a'"), *d = l1;
  for (int i = 0; i < 24; i++) {
    const gv_node *two[2] = {l1, l1}, *two2[2] = {l2, l2}, *keys[2] = {kb, ka}, *dv[2] = {d, d};
    cr_assert_eq(gv_list(F.a, two, 2, &l1, NULL), GV_OK);
    cr_assert_eq(gv_list(F.a, two2, 2, &l2, NULL), GV_OK);
    if (i >= 12) continue; /* the dicts stop at 12 levels */
    cr_assert_eq(gv_dict(F.a, keys, dv, 2, &d, NULL), GV_OK);
    if (i == 11) {
      F.dag = l1;
      F.dagd = d;
    }
  }
  F.rdag = l1;
  F.rdag2 = l2;
  const gv_node *l3 = t_parse(F.a, "[1, 'a', 'extra']");
  for (int i = 0; i < 24; i++) {
    const gv_node *two[2] = {l3, l3};
    cr_assert_eq(gv_list(F.a, two, 2, &l3, NULL), GV_OK);
  }
  F.rdagd = l3; /* the same paths but one more leaf at the bottom of each */
  const gv_node *c = t_parse(F.a, "0");
  for (int i = 0; i < 300; i++) {
    const gv_node *kids[2] = {c, c};
    cr_assert_eq(gv_int(F.a, i, &kids[0], NULL), GV_OK);
    cr_assert_eq(gv_list(F.a, kids, 2, &c, NULL), GV_OK);
  }
  F.chain = c;
  { /* wide: flatten_with_path does a container's leaves in batches */
    const gv_node *items[202];
    for (int i = 0; i < 202; i++)
      cr_assert_eq(gv_int(F.a, 5000 + i, &items[i], NULL), GV_OK);
    items[70] = t_parse(F.a, "[1, [2]]");
    items[150] = t_parse(F.a, "{'q': 1}");
    cr_assert_eq(gv_list(F.a, items, 202, &F.wide, NULL), GV_OK);
  }
  for (int i = 0; i < 20; i++) {
    const gv_node *t, *f;
    cr_assert_eq(gv_float(F.a, 1e17 + 64.0 * i, &F.bigs[i], NULL), GV_OK);
    cr_assert_eq(gv_float(F.a, 2.0 * i, &f, NULL), GV_OK);
    cr_assert_eq(gv_bool(F.a, i % 2, &t, NULL), GV_OK);
    const gv_node *k2[2] = {t, f};
    cr_assert_eq(gv_tuple(F.a, k2, 2, &F.nct[i], NULL), GV_OK);
  }
}

static void fx_fini(void) {
  for (size_t i = 0; i < F.nkept; i++)
    free(F.kept[i].leaves);
  free(F.xleaves);
  free(F.enc);
  gv_arena_free(F.a);
}

/* ---- the driver ---- */
typedef gv_status (*op_fn)(const gv_node **res);

/* Run op with allocation N failing, N = 1, 2, ... until it gives want.
 * Returns the number of injected failures. */
static long drive(const char *name, op_fn op, gv_status want) {
  for (long n = 1; n < 200000; n++) {
    t_snapshot before = t_snap(F.a);
    F.h.calls = 0;
    F.h.fail_at = n;
    F.h.armed = 1;
    const gv_node *res = NULL;
    memset(&F.err, 0, sizeof F.err);
    gv_status s = op(&res);
    F.h.armed = 0;
    if (s == want) {
      if (s == GV_OK && res) keep(res);
      check_kept(name, n);
      return n - 1;
    }
    cr_assert_eq(s, GV_ENOMEM, "%s with growing allocation %ld failing: %s (%s), wanted %s", name,
                 n, gv_status_name(s), F.err.msg, gv_status_name(want));
    cr_assert(F.h.calls >= n, "%s: GV_ENOMEM without a failed allocation (%ld of %ld)", name,
              F.h.calls, n);
    cr_assert_eq(F.err.status, GV_ENOMEM, "%s: gv_error.status not set", name);
    /* the library's own "out of memory budget", or a callback's GV_ENOMEM passed on */
    cr_assert(strstr(F.err.msg, "memory") != NULL || strstr(F.err.msg, "GV_ENOMEM") != NULL,
              "%s: message '%s'", name, F.err.msg);
    t_snapshot after = t_snap(F.a);
    cr_assert(t_snap_eq(&before, &after),
              "%s (allocation %ld failing): arena changed: nodes %zu -> %zu, used %zu -> %zu, "
              "reserved %zu -> %zu, slots %zu -> %zu, digest %s",
              name, n, before.st.nodes, after.st.nodes, before.st.bytes_used, after.st.bytes_used,
              before.st.bytes_reserved, after.st.bytes_reserved, before.st.table_slots,
              after.st.table_slots, before.digest == after.digest ? "same" : "differs");
    check_kept(name, n);
  }
  cr_assert_fail("%s never succeeded", name);
  return 0;
}

/* The call in iters variants (distinct inputs, each driven to success), on
 * the fixture setup makes (fx_init, or fx_init_dag for the DAG tests).
 * must: the calls are known to allocate, so some failure must be injected. */
#define FAULT_TEST_WITH(tname, setup, want, must, iters)                                           \
  Test(faults, tname, .init = setup, .fini = fx_fini) {                                            \
    long k = 0;                                                                                    \
    for (F.iter = 0; F.iter < (iters); F.iter++)                                                   \
      k += drive(#tname, op_##tname, want);                                                        \
    if (must) cr_assert_gt(k, 0, #tname ": no allocation was failed");                             \
    cr_log_info(#tname ": %ld injected failures", k);                                              \
  }
#define FAULT_TEST_N(tname, want, must, iters) FAULT_TEST_WITH(tname, fx_init, want, must, iters)
#define FAULT_TEST(tname, want, must) FAULT_TEST_N(tname, want, must, 1)
#define FAULT_TEST_DAG(tname, want, iters) FAULT_TEST_WITH(tname, fx_init_dag, want, 1, iters)

/* ---- callbacks ---- */
static gv_status f_pair(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                        const gv_node **out) {
  (void)ctx;
  return gv_tuple(a, v, n, out, NULL);
}
static gv_status f_inc(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                       const gv_node **out) {
  (void)ctx, (void)n;
  if (gv_kind(v[0]) == GV_INT) return gv_int(a, gv_get_int(v[0]) + 100000, out, NULL);
  return gv_tuple(a, v, 1, out, NULL);
}
static gv_status f_visit(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                         const gv_node **rep) {
  (void)ctx;
  *act = GV_VISIT_KEEP;
  if (gv_kind(node) == GV_INT) {
    *act = GV_VISIT_REPLACE;
    return gv_int(a, gv_get_int(node) * 3 + 7, rep, NULL);
  }
  if (gv_kind(node) == GV_TUPLE && gv_arity(node) == 2) *act = GV_VISIT_NONE;
  return GV_OK;
}
static gv_status p_nop(void *ctx, const gv_node *const *path, size_t depth, const gv_node *leaf) {
  (void)path, (void)leaf;
  *(size_t *)ctx += depth;
  return GV_OK;
}

/* ---- the operations ---- */
#define A F.a
#define E (&F.err)
/* keys and values for the dict kinds: 20 of 40, chosen by the iteration */
#define KS (F.keys + F.iter % 20)
#define VS (F.vals + F.iter / 20 % 20)
static gv_status op_none(const gv_node **r) {
  return gv_none(A, r, E);
}
static gv_status op_boolean(const gv_node **r) {
  return gv_bool(A, false, r, E);
}
/* Scalars that are allocated: ints beyond 56 bits, floats with low mantissa
 * bits set, handles from 2^56 on (smaller ones are immediates: no allocation). */
static gv_status op_int(const gv_node **r) {
  return gv_int(A, INT64_MIN + 987654321 + (int64_t)F.iter, r, E);
}
static gv_status op_float(const gv_node **r) {
  uint64_t bits = UINT64_C(0x400921FB54442D18) + F.iter; /* pi and its neighbours */
  double d;
  memcpy(&d, &bits, sizeof d);
  return gv_float(A, d, r, E);
}
static gv_status op_str(const gv_node **r) {
  static char s[3000];
  memset(s, 'q', sizeof s - 1);
  return gv_str(A, s, 100 + F.iter * 7 % 2800, r, E);
}
static gv_status op_bytes(const gv_node **r) {
  static unsigned char b[5000];
  for (size_t i = 0; i < sizeof b; i++)
    b[i] = (unsigned char)i;
  return gv_bytes(A, b, 100 + F.iter * 13 % 4800, r, E);
}
static gv_status op_handle(const gv_node **r) {
  return gv_handle(A, (UINT64_C(1) << 60) + 77 + F.iter, r, E);
}
static gv_status op_star(const gv_node **r) {
  return gv_star(A, r, E);
}
static gv_status op_list(const gv_node **r) {
  return gv_list(A, F.xleaves + F.iter % 100, 50 + F.iter / 100, r, E);
}
static gv_status op_tuple(const gv_node **r) {
  return gv_tuple(A, F.xleaves + F.iter % 100, 50 + F.iter / 100, r, E);
}
static gv_status op_dict(const gv_node **r) {
  return gv_dict(A, KS, VS, 20, r, E);
}
static gv_status op_odict(const gv_node **r) {
  return gv_odict(A, KS, VS, 20, r, E);
}
static gv_status op_ddict(const gv_node **r) {
  return gv_ddict(A, F.names[F.iter % 2], KS, VS, 20, r, E);
}
static gv_status op_namedtuple(const gv_node **r) {
  return gv_namedtuple(A, F.names[7], F.names, VS, 1 + F.iter % 7, r, E);
}
static gv_status op_deque(const gv_node **r) {
  return gv_deque(A, F.xleaves + F.iter % 100, 50, (int64_t)(F.iter / 100), r, E);
}
static gv_status op_custom(const gv_node **r) {
  return gv_custom(A, F.names[3], NULL, VS, 20, F.iter % 2 ? F.z : NULL, r, E);
}
static gv_status op_custom_keyed(const gv_node **r) {
  return gv_custom(A, F.names[4], KS, VS, 20, NULL, r, E);
}
static gv_status op_rebuild(const gv_node **r) {
  const gv_node *kids[2] = {F.vals[F.iter % 40], F.vals[F.iter / 40 % 40]};
  return gv_rebuild(A, F.kz, kids, r, E);
}
static gv_status op_parse(const gv_node **r) {
  return gv_parse(A, F.text, strlen(F.text), r, E);
}
static gv_status op_print_str(const gv_node **r) {
  const char *s = NULL;
  size_t n = 0;
  gv_status st = gv_print_str(A, F.z, false, &s, &n, E);
  *r = NULL;
  return st;
}
static gv_status op_print_str_json(const gv_node **r) {
  const char *s = NULL;
  size_t n = 0;
  *r = NULL;
  return gv_print_str(A, F.x, true, &s, &n, E);
}
static gv_status op_print(const gv_node **r) {
  mbuf b = {NULL, 0, 0};
  gv_status st = gv_print(A, F.z, w_buf, &b, E);
  free(b.p);
  *r = NULL;
  return st;
}
static gv_status op_print_json(const gv_node **r) {
  mbuf b = {NULL, 0, 0};
  gv_status st = gv_print_json(A, F.x, w_buf, &b, E);
  free(b.p);
  *r = NULL;
  return st;
}
static gv_status op_structure(const gv_node **r) {
  return gv_structure(A, F.z, r, E);
}
static gv_status op_structure_y(const gv_node **r) {
  return gv_structure(A, F.y, r, E);
}
static gv_status op_flatten_with_path(const gv_node **r) {
  return gv_flatten_with_path(A, F.x, r, E);
}
static gv_status op_flatten_with_path_z(const gv_node **r) {
  return gv_flatten_with_path(A, F.z, r, E);
}
static gv_status op_walk_paths(const gv_node **r) {
  size_t sum = 0;
  *r = NULL;
  return gv_walk_paths(A, F.z, p_nop, &sum, E);
}
static gv_status op_pack_sequence_as(const gv_node **r) {
  const gv_node *lv[512];
  size_t n = 0;
  cr_assert_eq(gv_flatten(F.y, lv, 512, &n, NULL), GV_OK);
  return gv_pack_sequence_as(A, F.sx, lv, n, r, E);
}
static gv_status op_traverse_top_down(const gv_node **r) {
  return gv_traverse(A, F.z, true, f_visit, NULL, r, E);
}
static gv_status op_traverse_bottom_up(const gv_node **r) {
  return gv_traverse(A, F.x, false, f_visit, NULL, r, E);
}
static gv_status op_map(const gv_node **r) {
  return gv_map(A, f_inc, NULL, &F.z, 1, true, r, E);
}
static gv_status op_map_none_is_node(const gv_node **r) {
  return gv_map(A, f_inc, NULL, &F.x, 1, false, r, E);
}
static gv_status op_map2(const gv_node **r) {
  const gv_node *two[2] = {F.x, F.y};
  return gv_map(A, f_pair, NULL, two, 2, true, r, E);
}
static gv_status op_map2_mismatch(const gv_node **r) {
  const gv_node *two[2] = {F.x, F.m};
  return gv_map(A, f_pair, NULL, two, 2, true, r, E);
}
static gv_status op_map_up_to(const gv_node **r) {
  const gv_node *two[2] = {F.x, F.y};
  return gv_map_up_to(A, F.sx, f_pair, NULL, two, 2, r, E);
}
static gv_status op_map_shape(const gv_node **r) {
  return gv_map_shape(A, f_pair, NULL, F.z, r, E);
}
static gv_status op_lists_to_tuples(const gv_node **r) {
  return gv_lists_to_tuples(A, F.x, r, E);
}
static gv_status op_lists_to_tuples_z(const gv_node **r) {
  return gv_lists_to_tuples(A, F.z, r, E);
}
static gv_status op_order(const gv_node **r) {
  bool ch = false;
  gv_status s = gv_order(A, F.x, r, &ch, E);
  if (s == GV_OK) cr_assert(ch);
  return s;
}
static gv_status op_order_z(const gv_node **r) {
  return gv_order(A, F.z, r, NULL, E);
}
static gv_status op_same_structure(const gv_node **r) {
  *r = NULL;
  return gv_same_structure(A, F.x, F.y, E);
}
static gv_status op_same_structure_mismatch(const gv_node **r) {
  *r = NULL;
  return gv_same_structure(A, F.x, F.m, E);
}
static gv_status op_same_paths(const gv_node **r) {
  *r = NULL;
  return gv_same_paths(A, F.x, F.y, E);
}
static gv_status op_same_paths_mismatch(const gv_node **r) {
  *r = NULL;
  return gv_same_paths(A, F.z, F.x, E);
}
static gv_status op_is_prefix(const gv_node **r) {
  bool res = false;
  *r = NULL;
  gv_status s = gv_is_prefix(A, F.sx, F.y, &res, E);
  if (s == GV_OK) cr_assert(res);
  return s;
}
static gv_status op_encode(const gv_node **r) {
  mbuf b = {NULL, 0, 0};
  gv_status s = gv_encode(A, F.x, w_buf, &b, E);
  free(b.p);
  *r = NULL;
  return s;
}
static gv_status op_decode(const gv_node **r) {
  gv_status s = gv_decode(A, F.enc, F.enclen, r, E);
  if (s == GV_OK) cr_assert_eq(*r, F.z);
  return s;
}
static gv_status op_fingerprint(const gv_node **r) {
  uint8_t fp[16];
  *r = NULL;
  return gv_fingerprint(A, F.y, fp, E);
}

/* tuples that are keys with a bool or an int-valued float get a canonical twin */
static gv_status op_tuple_twin(const gv_node **r) {
  /* the twin needs boxed ints for the big floats, the inner tuples' twins and,
   * past 16 children, scratch for its children */
  const gv_node *k[41];
  for (size_t i = 0; i < 20; i++) {
    k[i] = F.bigs[(i + F.iter) % 20];
    k[20 + i] = F.nct[(i + F.iter) % 20];
  }
  k[40] = F.vals[F.iter];
  return gv_tuple(A, k, 41, r, E);
}
static gv_status op_dag_structure(const gv_node **r) {
  return gv_structure(A, F.dag, r, E);
}
static gv_status op_dag_lists_to_tuples(const gv_node **r) {
  return gv_lists_to_tuples(A, F.dag, r, E);
}
static gv_status op_dag_order(const gv_node **r) {
  return gv_order(A, F.dagd, r, NULL, E);
}
static gv_status op_dag_same_structure(const gv_node **r) {
  *r = NULL;
  return gv_same_structure(A, F.rdag, F.rdag2, E);
}
static gv_status op_dag_same_paths(const gv_node **r) {
  *r = NULL;
  return gv_same_paths(A, F.rdag, F.rdag2, E);
}
static gv_status op_dag_same_paths_mismatch(const gv_node **r) {
  *r = NULL;
  return gv_same_paths(A, F.rdag, F.rdagd, E);
}
static gv_status op_chain_flatten_with_path(const gv_node **r) {
  return gv_flatten_with_path(A, F.chain, r, E);
}
static gv_status op_wide_flatten_with_path(const gv_node **r) {
  return gv_flatten_with_path(A, F.wide, r, E);
}
/* chains of rebuilt lists: the walk looks ahead */
static gv_status op_chain_structure(const gv_node **r) {
  return gv_structure(A, F.chain, r, E);
}
static gv_status op_chain_map(const gv_node **r) {
  return gv_map(A, f_inc, NULL, &F.chain, 1, false, r, E);
}

FAULT_TEST_DAG(tuple_twin, GV_OK, 20)
FAULT_TEST_DAG(dag_structure, GV_OK, 1)
FAULT_TEST_DAG(dag_lists_to_tuples, GV_OK, 1)
FAULT_TEST_DAG(dag_order, GV_OK, 1)
FAULT_TEST_DAG(dag_same_structure, GV_OK, 1)
FAULT_TEST_DAG(dag_same_paths, GV_OK, 1)
FAULT_TEST_DAG(dag_same_paths_mismatch, GV_EMISMATCH, 1)
FAULT_TEST_DAG(chain_flatten_with_path, GV_OK, 1)
FAULT_TEST_DAG(wide_flatten_with_path, GV_OK, 1)
FAULT_TEST_DAG(chain_structure, GV_OK, 1)
FAULT_TEST_DAG(chain_map, GV_OK, 1)
FAULT_TEST(none, GV_OK, 0)
FAULT_TEST(boolean, GV_OK, 0)
FAULT_TEST_N(int, GV_OK, 1, 200)
FAULT_TEST_N(float, GV_OK, 1, 200)
FAULT_TEST_N(str, GV_OK, 1, 200)
FAULT_TEST_N(bytes, GV_OK, 1, 200)
FAULT_TEST_N(handle, GV_OK, 1, 200)
FAULT_TEST(star, GV_OK, 0)
FAULT_TEST_N(list, GV_OK, 1, 200)
FAULT_TEST_N(tuple, GV_OK, 1, 200)
FAULT_TEST_N(dict, GV_OK, 1, 200)
FAULT_TEST_N(odict, GV_OK, 1, 200)
FAULT_TEST_N(ddict, GV_OK, 1, 200)
FAULT_TEST_N(namedtuple, GV_OK, 1, 200)
FAULT_TEST_N(deque, GV_OK, 1, 200)
FAULT_TEST_N(custom, GV_OK, 1, 200)
FAULT_TEST_N(custom_keyed, GV_OK, 1, 200)
FAULT_TEST_N(rebuild, GV_OK, 1, 200)
FAULT_TEST(parse, GV_OK, 1)
FAULT_TEST(print_str, GV_OK, 1)
FAULT_TEST(print_str_json, GV_OK, 1)
FAULT_TEST(print, GV_OK, 0)
FAULT_TEST(print_json, GV_OK, 0)
FAULT_TEST(structure, GV_OK, 0)
FAULT_TEST(structure_y, GV_OK, 0)
FAULT_TEST(flatten_with_path, GV_OK, 1)
FAULT_TEST(flatten_with_path_z, GV_OK, 0)
FAULT_TEST(walk_paths, GV_OK, 0)
FAULT_TEST(pack_sequence_as, GV_OK, 0)
FAULT_TEST(traverse_top_down, GV_OK, 0)
FAULT_TEST(traverse_bottom_up, GV_OK, 0)
FAULT_TEST(map, GV_OK, 0)
FAULT_TEST(map_none_is_node, GV_OK, 0)
FAULT_TEST(map2, GV_OK, 0)
FAULT_TEST(map2_mismatch, GV_EMISMATCH, 0)
FAULT_TEST(map_up_to, GV_OK, 0)
FAULT_TEST(map_shape, GV_OK, 0)
FAULT_TEST(lists_to_tuples, GV_OK, 0)
FAULT_TEST(lists_to_tuples_z, GV_OK, 0)
FAULT_TEST(order, GV_OK, 0)
FAULT_TEST(order_z, GV_OK, 0)
FAULT_TEST(same_structure, GV_OK, 0)
FAULT_TEST(same_structure_mismatch, GV_EMISMATCH, 0)
FAULT_TEST(same_paths, GV_OK, 0)
FAULT_TEST(same_paths_mismatch, GV_EMISMATCH, 0)
FAULT_TEST(is_prefix, GV_OK, 0)
FAULT_TEST(encode, GV_OK, 1)
FAULT_TEST(decode, GV_OK, 0)
FAULT_TEST(fingerprint, GV_OK, 0)

/* The encoder sizes its map and first chunk of record bytes from a guess that
 * reads the call's arena; called with an empty arena (the same hook) it guesses
 * one record, so encoding [x, y] grows the map and the record array several times
 * and writes several chunks: every one of those allocations fails in turn, and
 * the bytes that come out in the end are those the right guess gives. */
static gv_arena *G_small;
static const gv_node *G_xy; /* [x, y] */
static mbuf G_xenc;
static gv_status op_encode_small_arena(const gv_node **r) {
  mbuf b = {NULL, 0, 0};
  gv_status s = gv_encode(G_small, G_xy, w_buf, &b, E);
  if (s == GV_OK)
    cr_assert(b.len == G_xenc.len && memcmp(b.p, G_xenc.p, b.len) == 0,
              "encoded from an empty arena: other bytes");
  free(b.p);
  *r = NULL;
  return s;
}
static void fx_init_small(void) {
  fx_init();
  gv_arena_config cfg = {0, 0, &F.al, 0, 0, NULL};
  cr_assert_eq(gv_arena_new(&cfg, &G_small), GV_OK);
  memset(&G_xenc, 0, sizeof G_xenc);
  const gv_node *xy[2] = {F.x, F.y};
  cr_assert_eq(gv_list(F.a, xy, 2, &G_xy, NULL), GV_OK);
  cr_assert_eq(gv_encode(F.a, G_xy, w_buf, &G_xenc, NULL), GV_OK);
  cr_assert_gt(G_xenc.len, 2048, "[x, y] should take two chunks or more of record bytes (%zu)",
               G_xenc.len);
}
static void fx_fini_small(void) {
  free(G_xenc.p);
  gv_arena_free(G_small);
  fx_fini();
}
Test(faults, encode_small_arena, .init = fx_init_small, .fini = fx_fini_small) {
  long k = drive("encode_small_arena", op_encode_small_arena, GV_OK);
  cr_assert_gt(k, 4, "encode_small_arena: too few allocations failed (%ld)", k);
}

/* Every injected failure together: the whole battery runs in one arena,
 * each call with every possible allocation failing in turn, and the arena's
 * budget accounting matches the hook's view at the end. */
typedef struct bal {
  t_hook h;
  size_t live;
} bal;
static void *b_realloc(void *ctx, void *p, size_t old_size, size_t new_size) {
  bal *b = ctx;
  void *q = t_hook_realloc(&b->h, p, old_size, new_size);
  if (new_size == 0) {
    b->live -= old_size;
  } else if (q) {
    b->live = b->live - old_size + new_size;
  }
  return q;
}

Test(faults, reserved_matches_allocator_after_failures) {
  bal b;
  memset(&b, 0, sizeof b);
  gv_allocator al = {b_realloc, &b};
  gv_arena_config cfg = {0, 0, &al, 0, 0, NULL};
  gv_arena *a = NULL;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *t = t_parse(a, "[{'b': [1, 2], 'a': (3, 'x')}, deque([4]), P(x=5)]");
  for (long n = 1; n < 5000; n++) {
    b.h.calls = 0;
    b.h.fail_at = n;
    b.h.armed = 1;
    const gv_node *o = NULL;
    const char *s = NULL;
    size_t len = 0;
    gv_status s1 = gv_order(a, t, &o, NULL, NULL);
    gv_status s2 = gv_print_str(a, t, false, &s, &len, NULL);
    gv_status s3 = gv_parse(a, "{'zz': [[[1]]], 'yy': 2}", 24, &o, NULL);
    b.h.armed = 0;
    gv_stats st;
    gv_arena_stats(a, &st);
    cr_assert_eq(st.bytes_reserved, b.live, "after allocation %ld failing: reserved %zu, held %zu",
                 n, st.bytes_reserved, b.live);
    if (s1 == GV_OK && s2 == GV_OK && s3 == GV_OK && b.h.calls < n) break;
  }
  gv_arena_free(a);
  cr_assert_eq(b.live, 0, "the arena leaked %zu bytes", b.live);
}
