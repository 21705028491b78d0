/* SPDX-License-Identifier: MIT */
/*
 * report.c -- the results: the Markdown table, the performance goals, the JSON
 * results file. Reported: the median, the interquartile range, ns per unit
 * (leaves, or nodes for W4/W4x), and peer_median / grove_median (> 1: grove
 * faster).
 */
#include "bench.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void print_table(void) {
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

void print_goals(void) {
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

int write_json(const char *path, const workload *w5) {
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
