/* SPDX-License-Identifier: MIT */
/*
 * engine-grove.c -- grove's side: the builder, the operations (run.c's table
 * times them), the preps some of them need, and a workload's setup with its
 * soft checks (parse, encode/decode, order and map against the builder).
 */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                      \
  do {                                                                                             \
    gv_status s_ = (x);                                                                            \
    if (s_ != GV_OK) return s_;                                                                    \
  } while (0)

/* scratch for the grove builders (sized for the largest dict) */
static const gv_node *g_k[1000], *g_v[1000];

/* Build workload w in arena a; every int/float leaf value gets + off. The key
 * nodes are made once per build (inside the timed region), as a user of an
 * interning API would. */
gv_status g_build(gv_arena *a, const workload *w, int64_t off, const gv_node **out, gv_error *err) {
  const gv_node *x, *y, *items[3];
  switch (w->kind) {
  case WK1: { /* [{"b": 1, "a": [2, 3]}, (4, 5), 6] */
    const gv_node *kv[2], *vv[2];
    CK(gv_int(a, 2 + off, &items[0], err));
    CK(gv_int(a, 3 + off, &items[1], err));
    CK(gv_list(a, items, 2, &vv[1], err));
    CK(gv_int(a, 1 + off, &vv[0], err));
    CK(gv_str(a, "b", 1, &kv[0], err));
    CK(gv_str(a, "a", 1, &kv[1], err));
    CK(gv_dict(a, kv, vv, 2, &x, err));
    CK(gv_int(a, 4 + off, &items[0], err));
    CK(gv_int(a, 5 + off, &items[1], err));
    CK(gv_tuple(a, items, 2, &y, err));
    items[0] = x;
    items[1] = y;
    CK(gv_int(a, 6 + off, &items[2], err));
    return gv_list(a, items, 3, out, err);
  }
  case WK2:
    for (size_t i = 0; i < 1000; i++) {
      uint16_t j = w->perm[i];
      CK(gv_str(a, g_w2key[j], 5, &g_k[i], err));
      CK(gv_int(a, (int64_t)j + off, &g_v[i], err));
    }
    return gv_dict(a, g_k, g_v, 1000, out, err);
  case WK3: {
    const gv_node *nk[4], *ik[3], *lk[100], *lv[100], *f[4], *inner[3];
    for (size_t i = 0; i < 4; i++)
      CK(gv_str(a, g_w3norm[i], strlen(g_w3norm[i]), &nk[i], err));
    for (size_t i = 0; i < 3; i++)
      CK(gv_str(a, g_w3inner[i], strlen(g_w3inner[i]), &ik[i], err));
    for (size_t l = 0; l < 100; l++) {
      for (size_t i = 0; i < 4; i++)
        CK(gv_float(a, 3.0 + (double)i + (double)off, &f[i], err));
      CK(gv_dict(a, nk, f, 4, &inner[2], err));
      CK(gv_float(a, 1.0 + (double)off, &inner[0], err));
      CK(gv_float(a, 2.0 + (double)off, &inner[1], err));
      CK(gv_dict(a, ik, inner, 3, &lv[l], err));
      CK(gv_str(a, g_w3key[l], 9, &lk[l], err));
    }
    return gv_dict(a, lk, lv, 100, out, err);
  }
  case WK4:
  case WK4X:
    CK(gv_int(a, off, &x, err));
    for (size_t d = 0; d < w->n; d++)
      CK(gv_list(a, &x, 1, &x, err));
    *out = x;
    return GV_OK;
  case WK5:
  case WK5S: {
    const gv_node *kn[100];
    for (size_t j = 0; j < 100; j++)
      CK(gv_str(a, g_w5key[j], 3, &kn[j], err));
    const gv_node **d = malloc(w->n * sizeof *d);
    if (!d) return GV_ENOMEM;
    gv_status s = GV_OK;
    for (size_t i = 0; i < w->n && s == GV_OK; i++) {
      const uint16_t *p = w->perm ? w->perm + i * 100 : NULL;
      for (size_t j = 0; j < 100 && s == GV_OK; j++) {
        size_t jj = p ? p[j] : j;
        g_k[j] = kn[jj];
        s = gv_int(a, (int64_t)(i * 100 + jj) + off, &g_v[j], err);
      }
      if (s == GV_OK) s = gv_dict(a, g_k, g_v, 100, &d[i], err);
    }
    if (s == GV_OK) s = gv_list(a, d, w->n, out, err);
    free(d);
    return s;
  }
  }
  return GV_EINVAL;
}

static gv_status null_write(void *ctx, const char *data, size_t len) {
  (void)data;
  *(size_t *)ctx += len;
  return GV_OK;
}

typedef struct obuf {
  unsigned char *p;
  size_t n, cap;
} obuf;

static obuf g_obuf;

