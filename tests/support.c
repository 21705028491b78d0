/* SPDX-License-Identifier: MIT */
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>

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
