/* SPDX-License-Identifier: MIT */
/* fuzz_lines.c -- libFuzzer target for the grove tool's --lines stream: the same code the tool
 * runs (lines_main in tools/lines.c and everything below it), on a line stream in memory.
 *
 * Input: two bytes of settings, then the stream (standard input of `grove OP --lines`).
 *   byte 0: the operation (every tree operation), with its fixed arguments if it has any;
 *   byte 1: bit 0 --json, bit 1 --jobs 2, bit 2 --fail-fast, bit 3 a small --max-bytes
 *           (2e4: lines over budget, lines too long), bit 4 a small --max-output (300).
 * Batches of 3 lines (GROVE_LINES_BATCH) so that short inputs make many batches, chunks and
 * windows. These invariants are checked (abort() when broken):
 *   - the exit status is 0, 1 or 2; 0 only with no error line, 1 only with one;
 *   - every line of standard error is "grove: error: line N..." with N growing, and holds no
 *     raw control byte or invalid UTF-8 (messages escape what they quote);
 *   - every result ends with a newline, and without --fail-fast there are no more results
 *     than lines in the input. */
#define _POSIX_C_SOURCE 200809L /* fmemopen, open_memstream, setenv */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *text, size_t len) {
  fprintf(stderr, "fuzz_lines: broken invariant: %s\n%.*s\n", what, (int)(len < 2000 ? len : 2000),
          text ? text : "");
  abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  setenv("GROVE_LINES_BATCH", "3", 1);
  return 0;
}

/* The stream's operations, each with its fixed arguments (the streamed tree comes last). */
static const struct {
  op_id op;
  const char *args[2];
  size_t nargs;
} CASES[] = {
    {OP_FLATTEN, {NULL, NULL}, 0},
    {OP_FLATTEN_WITH_PATH, {NULL, NULL}, 0},
    {OP_STRUCTURE, {NULL, NULL}, 0},
    {OP_IS_NESTED, {NULL, NULL}, 0},
    {OP_PACK_SEQUENCE_AS, {"[0, (0, {'a': 0})]", NULL}, 1},
    {OP_MAP, {"str", NULL}, 1},
    {OP_MAP, {"add", NULL}, 1},
    {OP_MAP_UP_TO, {"type", "[0, {'a': 0, 'b': 0}]"}, 2},
    {OP_MAP_SHAPE, {"id", NULL}, 1},
    {OP_TRAVERSE, {NULL, NULL}, 0},
    {OP_LISTS_TO_TUPLES, {NULL, NULL}, 0},
    {OP_ORDER, {NULL, NULL}, 0},
    {OP_ASSERT_SAME_STRUCTURE, {"[1, (2, {'a': 3})]", NULL}, 1},
    {OP_ASSERT_SAME_PATHS, {"{'a': [1, 2], 'b': 3}", NULL}, 1},
    {OP_FINGERPRINT, {NULL, NULL}, 0},
    {OP_CONVERT, {NULL, NULL}, 0},
    {OP_STATS, {NULL, NULL}, 0},
};

/* Whether text is UTF-8 with no control byte but newline (C0, DEL, C1). */
static int clean(const char *text, size_t n) {
  const unsigned char *p = (const unsigned char *)text;
  for (size_t i = 0; i < n;) {
    unsigned ch = p[i];
    if (ch < 0x80) {
      if ((ch < 0x20 && ch != '\n') || ch == 0x7f) return 0;
      i++;
      continue;
    }
    size_t k = ch >= 0xf5 ? 0 : ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc2 ? 2 : 0;
    if (!k || i + k > n) return 0;
    for (size_t j = 1; j < k; j++)
      if ((p[i + j] & 0xc0) != 0x80) return 0;
    if (ch == 0xc2 && p[i + 1] < 0xa0) return 0; /* C1 */
    i += k;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  size_t which = data[0] % (sizeof CASES / sizeof CASES[0]);
  unsigned bits = data[1];
  const char *stream = (const char *)data + 2;
  size_t len = size - 2;

  char *obuf = NULL, *ebuf = NULL;
  size_t olen = 0, elen = 0;
  cli_io io;
  memset(&io, 0, sizeof io);
  io.in = fmemopen((void *)stream, len, "rb");
  io.out = open_memstream(&obuf, &olen);
  io.err = open_memstream(&ebuf, &elen);
  if (!io.in || !io.out || !io.err) abort();

  rule rules[2] = {{"tuple", 5, "0", NULL}, {"dict", 4, NULL, NULL}};
  cli c;
  memset(&c, 0, sizeof c);
  c.io = &io;
  c.op = CASES[which].op;
  c.none_is_leaf = 1;
  c.top_down = 1;
  c.lines = 1;
  c.json = bits & 1;
  c.jobs = (bits & 2) ? 2 : 0;
  c.fail_fast = (bits & 4) != 0;
  c.max_bytes = (bits & 8) ? 20000 : LN_MAX_BYTES;
  c.max_bytes_set = 1;
  c.max_output = (bits & 16) ? 300 : UINT64_C(100000000);
  if (c.op == OP_TRAVERSE) {
    c.rules = rules;
    c.nrules = 2;
  }
  const char *args[3];
  size_t nargs = CASES[which].nargs;
  for (size_t i = 0; i < nargs; i++)
    args[i] = CASES[which].args[i];
  args[nargs++] = "-";
  int rc = lines_main(&c, &OPS[c.op], args, nargs);
  fclose(io.in);
  fclose(io.out);
  fclose(io.err);

  if (rc < 0 || rc > 2) fail("exit status", NULL, 0);
  if (!clean(ebuf, elen)) fail("standard error holds raw bytes", ebuf, elen);
  uint64_t last = 0;
  size_t nerr = 0;
  for (const char *p = ebuf, *end = ebuf + elen; p < end; nerr++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) fail("an error without its newline", ebuf, elen);
    static const char head[] = "grove: error: line ";
    if ((size_t)(nl - p) < sizeof head || memcmp(p, head, sizeof head - 1) != 0)
      fail("an error line not naming its line", ebuf, elen);
    uint64_t n = strtoull(p + sizeof head - 1, NULL, 10);
    if (n <= last) fail("error lines out of order", ebuf, elen);
    last = n;
    p = nl + 1;
  }
  if (rc == 0 && nerr) fail("exit 0 with error lines", ebuf, elen);
  if (rc == 1 && !nerr && c.op != OP_IS_NESTED && c.op != OP_ASSERT_SAME_STRUCTURE &&
      c.op != OP_ASSERT_SAME_PATHS)
    fail("exit 1 with no error line", ebuf, elen);
  if (olen && obuf[olen - 1] != '\n') fail("a result without its newline", obuf, olen);
  size_t results = 0, lines = 1;
  for (size_t i = 0; i < olen; i++)
    results += obuf[i] == '\n';
  for (size_t i = 0; i < len; i++)
    lines += stream[i] == '\n';
  if (results > lines) fail("more results than lines", obuf, olen);
  free(obuf);
  free(ebuf);
  return 0;
}
