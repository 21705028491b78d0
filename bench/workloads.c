/* SPDX-License-Identifier: MIT */
/*
 * workloads.c -- the shuffle, the key strings and the JSON text of the workloads
 * (what a workload is: bench.h; their sizes: main in grove-bench.c).
 *
 * Shuffles: every engine sees the same insertion orders. The keys of dict
 * number `index` (W2: index 0; W5/W5s: index = position in the list) are put in
 * order by a Fisher-Yates shuffle driven by xorshift64 (shifts 13, 7, 17) with
 * the state seeded as (index + 1) * 0x9E3779B97F4A7C15 (never 0): for k from
 * n-1 down to 1, j = next() % (k + 1), swap(p[k], p[j]). W5s skips the shuffle.
 */
#include "bench.h"

#include <stdio.h>

static uint64_t xs_next(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return x;
}

void shuffle(uint16_t *p, size_t n, uint64_t index) {
  uint64_t s = (index + 1) * UINT64_C(0x9E3779B97F4A7C15);
  if (s == 0) s = 1;
  for (size_t i = 0; i < n; i++)
    p[i] = (uint16_t)i;
  for (size_t k = n; k-- > 1;) {
    size_t j = (size_t)(xs_next(&s) % (uint64_t)(k + 1));
    uint16_t t = p[k];
    p[k] = p[j];
    p[j] = t;
  }
}

char g_w2key[1000][8]; /* "k0000" .. "k0999" */
char g_w3key[100][12]; /* "layer_000" .. "layer_099" */
char g_w5key[100][4];  /* "f00" .. "f99" */
const char *const g_w3inner[3] = {"kernel", "bias", "norm"};
const char *const g_w3norm[4] = {"gamma", "beta", "mean", "var"};

void init_keys(void) {
  for (int i = 0; i < 1000; i++)
    snprintf(g_w2key[i], sizeof g_w2key[i], "k%04d", i);
  for (int i = 0; i < 100; i++)
    snprintf(g_w3key[i], sizeof g_w3key[i], "layer_%03d", i);
  for (int i = 0; i < 100; i++)
    snprintf(g_w5key[i], sizeof g_w5key[i], "f%02d", i);
}

/* --- the JSON text (a tuple becomes an array) --- */
void make_text(workload *w) {
  sbuf *b = &w->text;
  b->n = 0;
  switch (w->kind) {
  case WK1:
    sb_puts(b, "[{\"b\": 1, \"a\": [2, 3]}, [4, 5], 6]");
    break;
  case WK2:
    sb_puts(b, "{");
    for (size_t i = 0; i < 1000; i++)
      sb_printf(b, "%s\"%s\": %u", i ? ", " : "", g_w2key[w->perm[i]], (unsigned)w->perm[i]);
    sb_puts(b, "}");
    break;
  case WK3:
    sb_puts(b, "{");
    for (size_t l = 0; l < 100; l++)
      sb_printf(b,
                "%s\"%s\": {\"kernel\": 1.0, \"bias\": 2.0, \"norm\": {\"gamma\": 3.0, "
                "\"beta\": 4.0, \"mean\": 5.0, \"var\": 6.0}}",
                l ? ", " : "", g_w3key[l]);
    sb_puts(b, "}");
    break;
  case WK4:
  case WK4X:
    for (size_t d = 0; d < w->n; d++)
      sb_put(b, "[", 1);
    sb_put(b, "0", 1);
    for (size_t d = 0; d < w->n; d++)
      sb_put(b, "]", 1);
    break;
  case WK5:
  case WK5S:
    sb_puts(b, "[");
    for (size_t i = 0; i < w->n; i++) {
      const uint16_t *p = w->perm ? w->perm + i * 100 : NULL;
      sb_puts(b, i ? ", {" : "{");
      for (size_t j = 0; j < 100; j++) {
        size_t jj = p ? p[j] : j;
        sb_printf(b, "%s\"%s\": %zu", j ? ", " : "", g_w5key[jj], i * 100 + jj);
      }
      sb_puts(b, "}");
    }
    sb_puts(b, "]");
    break;
  }
}