static gv_status buf_write(void *ctx, const char *data, size_t len) {
  obuf *b = ctx;
  if (b->n + len > b->cap) {
    size_t c = b->cap ? b->cap : 4096;
    while (c < b->n + len)
      c *= 2;
    unsigned char *q = realloc(b->p, c);
    if (!q) return GV_ENOMEM;
    b->p = q;
    b->cap = c;
  }
  memcpy(b->p + b->n, data, len);
  b->n += len;
  return GV_OK;
}

static gv_status map_id(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                        const gv_node **out) {
  (void)ctx;
  (void)a;
  (void)n;
  *out = values[0];
  return GV_OK;
}

static gv_status map_inc(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                         const gv_node **out) {
  (void)ctx;
  (void)n;
  const gv_node *v = values[0];
  if (gv_kind(v) == GV_INT) return gv_int(a, gv_get_int(v) + 1, out, NULL);
  if (gv_kind(v) == GV_FLOAT) return gv_float(a, gv_get_float(v) + 1.0, out, NULL);
  *out = v;
  return GV_OK;
}

static gv_status count_path(void *ctx, const gv_node *const *path, size_t depth,
                            const gv_node *leaf) {
  (void)path;
  (void)leaf;
  *(size_t *)ctx += depth + 1;
  return GV_OK;
}

/* --- the operations --- */
int g_op_build(workload *w, rep *r) {
  return (int)g_build(r->a, w, 0, &r->gout, &r->err);
}
int g_op_build_warm(workload *w, rep *r) {
  gv_status s = g_build(r->a, w, 0, &r->gout, &r->err);
  if (s == GV_OK && r->gout != w->gt) {
    snprintf(r->msg, sizeof r->msg, "warm rebuild is not the same pointer");
    return -1;
  }
  return (int)s;
}
int g_op_parse(workload *w, rep *r) {
  return (int)gv_parse(r->a, w->text.p, w->text.n, &r->gout, &r->err);
}
int g_op_flatten(workload *w, rep *r) {
  size_t n = 0;
  gv_status s = gv_flatten(w->gt, w->gleaves, (size_t)w->leaves, &n, &r->err);
  g_sink = n;
  return (int)s;
}
int g_op_structure(workload *w, rep *r) {
  return (int)gv_structure(r->a, w->gt, &r->gout, &r->err);
}
int g_op_walk_paths(workload *w, rep *r) {
  size_t cnt = 0;
  gv_status s = gv_walk_paths(r->a, w->gt, count_path, &cnt, &r->err);
  g_sink = cnt;
  return (int)s;
}
int g_op_fwp(workload *w, rep *r) {
  return (int)gv_flatten_with_path(r->a, w->gt, &r->gout, &r->err);
}
int g_op_pack(workload *w, rep *r) {
  return (int)gv_pack_sequence_as(r->a, w->gs, w->gleaves2, (size_t)w->leaves, &r->gout, &r->err);
}
int g_op_map_id(workload *w, rep *r) {
  gv_status s = gv_map(r->a, map_id, NULL, &w->gt, 1, false, &r->gout, &r->err);
  if (s == GV_OK && r->gout != w->gt) {
    snprintf(r->msg, sizeof r->msg, "map(identity) did not return the same node");
    return -1;
  }
  return (int)s;
}
int g_op_map_inc(workload *w, rep *r) {
  gv_status s = gv_map(r->a, map_inc, NULL, &w->gt, 1, false, &r->gout, &r->err);
  if (s == GV_OK && (r->gout == w->gt || gv_num_leaves(r->gout) != w->leaves)) {
    snprintf(r->msg, sizeof r->msg, "map(x+1) gave a wrong tree");
    return -1;
  }
  return (int)s;
}
int g_op_order(workload *w, rep *r) {
  bool changed = false;
  gv_status s = gv_order(r->a, w->gt, &r->gout, &changed, &r->err);
  g_sink = changed;
  return (int)s;
}
int g_op_equal_ptr(workload *w, rep *r) {
  (void)r;
  const gv_node *volatile x = w->gt, *volatile y = w->gt;
  g_sink = x == y;
  return 0;
}
int g_op_same(workload *w, rep *r) {
  return (int)gv_same_structure(r->a, w->gt, w->gt2, &r->err);
}
int g_op_print(workload *w, rep *r) {
  size_t n = 0;
  gv_status s = gv_print(r->a, w->gt, null_write, &n, &r->err);
  g_sink = n;
  return (int)s;
}
int g_op_print_json(workload *w, rep *r) {
  size_t n = 0;
  gv_status s = gv_print_json(r->a, w->gt, null_write, &n, &r->err);
  g_sink = n;
  return (int)s;
}
int g_op_fingerprint(workload *w, rep *r) {
  uint8_t fp[16];
  gv_status s = gv_fingerprint(r->a, w->gt, fp, &r->err);
  g_sink = fp[0];
  return (int)s;
}
int g_op_encode(workload *w, rep *r) {
  g_obuf.n = 0;
  return (int)gv_encode(r->a, w->gt, buf_write, &g_obuf, &r->err);
}
int g_op_decode(workload *w, rep *r) {
  return (int)gv_decode(r->a, w->wire, w->wire_len, &r->gout, &r->err);
}

