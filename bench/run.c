/* SPDX-License-Identifier: MIT */
/*
 * run.c -- running a workload: the table of operations, timing a cell, and the
 * workload's setup, cross-engine check and teardown around its rows.
 *
 * Timing: one warm-up run, then samples until about 0.2 s of work per cell (at
 * least 3 samples). Operations that neither build nodes nor allocate anything a
 * later rerun could reuse are batched (several calls per sample). Operations
 * that build grove nodes run in a fresh arena per sample ("fresh") or, when they
 * need an input tree, in the arena holding the input with a rollback to a mark
 * taken before each sample ("mark": the op's own nodes are gone before the next
 * sample, so interning never makes a rerun free). "warm" rows rebuild a tree
 * that is already in the arena on purpose (every intern lookup hits).
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Preps run once per grove cell, after a mark that is rolled back when the
 * cell is done, so no op ever finds another op's nodes in the arena. */
typedef gv_status (*prep_fn)(workload *w, gv_error *err);

typedef enum gmode { G_FRESH, G_MARK } gmode;

typedef struct opdef {
  const char *name;
  op_fn g, j, c;
  gmode mode;
  const char *arena; /* what the table says about the grove cell */
  const char *peer;  /* what the peers do, for the notes */
  bool big_only;     /* only for W5/W5s (warm rebuild) */
  prep_fn prep;      /* grove: extra input, built before the cell's mark */
} opdef;

static const opdef g_ops[] = {
    {"build", g_op_build, j_op_build, c_op_build, G_FRESH, "fresh", "C API build", false, NULL},
    {"build (warm)", g_op_build_warm, NULL, NULL, G_MARK, "warm", "", true, NULL},
    {"parse", g_op_parse, j_op_parse, c_op_parse, G_FRESH, "fresh", "json_loadb / cJSON_Parse",
     false, NULL},
    {"flatten", g_op_flatten, j_op_flatten, c_op_flatten, G_MARK, "mark",
     "collect leaves, sorted keys", false, NULL},
    {"structure", g_op_structure, NULL, NULL, G_MARK, "mark", "", false, NULL},
    {"walk_paths", g_op_walk_paths, NULL, NULL, G_MARK, "mark", "", false, NULL},
    {"flatten_with_path", g_op_fwp, NULL, NULL, G_MARK, "mark", "", false, NULL},
    {"pack_sequence_as", g_op_pack, NULL, NULL, G_MARK, "mark", "", false, prep_pack},
    {"map(identity)", g_op_map_id, NULL, NULL, G_MARK, "mark", "", false, NULL},
    {"map(x+1)", g_op_map_inc, NULL, NULL, G_MARK, "mark", "", false, NULL},
    {"order", g_op_order, j_op_sorted_dump, c_op_sorted_dump, G_MARK, "mark", "sorted dump", false,
     NULL},
    {"equal", g_op_equal_ptr, j_op_equal, c_op_equal, G_MARK, "-", "deep equal", false, NULL},
    {"same_structure", g_op_same, j_op_equal, c_op_equal, G_MARK, "mark", "deep equal", false,
     prep_same},
    {"print", g_op_print, j_op_dump, c_op_dump, G_MARK, "mark", "dumps", false, NULL},
    {"print_json", g_op_print_json, j_op_dump, c_op_dump, G_MARK, "mark", "dumps", false, NULL},
    {"fingerprint", g_op_fingerprint, NULL, NULL, G_MARK, "mark", "", false, NULL},
    {"encode", g_op_encode, NULL, NULL, G_MARK, "mark", "", false, NULL},
    {"decode", g_op_decode, NULL, NULL, G_FRESH, "fresh", "", false, NULL},
    {"deep copy", NULL, j_op_copy, c_op_copy, G_MARK, "-", "json_deep_copy / cJSON_Duplicate",
     false, NULL},
};
#define N_OPS (sizeof g_ops / sizeof g_ops[0])

/* ===========================================================================
 * The timing harness
 * =========================================================================== */

static const char *const g_eng_name[N_ENG] = {"grove", "jansson", "cJSON"};

row *g_rows;
size_t g_nrows;
static size_t g_rows_cap;

bool g_quick = false;
const char *g_only_op = NULL; /* --op: run this operation only */
double g_target_ns = 0.2e9;
double g_timer_overhead = 0;

