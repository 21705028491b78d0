/* SPDX-License-Identifier: MIT */
/*
 * grove-bench -- grove side by side with jansson and cJSON.
 *
 * Workloads and performance goals: docs/benchmarks.md (W1..W5, W5s; W4x grove
 * only). The goals are checked by eye, never asserted.
 *
 * This file: the options, the workloads' sizes and the order of the run. The
 * files, each calling only those below it: bench.h.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
