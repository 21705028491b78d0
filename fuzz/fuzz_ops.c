/* SPDX-License-Identifier: MIT */
/* fuzz_ops.c -- libFuzzer target for the tree operations.
 *
 * Input: OPS '%' X '%' Y. X and Y are literal notation ('%' never occurs in
 * it); a missing Y is X, a missing X is the whole input. Each byte of OPS picks
 * one transform applied to the current tree, and after each step these
 * invariants are checked (abort() when broken):
 *   - pack_sequence_as(structure(t), flatten(t)) == t, and with t as template;
 *   - structure(structure(t)) == structure(t), which has GV_F_STRUCTURE;
 *   - order(t) is idempotent, changed == (out != in), the result is
 *     canonical and flattens to the same leaves;
 *   - lists_to_tuples(t) has no GV_F_HAS_LIST and the same leaves;
 *   - map / map_shape / traverse with the identity return t itself;
 *   - map_up_to(t, first, t) == t; is_prefix(structure(t), t);
 *   - same_structure(x, y) == same_structure(y, x) without custom nodes,
 *     and then map(second, x, y) == pack_sequence_as(x, flatten(y));
 *   - flatten_with_path pairs the same leaves; decode(encode(t)) == t. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LEAVES ((size_t)1 << 16)

static void fail(const char *what, const gv_error *e) {
  fprintf(stderr, "fuzz_ops: broken invariant: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
  abort();
}

/* Operations that only fail for lack of memory: any other failure is a bug. */
static int oom_ok(gv_status s, const char *what, const gv_error *e) {
  if (s == GV_OK) return 1;
  if (s == GV_ENOMEM) return 0;
  fail(what, e);
  return 0;
}

static const gv_node **leaves_of(const gv_node *t, size_t *n) {
  uint64_t nl = gv_num_leaves(t);
  if (nl > MAX_LEAVES) return NULL;
  const gv_node **v = malloc(sizeof *v * (size_t)(nl ? nl : 1));
  if (!v) abort();
  gv_error e;
  if (gv_flatten(t, v, (size_t)nl, n, &e) != GV_OK || *n != nl) fail("flatten", &e);
  return v;
}

static int same_leaves(const gv_node *x, const gv_node *y) {
  size_t nx = 0, ny = 0;
  const gv_node **lx = leaves_of(x, &nx), **ly = leaves_of(y, &ny);
  int ok = lx && ly && nx == ny && (nx == 0 || memcmp(lx, ly, nx * sizeof *lx) == 0);
  if (!lx || !ly) ok = gv_num_leaves(x) == gv_num_leaves(y);
  free(lx);
  free(ly);
  return ok;
}

/* Whether a custom node occurs in t (explicit stack). */
static int has_custom(const gv_node *t) {
  size_t cap = 64, n = 0;
  const gv_node **st = malloc(cap * sizeof *st);
  if (!st) abort();
  st[n++] = t;
  int found = 0;
  while (n && !found) {
    const gv_node *x = st[--n];
    if (gv_kind(x) == GV_CUSTOM) found = 1;
    for (size_t i = 0; i < gv_arity(x); i++) {
      if (n == cap) {
        cap *= 2;
        st = realloc(st, cap * sizeof *st);
        if (!st) abort();
      }
      st[n++] = gv_child(x, i);
    }
  }
  free(st);
  return found;
}

/* --- callbacks --- */
static gv_status f_first(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                         const gv_node **out) {
  (void)ctx, (void)a, (void)n;
  *out = v[0];
  return GV_OK;
}
static gv_status f_second(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                          const gv_node **out) {
  (void)ctx, (void)a;
  *out = v[n > 1 ? 1 : 0];
  return GV_OK;
}
static gv_status f_keep(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                        const gv_node **rep) {
  (void)ctx, (void)a, (void)node, (void)rep;
  *act = GV_VISIT_KEEP;
  return GV_OK;
}
/* Top-down: lists become None. */
static gv_status f_lists_none(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                              const gv_node **rep) {
  (void)ctx, (void)a, (void)rep;
  *act = gv_kind(node) == GV_LIST ? GV_VISIT_NONE : GV_VISIT_KEEP;
  return GV_OK;
}
/* Bottom-up: ints become *. */
static gv_status f_ints_star(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                             const gv_node **rep) {
  (void)ctx;
  *act = GV_VISIT_KEEP;
  if (gv_kind(node) == GV_INT) {
    gv_status s = gv_star(a, rep, NULL);
    if (s != GV_OK) return s;
    *act = GV_VISIT_REPLACE;
  }
  return GV_OK;
}
static gv_status p_count(void *ctx, const gv_node *const *path, size_t depth, const gv_node *leaf) {
  (void)path, (void)depth, (void)leaf;
  (*(size_t *)ctx)++;
  return GV_OK;
}
static gv_status w_buf(void *ctx, const char *d, size_t len) {
  gv__vec *v = ctx;
  if (v->len + len > v->cap) {
    size_t cap = v->cap ? v->cap : 256;
    while (cap < v->len + len)
      cap *= 2;
    void *p = realloc(v->p, cap);
    if (!p) abort();
    v->p = p;
    v->cap = cap;
  }
  memcpy((char *)v->p + v->len, d, len);
  v->len += len;
  return GV_OK;
}

