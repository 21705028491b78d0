/* SPDX-License-Identifier: MIT */
/* replay.c -- a main for a libFuzzer target built without libFuzzer: runs
 * LLVMFuzzerTestOneInput on every file named on standard input (one path a line). compare.py
 * links it with fuzz_cjson.c and a coverage build of cJSON.c to measure what a corpus covers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(void) {
  char path[4096];
  size_t n = 0;
  while (fgets(path, sizeof path, stdin)) {
    path[strcspn(path, "\n")] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
      if (len == cap) {
        cap = cap ? cap * 2 : 4096;
        uint8_t *p = realloc(buf, cap);
        if (!p) abort();
        buf = p;
      }
      got = fread(buf + len, 1, cap - len, f);
      len += got;
    } while (got);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    n++;
  }
  fprintf(stderr, "replay: %zu inputs\n", n);
  return 0;
}
