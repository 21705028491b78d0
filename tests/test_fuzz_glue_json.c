/* SPDX-License-Identifier: MIT */
/* test_fuzz_glue_json.c -- grove_fuzz.h with GROVE_FUZZ_JSON, for JSON consumers: every
 * mutation of a JSON input is JSON text, and an input that reads as a tree without a JSON form
 * (literal text, or JSON whose number is out of a double's range) goes to libFuzzer's byte
 * mutation rather than coming back unchanged. The rest of the glue: test_fuzz_glue.c. */
#define GROVE_FUZZ_JSON 1
#include "fuzz_glue.h"

Test(fuzz_glue_json, every_result_is_json) {
  const char *in = "{\"k\": [1, 2.5, {\"z\": \"w\"}], \"n\": null, \"t\": true, \"s\": \"x\"}";
  glue_counts c = mutate_many((const uint8_t *)in, strlen(in), 4096, 500, 0);
  cr_assert(c.changed > 450 && c.bytes == 0, "%u changed, %u to bytes", c.changed, c.bytes);
  cr_assert_eq(c.json, c.changed, "%u of %u results JSON", c.json, c.changed);
}

/* A mutation may give such a tree a JSON form (the inf made finite, the tuple flattened, the
 * root replaced): that is a result; every other call goes to bytes. */
Test(fuzz_glue_json, no_json_form_goes_to_byte_mutation) {
  const char *ins[] = {"{\"a\": 1e999}", "[1, nan]", "{1: 'x'}", "b'\\x00'", "&5"};
  for (size_t i = 0; i < sizeof ins / sizeof *ins; i++) {
    glue_counts c = mutate_many((const uint8_t *)ins[i], strlen(ins[i]), 4096, 100, 0);
    cr_assert(c.bytes > 0 && c.json == c.changed && c.changed + c.bytes == 100,
              "%s: %u to bytes, %u changed, %u JSON", ins[i], c.bytes, c.changed, c.json);
  }
}

Test(fuzz_glue_json, wire_stays_wire) {
  uint8_t in[256];
  size_t len = wire_of("{'a': [1, 2.5, None], 'b': 'x'}", in, sizeof in);
  glue_counts c = mutate_many(in, len, 1024, 200, 1);
  cr_assert(c.changed > 180 && c.bytes == 0, "%u changed, %u to bytes", c.changed, c.bytes);
}