/* All invariants on one tree. */
static void check_tree(gv_arena *a, const gv_node *t) {
  gv_error e;
  const gv_node *s = NULL, *s2 = NULL, *r = NULL;
  if (!oom_ok(gv_structure(a, t, &s, &e), "structure", &e)) return;
  if (!(gv_flags(s) & GV_F_STRUCTURE)) fail("structure lacks GV_F_STRUCTURE", NULL);
  if (oom_ok(gv_structure(a, s, &s2, &e), "structure of a structure", &e) && s2 != s)
    fail("structure(structure(t)) != structure(t)", NULL);
  if (gv_num_leaves(s) != gv_num_leaves(t)) fail("structure changed the leaf count", NULL);

  size_t n = 0;
  const gv_node **lv = leaves_of(t, &n);
  if (lv) {
    if (oom_ok(gv_pack_sequence_as(a, s, lv, n, &r, &e), "pack(structure)", &e) && r != t)
      fail("pack_sequence_as(structure(t), flatten(t)) != t", NULL);
    if (oom_ok(gv_pack_sequence_as(a, t, lv, n, &r, &e), "pack(t)", &e) && r != t)
      fail("pack_sequence_as(t, flatten(t)) != t", NULL);
    if (n > 0 && gv_pack_sequence_as(a, s, lv, n - 1, &r, &e) != GV_ECOUNT)
      fail("too few leaves not GV_ECOUNT", &e);
    /* flatten_with_path: the same leaves, one pair each */
    const gv_node *fp = NULL;
    if (oom_ok(gv_flatten_with_path(a, t, &fp, &e), "flatten_with_path", &e)) {
      if (gv_kind(fp) != GV_LIST || gv_arity(fp) != n) fail("flatten_with_path length", NULL);
      for (size_t i = 0; i < n; i++) {
        const gv_node *pair = gv_child(fp, i);
        if (gv_kind(pair) != GV_TUPLE || gv_arity(pair) != 2 || gv_child(pair, 1) != lv[i] ||
            gv_kind(gv_child(pair, 0)) != GV_TUPLE)
          fail("flatten_with_path pair", NULL);
      }
    }
    free(lv);
  }
  size_t cnt = 0;
  if (oom_ok(gv_walk_paths(a, t, p_count, &cnt, &e), "walk_paths", &e) && cnt != gv_num_leaves(t))
    fail("walk_paths leaf count", NULL);

  /* order */
  bool ch = true;
  const gv_node *o = NULL, *o2 = NULL;
  if (oom_ok(gv_order(a, t, &o, &ch, &e), "order", &e)) {
    if (ch != (o != t)) fail("order: changed != (out != in)", NULL);
    if (!(gv_flags(o) & GV_F_CANONICAL)) fail("order result not canonical", NULL);
    if ((gv_flags(t) & GV_F_CANONICAL) && o != t) fail("order changed a canonical tree", NULL);
    if (oom_ok(gv_order(a, o, &o2, &ch, &e), "order 2", &e) && (o2 != o || ch))
      fail("order not idempotent", NULL);
    if (!same_leaves(o, t)) fail("order changed the leaves", NULL);
    const gv_node *os = NULL;
    if (oom_ok(gv_structure(a, o, &os, &e), "structure(order)", &e) &&
        oom_ok(gv_order(a, s, &o2, NULL, &e), "order(structure)", &e) && os != o2)
      fail("structure(order(t)) != order(structure(t))", NULL);
  }
  /* lists_to_tuples */
  if (oom_ok(gv_lists_to_tuples(a, t, &r, &e), "lists_to_tuples", &e)) {
    if (gv_flags(r) & GV_F_HAS_LIST) fail("lists_to_tuples left a list", NULL);
    if (!(gv_flags(t) & GV_F_HAS_LIST) && r != t)
      fail("lists_to_tuples changed a list-free tree", NULL);
    if (!same_leaves(r, t)) fail("lists_to_tuples changed the leaves", NULL);
  }
  /* identities */
  if (oom_ok(gv_map(a, f_first, NULL, &t, 1, true, &r, &e), "map id", &e) && r != t)
    fail("map(identity) != t", NULL);
  if (oom_ok(gv_map(a, f_first, NULL, &t, 1, false, &r, &e), "map id nil", &e) && r != t)
    fail("map(identity, none_is_leaf=false) != t", NULL);
  const gv_node *two[2] = {t, t};
  if (oom_ok(gv_map(a, f_second, NULL, two, 2, true, &r, &e), "map2 self", &e) && r != t)
    fail("map(second, t, t) != t", NULL);
  if (oom_ok(gv_map_shape(a, f_first, NULL, t, &r, &e), "map_shape id", &e) && r != t)
    fail("map_shape(identity) != t", NULL);
  if (oom_ok(gv_traverse(a, t, true, f_keep, NULL, &r, &e), "traverse td", &e) && r != t)
    fail("traverse top-down keep != t", NULL);
  if (oom_ok(gv_traverse(a, t, false, f_keep, NULL, &r, &e), "traverse bu", &e) && r != t)
    fail("traverse bottom-up keep != t", NULL);
  if (oom_ok(gv_map_up_to(a, t, f_first, NULL, &t, 1, &r, &e), "map_up_to", &e) && r != t)
    fail("map_up_to(t, first, t) != t", NULL);
  bool pre = false;
  if (oom_ok(gv_is_prefix(a, s, t, &pre, &e), "is_prefix", &e) && !pre)
    fail("structure(t) is not a prefix of t", NULL);
  (void)oom_ok(gv_same_structure(a, t, t, &e), "same_structure(t, t)", &e);
  gv_status ss = gv_same_structure(a, t, s, &e);
  if (ss != GV_OK && ss != GV_ENOMEM) fail("t does not match structure(t)", &e);
  ss = gv_same_paths(a, t, s, &e);
  if (ss != GV_OK && ss != GV_ENOMEM) fail("t and structure(t) have different paths", &e);

  /* wire round trip */
  gv__vec buf = {NULL, 0, 0, 1, 0};
  if (oom_ok(gv_encode(a, t, w_buf, &buf, &e), "encode", &e)) {
    const gv_node *d = NULL;
    gv_status ds = gv_decode(a, buf.p, buf.len, &d, &e);
    if (ds != GV_OK && ds != GV_ENOMEM) fail("decode(encode(t)) failed", &e);
    if (ds == GV_OK && d != t) fail("decode(encode(t)) != t", NULL);
  }
  free(buf.p);
}

