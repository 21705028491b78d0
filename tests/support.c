/* SPDX-License-Identifier: MIT */
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

gv_arena *t_arena(void) {
  gv_arena *a = NULL;
  cr_assert_eq(gv_arena_new(NULL, &a), GV_OK);
  return a;
}

const gv_node *t_parse(gv_arena *a, const char *text) {
  const gv_node *n = NULL;
  gv_error e;
  gv_status s = gv_parse(a, text, strlen(text), &n, &e);
  cr_assert_eq(s, GV_OK, "parse %s: %s", text, e.msg);
  return n;
}

const char *t_repr(gv_arena *a, const gv_node *n) {
  const char *s = NULL;
  size_t len = 0;
  gv_error e;
  cr_assert_eq(gv_print_str(a, n, false, &s, &len, &e), GV_OK, "print: %s", e.msg);
  return s;
}

t_snapshot t_snap(const gv_arena *a) {
  return gv__snap(a);
}

int t_snap_eq(const t_snapshot *x, const t_snapshot *y) {
  return gv__snap_eq(x, y);
}

/* Callbacks for tests that only need something to call. */
gv_status t_count_bytes(void *ctx, const char *d, size_t n) {
  (void)d;
  *(size_t *)ctx += n;
  return GV_OK;
}
gv_status t_fixed_sink(void *ctx, const char *d, size_t n) {
  t_fixed *w = ctx;
  if (n > sizeof w->p - w->len) return GV_ENOMEM;
  memcpy(w->p + w->len, d, n);
  w->len += n;
  return GV_OK;
}
gv_status t_count_paths(void *ctx, const gv_node *const *path, size_t depth, const gv_node *leaf) {
  (void)path, (void)depth, (void)leaf;
  (*(size_t *)ctx)++;
  return GV_OK;
}
gv_status t_map_first(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                      const gv_node **out) {
  (void)ctx, (void)a, (void)n;
  *out = v[0];
  return GV_OK;
}
gv_status t_visit_keep(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                       const gv_node **rep) {
  (void)ctx, (void)a, (void)node, (void)rep;
  *act = GV_VISIT_KEEP;
  return GV_OK;
}

void *t_hook_realloc(void *ctx, void *p, size_t old_size, size_t new_size) {
  t_hook *h = ctx;
  if (new_size == 0) {
    free(p);
    return NULL;
  }
  if (new_size > old_size && h->armed && ++h->calls == h->fail_at) {
    h->failed++;
    return NULL;
  }
  return realloc(p, new_size);
}
