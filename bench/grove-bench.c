/* SPDX-License-Identifier: MIT */
/*
 * grove-bench -- grove side by side with jansson and cJSON.
 *
 * Workloads and performance goals: docs/benchmarks.md (W1..W5, W5s; W4x grove
 * only). The goals are checked by eye, never asserted.
 *
 * The files, each calling only those below it: bench.h.
 *
 * Timing: one warm-up run, then samples until about 0.2 s of work per cell (at
 * least 3 samples). Operations that neither build nodes nor allocate anything a
 * later rerun could reuse are batched (several calls per sample). Operations
 * that build grove nodes run in a fresh arena per sample ("fresh") or, when they
 * need an input tree, in the arena holding the input with a rollback to a mark
 * taken before each sample ("mark": the op's own nodes are gone before the next
 * sample, so interning never makes a rerun free). "warm" rows rebuild a tree
 * that is already in the arena on purpose (every intern lookup hits).
 * Reported: the median, the interquartile range, ns per unit (leaves, or nodes
 * for W4/W4x), and peer_median / grove_median (> 1: grove faster).
 *
 * Peak RSS for W5 is measured in child processes forked before anything big is
 * allocated: each builds W5 in one engine only and reports getrusage
 * (RUSAGE_SELF).ru_maxrss through a pipe; a baseline child that builds nothing
 * is subtracted.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

enum { ENG_GROVE, ENG_JANSSON, ENG_CJSON, N_ENG };
static const char *const g_eng_name[N_ENG] = {"grove", "jansson", "cJSON"};

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

static row *g_rows;
static size_t g_nrows, g_rows_cap;

static bool g_quick = false;
static const char *g_only_op = NULL; /* --op: run this operation only */
static double g_target_ns = 0.2e9;
static double g_timer_overhead = 0;

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

