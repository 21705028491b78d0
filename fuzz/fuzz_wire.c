/* SPDX-License-Identifier: MIT */
/* fuzz_wire.c -- libFuzzer target for gv_decode.
 *
 * Decodes arbitrary bytes into a fresh arena with a modest budget and a
 * max_output. A failure must be one of the documented statuses and leave the
 * arena as it was; a success must re-encode to bytes that decode to the very
 * same node and re-encode byte-identically, with a matching fingerprint. Then
 * every pass runs on the decoded tree -- a few bytes can describe a DAG of
 * 2^63 nodes, so this is where a pass that is not linear in the distinct nodes
 * times out: structure, lists_to_tuples and order (idempotent, flags right),
 * the three comparisons against structure(t) (and the arena untouched by
 * them), and the written-out passes, which must succeed or refuse with
 * GV_ERANGE exactly when gv_expanded_size is over max_output. */
#include "grove.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OUTPUT ((uint64_t)1 << 16)

static void bad(const char *what, const gv_error *e) {
  fprintf(stderr, "fuzz_wire: broken invariant: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
  abort();
}

/* Only the budget may stop a pass that builds. */
static int built(gv_status s, const char *what, const gv_error *e) {
  if (s == GV_OK) return 1;
  if (s != GV_ENOMEM) bad(what, e);
  return 0;
}

static gv_status g_count(void *ctx, const gv_node *const *path, size_t depth, const gv_node *leaf) {
  (void)path, (void)depth, (void)leaf;
  (*(uint64_t *)ctx)++;
  return GV_OK;
}
static gv_status g_sink(void *ctx, const char *d, size_t n) {
  (void)d;
  *(uint64_t *)ctx += n;
  return GV_OK;
}
static gv_status g_first(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                         const gv_node **out) {
  (void)ctx, (void)a, (void)n;
  *out = v[0];
  return GV_OK;
}
static gv_status g_keep(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                        const gv_node **rep) {
  (void)ctx, (void)a, (void)node, (void)rep;
  *act = GV_VISIT_KEEP;
  return GV_OK;
}

/* A pass over the tree written out: it works, or refuses a tree over the
 * limit (before doing anything), or runs out of budget. */
static void written_out(gv_status s, const gv_node *t, const char *what, const gv_error *e,
                        int extra) {
  if (s == GV_OK || s == GV_ENOMEM) return;
  if (s == GV_ERANGE && (extra || gv_expanded_size(t) > MAX_OUTPUT)) return;
  bad(what, e);
}

static void passes(gv_arena *a, const gv_node *t) {
  gv_error e;
  const gv_node *s = NULL, *s2 = NULL, *l = NULL, *o = NULL, *o2 = NULL, *r = NULL;
  if (!built(gv_structure(a, t, &s, &e), "structure", &e)) return;
  if (!(gv_flags(s) & GV_F_STRUCTURE) || gv_num_leaves(s) != gv_num_leaves(t))
    bad("structure flags", NULL);
  if (built(gv_structure(a, s, &s2, &e), "structure 2", &e) && s2 != s) bad("structure^2", NULL);
  if (built(gv_lists_to_tuples(a, t, &l, &e), "lists_to_tuples", &e) &&
      (gv_flags(l) & GV_F_HAS_LIST))
    bad("lists_to_tuples left a list", NULL);
  bool ch = false;
  if (built(gv_order(a, t, &o, &ch, &e), "order", &e)) {
    if (!(gv_flags(o) & GV_F_CANONICAL) || ch != (o != t)) bad("order flags", NULL);
    if (built(gv_order(a, o, &o2, &ch, &e), "order 2", &e) && (o2 != o || ch))
      bad("order not idempotent", NULL);
  }
  /* the readers leave the arena as it is */
  gv__snapshot before = gv__snap(a);
  bool pre = false;
  if (gv_same_structure(a, t, s, &e) != GV_OK) bad("same_structure(t, structure(t))", &e);
  if (gv_is_prefix(a, s, t, &pre, &e) != GV_OK || !pre) bad("is_prefix", &e);
  if (gv_same_paths(a, t, s, &e) != GV_OK) bad("same_paths(t, structure(t))", &e);
  if (l && gv_same_paths(a, t, l, &e) != GV_OK) bad("same_paths(t, lists_to_tuples(t))", &e);
  if (o && gv_same_structure(a, t, o, &e) != GV_OK) bad("same_structure(t, order(t))", &e);
  uint64_t n = 0;
  written_out(gv_print(a, t, g_sink, &n, &e), t, "print", &e, 0);
  gv_status js = gv_print_json(a, t, g_sink, &n, &e);
  if (js != GV_EINVAL) written_out(js, t, "print_json", &e, 0);
  gv__snapshot after = gv__snap(a);
  if (!gv__snap_eq(&before, &after)) bad("a reader wrote the arena", NULL);
  /* the other written-out passes */
  uint64_t cnt = 0;
  gv_status ws = gv_walk_paths(a, t, g_count, &cnt, &e);
  written_out(ws, t, "walk_paths", &e, 0);
  if (ws == GV_OK && cnt != gv_num_leaves(t)) bad("walk_paths count", NULL);
  gv_status fs = gv_flatten_with_path(a, t, &r, &e);
  written_out(fs, t, "flatten_with_path", &e, 1);
  if (fs == GV_OK && gv_arity(r) != gv_num_leaves(t)) bad("flatten_with_path count", NULL);
  gv_status ms = gv_map(a, g_first, NULL, &t, 1, true, &r, &e);
  written_out(ms, t, "map", &e, 0);
  if (ms == GV_OK && r != t) bad("map(identity) != t", NULL);
  gv_status ts = gv_traverse(a, t, true, g_keep, NULL, &r, &e);
  written_out(ts, t, "traverse", &e, 0);
  if (ts == GV_OK && r != t) bad("traverse(keep) != t", NULL);
  /* the keys of a dict are strictly increasing in traversal order */
  gv_node_kind k = gv_kind(t);
  if (k == GV_DICT || k == GV_DDICT) {
    for (size_t i = 1; i < gv_arity(t); i++) {
      const gv_node *x = gv_key(t, gv_order_index(t, i - 1)), *y = gv_key(t, gv_order_index(t, i));
      if (gv_key_cmp(x, y) == 0) bad("repeated key", NULL);
      if (gv_get(t, y) != gv_child(t, gv_order_index(t, i))) bad("gv_get", NULL);
    }
  }
}

typedef struct fz_buf {
  unsigned char *p;
  size_t len, cap;
} fz_buf;

static gv_status fz_sink(void *ctx, const char *d, size_t n) {
  fz_buf *b = ctx;
  if (n > b->cap - b->len) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap - b->len < n)
      cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) return GV_ENOMEM;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, d, n);
  b->len += n;
  return GV_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gv_arena_config cfg = {(size_t)8 << 20, 4096, NULL, 0, MAX_OUTPUT, NULL};
  gv_arena *a = NULL;
  if (gv_arena_new(&cfg, &a) != GV_OK) abort();
  gv__snapshot fresh = gv__snap(a);
  const gv_node *n = NULL;
  gv_error e;
  gv_status s = gv_decode(a, data, size, &n, &e);
  if (s != GV_OK) {
    if (s != GV_EWIRE && s != GV_ENOMEM && s != GV_EDEPTH) abort();
    if (e.status != s || e.offset > size || n != NULL) abort();
    gv__snapshot failed = gv__snap(a);
    if (!gv__snap_eq(&fresh, &failed)) abort(); /* every counter and the table as they were */
    gv_arena_free(a);
    return 0;
  }
  if (!n) abort();
  fz_buf b1 = {NULL, 0, 0}, b2 = {NULL, 0, 0};
  s = gv_encode(a, n, fz_sink, &b1, &e);
  if (s == GV_OK) {
    const gv_node *m = NULL;
    gv_stats before, after;
    gv_arena_stats(a, &before);
    gv_status s2 = gv_decode(a, b1.p, b1.len, &m, &e);
    if (s2 == GV_OK) {
      if (m != n) abort();
      gv_arena_stats(a, &after);
      if (after.nodes != before.nodes) abort(); /* nothing new: all interned already */
      s2 = gv_encode(a, m, fz_sink, &b2, &e);
      if (s2 == GV_OK && (b1.len != b2.len || memcmp(b1.p, b2.p, b1.len) != 0)) abort();
      uint8_t f1[16], f2[16];
      if (gv_fingerprint(a, n, f1, &e) == GV_OK && gv_fingerprint(a, m, f2, &e) == GV_OK &&
          memcmp(f1, f2, 16) != 0)
        abort();
    }
    if (s2 != GV_OK && s2 != GV_ENOMEM) abort(); /* only the budget may stop it */
  } else if (s != GV_ENOMEM) {
    abort(); /* encoding a decoded tree can only run out of budget */
  }
  free(b1.p);
  free(b2.p);
  passes(a, n);
  gv_arena_free(a);
  return 0;
}
