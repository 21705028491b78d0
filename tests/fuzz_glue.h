/* SPDX-License-Identifier: MIT */
/* fuzz_glue.h -- what test_fuzz_glue.c and test_fuzz_glue_json.c share: grove_fuzz.h included
 * with the file's settings (defined before this header), a stand-in for libFuzzer's byte
 * mutation, a JSON target that keeps what it was handed, and mutate_many(), which runs the
 * custom mutator over many seeds and checks every result. */
#ifndef GROVE_TEST_FUZZ_GLUE_H
#define GROVE_TEST_FUZZ_GLUE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

#include "grove_fuzz.h"

/* libFuzzer's byte mutation, replaced: counts its calls and writes the marker "!". */
static unsigned byte_calls;
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
  byte_calls++;
  (void)size;
  if (max_size < 1) return 0;
  data[0] = '!';
  return 1;
}

/* The target: what it was handed last. */
static char seen[4096];
static size_t seen_len;
static int take(const char *json, size_t len) {
  cr_assert_lt(len, sizeof seen);
  memcpy(seen, json, len);
  seen_len = len;
  return 0;
}
GROVE_FUZZ_JSON_TARGET(take)

/* text input read back (it must parse) */
static const gv_node *read_text(gv_arena *a, const uint8_t *d, size_t n) {
  const gv_node *t = NULL;
  gv_error e;
  cr_assert_eq(gv_parse(a, (const char *)d, n, &t, &e), GV_OK, "%.*s: %s", (int)n, d, e.msg);
  return t;
}

static size_t wire_of(const char *text, uint8_t *out, size_t cap) {
  gv_arena *a = t_arena();
  t_fixed w = {.len = 0};
  cr_assert_eq(gv_encode(a, t_parse(a, text), t_fixed_sink, &w, NULL), GV_OK);
  cr_assert_leq(w.len, cap);
  memcpy(out, w.p, w.len);
  gv_arena_free(a);
  return w.len;
}

typedef struct glue_counts {
  unsigned changed; /* results that differ from the input (byte fallbacks not counted) */
  unsigned json;    /* text results printed as JSON */
  unsigned bytes;   /* calls handed to LLVMFuzzerMutate */
} glue_counts;

/* Mutate `in` with every seed in [0, n): each result within max and the same again for the
 * same seed, the scratch arena as it was after each call; a result not from byte mutation is in
 * the input's format, reads back as a tree within the depth bound and, as text, is exactly as
 * grove prints it (JSON when it has a JSON form, else the literal notation). */
static glue_counts mutate_many(const uint8_t *in, size_t len, size_t max, unsigned n, int wire) {
  gv_arena *g = grove_fuzz_arena(), *a = t_arena();
  cr_assert_not_null(g);
  cr_assert_leq(len, max);
  uint8_t *buf = malloc(max), *again = malloc(max);
  glue_counts c = {0, 0, 0};
  for (unsigned seed = 0; seed < n; seed++) {
    t_snapshot s0 = t_snap(g);
    unsigned b0 = byte_calls;
    memcpy(buf, in, len);
    size_t r = LLVMFuzzerCustomMutator(buf, len, max, seed);
    t_snapshot s1 = t_snap(g);
    cr_assert(t_snap_eq(&s0, &s1), "seed %u: the scratch arena grew", seed);
    cr_assert(r > 0 && r <= max, "seed %u: %zu bytes for at most %zu", seed, r, max);
    int bytes = byte_calls != b0;
    memcpy(again, in, len);
    cr_assert_eq(LLVMFuzzerCustomMutator(again, len, max, seed), r);
    cr_assert(memcmp(buf, again, r) == 0, "seed %u: two calls, two results", seed);
    if (bytes) {
      cr_assert(r == 1 && buf[0] == '!');
      c.bytes++;
      continue;
    }
    c.changed += r != len || memcmp(buf, in, r) != 0;
    gv_mark m = gv_arena_mark(a);
    const gv_node *t = NULL;
    if (wire) {
      cr_assert(grove_fuzz_is_wire(buf, r), "seed %u: wire in, not wire out", seed);
      cr_assert_eq(gv_decode(a, buf, r, &t, NULL), GV_OK);
    } else {
      t = read_text(a, buf, r);
      const char *s = NULL;
      size_t sl = 0;
      int as_json = gv_print_str(a, t, true, &s, &sl, NULL) == GV_OK;
      if (!as_json) cr_assert_eq(gv_print_str(a, t, false, &s, &sl, NULL), GV_OK);
      cr_assert(sl == r && memcmp(s, buf, r) == 0, "seed %u: not as printed: %.*s", seed, (int)r,
                buf);
      c.json += (unsigned)as_json;
    }
    cr_assert_leq(gv_depth(t), GROVE_FUZZ_MAX_DEPTH);
    cr_assert_eq(gv_arena_rollback(a, &m), GV_OK);
  }
  free(buf);
  free(again);
  gv_arena_free(a);
  return c;
}

#endif