/* Whether x and y have the same paths in the same traversal order (then
 * their leaves pair up by position). */
static int same_path_order(gv_arena *a, const gv_node *x, const gv_node *y) {
  const gv_node *px = NULL, *py = NULL;
  if (gv_flatten_with_path(a, x, &px, NULL) != GV_OK) return 0;
  if (gv_flatten_with_path(a, y, &py, NULL) != GV_OK) return 0;
  if (gv_arity(px) != gv_arity(py)) return 0;
  for (size_t i = 0; i < gv_arity(px); i++)
    if (gv_child(gv_child(px, i), 0) != gv_child(gv_child(py, i), 0)) return 0;
  return 1;
}

static void check_pair(gv_arena *a, const gv_node *x, const gv_node *y) {
  gv_error e;
  gv_status xy = gv_same_structure(a, x, y, &e);
  if (xy == GV_ENOMEM) return;
  if (xy != GV_OK && xy != GV_EMISMATCH) fail("same_structure status", &e);
  if (xy == GV_EMISMATCH && strncmp(e.msg, "at ()", 5) == 0) fail("root path printed", &e);
  if (!has_custom(x) && !has_custom(y)) {
    gv_status yx = gv_same_structure(a, y, x, &e);
    if (yx != GV_ENOMEM && yx != xy) fail("same_structure is not symmetric", &e);
  }
  const gv_node *two[2] = {x, y}, *r = NULL, *p = NULL;
  gv_status ms = gv_map(a, f_second, NULL, two, 2, true, &r, &e);
  if (ms == GV_ENOMEM) return;
  if (xy == GV_OK) {
    if (ms != GV_OK) fail("map(x, y) failed where same_structure succeeds", &e);
    size_t n = 0;
    const gv_node **ly = same_path_order(a, x, y) ? leaves_of(y, &n) : NULL;
    if (ly) {
      if (oom_ok(gv_pack_sequence_as(a, x, ly, n, &p, &e), "pack(x, leaves(y))", &e) && p != r)
        fail("map(second, x, y) != pack_sequence_as(x, flatten(y))", NULL);
      free(ly);
    }
    gv_status sp = gv_same_paths(a, x, y, &e);
    (void)sp; /* kinds may differ in same_paths, not the converse */
  } else if (ms != GV_EMISMATCH) {
    fail("map(x, y) did not fail with GV_EMISMATCH where same_structure does", &e);
  }
}

