/* SPDX-License-Identifier: MIT */
/* fuzz_mutate.c -- libFuzzer target for gv_mutate (grove_mutate.h): the mutator must not
 * crash on any tree, and what it makes must keep its promises.
 *
 * Input: two bytes of options, then "X % Y": X and Y literal text (Y, the crossover donor and
 * dictionary entry, may be missing). Byte 0 picks the bounds (max_size, max_depth,
 * max_leaves, max_wire on or off), byte 1 the flags and which kinds are enabled. X is mutated
 * eight times in a row (each result mutated again). Invariants (a broken one is abort()):
 *   - gv_mutate returns GV_OK, or GV_ENOMEM (the arena's 8 MiB budget) with the arena exactly
 *     as before (stats and intern digest);
 *   - every result is within the bounds (gv_mutate_fits), GV_MUT_NONE exactly when it is the
 *     input, and the same call again gives the same node;
 *   - a result encodes and decodes to the same node, and prints and parses back to it;
 *   - under GV_MUTATE_JSON, a tree that had a JSON form keeps one (when the donor has one);
 *   - under GV_MUTATE_KEEP_TYPES, no namedtuple or custom node is made or changed in arity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grove_mutate.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const gv_node *t, const gv_error *e) {
  fprintf(stderr, "fuzz_mutate: broken invariant: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
  (void)t;
  abort();
}

typedef struct buf {
  unsigned char p[1 << 16];
  size_t len;
} buf;
static gv_status w_buf(void *ctx, const char *d, size_t n) {
  buf *b = ctx;
  if (n > sizeof b->p - b->len) return GV_ERANGE;
  memcpy(b->p + b->len, d, n);
  b->len += n;
  return GV_OK;
}

/* The (metadata, arity) pairs of the namedtuples and custom nodes of t (as written out, at
 * most 4096 nodes visited), added to p; 1, or 0 when one is not in allowed (or p is full), or
 * -1 when the walk was cut short. */
typedef struct pairs {
  const gv_node *meta[64];
  size_t arity[64], n;
} pairs;
static int has_pair(const pairs *p, const gv_node *m, size_t ar) {
  for (size_t i = 0; i < p->n; i++)
    if (p->meta[i] == m && p->arity[i] == ar) return 1;
  return 0;
}
static int typed(const gv_node *t, pairs *p, const pairs *allowed) {
  const gv_node *stack[256];
  size_t n = 0, seen = 0;
  int cut = 0;
  stack[n++] = t;
  while (n) {
    if (seen++ == 4096) return -1;
    const gv_node *v = stack[--n];
    if (gv_kind(v) == GV_NAMEDTUPLE || gv_kind(v) == GV_CUSTOM) {
      if (allowed && !has_pair(allowed, gv_meta(v), gv_arity(v))) return 0;
      if (p && !has_pair(p, gv_meta(v), gv_arity(v))) {
        if (p->n == 64) return 0;
        p->meta[p->n] = gv_meta(v), p->arity[p->n++] = gv_arity(v);
      }
    }
    for (size_t i = 0; i < gv_arity(v); i++) {
      if (n == 256) {
        cut = 1;
        break;
      }
      stack[n++] = gv_child(v, i);
    }
  }
  return cut ? -1 : 1;
}