static void measure_timer_overhead(void) {
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

static void run_workload(workload *w) {
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

/* ===========================================================================
 * Peak RSS (W5) in child processes
 * =========================================================================== */

typedef struct rss_msg {
  long maxrss_kb;
  size_t arena_reserved;
  int ok;
} rss_msg;

enum { RSS_BASE, RSS_GROVE, RSS_JANSSON, RSS_CJSON, N_RSS };
static const char *const g_rss_name[N_RSS] = {"baseline", "grove", "jansson", "cJSON"};
static rss_msg g_rss[N_RSS];

static void rss_child(const workload *w5, int which, int fd) {
  rss_msg m;
  memset(&m, 0, sizeof m);
  m.ok = 1;
  if (which == RSS_GROVE) {
    gv_arena *a = NULL;
    const gv_node *t = NULL;
    gv_stats st;
    if (gv_arena_new(NULL, &a) != GV_OK || g_build(a, w5, 0, &t, NULL) != GV_OK) {
      m.ok = 0;
    } else {
      gv_arena_stats(a, &st);
      m.arena_reserved = st.bytes_reserved;
    }
  } else if (which == RSS_JANSSON) {
    m.ok = j_build(w5) != NULL;
  } else if (which == RSS_CJSON) {
    m.ok = c_build(w5) != NULL;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  m.maxrss_kb = ru.ru_maxrss;
  ssize_t k = write(fd, &m, sizeof m);
  _exit(k == (ssize_t)sizeof m ? 0 : 1);
}

static void measure_rss(const workload *w5) {
  fflush(stdout);
  fflush(stderr);
  for (int i = 0; i < N_RSS; i++) {
    int fds[2];
    memset(&g_rss[i], 0, sizeof g_rss[i]);
    if (pipe(fds) != 0) {
      fail("pipe: %s", strerror(errno));
      continue;
    }
    pid_t pid = fork();
    if (pid < 0) {
      fail("fork: %s", strerror(errno));
      close(fds[0]);
      close(fds[1]);
      continue;
    }
    if (pid == 0) {
      close(fds[0]);
      rss_child(w5, i, fds[1]);
    }
    close(fds[1]);
    rss_msg m;
    ssize_t k = read(fds[0], &m, sizeof m);
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (k != (ssize_t)sizeof m || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !m.ok) {
      fail("RSS child %s failed", g_rss_name[i]);
      continue;
    }
    g_rss[i] = m;
  }
}

/* ===========================================================================
 * Output
 * =========================================================================== */

static void fmt_ns(char *b, size_t cap, double ns) {
  if (ns < 1e3)
    snprintf(b, cap, "%.1f ns", ns);
  else if (ns < 1e6)
    snprintf(b, cap, "%.2f µs", ns / 1e3);
  else if (ns < 1e9)
    snprintf(b, cap, "%.2f ms", ns / 1e6);
  else
    snprintf(b, cap, "%.2f s", ns / 1e9);
}

static void fmt_cell(char *b, size_t cap, const cell *c, uint64_t units, bool with_spread) {
  if (!c->ran) {
    snprintf(b, cap, "—");
    return;
  }
  if (!c->ok) {
    snprintf(b, cap, "FAIL");
    return;
  }
  char t[32];
  fmt_ns(t, sizeof t, c->med);
  double per = c->med / (double)(units ? units : 1);
  if (with_spread) {
    double sp = c->med > 0 ? (c->p75 - c->p25) / (2 * c->med) * 100 : 0;
    snprintf(b, cap, "%s ±%.0f%% (%.3g)", t, sp, per);
  } else {
    snprintf(b, cap, "%s (%.3g)", t, per);
  }
}

static void fmt_ratio(char *b, size_t cap, const cell *g, const cell *p) {
  if (!g->ok || !p->ok || g->med <= 0) {
    snprintf(b, cap, "—");
    return;
  }
  double r = p->med / g->med;
  if (r >= 100)
    snprintf(b, cap, "%.0f×", r);
  else
    snprintf(b, cap, "%.2g×", r);
}

static void print_table(void) {
  printf("# grove-bench%s\n\n", g_quick ? " (--quick: not representative)" : "");
  printf("grove %s, jansson %s, cJSON %d.%d.%d. Cells: median ±half-IQR (ns per unit). "
         "Ratio = peer median / grove median (>1: grove faster).\n",
         GV_VERSION_STRING, JANSSON_VERSION, CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR,
         CJSON_VERSION_PATCH);
  printf("Arena: fresh = new arena per sample; mark = input tree present, rollback after each "
         "sample; warm = rebuilds a tree already interned (all hits).\n\n");
  printf("| workload | op | arena | grove | jansson | cJSON | ×jansson | ×cJSON |\n");
  printf("|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < g_nrows; i++) {
    const row *r = &g_rows[i];
    char g[96], j[96], c[96], rj[32], rc[32];
    fmt_cell(g, sizeof g, &r->c[ENG_GROVE], r->units, true);
    fmt_cell(j, sizeof j, &r->c[ENG_JANSSON], r->units, false);
    fmt_cell(c, sizeof c, &r->c[ENG_CJSON], r->units, false);
    fmt_ratio(rj, sizeof rj, &r->c[ENG_GROVE], &r->c[ENG_JANSSON]);
    fmt_ratio(rc, sizeof rc, &r->c[ENG_GROVE], &r->c[ENG_CJSON]);
    printf("| %s (%" PRIu64 " %s) | %s | %s | %s | %s | %s | %s | %s |\n", r->workload, r->units,
           r->unit, r->op, r->arena, g, j, c, rj, rc);
  }
  printf("\nPeak RSS building W5 alone (child processes, minus the baseline child of %ld KiB):\n\n",
         g_rss[RSS_BASE].maxrss_kb);
  printf("| engine | peak RSS | ratio to jansson |\n|---|---|---|\n");
  long base = g_rss[RSS_BASE].maxrss_kb;
  long jd = g_rss[RSS_JANSSON].maxrss_kb - base;
  for (int i = RSS_GROVE; i < N_RSS; i++) {
    long d = g_rss[i].maxrss_kb - base;
    if (!g_rss[i].ok) {
      printf("| %s | FAIL | — |\n", g_rss_name[i]);
      continue;
    }
    printf("| %s | %.1f MiB | %.2f |\n", g_rss_name[i], (double)d / 1024.0,
           jd > 0 ? (double)d / (double)jd : 0.0);
  }
  if (g_rss[RSS_GROVE].ok)
    printf("\ngrove arena bytes_reserved for W5: %.1f MiB\n",
           (double)g_rss[RSS_GROVE].arena_reserved / (1024.0 * 1024.0));
  printf("\nCells marked FAIL: see stderr. Timer overhead %.0f ns subtracted from unbatched "
         "samples.\n",
         g_timer_overhead);
}

/* The performance goals (docs/benchmarks.md), checked by eye: printed, never asserted. */
static const cell *find_cell(const char *wl, const char *op, int eng) {
  for (size_t i = 0; i < g_nrows; i++)
    if (!strcmp(g_rows[i].workload, wl) && !strcmp(g_rows[i].op, op)) return &g_rows[i].c[eng];
  return NULL;
}

static void goal(const char *what, bool known, bool met, const char *fmt, ...) GV_PRINTF(4, 5);
static void goal(const char *what, bool known, bool met, const char *fmt, ...) {
  char b[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  printf("| %s | %s | %s |\n", what, known ? b : "n/a", !known ? "?" : met ? "met" : "MISSED");
}

static double ratio_of(const cell *g, const cell *p) {
  return g && p && g->ok && p->ok && g->med > 0 ? p->med / g->med : 0;
}

static void print_goals(void) {
  const cell *fg = find_cell("W5", "flatten", ENG_GROVE);
  const cell *fj = find_cell("W5", "flatten", ENG_JANSSON);
  const cell *fc = find_cell("W5", "flatten", ENG_CJSON);
  const cell *bg = find_cell("W5", "build", ENG_GROVE);
  const cell *bc = find_cell("W5", "build", ENG_CJSON);
  const cell *os = find_cell("W5s", "order", ENG_GROVE);
  const cell *og = find_cell("W5", "order", ENG_GROVE);
  const cell *oj = find_cell("W5", "order", ENG_JANSSON);
  const cell *pg = find_cell("W5", "parse", ENG_GROVE);
  const cell *pc = find_cell("W5", "parse", ENG_CJSON);
  printf("\nPerformance goals (this run%s):\n\n", g_quick ? ", --quick: W5 reduced" : "");
  printf("| goal | measured | status |\n|---|---|---|\n");
  bool k = fg && fg->ok;
  double per = k ? fg->med / (double)(g_quick ? 10000 : 1000000) : 0;
  goal("flatten W5 <= 5 ns/leaf", k, per <= 5, "%.2f ns/leaf", per);
  double rj = ratio_of(fg, fj), rc = ratio_of(fg, fc);
  goal("flatten W5 >= 20x jansson and cJSON sorted leaves", rj > 0 && rc > 0, rj >= 20 && rc >= 20,
       "%.1fx / %.1fx", rj, rc);
  double rb = ratio_of(bg, bc);
  goal("build W5 no slower than cJSON", rb > 0, rb >= 1, "cJSON/grove = %.2f", rb);
  goal("order on canonical W5s < 50 ns", os && os->ok, os && os->med < 50, "%.1f ns",
       os ? os->med : 0);
  double ro = ratio_of(og, oj);
  goal("order W5 (shuffled) >= 10x jansson sorted dump", ro > 0, ro >= 10, "%.1fx", ro);
  long base = g_rss[RSS_BASE].maxrss_kb, jd = g_rss[RSS_JANSSON].maxrss_kb - base;
  long gd = g_rss[RSS_GROVE].maxrss_kb - base;
  bool km = g_rss[RSS_GROVE].ok && g_rss[RSS_JANSSON].ok && jd > 0;
  goal("peak RSS W5 <= 0.5x jansson", km, km && (double)gd <= 0.5 * (double)jd, "%.2fx",
       km ? (double)gd / (double)jd : 0.0);
  double rp = ratio_of(pg, pc);
  goal("parse W5 text >= 2x cJSON", rp > 0, rp >= 2, "%.2fx", rp);
}

static void json_cell(sbuf *b, const cell *c) {
  if (!c->ran) {
    sb_puts(b, "null");
    return;
  }
  if (!c->ok) {
    sb_puts(b, "{\"ok\": false, \"error\": ");
    sb_json_str(b, c->msg);
    sb_puts(b, "}");
    return;
  }
  sb_printf(b,
            "{\"ok\": true, \"median_ns\": %.3f, \"p25_ns\": %.3f, \"p75_ns\": %.3f, "
            "\"min_ns\": %.3f, \"max_ns\": %.3f, \"samples\": %zu, \"calls_per_sample\": %zu}",
            c->med, c->p25, c->p75, c->min, c->max, c->samples, c->inner);
}

static int write_json(const char *path, const workload *w5) {
  sbuf b = {0};
  sb_puts(&b, "{\n  \"meta\": {");
  sb_printf(&b, "\"quick\": %s, \"grove\": \"%s\", \"jansson\": \"%s\", \"cjson\": \"%d.%d.%d\", ",
            g_quick ? "true" : "false", GV_VERSION_STRING, JANSSON_VERSION, CJSON_VERSION_MAJOR,
            CJSON_VERSION_MINOR, CJSON_VERSION_PATCH);
  sb_printf(&b, "\"timer_overhead_ns\": %.1f, \"w5_dicts\": %zu, \"target_ns_per_cell\": %.0f},\n",
            g_timer_overhead, w5->n, g_quick ? 0.0 : g_target_ns);
  sb_puts(&b, "  \"rss_kib\": {");
  for (int i = 0; i < N_RSS; i++) {
    sb_printf(&b, "%s\"%s\": ", i ? ", " : "", g_rss_name[i]);
    if (g_rss[i].ok)
      sb_printf(&b, "%ld", g_rss[i].maxrss_kb);
    else
      sb_puts(&b, "null");
  }
  sb_printf(&b, ", \"grove_arena_reserved_bytes\": %zu},\n", g_rss[RSS_GROVE].arena_reserved);
  sb_puts(&b, "  \"rows\": [\n");
  for (size_t i = 0; i < g_nrows; i++) {
    const row *r = &g_rows[i];
    sb_puts(&b, "    {\"workload\": ");
    sb_json_str(&b, r->workload);
    sb_puts(&b, ", \"op\": ");
    sb_json_str(&b, r->op);
    sb_puts(&b, ", \"arena\": ");
    sb_json_str(&b, r->arena);
    sb_printf(&b, ", \"units\": %" PRIu64 ", \"unit\": ", r->units);
    sb_json_str(&b, r->unit);
    for (int e = 0; e < N_ENG; e++) {
      sb_printf(&b, ", \"%s\": ",
                e == ENG_GROVE     ? "grove"
                : e == ENG_JANSSON ? "jansson"
                                   : "cjson");
      json_cell(&b, &r->c[e]);
    }
    for (int e = ENG_JANSSON; e < N_ENG; e++) {
      const cell *g = &r->c[ENG_GROVE], *p = &r->c[e];
      sb_printf(&b, ", \"ratio_%s\": ", e == ENG_JANSSON ? "jansson" : "cjson");
      if (g->ok && p->ok && g->med > 0)
        sb_printf(&b, "%.4g", p->med / g->med);
      else
        sb_puts(&b, "null");
    }
    sb_printf(&b, "}%s\n", i + 1 < g_nrows ? "," : "");
  }
  sb_puts(&b, "  ]\n}\n");
  FILE *f = fopen(path, "w");
  if (!f) {
    fail("cannot write %s: %s", path, strerror(errno));
    free(b.p);
    return -1;
  }
  fwrite(b.p, 1, b.n, f);
  int rc = fclose(f);
  free(b.p);
  if (rc != 0) {
    fail("cannot write %s", path);
    return -1;
  }
  return 0;
}

/* ===========================================================================
 * main
 * =========================================================================== */

static void usage(FILE *f) {
  fprintf(f, "usage: grove-bench [--quick] [--json-out PATH] [--only WORKLOAD] [--op OP]\n"
             "  --quick        tiny repetition counts, W5 with 100 dicts, W4x 100000 deep\n"
             "  --json-out P   results file (default bench-results.json)\n"
             "  --only W       run one workload (W1, W2, W3, W4, W4x, W5, W5s)\n"
             "  --op OP        run one operation (build, parse, flatten, order, ...)\n");
}

int main(int argc, char **argv) {
  const char *json_out = "bench-results.json";
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) {
      g_quick = true;
    } else if (!strcmp(argv[i], "--json-out") && i + 1 < argc) {
      json_out = argv[++i];
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only = argv[++i];
    } else if (!strcmp(argv[i], "--op") && i + 1 < argc) {
      g_only_op = argv[++i];
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  init_keys();
  measure_timer_overhead();

  size_t n5 = g_quick ? 100 : 10000;
  size_t n4x = g_quick ? 100000 : 1000000;
  uint16_t *w2perm = xmalloc(1000 * sizeof *w2perm);
  shuffle(w2perm, 1000, 0);
  uint16_t *w5perm = xmalloc(n5 * 100 * sizeof *w5perm);
  for (size_t i = 0; i < n5; i++)
    shuffle(w5perm + i * 100, 100, i);

  workload ws[] = {
      {.name = "W1", .kind = WK1, .leaves = 6, .units = 6, .unit = "leaves"},
      {.name = "W2", .kind = WK2, .perm = w2perm, .leaves = 1000, .units = 1000, .unit = "leaves"},
      {.name = "W3", .kind = WK3, .leaves = 600, .units = 600, .unit = "leaves"},
      {.name = "W4", .kind = WK4, .n = 500, .leaves = 1, .units = 501, .unit = "nodes"},
      {.name = "W4x",
       .kind = WK4X,
       .n = n4x,
       .grove_only = true,
       .leaves = 1,
       .units = n4x + 1,
       .unit = "nodes"},
      {.name = "W5",
       .kind = WK5,
       .n = n5,
       .perm = w5perm,
       .leaves = n5 * 100,
       .units = n5 * 100,
       .unit = "leaves"},
      {.name = "W5s",
       .kind = WK5S,
       .n = n5,
       .leaves = n5 * 100,
       .units = n5 * 100,
       .unit = "leaves"},
  };
  size_t nw = sizeof ws / sizeof ws[0];

  /* RSS first, while this process is still small (a forked child inherits the
   * parent's resident pages in its ru_maxrss). */
  measure_rss(&ws[5]);

  bool any = false;
  for (size_t i = 0; i < nw; i++) {
    if (only && strcmp(only, ws[i].name) != 0) continue;
    any = true;
    run_workload(&ws[i]);
  }
  if (!any) {
    fprintf(stderr, "grove-bench: no workload named %s\n", only);
    return 2;
  }
  print_table();
  print_goals();
  write_json(json_out, &ws[5]);
  for (size_t i = 0; i < nw; i++)
    free(ws[i].text.p);
  free(w2perm);
  free(w5perm);
  free(g_rows);
  j_free_scratch();
  c_free_scratch();
  g_free_scratch();
  if (g_exit) fprintf(stderr, "grove-bench: there were failures (see above)\n");
  return g_exit;
}
