/* SPDX-License-Identifier: MIT */
/* test_arena.c -- budgets, marks and rollback, stats, the allocator hook. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

typedef struct counting {
  size_t calls, fail_at, live;
} counting;

static void *counting_realloc(void *ctx, void *p, size_t old_size, size_t new_size) {
  counting *c = ctx;
  if (new_size == 0) {
    free(p);
    c->live -= old_size;
    return NULL;
  }
  if (new_size > old_size && ++c->calls == c->fail_at) return NULL;
  void *q = realloc(p, new_size);
  if (q) c->live = c->live - old_size + new_size;
  return q;
}

/* An int that is allocated (small ints are immediates and allocate nothing). */
#define BIG(i) (INT64_MIN + (int64_t)(i))

Test(arena, new_and_free_defaults) {
  gv_arena *a = NULL;
  cr_assert_eq(gv_arena_new(NULL, &a), GV_OK);
  gv_stats st;
  gv_arena_stats(a, &st);
  cr_assert_eq(st.nodes, 0);
  cr_assert_eq(st.bytes_used, 0);
  cr_assert_gt(st.bytes_reserved, 0);
  gv_arena_free(a);
  gv_arena_free(NULL);
  cr_assert_eq(gv_arena_new(NULL, NULL), GV_EINVAL);
}

Test(arena, hook_sees_everything_and_frees_it) {
  counting c = {0, 0, 0};
  gv_allocator al = {counting_realloc, &c};
  gv_arena_config cfg = {0, 0, &al, 0, 0, NULL};
  gv_arena *a;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *n;
  for (int i = 0; i < 5000; i++)
    cr_assert_eq(gv_int(a, BIG(i), &n, NULL), GV_OK);
  gv_stats st;
  gv_arena_stats(a, &st);
  cr_assert_eq(st.bytes_reserved, c.live, "reserved %zu, hook holds %zu", st.bytes_reserved,
               c.live);
  gv_arena_free(a);
  cr_assert_eq(c.live, 0);
}

Test(arena, budget_too_small_for_arena) {
  gv_arena_config cfg = {8, 0, NULL, 0, 0, NULL};
  gv_arena *a = NULL;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_ENOMEM);
  cr_assert_null(a);
}

Test(arena, budget_failure_leaves_arena_identical) {
  gv_arena_config cfg = {64 * 1024, 0, NULL, 0, 0, NULL};
  gv_arena *a;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *n, *first = NULL;
  gv_status s = GV_OK;
  int i;
  for (i = 0; s == GV_OK; i++) {
    t_snapshot before = t_snap(a);
    gv_error e;
    s = gv_int(a, BIG(i), &n, &e);
    if (i == 0) first = n;
    if (s != GV_OK) {
      cr_assert_eq(s, GV_ENOMEM);
      cr_assert_str_eq(e.msg, "out of memory budget (max_bytes 65536)");
      t_snapshot after = t_snap(a);
      cr_assert(t_snap_eq(&before, &after), "failed gv_int changed the arena");
    }
  }
  gv_stats st;
  gv_arena_stats(a, &st);
  cr_assert_leq(st.bytes_reserved, 64 * 1024);
  cr_assert_gt(i, 100);
  cr_assert_eq(gv_get_int(first), BIG(0)); /* earlier nodes intact */
  const gv_node *again;
  cr_assert_eq(gv_int(a, BIG(0), &again, NULL), GV_OK);
  cr_assert_eq(again, first);
  gv_arena_free(a);
}

/* GV_ENOMEM says which: the budget ("out of memory budget (max_bytes N)") or
 * the allocator ("out of memory (allocation of N bytes failed)"), for writers
 * (whose scratch is counted) and readers (whose scratch comes from the hook). */