static buf B;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || size > 8192) return 0;
  unsigned b0 = data[0], b1 = data[1];
  const char *x = (const char *)data + 2, *sep = memchr(x, '%', size - 2);
  size_t xl = sep ? (size_t)(sep - x) : size - 2;
  gv_arena_config cfg = {(size_t)8 << 20, 256, NULL, 1, (uint64_t)1 << 16, NULL};
  gv_arena *a = NULL;
  if (gv_arena_new(&cfg, &a) != GV_OK) abort();
  const gv_node *t = NULL, *y = NULL, *dict[1];
  gv_error e;
  if (gv_parse(a, x, xl, &t, NULL) != GV_OK) goto done;
  if (sep && gv_parse(a, sep + 1, size - 2 - xl - 1, &y, NULL) != GV_OK) y = NULL;

  gv_mutate_options o;
  memset(&o, 0, sizeof o);
  o.max_size = 8 + (b0 & 7) * 40;
  o.max_depth = 1 + ((b0 >> 3) & 7);
  o.max_leaves = (b0 & 0x40) ? 4 + (b0 & 7) : 0;
  o.max_wire = (b0 & 0x80) ? 64 + (b0 & 0x38) * 8 : 0;
  o.flags = b1 & 7;
  if (b1 & 8) o.kinds = GV_MUT_LEAVES;
  if (b1 & 16) o.kinds = GV_MUT_STRUCTURE;
  if (y) {
    o.other = y;
    dict[0] = y;
    o.dict = dict;
    o.ndict = 1;
  }
  if (b1 & 32) o.max_tries = 1 + (b1 >> 6);
  /* the JSON flag keeps a JSON form when the input and the donor have one */
  int json = gv_print_json(a, t, w_buf, &(buf){.len = 0}, NULL) == GV_OK &&
             (!y || gv_print_json(a, y, w_buf, &(buf){.len = 0}, NULL) == GV_OK);
  pairs types = {.n = 0}; /* what the input and the donor hold */
  int types_ok = typed(t, &types, NULL) == 1 && (!y || typed(y, &types, NULL) == 1);
  uint64_t seed = 0;
  for (size_t i = 0; i < size; i++)
    seed = seed * 131 + data[i];
  for (int k = 0; k < 8; k++, seed++) {
    gv__snapshot s0 = gv__snap(a);
    const gv_node *r = NULL, *r2 = NULL;
    gv_mutation info;
    gv_status s = gv_mutate(a, t, seed, &o, &r, &info, &e);
    if (s == GV_ENOMEM) {
      gv__snapshot s1 = gv__snap(a);
      if (!gv__snap_eq(&s0, &s1)) fail("a failed call changed the arena", t, &e);
      break;
    }
    if (s != GV_OK) fail("gv_mutate failed", t, &e);
    if (gv_mutate_fits(a, r, &o, &e) != GV_OK) fail("the result is over the bounds", r, &e);
    if ((info.kind == GV_MUT_NONE) != (r == t))
      fail("GV_MUT_NONE and the result disagree", r, NULL);
    if (gv_mutate(a, t, seed, &o, &r2, NULL, &e) != GV_OK || r2 != r)
      fail("the same seed gave another tree", r, &e);
    B.len = 0;
    if (gv_encode(a, r, w_buf, &B, &e) == GV_OK) {
      const gv_node *d = NULL;
      if (gv_decode(a, B.p, B.len, &d, &e) != GV_OK || d != r)
        fail("decode(encode(result)) is another tree", r, &e);
    }
    B.len = 0;
    if (gv_print(a, r, w_buf, &B, NULL) == GV_OK) {
      const gv_node *d = NULL;
      if (gv_parse(a, (const char *)B.p, B.len, &d, &e) != GV_OK || d != r)
        fail("parse(print(result)) is another tree", r, &e);
    }
    if ((o.flags & GV_MUTATE_JSON) && json) {
      B.len = 0;
      gv_status ps = gv_print_json(a, r, w_buf, &B, &e);
      if (ps != GV_OK && ps != GV_ERANGE) fail("the JSON form was lost", r, &e);
    }
    if ((o.flags & GV_MUTATE_KEEP_TYPES) && types_ok && typed(r, NULL, &types) == 0)
      fail("a namedtuple or custom node was made or changed in arity", r, NULL);
    t = r;
    json = json && (gv_print_json(a, t, w_buf, &(buf){.len = 0}, NULL) == GV_OK);
  }
done:
  gv_arena_free(a);
  return 0;
}
