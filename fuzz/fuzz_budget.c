/* SPDX-License-Identifier: MIT */
/* fuzz_budget.c -- libFuzzer target for running out of budget.
 *
 * Input: two bytes choosing a tiny max_bytes, then literal text. The text is
 * parsed in that tiny arena and a fixed series of operations runs on the
 * latest result. Invariants (abort() when broken):
 *   - every failing call returns GV_ENOMEM (or, where the input itself is
 *     bad, the same error an unlimited arena gives), with gv_error filled;
 *   - after a failure the arena's stats and gv__intern_digest equal the
 *     snapshot taken just before the call;
 *   - every tree made earlier still flattens to the same leaves;
 *   - whatever succeeds gives the same fingerprint as in an unlimited arena. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TREES 64
#define MAX_LEAVES ((size_t)1 << 15)

static void fail(const char *what, const gv_error *e) {
  fprintf(stderr, "fuzz_budget: broken invariant: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
  abort();
}

typedef struct kept {
  const gv_node *t;
  const gv_node **leaves;
  size_t n;
} kept;

typedef struct st {
  gv_arena *a;   /* the tiny arena */
  gv_arena *ref; /* unlimited */
  kept trees[MAX_TREES];
  size_t ntrees;
  gv__snapshot before;
} st;

static void keep(st *s, const gv_node *t) {
  if (s->ntrees == MAX_TREES || gv_num_leaves(t) > MAX_LEAVES) return;
  kept *k = &s->trees[s->ntrees++];
  k->t = t;
  size_t nl = (size_t)gv_num_leaves(t);
  k->leaves = malloc(sizeof *k->leaves * (nl ? nl : 1));
  if (!k->leaves) abort();
  if (gv_flatten(t, k->leaves, nl, &k->n, NULL) != GV_OK || k->n != nl) fail("flatten kept", NULL);
}

static void check_kept(const st *s) {
  const gv_node *buf[64];
  for (size_t i = 0; i < s->ntrees; i++) {
    const kept *k = &s->trees[i];
    const gv_node **v = k->n <= 64 ? buf : malloc(sizeof *v * k->n);
    if (!v) abort();
    size_t n = 0;
    if (gv_flatten(k->t, v, k->n, &n, NULL) != GV_OK || n != k->n ||
        (n && memcmp(v, k->leaves, n * sizeof *v) != 0))
      fail("an earlier tree no longer flattens to the same leaves", NULL);
    if (v != buf) free(v);
  }
}

static void pre(st *s) {
  s->before = gv__snap(s->a);
}

/* After a call: on failure, the status must be allowed and the arena intact.
 * Returns whether the call succeeded. */
static int post(st *s, gv_status r, const gv_error *e, gv_status other, const char *what) {
  if (r != GV_OK) {
    if (r != GV_ENOMEM && r != other) {
      fprintf(stderr, "%s: status %s\n", what, gv_status_name(r));
      fail("unexpected failure status", e);
    }
    if (e->status != r || e->msg[0] == '\0') fail("gv_error not filled", e);
    gv__snapshot after = gv__snap(s->a);
    if (memcmp(&after.st, &s->before.st, sizeof after.st) != 0 ||
        after.digest != s->before.digest) {
      fprintf(stderr, "%s failed with %s\n", what, gv_status_name(r));
      fail("a failing call changed the arena", e);
    }
  }
  check_kept(s);
  return r == GV_OK;
}

/* The same fingerprint as the reference result, when both can be had. */
static void same_fp(st *s, const gv_node *x, const gv_node *rx) {
  uint8_t f1[16], f2[16];
  gv_error e;
  pre(s);
  gv_status r = gv_fingerprint(s->a, x, f1, &e);
  if (!post(s, r, &e, GV_OK, "fingerprint")) return;
  if (gv_fingerprint(s->ref, rx, f2, &e) != GV_OK) fail("reference fingerprint", &e);
  if (memcmp(f1, f2, 16) != 0) fail("tiny-arena result differs from the reference", NULL);
}

