/* SPDX-License-Identifier: MIT */
/*
 * bench.h -- what the files of grove-bench share: the types, and what each file
 * gives the files above it. Each file calls only the files below it:
 *
 *   grove-bench.c  the rest: running and timing, RSS, the report, main
 *   workloads.c    the shuffle, the key strings, the JSON text
 *   util.c         failures, allocation, the text buffer
 */
#ifndef GROVE_BENCH_H
#define GROVE_BENCH_H

#include <grove.h>

#include <cJSON.h>
#include <jansson.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ===========================================================================
 * util.c: failures, allocation, the text buffer
 * =========================================================================== */

extern int g_exit;             /* becomes 1 on any failure; the run goes on */
extern volatile size_t g_sink; /* defeats dead-code elimination */

void fail(const char *fmt, ...) GV_PRINTF(1, 2); /* to stderr; sets g_exit */
void die(const char *what);                      /* fatal: exit(2) */
void *xmalloc(size_t n);                         /* die() when out of memory */
void *xrealloc(void *p, size_t n);

/* growable text buffer */
typedef struct sbuf {
  char *p;
  size_t n, cap;
} sbuf;

void sb_put(sbuf *b, const char *s, size_t len);
void sb_puts(sbuf *b, const char *s);
void sb_printf(sbuf *b, const char *fmt, ...) GV_PRINTF(2, 3);
void sb_json_str(sbuf *b, const char *s); /* a JSON string, escaped */

/* ===========================================================================
 * workloads.c: the workloads, the shuffle, the key strings, the JSON text
 * =========================================================================== */

typedef enum wkind { WK1, WK2, WK3, WK4, WK5, WK5S, WK4X } wkind;

typedef struct workload {
  const char *name;
  wkind kind;
  size_t n;       /* W5: dicts; W4: depth */
  uint16_t *perm; /* W2: 1000 entries; W5: n * 100; NULL when unshuffled */
  bool grove_only;
  uint64_t leaves;
  uint64_t units; /* what ns/unit divides by */
  const char *unit;
  sbuf text; /* the JSON text every engine parses */

  /* grove */
  bool gok;
  gv_arena *ga;
  const gv_node *gt;  /* the workload */
  const gv_node *gt2; /* same shape, every leaf value + 1 (prep of same_structure) */
  const gv_node *gs;  /* structure of gt */
  const gv_node **gleaves, **gleaves2;
  unsigned char *wire;
  size_t wire_len;
  gv_stats gstats; /* after building gt alone in ga */

  /* peers: the workload and an equal, separately built copy */
  json_t *jt, *jt2;
  cJSON *ct, *ct2;
} workload;

extern char g_w2key[1000][8]; /* "k0000" .. "k0999" */
extern char g_w3key[100][12]; /* "layer_000" .. "layer_099" */
extern char g_w5key[100][4];  /* "f00" .. "f99" */
extern const char *const g_w3inner[3];
extern const char *const g_w3norm[4];

void init_keys(void);
void shuffle(uint16_t *p, size_t n, uint64_t index); /* the documented one (workloads.c) */
void make_text(workload *w);                         /* w->text (a tuple becomes an array) */

#endif
