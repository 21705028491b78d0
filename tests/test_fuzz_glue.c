/* SPDX-License-Identifier: MIT */
/* test_fuzz_glue.c -- grove_fuzz.h outside libFuzzer: LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver on JSON text, literal text and wire inputs (results within
 * MaxSize, in the input's format, read back as trees, the same for the same seed), inputs that
 * are no tree and results that do not fit handed to LLVMFuzzerMutate (a stand-in here: see
 * fuzz_glue.h), the scratch arena unchanged after every call, and the target side
 * (GROVE_FUZZ_JSON_TARGET: wire inputs printed as JSON). GROVE_FUZZ_JSON: test_fuzz_glue_json.c */
#define GROVE_FUZZ_MAX_DEPTH 8
#include "fuzz_glue.h"

#define JSON "{\"k\": [1, 2.5, {\"z\": \"w\"}], \"n\": null, \"t\": true, \"s\": \"caf\\u00e9\"}"
#define LITERAL "[(1, 'x'), {1: b'\\x00', 2.0: None}, deque([1], maxlen=3), Point(x=1, y=2)]"

static int has(const uint8_t *d, size_t n, const char *s) {
  size_t k = strlen(s);
  for (size_t i = 0; i + k <= n; i++)
    if (memcmp(d + i, s, k) == 0) return 1;
  return 0;
}

Test(fuzz_glue, json_text_stays_json_within_max_size) {
  size_t len = strlen(JSON);
  glue_counts c = mutate_many((const uint8_t *)JSON, len, 4096, 400, 0);
  cr_assert(c.changed > 360 && c.bytes == 0, "%u changed, %u to bytes", c.changed, c.bytes);
  cr_assert_gt(c.json, 200, "%u of 400 results of a JSON input printed as JSON", c.json);
  /* tight: MaxSize the input's own length (what does not fit in four tries goes to bytes) */
  c = mutate_many((const uint8_t *)JSON, len, len, 400, 0);
  cr_assert(c.changed > 100 && c.changed + c.bytes <= 400);
}

Test(fuzz_glue, literal_text_stays_text) {
  glue_counts c = mutate_many((const uint8_t *)LITERAL, strlen(LITERAL), 4096, 400, 0);
  cr_assert(c.changed > 360 && c.bytes == 0, "%u changed, %u to bytes", c.changed, c.bytes);
  cr_assert_lt(c.json, 400); /* tuples, bytes, deques and int keys have no JSON form */
}

Test(fuzz_glue, wire_stays_wire_within_max_size) {
  uint8_t in[512];
  size_t len = wire_of(LITERAL, in, sizeof in);
  glue_counts c = mutate_many(in, len, 1024, 400, 1);
  cr_assert(c.changed > 360 && c.bytes == 0, "%u changed, %u to bytes", c.changed, c.bytes);
  c = mutate_many(in, len, len, 400, 1);
  cr_assert_gt(c.changed, 100);
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

Test(fuzz_glue, what_does_not_fit_goes_to_byte_mutation) {
  /* MaxSize 3 for "[1]": a mutation of 3 bytes at most ("[2]", "[]", "1"), or, when none of
   * the four tries fits, libFuzzer's byte mutation (never the input handed back as it was) */
  glue_counts c = mutate_many((const uint8_t *)"[1]", 3, 3, 300, 0);
  cr_assert(c.changed > 100 && c.bytes > 0, "%u changed, %u to bytes", c.changed, c.bytes);
  cr_assert_eq(c.changed + c.bytes, 300, "%u changed, %u to bytes: an input handed back unchanged",
               c.changed, c.bytes);
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