/* pack_sequence_as: the structure, and leaves that make a tree not yet in the
 * arena (gt's leaves reversed; a fresh int when there is one leaf). */
gv_status prep_pack(workload *w, gv_error *err) {
  CK(gv_structure(w->ga, w->gt, &w->gs, err));
  size_t n = (size_t)w->leaves;
  if (n == 1) return gv_int(w->ga, 1, &w->gleaves2[0], err);
  for (size_t i = 0; i < n; i++)
    w->gleaves2[i] = w->gleaves[n - 1 - i];
  return GV_OK;
}

/* same_structure: a second tree of the same shape, every leaf + 1 */
gv_status prep_same(workload *w, gv_error *err) {
  return g_build(w->ga, w, 1, &w->gt2, err);
}

bool leaf_value(const gv_node *n, double *v) {
  if (gv_kind(n) == GV_INT) {
    *v = (double)gv_get_int(n);
    return true;
  }
  if (gv_kind(n) == GV_FLOAT) {
    *v = gv_get_float(n);
    return true;
  }
  return false;
}

void setup_grove(workload *w) {
  gv_error err;
  gv_status s;
  size_t n = 0;
  memset(&err, 0, sizeof err);
  w->gok = false;
  if ((s = gv_arena_new(NULL, &w->ga)) != GV_OK) {
    fail("%s: gv_arena_new: %s", w->name, gv_status_name(s));
    return;
  }
#define GS(call, what)                                                                             \
  do {                                                                                             \
    if ((s = (call)) != GV_OK) {                                                                   \
      fail("%s: grove setup: %s: %s: %s", w->name, what, gv_status_name(s), err.msg);              \
      return;                                                                                      \
    }                                                                                              \
  } while (0)
  GS(g_build(w->ga, w, 0, &w->gt, &err), "build");
  gv_arena_stats(w->ga, &w->gstats);
  if (gv_num_leaves(w->gt) != w->leaves) {
    fail("%s: grove num_leaves %" PRIu64 ", expected %" PRIu64, w->name, gv_num_leaves(w->gt),
         w->leaves);
    return;
  }
  const gv_node *again = NULL;
  GS(g_build(w->ga, w, 0, &again, &err), "rebuild");
  if (again != w->gt) fail("%s: rebuilding the same tree gave a different pointer", w->name);
  w->gleaves = xmalloc((size_t)w->leaves * sizeof *w->gleaves);
  w->gleaves2 = xmalloc((size_t)w->leaves * sizeof *w->gleaves2);
  GS(gv_flatten(w->gt, w->gleaves, (size_t)w->leaves, &n, &err), "flatten");
  w->gok = true;
#undef GS
  /* Soft checks (a failure is reported, the other rows still run); every node
   * they build is rolled back so that no timed op finds its result interned. */
  gv_mark m = gv_arena_mark(w->ga);
#define SOFT(call, what)                                                                           \
  ((s = (call)) == GV_OK ||                                                                        \
   (fail("%s: grove check: %s: %s: %s", w->name, what, gv_status_name(s), err.msg), false))
  g_obuf.n = 0;
  if (SOFT(gv_encode(w->ga, w->gt, buf_write, &g_obuf, &err), "encode")) {
    w->wire = xmalloc(g_obuf.n);
    memcpy(w->wire, g_obuf.p, g_obuf.n);
    w->wire_len = g_obuf.n;
    const gv_node *decoded = NULL;
    if (SOFT(gv_decode(w->ga, w->wire, w->wire_len, &decoded, &err), "decode") && decoded != w->gt)
      fail("%s: decode(encode(t)) != t", w->name);
  }
  const gv_node *parsed = NULL;
  if (SOFT(gv_parse(w->ga, w->text.p, w->text.n, &parsed, &err), "parse") && w->kind != WK1 &&
      parsed != w->gt)
    fail("%s: parse(text) != the built tree", w->name);
  bool changed = false;
  const gv_node *ordered = NULL;
  bool want_changed = w->kind == WK2 || w->kind == WK3 || w->kind == WK5 || w->kind == WK1;
  if (SOFT(gv_order(w->ga, w->gt, &ordered, &changed, &err), "order") &&
      (changed != want_changed || (ordered == w->gt) == changed))
    fail("%s: order reported changed=%d, expected %d", w->name, changed, want_changed);
  const gv_node *m1 = NULL;
  if (SOFT(gv_map(w->ga, map_inc, NULL, &w->gt, 1, false, &m1, &err), "map(x+1)")) {
    const gv_node *b1 = NULL;
    if (SOFT(g_build(w->ga, w, 1, &b1, &err), "build +1") && b1 != m1)
      fail("%s: map(x+1) != the tree built with +1", w->name);
  }
#undef SOFT
  gv_arena_rollback(w->ga, &m);
}

void g_free_scratch(void) {
  free(g_obuf.p);
}