static gv_status sink(void *ctx, const char *d, size_t n) {
  (void)ctx, (void)d, (void)n;
  return GV_OK;
}
Test(arena, out_of_memory_says_budget_or_allocation) {
  /* the allocator fails, no budget set */
  counting c = {0, 0, 0};
  gv_allocator al = {counting_realloc, &c};
  gv_arena_config cfg = {0, 0, &al, 0, 0, NULL};
  gv_arena *a = NULL;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *n = NULL, *deep = NULL;
  gv_error e;
  c.fail_at = c.calls + 1;
  cr_assert_eq(gv_int(a, BIG(1), &n, &e), GV_ENOMEM);
  cr_assert(strncmp(e.msg, "out of memory (allocation of ", 29) == 0, "%s", e.msg);
  cr_assert(strstr(e.msg, " bytes failed)"), "%s", e.msg);
  cr_assert_null(strstr(e.msg, "budget"), "%s", e.msg);
  /* the same from the parser, with its position */
  c.fail_at = c.calls + 1;
  cr_assert_eq(gv_parse(a, "[123456789012345678901.5]", 25, &n, &e), GV_ENOMEM);
  cr_assert(strstr(e.msg, "out of memory (allocation of "), "%s", e.msg);
  /* a reader's scratch: a tree deep enough for the printer to need more than its stack */
  c.fail_at = 0;
  char text[4002];
  memset(text, '[', 2000);
  memset(text + 2000, ']', 2000);
  cr_assert_eq(gv_parse(a, text, 4000, &deep, &e), GV_OK, "%s", e.msg);
  c.fail_at = c.calls + 1;
  cr_assert_eq(gv_print(a, deep, sink, NULL, &e), GV_ENOMEM);
  cr_assert(strncmp(e.msg, "out of memory (allocation of ", 29) == 0, "%s", e.msg);
  c.fail_at = 0;
  gv_arena_free(a);
  /* the budget refuses: its size is in the message, for every writer */
  gv_arena_config small = {16 * 1024, 0, NULL, 0, 0, NULL};
  cr_assert_eq(gv_arena_new(&small, &a), GV_OK);
  gv_status s = GV_OK;
  for (int i = 0; s == GV_OK; i++)
    s = gv_int(a, BIG(i), &n, &e);
  cr_assert_eq(s, GV_ENOMEM);
  cr_assert_str_eq(e.msg, "out of memory budget (max_bytes 16384)");
  cr_assert_eq(gv_parse(a, text, 4000, &n, &e), GV_ENOMEM);
  cr_assert_str_eq(e.msg, "out of memory budget (max_bytes 16384)");
  /* the text of a tree (of another arena) printed into the full one */
  gv_arena *other = t_arena();
  const gv_node *item = t_parse(other, "'a long string to print'"), *items[400], *wide = NULL;
  for (int i = 0; i < 400; i++)
    items[i] = item;
  cr_assert_eq(gv_list(other, items, 400, &wide, NULL), GV_OK); /* 10 KB of text */
  const char *str = NULL;
  size_t len = 0;
  cr_assert_eq(gv_print_str(a, wide, false, &str, &len, &e), GV_ENOMEM);
  cr_assert_str_eq(e.msg, "out of memory budget (max_bytes 16384)");
  gv_arena_free(other);
  gv_arena_free(a);
}

Test(arena, rollback_to_mark_restores_bytes_and_table) {
  gv_arena *a = t_arena();
  const gv_node *n, *keep;
  cr_assert_eq(gv_str(a, "keep", 4, &keep, NULL), GV_OK);
  t_snapshot before = t_snap(a);
  gv_mark m = gv_arena_mark(a);
  /* enough to grow chunks, entries and the table several times */
  for (int i = 0; i < 100000; i++)
    cr_assert_eq(gv_int(a, BIG(i), &n, NULL), GV_OK);
  t_snapshot mid = t_snap(a);
  cr_assert_gt(mid.st.nodes, before.st.nodes);
  gv_arena_rollback(a, &m);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  const gv_node *k2;
  cr_assert_eq(gv_str(a, "keep", 4, &k2, NULL), GV_OK);
  cr_assert_eq(k2, keep);
  gv_arena_free(a);
}

Test(arena, nested_marks) {
  gv_arena *a = t_arena();
  const gv_node *n;
  gv_mark m1 = gv_arena_mark(a);
  cr_assert_eq(gv_int(a, BIG(1), &n, NULL), GV_OK);
  t_snapshot s1 = t_snap(a);
  gv_mark m2 = gv_arena_mark(a);
  cr_assert_eq(gv_int(a, BIG(2), &n, NULL), GV_OK);
  gv_arena_rollback(a, &m2);
  t_snapshot s2 = t_snap(a);
  cr_assert(t_snap_eq(&s1, &s2));
  gv_arena_rollback(a, &m1);
  gv_stats st;
  gv_arena_stats(a, &st);
  cr_assert_eq(st.nodes, 0);
  cr_assert_eq(st.bytes_used, 0);
  gv_arena_free(a);
}

Test(arena, fail_every_allocation_in_turn) {
  /* fail the N-th allocation, N = 1, 2, ... until a whole build succeeds */
  for (size_t fail = 1;; fail++) {
    counting c = {0, 0, 0};
    gv_allocator al = {counting_realloc, &c};
    gv_arena_config cfg = {0, 0, &al, 0, 0, NULL};
    gv_arena *a;
    cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
    const gv_node *k[3], *v[3], *d;
    cr_assert_eq(gv_str(a, "b", 1, &k[0], NULL), GV_OK);
    cr_assert_eq(gv_str(a, "a", 1, &k[1], NULL), GV_OK);
    cr_assert_eq(gv_str(a, "c", 1, &k[2], NULL), GV_OK);
    for (int i = 0; i < 3; i++)
      cr_assert_eq(gv_int(a, i, &v[i], NULL), GV_OK);
    t_snapshot before = t_snap(a);
    c.calls = 0;
    c.fail_at = fail;
    gv_status s = gv_dict(a, k, v, 3, &d, NULL);
    if (s == GV_OK) {
      cr_assert_eq(gv_arity(d), 3);
      gv_arena_free(a);
      cr_assert_gt(fail, 1);
      break;
    }
    cr_assert_eq(s, GV_ENOMEM);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after), "failure %zu changed the arena", fail);
    gv_arena_free(a);
    cr_assert_eq(c.live, 0);
  }
}

