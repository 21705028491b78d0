/* SPDX-License-Identifier: MIT */
/* fuzz_cross.c -- libFuzzer target: nodes of two arenas compared.
 *
 * The input is read (gv_decode when it starts with the wire magic, gv_parse
 * otherwise) into two arenas A and B, and into a frozen parent P and a child
 * C of it. Invariants (abort() when broken):
 *   - the reads agree: the same status in A and B; C's read finds P's node
 *     and builds nothing;
 *   - x (A's tree) and y (B's) are one value across arenas: same_structure,
 *     same_paths and is_prefix say so both ways, equal fingerprints, and
 *     gv_copy of either into the other's arena lands on the other's node;
 *   - trees derived in B (structure, lists_to_tuples, order) compare with x
 *     as they do within one arena; fingerprints are equal iff gv_copy finds
 *     the same node (the same value);
 *   - keys of the dicts and keyed custom nodes of x and y (found in parallel,
 *     first nodes in traversal order): gv_key_cmp across arenas is 0 for a key
 *     and its counterpart and agrees with the comparison within one arena,
 *     and gv_get finds each child with the other arena's key;
 *   - the readers (comparisons, fingerprints, printers, gv_key_cmp, gv_get)
 *     leave A, B and C exactly as they were.
 * Every comparison across arenas is linear in the distinct nodes (issue 25's
 * N1): the seeds of corpus/cross include its family, built by
 * fuzz/dag_seeds.py. */
#include "grove.h"
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUDGET ((size_t)8 << 20)
#define MAX_OUTPUT ((uint64_t)1 << 16)
#define WALK_MAX 256 /* nodes of x visited for their keys */
#define KEYS_MAX 16  /* keys of one node compared pairwise */

