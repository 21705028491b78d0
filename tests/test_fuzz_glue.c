/* SPDX-License-Identifier: MIT */
/* test_fuzz_glue.c -- grove_fuzz.h outside libFuzzer: LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver on JSON text, literal text and wire inputs (results within
 * MaxSize, in the input's format, read back as trees, the same for the same seed), inputs that
 * are no tree handed to LLVMFuzzerMutate (a stub here), the scratch arena unchanged after every
 * call, and the target side (GROVE_FUZZ_JSON_TARGET: wire inputs printed as JSON). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

#define GROVE_FUZZ_MAX_DEPTH 8
#include "grove_fuzz.h"

/* libFuzzer's byte mutation, replaced: counts its calls and writes a marker. */
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

#define JSON "{\"k\": [1, 2.5, {\"z\": \"w\"}], \"n\": null, \"t\": true, \"s\": \"caf\\u00e9\"}"
#define LITERAL "[(1, 'x'), {1: b'\\x00', 2.0: None}, deque([1], maxlen=3), Point(x=1, y=2)]"

/* text input read back (it must parse) */
static const gv_node *read_text(gv_arena *a, const uint8_t *d, size_t n) {
  const gv_node *t = NULL;
  gv_error e;
  cr_assert_eq(gv_parse(a, (const char *)d, n, &t, &e), GV_OK, "%.*s: %s", (int)n, d, e.msg);
  return t;
}