/* One sample: `inner` calls; *ns the elapsed time. Returns 0 or an error (msg set). */
static int one_sample(workload *w, int eng, op_fn fn, gmode mode, size_t inner, uint64_t *ns,
                      bool *pure, char *msg, size_t msgcap) {
  rep r;
  memset(&r, 0, sizeof r);
  gv_mark m;
  gv_stats before, after;
  memset(&m, 0, sizeof m);
  if (eng == ENG_GROVE) {
    if (mode == G_FRESH) {
      gv_status s = gv_arena_new(NULL, &r.a);
      if (s != GV_OK) {
        snprintf(msg, msgcap, "gv_arena_new: %s", gv_status_name(s));
        return -1;
      }
    } else {
      r.a = w->ga;
      m = gv_arena_mark(w->ga);
      gv_arena_stats(w->ga, &before);
    }
  }
  int rc = 0;
  uint64_t t0 = now_ns();
  for (size_t k = 0; k < inner && rc == 0; k++)
    rc = fn(w, &r);
  uint64_t t1 = now_ns();
  *ns = t1 - t0;
  if (rc != 0) {
    if (r.msg[0])
      snprintf(msg, msgcap, "%s", r.msg);
    else
      snprintf(msg, msgcap, "%s: %s", gv_status_name((gv_status)rc),
               r.err.msg[0] ? r.err.msg : "(no message)");
  }
  if (eng == ENG_GROVE) {
    if (mode == G_FRESH) {
      *pure = false;
      gv_arena_free(r.a);
    } else {
      gv_arena_stats(w->ga, &after);
      *pure = after.nodes == before.nodes && after.bytes_used == before.bytes_used &&
              after.bytes_reserved == before.bytes_reserved;
      gv_arena_rollback(w->ga, &m);
    }
  } else {
    *pure = !r.jres && !r.cres;
    json_decref(r.jres);
    cJSON_Delete(r.cres);
  }
  return rc;
}

static int dbl_cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static double quantile(const double *s, size_t n, double q) {
  double pos = q * (double)(n - 1);
  size_t i = (size_t)pos;
  double f = pos - (double)i;
  return i + 1 < n ? s[i] * (1 - f) + s[i + 1] * f : s[n - 1];
}

static void run_cell_inner(workload *w, int eng, op_fn fn, gmode mode, cell *c);

static void run_cell(workload *w, int eng, op_fn fn, gmode mode, prep_fn prep, cell *c) {
  if (eng != ENG_GROVE || !prep) {
    run_cell_inner(w, eng, fn, mode, c);
    return;
  }
  gv_error err;
  memset(&err, 0, sizeof err);
  gv_mark m = gv_arena_mark(w->ga);
  gv_status s = prep(w, &err);
  if (s != GV_OK) {
    memset(c, 0, sizeof *c);
    c->ran = true;
    snprintf(c->msg, sizeof c->msg, "prep: %s: %s", gv_status_name(s), err.msg);
    fail("%s grove prep: %s", w->name, c->msg);
  } else {
    run_cell_inner(w, eng, fn, mode, c);
  }
  gv_arena_rollback(w->ga, &m);
}

static void run_cell_inner(workload *w, int eng, op_fn fn, gmode mode, cell *c) {
  uint64_t ns = 0;
  bool pure = false;
  memset(c, 0, sizeof *c);
  c->ran = true;
  /* warm-up */
  if (one_sample(w, eng, fn, mode, 1, &ns, &pure, c->msg, sizeof c->msg) != 0) {
    fail("%s %s %s: %s", w->name, g_eng_name[eng], "warm-up", c->msg);
    return;
  }
  double est = (double)ns > 1 ? (double)ns : 1;
  size_t inner = 1, samples = 3;
  if (!g_quick) {
    if (pure && est < 20000) { /* batch so that a sample takes >= ~20 us */
      inner = (size_t)(20000 / est) + 1;
    }
    double per = est * (double)inner;
    double want = g_target_ns / per;
    samples = want < 3 ? 3 : want > 5000 ? 5000 : (size_t)want;
  } else if (pure && est < 2000) {
    inner = (size_t)(2000 / est) + 1;
  }
  double *s = xmalloc(samples * sizeof *s);
  size_t got = 0;
  for (size_t i = 0; i < samples; i++) {
    bool p2;
    if (one_sample(w, eng, fn, mode, inner, &ns, &p2, c->msg, sizeof c->msg) != 0) {
      fail("%s %s: %s", w->name, g_eng_name[eng], c->msg);
      free(s);
      return;
    }
    double v = (double)ns;
    if (inner == 1) v = v > g_timer_overhead ? v - g_timer_overhead : 0;
    s[got++] = v / (double)inner;
  }
  qsort(s, got, sizeof *s, dbl_cmp);
  c->ok = true;
  c->samples = got;
  c->inner = inner;
  c->batched = inner > 1;
  c->min = s[0];
  c->max = s[got - 1];
  c->med = quantile(s, got, 0.5);
  c->p25 = quantile(s, got, 0.25);
  c->p75 = quantile(s, got, 0.75);
  free(s);
}

