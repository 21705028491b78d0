/* SPDX-License-Identifier: MIT */
/* fuzz_cjson.c -- a JSON consumer nobody here wrote, under libFuzzer: cJSON's parser (and, on
 * what it accepts, its printer). Built twice from this file:
 *   fuzz_cjson        libFuzzer's own byte mutations;
 *   fuzz_cjson_grove  grove's structure-aware mutator (grove_fuzz.h, GROVE_FUZZ_JSON: every
 *                     mutated input is JSON text) -- the example of a target using the glue;
 *   fuzz_cjson_hybrid the same with GROVE_FUZZ_BYTE_PERCENT=20 (one call in five goes to
 *                     libFuzzer's byte mutations).
 * fuzz/compare.py runs the two side by side (docs/fuzzing.md). At exit each prints how many
 * inputs it ran and how many cJSON accepted. With the `fuzz` preset cJSON is compiled from
 * Debian's source package (fuzz/cjson-source.sh), instrumented like the target, so libFuzzer
 * sees its edges; otherwise the system libcjson is linked (no coverage of cJSON itself). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

static unsigned long long runs, accepted;

static void report(void) {
  fprintf(stderr, "cjson: %llu inputs, %llu accepted (%.1f%%)\n", runs, accepted,
          runs ? 100.0 * (double)accepted / (double)runs : 0.0);
}

static int consume(const char *json, size_t len) {
  if (!runs++) atexit(report);
  cJSON *j = cJSON_ParseWithLength(json, len);
  if (!j) return 0;
  accepted++;
  char *p = cJSON_PrintUnformatted(j);
  if (p) {
    cJSON *k = cJSON_Parse(p);
    cJSON_Delete(k);
    cJSON_free(p);
  }
  cJSON_Delete(j);
  return 0;
}

#ifdef GROVE_FUZZ_MUTATOR
#define GROVE_FUZZ_JSON 1
#include "grove_fuzz.h"
GROVE_FUZZ_JSON_TARGET(consume)
#else
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return consume((const char *)data, size);
}
#endif