static int has(const uint8_t *d, size_t n, const char *s) {
  size_t k = strlen(s);
  for (size_t i = 0; i + k <= n; i++)
    if (memcmp(d + i, s, k) == 0) return 1;
  return 0;
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

/* Mutate `in` with every seed in [0, n): each result within max, in the input's format, read
 * back as a tree (text: as printed, JSON when it has a JSON form), and the same again for the same
 * seed; the scratch arena as it was. Returns how many results differ from the input. */
static unsigned mutate_many(const uint8_t *in, size_t len, size_t max, unsigned n, int wire,
                            unsigned *json) {
  gv_arena *g = grove_fuzz_arena(), *a = t_arena();
  cr_assert_not_null(g);
  uint8_t *buf = malloc(max), *again = malloc(max);
  unsigned changed = 0, jsons = 0, bytes_before = byte_calls;
  for (unsigned seed = 0; seed < n; seed++) {
    cr_assert_leq(len, max);
    t_snapshot s0 = t_snap(g);
    memcpy(buf, in, len);
    size_t r = LLVMFuzzerCustomMutator(buf, len, max, seed);
    t_snapshot s1 = t_snap(g);
    cr_assert(t_snap_eq(&s0, &s1), "seed %u: the scratch arena grew", seed);
    cr_assert(r > 0 && r <= max, "seed %u: %zu bytes for at most %zu", seed, r, max);
    memcpy(again, in, len);
    cr_assert_eq(LLVMFuzzerCustomMutator(again, len, max, seed), r);
    cr_assert(memcmp(buf, again, r) == 0, "seed %u: two calls, two results", seed);
    gv_mark m = gv_arena_mark(a);
    const gv_node *t = NULL;
    if (wire) {
      cr_assert(grove_fuzz_is_wire(buf, r), "seed %u: wire in, not wire out", seed);
      cr_assert_eq(gv_decode(a, buf, r, &t, NULL), GV_OK);
    } else {
      t = read_text(a, buf, r);
    }
    cr_assert_leq(gv_depth(t), GROVE_FUZZ_MAX_DEPTH);
    int same = r == len && memcmp(buf, in, r) == 0; /* no try fit: the input as it was */
    changed += !same;
    if (!wire && !same) { /* JSON when the tree has a JSON form, else the literal notation */
      const char *s = NULL;
      size_t sl = 0;
      int as_json = gv_print_str(a, t, true, &s, &sl, NULL) == GV_OK;
      if (!as_json) cr_assert_eq(gv_print_str(a, t, false, &s, &sl, NULL), GV_OK);
      cr_assert(sl == r && memcmp(s, buf, r) == 0, "seed %u max %zu not as printed: %.*s", seed,
                max, (int)r, buf);
      jsons += (unsigned)as_json;
    }
    cr_assert_eq(gv_arena_rollback(a, &m), GV_OK);
  }
  cr_assert_eq(byte_calls, bytes_before, "a tree went to byte mutation");
  if (json) *json = jsons;
  free(buf);
  free(again);
  gv_arena_free(a);
  return changed;
}

Test(fuzz_glue, json_text_stays_json_within_max_size) {
  size_t len = strlen(JSON);
  unsigned json = 0;
  cr_assert_gt(mutate_many((const uint8_t *)JSON, len, 4096, 400, 0, &json), 360);
  cr_assert_gt(json, 200, "%u of 400 results of a JSON input printed as JSON", json);
  /* tight: MaxSize the input's own length */
  cr_assert_gt(mutate_many((const uint8_t *)JSON, len, len, 400, 0, NULL), 100);
}

Test(fuzz_glue, literal_text_stays_text) {
  cr_assert_gt(mutate_many((const uint8_t *)LITERAL, strlen(LITERAL), 4096, 400, 0, NULL), 360);
}

Test(fuzz_glue, wire_stays_wire_within_max_size) {
  uint8_t in[512];
  size_t len = wire_of(LITERAL, in, sizeof in);
  cr_assert_gt(mutate_many(in, len, 1024, 400, 1, NULL), 360);
  cr_assert_gt(mutate_many(in, len, len, 400, 1, NULL), 100);
}

Test(fuzz_glue, not_a_tree_goes_to_byte_mutation) {
  uint8_t buf[64] = "[1, 2";
  byte_calls = 0;
  size_t r = LLVMFuzzerCustomMutator(buf, 5, sizeof buf, 7);
  cr_assert(r == 1 && buf[0] == '!' && byte_calls == 1);
  memcpy(buf, "GRV\x01junk", 8); /* wire that does not decode */
  r = LLVMFuzzerCustomMutator(buf, 8, sizeof buf, 7);
  cr_assert(r == 1 && byte_calls == 2);
}

Test(fuzz_glue, max_size_of_the_input_itself) {
  /* MaxSize 3 for "[1]": what comes back is 3 bytes at most and still a tree (a mutation that
   * fits, or the input as it was when none of the four tries did). */
  gv_arena *a = t_arena();
  uint8_t buf[8] = "[1]";
  t_snapshot s0 = t_snap(grove_fuzz_arena());
  unsigned changed = 0;
  for (unsigned seed = 0; seed < 200; seed++) {
    size_t r = LLVMFuzzerCustomMutator(buf, 3, 3, seed);
    cr_assert(r >= 1 && r <= 3);
    read_text(a, buf, r);
    changed += r != 3 || memcmp(buf, "[1]", 3) != 0;
    memcpy(buf, "[1]", 3);
  }
  t_snapshot s1 = t_snap(grove_fuzz_arena());
  cr_assert(t_snap_eq(&s0, &s1));
  cr_assert_gt(changed, 100);
  gv_arena_free(a);
}

Test(fuzz_glue, crossover) {
  const char *x = "{\"a\": [1, 2, 3], \"b\": \"x\"}", *y = "{\"donor\": [\"yyy\", {\"deep\": 77}]}";
  gv_arena *g = grove_fuzz_arena(), *a = t_arena();
  uint8_t out[4096], again[4096];
  unsigned from_y = 0;
  for (unsigned seed = 0; seed < 300; seed++) {
    t_snapshot s0 = t_snap(g);
    size_t r = LLVMFuzzerCustomCrossOver((const uint8_t *)x, strlen(x), (const uint8_t *)y,
                                         strlen(y), out, sizeof out, seed);
    t_snapshot s1 = t_snap(g);
    cr_assert(t_snap_eq(&s0, &s1));
    cr_assert(r > 0 && r <= sizeof out);
    cr_assert_eq(LLVMFuzzerCustomCrossOver((const uint8_t *)x, strlen(x), (const uint8_t *)y,
                                           strlen(y), again, sizeof again, seed),
                 r);
    cr_assert(memcmp(out, again, r) == 0);
    read_text(a, out, r);
    from_y += has(out, r, "yyy") || has(out, r, "77") || has(out, r, "deep");
  }
  cr_assert_gt(from_y, 250, "%u of 300 crossovers took something of the second input", from_y);
  /* a second input that is no tree: 0 (libFuzzer draws another mutation) */
  cr_assert_eq(LLVMFuzzerCustomCrossOver((const uint8_t *)x, strlen(x), (const uint8_t *)"[1,", 3,
                                         out, sizeof out, 1),
               0);
  gv_arena_free(a);
}

Test(fuzz_glue, json_target_gets_wire_inputs_as_json) {
  uint8_t in[512];
  size_t len = wire_of("{'a': [1, None, True], 'b': 'x'}", in, sizeof in);
  t_snapshot s0 = t_snap(grove_fuzz_arena());
  seen_len = 0;
  cr_assert_eq(LLVMFuzzerTestOneInput(in, len), 0);
  t_snapshot s1 = t_snap(grove_fuzz_arena());
  cr_assert(t_snap_eq(&s0, &s1));
  const char *want = "{\"a\": [1, null, true], \"b\": \"x\"}";
  cr_assert(seen_len == strlen(want) && memcmp(seen, want, seen_len) == 0, "%.*s", (int)seen_len,
            seen);
  /* text as it is */
  cr_assert_eq(LLVMFuzzerTestOneInput((const uint8_t *)"[1,", 3), 0);
  cr_assert(seen_len == 3 && memcmp(seen, "[1,", 3) == 0);
  /* wire without a JSON form: skipped */
  len = wire_of("{1: b'x'}", in, sizeof in);
  seen_len = 0;
  cr_assert_eq(LLVMFuzzerTestOneInput(in, len), 0);
  cr_assert_eq(seen_len, 0);
}