void measure_timer_overhead(void) {
  double s[1001];
  for (size_t i = 0; i < 1001; i++) {
    uint64_t t0 = now_ns();
    uint64_t t1 = now_ns();
    s[i] = (double)(t1 - t0);
  }
  qsort(s, 1001, sizeof s[0], dbl_cmp);
  g_timer_overhead = s[500];
}

static row *new_row(void) {
  if (g_nrows == g_rows_cap) {
    g_rows_cap = g_rows_cap ? g_rows_cap * 2 : 64;
    g_rows = xrealloc(g_rows, g_rows_cap * sizeof *g_rows);
  }
  row *r = &g_rows[g_nrows++];
  memset(r, 0, sizeof *r);
  return r;
}

/* ===========================================================================
 * Workload setup, verification, teardown
 * =========================================================================== */

static void setup_peers(workload *w) {
  w->jt = j_build(w);
  w->jt2 = j_build(w);
  w->ct = c_build(w);
  w->ct2 = c_build(w);
  if (!w->jt || !w->jt2 || !w->ct || !w->ct2) die("peer build failed");
}

/* Same data in every engine: the leaf values in traversal (sorted-key) order
 * agree, and the peers' parse of the text equals their C API build. */
static void verify(workload *w) {
  size_t n = (size_t)w->leaves;
  size_t nj = j_sorted_leaves(w->jt, g_jleaves, n);
  size_t nc = c_sorted_leaves(w->ct, g_cleaves, n);
  if (nj != n || nc != n) {
    fail("%s: leaf counts differ: expected %zu, jansson %zu, cJSON %zu", w->name, n, nj, nc);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    double vj = json_number_value(g_jleaves[i]);
    double vc = g_cleaves[i]->valuedouble;
    double vg = vj;
    if (w->gok && !leaf_value(w->gleaves[i], &vg)) vg = -1e300;
    if (vj != vc || vj != vg) {
      fail("%s: leaf %zu differs: grove %g, jansson %g, cJSON %g", w->name, i, vg, vj, vc);
      return;
    }
  }
  json_error_t e;
  json_t *jp = json_loadb(w->text.p, w->text.n, 0, &e);
  if (!jp || !json_equal(jp, w->jt)) fail("%s: jansson parse(text) != build", w->name);
  json_decref(jp);
  cJSON *cp = cJSON_ParseWithLength(w->text.p, w->text.n);
  if (!cp || !cJSON_Compare(cp, w->ct, 1)) fail("%s: cJSON parse(text) != build", w->name);
  cJSON_Delete(cp);
}

static void teardown(workload *w) {
  gv_arena_free(w->ga);
  w->ga = NULL;
  free(w->gleaves);
  free(w->gleaves2);
  free(w->wire);
  json_decref(w->jt);
  json_decref(w->jt2);
  cJSON_Delete(w->ct);
  cJSON_Delete(w->ct2);
  w->gleaves = w->gleaves2 = NULL;
  w->wire = NULL;
  w->jt = w->jt2 = NULL;
  w->ct = w->ct2 = NULL;
}

void run_workload(workload *w) {
  fprintf(stderr, "grove-bench: %s ...\n", w->name);
  make_text(w);
  setup_grove(w);
  if (!w->grove_only) {
    setup_peers(w);
    g_jleaves = xrealloc(g_jleaves, (size_t)w->leaves * sizeof *g_jleaves);
    g_cleaves = xrealloc(g_cleaves, (size_t)w->leaves * sizeof *g_cleaves);
    verify(w);
  }
  for (size_t o = 0; o < N_OPS; o++) {
    const opdef *op = &g_ops[o];
    if (op->big_only && w->kind != WK5 && w->kind != WK5S) continue;
    if (w->grove_only && !op->g) continue;
    if (g_only_op && strcmp(g_only_op, op->name) != 0) continue;
    row *r = new_row();
    r->workload = w->name;
    r->op = op->name;
    r->arena = op->g ? op->arena : "-";
    r->units = w->units;
    r->unit = w->unit;
    if (op->g) {
      if (w->gok) {
        run_cell(w, ENG_GROVE, op->g, op->mode, op->prep, &r->c[ENG_GROVE]);
      } else {
        r->c[ENG_GROVE].ran = true;
        snprintf(r->c[ENG_GROVE].msg, sizeof r->c[ENG_GROVE].msg, "setup failed");
      }
    }
    if (!w->grove_only) {
      if (op->j) run_cell(w, ENG_JANSSON, op->j, op->mode, NULL, &r->c[ENG_JANSSON]);
      if (op->c) run_cell(w, ENG_CJSON, op->c, op->mode, NULL, &r->c[ENG_CJSON]);
    }
  }
  teardown(w);
}