static void bad(const char *what, const gv_error *e) {
  fprintf(stderr, "fuzz_cross: broken invariant: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
  abort();
}

static gv_arena *arena(gv_arena *parent) {
  gv_arena_config cfg = {BUDGET, 4096, NULL, 0, MAX_OUTPUT, parent};
  gv_arena *a = NULL;
  if (gv_arena_new(&cfg, &a) != GV_OK) bad("gv_arena_new", NULL);
  return a;
}

static gv_status read_in(gv_arena *a, const uint8_t *data, size_t size, const gv_node **out,
                         gv_error *e) {
  if (size >= 4 && memcmp(data, "GRV\x01", 4) == 0) return gv_decode(a, data, size, out, e);
  return gv_parse(a, (const char *)data, size, out, e);
}

static gv_status g_sink(void *ctx, const char *d, size_t n) {
  (void)d;
  *(uint64_t *)ctx += n;
  return GV_OK;
}

/* The fingerprint of n, or 0 when it could not be had (only the memory may stop it). */
static int fp(const gv_arena *a, const gv_node *n, uint8_t out[16]) {
  gv_error e;
  gv_status s = gv_fingerprint(a, n, out, &e);
  if (s != GV_OK && s != GV_ENOMEM) bad("fingerprint", &e);
  return s == GV_OK;
}

/* x of a and y of another arena are one value: every comparison says so. */
static void same_value_across(const gv_arena *a, const gv_node *x, const gv_node *y) {
  gv_error e;
  bool pre = false;
  if (gv_same_structure(a, x, y, &e) != GV_OK) bad("same_structure(x, y)", &e);
  if (gv_same_structure(a, y, x, &e) != GV_OK) bad("same_structure(y, x)", &e);
  if (gv_same_paths(a, x, y, &e) != GV_OK) bad("same_paths(x, y)", &e);
  if (gv_is_prefix(a, x, y, &pre, &e) != GV_OK || !pre) bad("is_prefix(x, y)", &e);
  if (gv_is_key(x) != gv_is_key(y)) bad("is_key differs", NULL);
  if (gv_is_key(x) && (gv_key_cmp(x, y) != 0 || gv_key_cmp(y, x) != 0)) bad("key_cmp(x, y)", NULL);
  if (gv_hash(x) != gv_hash(y)) bad("hash differs", NULL);
  uint8_t f1[16], f2[16];
  if (fp(a, x, f1) && fp(a, y, f2) && memcmp(f1, f2, 16) != 0) bad("fingerprints differ", NULL);
}

/* Derived trees d (of another arena) against x, as within one arena. */
static void derived_across(const gv_arena *a, const gv_node *x, const gv_node *s, const gv_node *l,
                           const gv_node *o) {
  gv_error e;
  bool pre = false;
  if (s) {
    if (gv_same_structure(a, x, s, &e) != GV_OK) bad("same_structure(x, structure)", &e);
    if (gv_is_prefix(a, s, x, &pre, &e) != GV_OK || !pre) bad("is_prefix(structure, x)", &e);
    if (gv_same_paths(a, x, s, &e) != GV_OK) bad("same_paths(x, structure)", &e);
  }
  if (l && gv_same_paths(a, x, l, &e) != GV_OK) bad("same_paths(x, lists_to_tuples)", &e);
  if (o && gv_same_structure(a, x, o, &e) != GV_OK) bad("same_structure(x, order)", &e);
}

/* The keys of the first WALK_MAX nodes of x (a) and y (another arena, the
 * same value), in parallel. */
static void keys_across(const gv_node *x, const gv_node *y) {
  const gv_node *sx[WALK_MAX], *sy[WALK_MAX];
  size_t n = 0, seen = 0;
  sx[n] = x;
  sy[n++] = y;
  while (n && seen < WALK_MAX) {
    const gv_node *p = sx[--n], *q = sy[n];
    seen++;
    size_t ar = gv_arity(p);
    if (ar != gv_arity(q) || gv_kind(p) != gv_kind(q)) bad("shapes differ", NULL);
    if (gv_key(p, 0)) {
      size_t m = ar < KEYS_MAX ? ar : KEYS_MAX;
      for (size_t i = 0; i < m; i++) {
        const gv_node *kp = gv_key(p, i), *kq = gv_key(q, i);
        if (gv_key_cmp(kp, kq) != 0) bad("key_cmp of a key and its counterpart", NULL);
        if (gv_get(p, kq) != gv_child(p, i) || gv_get(q, kp) != gv_child(q, i))
          bad("gv_get with the other arena's key", NULL);
        for (size_t j = 0; j < m; j++) {
          int within = gv_key_cmp(kp, gv_key(p, j)), across = gv_key_cmp(kp, gv_key(q, j));
          if ((within > 0) != (across > 0) || (within < 0) != (across < 0))
            bad("key_cmp across arenas differs from within", NULL);
          if ((across > 0) != (gv_key_cmp(gv_key(q, j), kp) < 0)) bad("key_cmp antisymmetry", NULL);
        }
      }
    }
    for (size_t i = 0; i < ar && n < WALK_MAX; i++) {
      const gv_node *cp = gv_child(p, i), *cq = gv_child(q, i);
      if (!gv_is_nested(cp)) continue;
      sx[n] = cp;
      sy[n++] = cq;
    }
  }
}

/* Fingerprints are equal iff the values are: gv_copy of d into a finds n
 * exactly when they are one value. */
static void fingerprint_iff_same(gv_arena *a, const gv_node *n, const gv_node *d) {
  uint8_t f1[16], f2[16];
  if (!d || !fp(a, n, f1) || !fp(a, d, f2)) return;
  const gv_node *c = NULL;
  gv_error e;
  gv_status s = gv_copy(a, d, &c, &e);
  if (s == GV_ENOMEM) return;
  if (s != GV_OK) bad("copy", &e);
  if ((memcmp(f1, f2, 16) == 0) != (c == n)) bad("fingerprints equal but not the same value", NULL);
}

/* A writer that may run out of budget and nothing else. */
static const gv_node *built(gv_status s, const gv_node *n, const char *what, const gv_error *e) {
  if (s == GV_OK) return n;
  if (s != GV_ENOMEM) bad(what, e);
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gv_arena *a = arena(NULL), *b = arena(NULL), *p = arena(NULL);
  const gv_node *x = NULL, *y = NULL, *pt = NULL, *ct = NULL;
  gv_error e, e2;
  gv_status sa = read_in(a, data, size, &x, &e), sb = read_in(b, data, size, &y, &e2);
  if (sa != sb) bad("the two reads differ", sa ? &e : &e2);
  gv_status sp = read_in(p, data, size, &pt, &e);
  if (sp != sa) bad("the parent's read differs", &e);
  if (sa != GV_OK) {
    gv_arena_free(a);
    gv_arena_free(b);
    gv_arena_free(p);
    return 0;
  }
  if (gv_arena_freeze(p) != GV_OK) bad("freeze", NULL);
  gv_arena *c = arena(p);
  if (read_in(c, data, size, &ct, &e) != GV_OK || ct != pt) bad("the child's read", &e);
  gv_stats cs;
  gv_arena_stats(c, &cs);
  if (cs.nodes != 0) bad("the child's read built nodes", NULL);

  /* derived trees in B and in C (writers: only the budget may stop them) */
  const gv_node *s = NULL, *l = NULL, *o = NULL, *cs_t = NULL;
  bool changed = false;
  s = built(gv_structure(b, y, &s, &e), s, "structure", &e);
  l = built(gv_lists_to_tuples(b, y, &l, &e), l, "lists_to_tuples", &e);
  o = built(gv_order(b, y, &o, &changed, &e), o, "order", &e);
  cs_t = built(gv_structure(c, ct, &cs_t, &e), cs_t, "structure in the child", &e);

  /* the readers, across arenas: none writes A, B or C */
  gv__snapshot a0 = gv__snap(a), b0 = gv__snap(b), c0 = gv__snap(c);
  same_value_across(a, x, y);
  same_value_across(b, y, x);
  same_value_across(c, ct, y);
  same_value_across(a, x, ct);
  derived_across(a, x, s, l, o);
  derived_across(c, ct, s, l, o);
  if (cs_t) derived_across(b, y, cs_t, NULL, NULL);
  keys_across(x, y);
  keys_across(ct, x);
  uint64_t bytes = 0;
  gv_status ps = gv_print(a, y, g_sink, &bytes, &e);
  if (ps != GV_OK && ps != GV_ERANGE && ps != GV_ENOMEM) bad("print across", &e);
  gv__snapshot a1 = gv__snap(a), b1 = gv__snap(b), c1 = gv__snap(c);
  if (!gv__snap_eq(&a0, &a1) || !gv__snap_eq(&b0, &b1) || !gv__snap_eq(&c0, &c1))
    bad("a reader wrote an arena", NULL);

  /* copies land on the node the destination has; the child's finds its parent's */
  const gv_node *r = NULL;
  gv_arena_stats(c, &cs);
  if (gv_copy(a, y, &r, &e) != GV_OK || r != x) bad("copy y into A", &e);
  if (gv_copy(b, x, &r, &e) != GV_OK || r != y) bad("copy x into B", &e);
  if (gv_copy(c, y, &r, &e) != GV_OK || r != pt) bad("copy y into the child", &e);
  gv_stats cs2;
  gv_arena_stats(c, &cs2);
  if (cs2.nodes != cs.nodes) bad("a copy of the parent's value built nodes in the child", NULL);
  fingerprint_iff_same(a, x, s);
  fingerprint_iff_same(a, x, l);
  fingerprint_iff_same(a, x, o);
  if (cs_t && s) fingerprint_iff_same(b, s, cs_t);
  gv_arena_free(c);
  gv_arena_free(a);
  gv_arena_free(b);
  gv_arena_free(p);
  return 0;
}
