/* fuzz_wire.c -- libFuzzer target for gv_decode.
 *
 * Decodes arbitrary bytes into a fresh arena with a modest budget. A failure
 * must be one of the documented statuses and leave the arena as it was; a
 * success must re-encode to bytes that decode to the very same node and
 * re-encode byte-identically, with a matching fingerprint. */
#include "grove.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_buf {
  unsigned char *p;
  size_t len, cap;
} fz_buf;

static gv_status fz_sink(void *ctx, const char *d, size_t n) {
  fz_buf *b = ctx;
  if (n > b->cap - b->len) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap - b->len < n)
      cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) return GV_ENOMEM;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, d, n);
  b->len += n;
  return GV_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gv_arena_config cfg = {(size_t)8 << 20, 4096, NULL, 0, 0};
  gv_arena *a = NULL;
  if (gv_arena_new(&cfg, &a) != GV_OK) abort();
  gv_stats before, after;
  gv_arena_stats(a, &before);
  const gv_node *n = NULL;
  gv_error e;
  gv_status s = gv_decode(a, data, size, &n, &e);
  if (s != GV_OK) {
    if (s != GV_EWIRE && s != GV_ENOMEM && s != GV_EDEPTH) abort();
    if (e.status != s || e.offset > size || n != NULL) abort();
    gv_arena_stats(a, &after);
    if (after.nodes != before.nodes || after.bytes_used != before.bytes_used ||
        after.bytes_reserved != before.bytes_reserved)
      abort();
    gv_arena_free(a);
    return 0;
  }
  if (!n) abort();
  fz_buf b1 = {NULL, 0, 0}, b2 = {NULL, 0, 0};
  s = gv_encode(a, n, fz_sink, &b1, &e);
  if (s == GV_OK) {
    const gv_node *m = NULL;
    gv_arena_stats(a, &before);
    gv_status s2 = gv_decode(a, b1.p, b1.len, &m, &e);
    if (s2 == GV_OK) {
      if (m != n) abort();
      gv_arena_stats(a, &after);
      if (after.nodes != before.nodes) abort(); /* nothing new: all interned already */
      s2 = gv_encode(a, m, fz_sink, &b2, &e);
      if (s2 == GV_OK && (b1.len != b2.len || memcmp(b1.p, b2.p, b1.len) != 0)) abort();
      uint8_t f1[16], f2[16];
      if (gv_fingerprint(a, n, f1, &e) == GV_OK && gv_fingerprint(a, m, f2, &e) == GV_OK &&
          memcmp(f1, f2, 16) != 0)
        abort();
    }
    if (s2 != GV_OK && s2 != GV_ENOMEM) abort(); /* only the budget may stop it */
  } else if (s != GV_ENOMEM) {
    abort(); /* encoding a decoded tree can only run out of budget */
  }
  free(b1.p);
  free(b2.p);
  gv_arena_free(a);
  return 0;
}