static const gv_node *parse_part(gv_arena *a, const uint8_t *p, size_t n) {
  const gv_node *t = NULL;
  if (gv_parse(a, (const char *)p, n, &t, NULL) != GV_OK) return NULL;
  return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *ops = data, *xs = data, *ys;
  size_t nops = 0, nx = size, ny;
  const uint8_t *p1 = memchr(data, '%', size);
  if (p1) {
    ops = data;
    nops = (size_t)(p1 - data);
    xs = p1 + 1;
    nx = size - nops - 1;
  }
  const uint8_t *p2 = p1 ? memchr(xs, '%', nx) : NULL;
  if (p2) {
    ys = p2 + 1;
    ny = (size_t)(data + size - ys);
    nx = (size_t)(p2 - xs);
  } else {
    ys = xs;
    ny = nx;
  }
  if (nops > 16) nops = 16;

  gv_arena_config cfg = {(size_t)16 << 20, 0, NULL, 0, 0, NULL};
  gv_arena *a = NULL;
  if (gv_arena_new(&cfg, &a) != GV_OK) abort();
  const gv_node *x = parse_part(a, xs, nx), *y = parse_part(a, ys, ny);
  if (!x) {
    gv_arena_free(a);
    return 0;
  }
  if (!y) y = x;
  check_tree(a, x);
  if (y != x) check_tree(a, y);
  check_pair(a, x, y);

  const gv_node *t = x;
  gv_error e;
  for (size_t i = 0; i < nops; i++) {
    const gv_node *r = NULL;
    switch (ops[i] % 8) {
    case 0:
      if (!oom_ok(gv_order(a, t, &r, NULL, &e), "op order", &e)) goto done;
      break;
    case 1:
      if (!oom_ok(gv_lists_to_tuples(a, t, &r, &e), "op l2t", &e)) goto done;
      break;
    case 2:
      if (!oom_ok(gv_structure(a, t, &r, &e), "op structure", &e)) goto done;
      break;
    case 3: {
      const gv_node *two[2] = {t, y};
      gv_status s = gv_map(a, f_second, NULL, two, 2, true, &r, &e);
      if (s != GV_OK) r = t;
      break;
    }
    case 4:
      if (!oom_ok(gv_traverse(a, t, true, f_lists_none, NULL, &r, &e), "op td", &e)) goto done;
      if (gv_flags(r) & GV_F_HAS_LIST) fail("top-down lists->None left a list", NULL);
      break;
    case 5:
      if (!oom_ok(gv_traverse(a, t, false, f_ints_star, NULL, &r, &e), "op bu", &e)) goto done;
      break;
    case 6: {
      size_t n = 0;
      const gv_node **lv = leaves_of(t, &n);
      r = t;
      if (lv) {
        for (size_t k = 0; k < n / 2; k++) {
          const gv_node *tmp = lv[k];
          lv[k] = lv[n - 1 - k];
          lv[n - 1 - k] = tmp;
        }
        gv_status s = gv_pack_sequence_as(a, t, lv, n, &r, &e);
        free(lv);
        if (!oom_ok(s, "op pack reversed", &e)) goto done;
      }
      break;
    }
    default: {
      const gv_node *tmp = y;
      y = t;
      r = tmp;
      break;
    }
    }
    t = r;
    check_tree(a, t);
    check_pair(a, t, y);
  }
done:
  gv_arena_free(a);
  return 0;
}
