/* SPDX-License-Identifier: MIT */
/* support.h -- helpers shared by the Criterion tests. */
#ifndef GROVE_TEST_SUPPORT_H
#define GROVE_TEST_SUPPORT_H
#include "grove.h"
#include "internal.h"

/* A new unlimited arena (aborts the test on failure). */
gv_arena *t_arena(void);
/* Parse literal text (test fails on error). */
const gv_node *t_parse(gv_arena *a, const char *text);
/* Print a node as literal text into a static buffer. */
const char *t_repr(gv_arena *a, const gv_node *n);
/* Stats + table digest snapshot, for rollback checks. */
typedef gv__snapshot t_snapshot;
t_snapshot t_snap(const gv_arena *a);
int t_snap_eq(const t_snapshot *x, const t_snapshot *y);
/* The failing allocator of fail-the-Nth-allocation tests: once armed, the fail_at-th growing
 * allocation fails (counted in failed); everything else goes to realloc/free. */
typedef struct t_hook {
  int armed;
  long calls;   /* growing allocations since armed */
  long fail_at; /* which one fails */
  long failed;  /* failures injected */
} t_hook;
void *t_hook_realloc(void *ctx, void *p, size_t old_size, size_t new_size);

/* Callbacks: a write sink adding the bytes to *(size_t *)ctx; a walk_paths callback counting
 * the leaves in *(size_t *)ctx; a map function returning its first tree's leaf; a traverse
 * callback keeping every node. */
gv_status t_count_bytes(void *ctx, const char *d, size_t n);
/* A write sink into a fixed buffer (ctx is a t_fixed): GV_ENOMEM when the bytes do not fit, so
 * the call writing fails (the tests assert it succeeds). */
typedef struct t_fixed {
  unsigned char p[4096];
  size_t len;
} t_fixed;
gv_status t_fixed_sink(void *ctx, const char *d, size_t n);
gv_status t_count_paths(void *ctx, const gv_node *const *path, size_t depth, const gv_node *leaf);
gv_status t_map_first(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                      const gv_node **out);
gv_status t_visit_keep(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                       const gv_node **rep);
#endif