static gv_status f_inc(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                       const gv_node **out) {
  (void)ctx, (void)n;
  if (gv_kind(v[0]) == GV_INT && gv_get_int(v[0]) < INT64_MAX)
    return gv_int(a, gv_get_int(v[0]) + 1, out, NULL);
  if (gv_kind(v[0]) == GV_STR) return gv_tuple(a, v, 1, out, NULL);
  *out = v[0];
  return GV_OK;
}
static gv_status f_pair(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                        const gv_node **out) {
  (void)ctx;
  return gv_tuple(a, v, n, out, NULL);
}
static gv_status f_star_ints(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                             const gv_node **rep) {
  (void)ctx;
  *act = GV_VISIT_KEEP;
  if (gv_kind(node) == GV_INT || gv_kind(node) == GV_LIST) {
    gv_status s = gv_kind(node) == GV_INT ? gv_star(a, rep, NULL) : gv_tuple(a, NULL, 0, rep, NULL);
    if (s != GV_OK) return s;
    *act = GV_VISIT_REPLACE;
  }
  return GV_OK;
}
static gv_status p_nop(void *ctx, const gv_node *const *path, size_t depth, const gv_node *leaf) {
  (void)ctx, (void)path, (void)depth, (void)leaf;
  return GV_OK;
}
typedef struct mbuf {
  char *p;
  size_t len, cap;
} mbuf;
static gv_status w_buf(void *ctx, const char *d, size_t len) {
  mbuf *b = ctx;
  if (b->len + len > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + len)
      cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) abort();
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, d, len);
  b->len += len;
  return GV_OK;
}

/* One unary node -> node operation, run in both arenas. */
typedef gv_status (*unop)(gv_arena *a, const gv_node *t, const gv_node **out, gv_error *e);

static gv_status u_structure(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  return gv_structure(a, t, o, e);
}
static gv_status u_order(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  return gv_order(a, t, o, NULL, e);
}
static gv_status u_l2t(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  return gv_lists_to_tuples(a, t, o, e);
}
static gv_status u_fwp(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  return gv_flatten_with_path(a, t, o, e);
}
static gv_status u_map(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  return gv_map(a, f_inc, NULL, &t, 1, true, o, e);
}
static gv_status u_map2(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  const gv_node *two[2] = {t, t};
  return gv_map(a, f_pair, NULL, two, 2, false, o, e);
}
static gv_status u_shape(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  return gv_map_shape(a, f_pair, NULL, t, o, e);
}
static gv_status u_td(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  return gv_traverse(a, t, true, f_star_ints, NULL, o, e);
}
static gv_status u_bu(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  return gv_traverse(a, t, false, f_star_ints, NULL, o, e);
}
static gv_status u_upto(gv_arena *a, const gv_node *t, const gv_node **o, gv_error *e) {
  return gv_map_up_to(a, t, f_pair, NULL, &t, 1, o, e);
}

