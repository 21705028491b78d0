/* SPDX-License-Identifier: MIT */
/*
 * bench.h -- what the files of grove-bench share: the types, and what each file
 * gives the files above it. Each file calls only the files below it:
 *
 *   grove-bench.c     main: the options, the workloads' sizes, the order of the run
 *   report.c          the Markdown table, the performance goals, the JSON results file
 *   run.c             the operation table, timing a cell, a workload's setup, check, teardown
 *   rss.c             peak RSS building W5, in child processes (beside run.c)
 *   engine-grove.c    grove: the builder, the operations and their preps, setup and checks
 *   engine-jansson.c  jansson: the builder, leaves in sorted-key order, the operations
 *   engine-cjson.c    cJSON: the builder, leaves in sorted-key order, the operations
 *   workloads.c       the shuffle, the key strings, the JSON text
 *   util.c            failures, allocation, the text buffer
 *
 * rss.c and run.c stand side by side: neither calls the other.
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

/* ===========================================================================
 * The operations: engine-grove.c, engine-jansson.c, engine-cjson.c
 * =========================================================================== */

typedef struct rep {
  gv_arena *a; /* fresh arena, or the workload's arena (mark mode) */
  gv_error err;
  const gv_node *gout;
  json_t *jres; /* peer results freed after the sample, untimed */
  cJSON *cres;
  char msg[600];
} rep;

typedef int (*op_fn)(workload *w, rep *r); /* 0 = ok */

#define PEER_NULL(x, what)                                                                         \
  do {                                                                                             \
    if (!(x)) {                                                                                    \
      snprintf(r->msg, sizeof r->msg, "%s failed", what);                                          \
      return -1;                                                                                   \
    }                                                                                              \
  } while (0)

/* engine-grove.c */
gv_status g_build(gv_arena *a, const workload *w, int64_t off, const gv_node **out,
                  gv_error *err); /* every int/float leaf value + off */
int g_op_build(workload *w, rep *r);
int g_op_build_warm(workload *w, rep *r);
int g_op_parse(workload *w, rep *r);
int g_op_flatten(workload *w, rep *r);
int g_op_structure(workload *w, rep *r);
int g_op_walk_paths(workload *w, rep *r);
int g_op_fwp(workload *w, rep *r);
int g_op_pack(workload *w, rep *r);
int g_op_map_id(workload *w, rep *r);
int g_op_map_inc(workload *w, rep *r);
int g_op_order(workload *w, rep *r);
int g_op_equal_ptr(workload *w, rep *r);
int g_op_same(workload *w, rep *r);
int g_op_print(workload *w, rep *r);
int g_op_print_json(workload *w, rep *r);
int g_op_fingerprint(workload *w, rep *r);
int g_op_encode(workload *w, rep *r);
int g_op_decode(workload *w, rep *r);
gv_status prep_pack(workload *w, gv_error *err); /* inputs of pack_sequence_as */
gv_status prep_same(workload *w, gv_error *err); /* input of same_structure */
bool leaf_value(const gv_node *n, double *v);    /* an int or float leaf's value */
void setup_grove(workload *w);                   /* w->ga, w->gt, ...: w->gok */
void g_free_scratch(void);

/* engine-jansson.c */
extern json_t **g_jleaves;          /* w->leaves entries, for flatten */
json_t *j_build(const workload *w); /* NULL on failure */
size_t j_sorted_leaves(json_t *t, json_t **out, size_t cap);
int j_op_build(workload *w, rep *r);
int j_op_parse(workload *w, rep *r);
int j_op_flatten(workload *w, rep *r);
int j_op_sorted_dump(workload *w, rep *r);
int j_op_equal(workload *w, rep *r);
int j_op_dump(workload *w, rep *r);
int j_op_copy(workload *w, rep *r);
void j_free_scratch(void);

/* engine-cjson.c */
extern cJSON **g_cleaves;          /* w->leaves entries, for flatten */
cJSON *c_build(const workload *w); /* NULL on failure */
size_t c_sorted_leaves(cJSON *t, cJSON **out, size_t cap);
int c_op_build(workload *w, rep *r);
int c_op_parse(workload *w, rep *r);
int c_op_flatten(workload *w, rep *r);
int c_op_sorted_dump(workload *w, rep *r);
int c_op_equal(workload *w, rep *r);
int c_op_dump(workload *w, rep *r);
int c_op_copy(workload *w, rep *r);
void c_free_scratch(void);

/* ===========================================================================
 * run.c: the rows of the table, timing, running a workload
 * =========================================================================== */

enum { ENG_GROVE, ENG_JANSSON, ENG_CJSON, N_ENG };

typedef struct cell {
  bool ran, ok;
  double med, p25, p75, min, max; /* ns per call */
  size_t samples, inner;
  bool batched;
  char msg[640];
} cell;

typedef struct row {
  const char *workload;
  const char *op;
  const char *arena;
  uint64_t units;
  const char *unit;
  cell c[N_ENG];
} row;

extern row *g_rows;
extern size_t g_nrows;

extern bool g_quick;
extern const char *g_only_op; /* --op: run this operation only */
extern double g_target_ns;    /* time per cell */
extern double g_timer_overhead;

void measure_timer_overhead(void);
void run_workload(workload *w); /* its rows into g_rows */

/* ===========================================================================
 * rss.c: peak RSS building W5, in child processes
 * =========================================================================== */

typedef struct rss_msg {
  long maxrss_kb;
  size_t arena_reserved;
  int ok;
} rss_msg;

enum { RSS_BASE, RSS_GROVE, RSS_JANSSON, RSS_CJSON, N_RSS };
extern const char *const g_rss_name[N_RSS];
extern rss_msg g_rss[N_RSS];

void measure_rss(const workload *w5);

/* ===========================================================================
 * report.c: the table, the goals, the results file
 * =========================================================================== */

void print_table(void);
void print_goals(void);
int write_json(const char *path, const workload *w5);

#endif
