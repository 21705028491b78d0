/* SPDX-License-Identifier: MIT */
/* grove-children -- the cost of a child arena: creation and free of a child of a frozen
 * parent, empty and with one small request built in it (parse + order of a W5-style record
 * whose keys the parent holds), in ns per child. Prints one line per measurement; nothing is
 * asserted. `grove-children [N]` runs N children per measurement (default 1,000,000). */
#define _POSIX_C_SOURCE 200809L
#include <grove.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  if (n <= 0) n = 1;
  gv_arena *p = NULL;
  char rec[2048], sorted[2048];
  size_t k = 0, m = 0;
  k += (size_t)snprintf(rec + k, sizeof rec - k, "{");
  m += (size_t)snprintf(sorted + m, sizeof sorted - m, "{");
  for (int i = 0; i < 100; i++) { /* keys in a fixed shuffled order (i * 37 mod 100) */
    k += (size_t)snprintf(rec + k, sizeof rec - k, "%s'f%02d': %d", i ? ", " : "", i * 37 % 100, i);
    m += (size_t)snprintf(sorted + m, sizeof sorted - m, "%s'f%02d': 0", i ? ", " : "", i);
  }
  snprintf(rec + k, sizeof rec - k, "}");
  snprintf(sorted + m, sizeof sorted - m, "}");
  const gv_node *t = NULL;
  if (gv_arena_new(NULL, &p) != GV_OK || gv_parse(p, sorted, strlen(sorted), &t, NULL) != GV_OK ||
      gv_arena_freeze(p) != GV_OK)
    return 1;
  gv_arena_config cfg = {.parent = p};
  for (int round = 0; round < 2; round++) { /* the first round warms up */
    double t0 = now();
    for (long i = 0; i < n; i++) {
      gv_arena *c = NULL;
      if (gv_arena_new(&cfg, &c) != GV_OK) return 1;
      gv_arena_free(c);
    }
    double t1 = now();
    long small = n / 10 ? n / 10 : 1;
    for (long i = 0; i < small; i++) {
      gv_arena *c = NULL;
      const gv_node *x = NULL, *o = NULL;
      if (gv_arena_new(&cfg, &c) != GV_OK || gv_parse(c, rec, strlen(rec), &x, NULL) != GV_OK ||
          gv_order(c, x, &o, NULL, NULL) != GV_OK)
        return 1;
      gv_arena_free(c);
    }
    double t2 = now();
    gv_arena *own = NULL;
    if (gv_arena_new(NULL, &own) != GV_OK) return 1;
    for (long i = 0; i < small; i++) { /* the same request in one arena, rolled back each time */
      gv_mark mk = gv_arena_mark(own);
      const gv_node *x = NULL, *o = NULL;
      if (gv_parse(own, rec, strlen(rec), &x, NULL) != GV_OK ||
          gv_order(own, x, &o, NULL, NULL) != GV_OK || gv_arena_rollback(own, &mk) != GV_OK)
        return 1;
    }
    double t3 = now();
    gv_arena_free(own);
    if (round == 1) {
      printf("child arena create+free (empty):            %7.1f ns\n", (t1 - t0) * 1e9 / (double)n);
      printf("child arena + parse + order of a record:    %7.1f ns\n",
             (t2 - t1) * 1e9 / (double)small);
      printf("one arena, parse + order + rollback:        %7.1f ns\n",
             (t3 - t2) * 1e9 / (double)small);
    }
  }
  gv_arena_free(p);
  return 0;
}