static const struct {
  const char *name;
  unop f;
} UNOPS[] = {{"structure", u_structure},   {"order", u_order},    {"lists_to_tuples", u_l2t},
             {"flatten_with_path", u_fwp}, {"map", u_map},        {"map2", u_map2},
             {"map_shape", u_shape},       {"traverse td", u_td}, {"traverse bu", u_bu},
             {"map_up_to", u_upto}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  size_t budget = 256 + (size_t)(data[0] | (unsigned)data[1] << 8) * 8;
  const char *text = (const char *)data + 2;
  size_t tlen = size - 2;

  st s;
  memset(&s, 0, sizeof s);
  gv_arena_config cfg = {budget, 0, NULL, 0, 0, NULL};
  if (gv_arena_new(&cfg, &s.a) != GV_OK) return 0; /* below the arena's own size */
  if (gv_arena_new(NULL, &s.ref) != GV_OK) abort();
  gv_error e, re;
  const gv_node *t = NULL, *rt = NULL;

  gv_status rs = gv_parse(s.ref, text, tlen, &rt, &re);
  pre(&s);
  gv_status r = gv_parse(s.a, text, tlen, &t, &e);
  if (!post(&s, r, &e, rs, "parse")) goto done;
  if (rs != GV_OK) fail("parse succeeds only in the tiny arena", &re);
  keep(&s, t);
  same_fp(&s, t, rt);

  for (size_t round = 0; round < 2; round++) {
    for (size_t i = 0; i < sizeof UNOPS / sizeof UNOPS[0]; i++) {
      const gv_node *o = NULL, *ro = NULL;
      if (UNOPS[i].f(s.ref, rt, &ro, &re) != GV_OK) fail(UNOPS[i].name, &re);
      pre(&s);
      r = UNOPS[i].f(s.a, t, &o, &e);
      if (!post(&s, r, &e, GV_OK, UNOPS[i].name)) continue;
      keep(&s, o);
      same_fp(&s, o, ro);
      if (round == 1 && i % 3 == 0) {
        t = o;
        rt = ro;
      }
    }
    /* pack_sequence_as(structure(t), leaves(t)) */
    const gv_node *sk = NULL, *rsk = NULL, *pk = NULL;
    pre(&s);
    r = gv_structure(s.a, t, &sk, &e);
    if (post(&s, r, &e, GV_OK, "structure") && gv_num_leaves(t) <= MAX_LEAVES) {
      size_t nl = (size_t)gv_num_leaves(t), n = 0;
      const gv_node **lv = malloc(sizeof *lv * (nl ? nl : 1));
      if (!lv) abort();
      if (gv_flatten(t, lv, nl, &n, NULL) != GV_OK) fail("flatten", NULL);
      pre(&s);
      r = gv_pack_sequence_as(s.a, sk, lv, n, &pk, &e);
      if (post(&s, r, &e, GV_OK, "pack_sequence_as") && pk != t) fail("pack != t", NULL);
      free(lv);
      if (gv_structure(s.ref, rt, &rsk, &re) != GV_OK) fail("ref structure", &re);
      pre(&s);
      r = gv_same_structure(s.a, t, sk, &e);
      post(&s, r, &e, GV_OK, "same_structure");
      pre(&s);
      r = gv_same_paths(s.a, sk, t, &e);
      post(&s, r, &e, GV_OK, "same_paths");
      bool pfx = false;
      pre(&s);
      r = gv_is_prefix(s.a, sk, t, &pfx, &e);
      if (post(&s, r, &e, GV_OK, "is_prefix") && !pfx) fail("is_prefix false", NULL);
    }
    pre(&s);
    r = gv_walk_paths(s.a, t, p_nop, NULL, &e);
    post(&s, r, &e, GV_OK, "walk_paths");

    /* printers and the wire */
    for (int json = 0; json < 2; json++) {
      const char *txt = NULL, *rtxt = NULL;
      size_t len = 0, rlen = 0;
      gv_status rr = gv_print_str(s.ref, rt, json != 0, &rtxt, &rlen, &re);
      pre(&s);
      r = gv_print_str(s.a, t, json != 0, &txt, &len, &e);
      if (post(&s, r, &e, rr, json ? "print_json" : "print_str") &&
          (rr != GV_OK || len != rlen || memcmp(txt, rtxt, len) != 0))
        fail("printed text differs from the reference", NULL);
      mbuf b = {NULL, 0, 0};
      pre(&s);
      r = json ? gv_print_json(s.a, t, w_buf, &b, &e) : gv_print(s.a, t, w_buf, &b, &e);
      if (post(&s, r, &e, rr, "print to a sink") &&
          (rr != GV_OK || b.len != rlen || memcmp(b.p, rtxt, rlen) != 0))
        fail("sink text differs from the reference", NULL);
      free(b.p);
    }
    mbuf w = {NULL, 0, 0};
    pre(&s);
    r = gv_encode(s.a, t, w_buf, &w, &e);
    if (post(&s, r, &e, GV_OK, "encode")) {
      const gv_node *d = NULL;
      pre(&s);
      r = gv_decode(s.a, w.p, w.len, &d, &e);
      if (post(&s, r, &e, GV_OK, "decode") && d != t) fail("decode(encode(t)) != t", NULL);
    }
    free(w.p);
  }
done:
  for (size_t i = 0; i < s.ntrees; i++)
    free(s.trees[i].leaves);
  gv_arena_free(s.a);
  gv_arena_free(s.ref);
  return 0;
}