Test(arena, node_at_walks_creation_order) {
  gv_arena *a = t_arena();
  const gv_node *x, *y;
  const gv_node *imm;
  cr_assert_eq(gv_int(a, BIG(7), &x, NULL), GV_OK);
  cr_assert_eq(gv_int(a, 7, &imm, NULL), GV_OK); /* an immediate: not listed */
  cr_assert_eq(gv_str(a, "s", 1, &y, NULL), GV_OK);
  cr_assert_eq(gv_arena_node_at(a, 0), x);
  cr_assert_eq(gv_arena_node_at(a, 1), y);
  cr_assert_null(gv_arena_node_at(a, 2));
  cr_assert_null(gv_arena_node_at(NULL, 0));
  gv_arena_free(a);
}

/* Builds batch `b` of a mix of interned nodes: strs, pairs of them, and
 * dicts of 8..11 of them (sorted keysets of 8+ keys also take a secondary
 * slot in the table). */
static void build_batch(gv_arena *a, int b, int n) {
  char s[32];
  const gv_node *keys[12], *vals[12], *prev = NULL;
  for (int i = 0; i < n; i++) {
    int len = snprintf(s, sizeof s, "b%d-%d", b, i);
    const gv_node *x;
    cr_assert_eq(gv_str(a, s, (size_t)len, &x, NULL), GV_OK);
    if (prev) {
      const gv_node *two[2] = {prev, x}, *t;
      cr_assert_eq(gv_tuple(a, two, 2, &t, NULL), GV_OK);
    }
    keys[i % 12] = x;
    vals[i % 12] = prev ? prev : x;
    if (i % 12 == 11) {
      const gv_node *d;
      size_t k = 8 + (size_t)(i / 12) % 4;
      cr_assert_eq(gv_dict(a, keys, vals, k, &d, NULL), GV_OK);
    }
    prev = x;
  }
}

/* The intern table's layout is a function of what it holds: taking slots out
 * of their runs, growing the table (one doubling at a time, or several at once
 * for a big flatten_with_path) and shrinking it back on rollback, with or
 * without memory for a new table, leaves it byte for byte as it was. */
Test(arena, table_layout_survives_growth_and_rollback) {
  t_hook h = {0};
  gv_allocator al = {t_hook_realloc, &h};
  gv_arena_config cfg = {.alloc = &al, .seed = 12345};
  gv_arena *a;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  for (int round = 0; round < 4; round++) {
    build_batch(a, round, 3000 + 1000 * round);
    t_snapshot before = t_snap(a);
    gv_mark m = gv_arena_mark(a);
    build_batch(a, 50 + round, 400); /* slots taken out of their runs, table kept */
    cr_assert_eq(gv_arena_rollback(a, &m), GV_OK);
    t_snapshot small = t_snap(a);
    cr_assert(t_snap_eq(&before, &small), "round %d: a rollback without growth changed the table",
              round);
    m = gv_arena_mark(a);
    if (round == 1) { /* several doublings at once: one tuple pair per leaf */
      const gv_node *items[4000], *t, *out;
      for (int i = 0; i < 4000; i++)
        cr_assert_eq(gv_int(a, BIG(i), &items[i], NULL), GV_OK);
      cr_assert_eq(gv_list(a, items, 4000, &t, NULL), GV_OK);
      cr_assert_eq(gv_flatten_with_path(a, t, &out, NULL), GV_OK);
    }
    build_batch(a, 100 + round, 20000);
    gv_stats grown;
    gv_arena_stats(a, &grown);
    cr_assert_gt(grown.table_slots, before.st.table_slots, "round %d: the table did not grow",
                 round);
    if (round == 2) { /* no memory for a new table: the shrink is done in place */
      h.armed = 1;
      h.calls = 0;
      h.fail_at = 1;
    }
    cr_assert_eq(gv_arena_rollback(a, &m), GV_OK);
    if (round == 2) cr_assert_eq(h.failed, 1, "the shrink did not try a new table");
    h.armed = 0;
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after), "round %d: table %zu -> %zu slots, digest %s", round,
              before.st.table_slots, after.st.table_slots,
              before.digest == after.digest ? "same" : "differs");
    /* and every node is still found: rebuilding the batches adds nothing */
    for (int b = 0; b <= round; b++)
      build_batch(a, b, 3000 + 1000 * b);
    gv_stats again;
    gv_arena_stats(a, &again);
    cr_assert_eq(again.nodes, before.st.nodes, "round %d: a node was not found again", round);
  }
  gv_arena_free(a);
}
