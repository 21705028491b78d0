/* SPDX-License-Identifier: MIT */
/* threads_children.c -- the frozen-parent rules of grove.h, exercised: builder threads each
 * build in children of one frozen parent (trees made of the parent's subtrees and their own,
 * failing and rolled-back builds, copies between their own children, compaction) while reader
 * threads read the parent's trees directly. Every thread also reads the parent's and its own
 * trees (flatten, print, order, same_structure, fingerprint) and checks the results against
 * what the main thread computed before they started. The main thread lets go of the parent
 * while they run: the parent lives on through the children, and the last child frees it.
 * Run under ThreadSanitizer by `make test-tsan`. Exit 0 when every check passed. */
#include "grove.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUILDERS 3
#define NREADERS 2
#define ROUNDS 300

static const char *const SEEDS[] = {
    "{'name': 'seed', 'id': 1, 'tags': ['a', 'b'], 'pos': (1.5, 0.1), 'zz': None}",
    "[{'b': 1, 'a': [2, 3]}, (4, 5), 6, 'a string in the parent']",
    "{'l': 1, 'k': 2, 'j': 3, 'i': 4, 'h': 5, 'g': 6, 'f': 7, 'e': 8, 'd': 9, 'c': 10}",
    "P(x=1, y=(2.5, None))",
    "{(True, (1.0,)): 1, (b'x',): 2, (2,): 3}",
    "OrderedDict({'z': [1, 2], 'a': deque([3], maxlen=2)})",
};
#define NSEEDS (sizeof SEEDS / sizeof SEEDS[0])

typedef struct seed {
  const gv_node *node; /* in the parent */
  const gv_node *ordered;
  uint8_t fp[16], ofp[16];
  uint64_t leaves;
  size_t print_len;
} seed;

static gv_arena *g_parent;
static seed g_seed[NSEEDS];
static atomic_int g_errors;
static atomic_int g_ready;

static void fail(const char *what, const gv_error *e) {
  fprintf(stderr, "threads_children: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
  atomic_fetch_add(&g_errors, 1);
}

typedef struct sink {
  size_t n;
  uint64_t h;
} sink;
static gv_status count_sink(void *ctx, const char *d, size_t len) {
  sink *s = ctx;
  for (size_t i = 0; i < len; i++)
    s->h = (s->h ^ (unsigned char)d[i]) * 0x100000001b3ull;
  s->n += len;
  return GV_OK;
}

/* The readers' checks of one parent tree, through arena a (the parent or a child of it). */
static void check_seed(const gv_arena *a, const seed *s, const seed *other) {
  gv_error e;
  uint8_t fp[16];
  if (gv_fingerprint(a, s->node, fp, &e) != GV_OK || memcmp(fp, s->fp, 16) != 0)
    fail("fingerprint", &e);
  if (gv_same_structure(a, s->node, s->node, &e) != GV_OK) fail("same_structure", &e);
  gv_status st = gv_same_structure(a, s->node, other->node, &e);
  if (st != GV_OK && st != GV_EMISMATCH) fail("same_structure other", &e);
  sink k = {0, 0};
  if (gv_print(a, s->node, count_sink, &k, &e) != GV_OK || k.n != s->print_len) fail("print", &e);
  const gv_node *buf[64];
  size_t n = 0;
  if (gv_flatten(s->node, buf, 64, &n, &e) != GV_OK || n != s->leaves) fail("flatten", &e);
}

static void *reader(void *arg) {
  unsigned r = (unsigned)(uintptr_t)arg * 2654435761u + 1u;
  /* a child of its own keeps the parent alive after main lets go of it */
  gv_arena_config cfg = {.parent = g_parent};
  gv_arena *hold = NULL;
  if (gv_arena_new(&cfg, &hold) != GV_OK) {
    fail("reader child", NULL);
    atomic_fetch_add(&g_ready, 1);
    return NULL;
  }
  const gv_arena *p = gv_arena_parent(hold);
  atomic_fetch_add(&g_ready, 1);
  for (int i = 0; i < ROUNDS * 2; i++) {
    r = r * 1103515245u + 12345u;
    const seed *s = &g_seed[(r >> 8) % NSEEDS];
    r = r * 1103515245u + 12345u;
    check_seed(p, s, &g_seed[(r >> 8) % NSEEDS]);
    gv_stats st;
    gv_arena_stats(p, &st); /* a frozen arena's stats may be read anywhere */
    if (st.nodes == 0) fail("parent stats", NULL);
  }
  gv_arena_free(hold);
  return NULL;
}

static gv_status add_one(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                         const gv_node **out) {
  (void)ctx, (void)n;
  if (gv_kind(v[0]) == GV_INT) return gv_int(a, gv_get_int(v[0]) + 1, out, NULL);
  *out = v[0];
  return GV_OK;
}

static void *builder(void *arg) {
  unsigned id = (unsigned)(uintptr_t)arg;
  gv_arena_config cfg = {.parent = g_parent, .max_bytes = 256 * 1024};
  gv_arena *c = NULL, *c2 = NULL;
  if (gv_arena_new(&cfg, &c) != GV_OK || gv_arena_new(&cfg, &c2) != GV_OK) {
    fail("builder child", NULL);
    atomic_fetch_add(&g_ready, 1);
    return NULL;
  }
  atomic_fetch_add(&g_ready, 1);
  char text[1024];
  gv_error e;
  for (int r = 0; r < ROUNDS; r++) {
    size_t k = (size_t)(r + (int)id) % NSEEDS;
    const seed *s = &g_seed[k];
    /* a tree of the parent's seed and the builder's own leaves */
    snprintf(text, sizeof text, "{'own%u': [%d, 'x%d'], 'seed': %s, 'n': %d.25}", id, r, r,
             SEEDS[k], r);
    gv_mark m = gv_arena_mark(c);
    const gv_node *t = NULL, *o = NULL, *cp = NULL;
    if (gv_parse(c, text, strlen(text), &t, &e) != GV_OK) {
      fail("parse", &e);
      continue;
    }
    if (gv_get(t, gv_key(t, 1)) != s->node) fail("the parent's seed is not shared", NULL);
    check_seed(c, s, &g_seed[(k + 1) % NSEEDS]);
    /* order: the seed's ordered form is the one the parent holds, when the parent has it */
    if (gv_order(c, s->node, &o, NULL, &e) != GV_OK) fail("order", &e);
    uint8_t fp[16];
    if (gv_fingerprint(c, o, fp, &e) != GV_OK || memcmp(fp, s->ofp, 16) != 0)
      fail("order fingerprint", &e);
    if (s->ordered && o != s->ordered) fail("order did not find the parent's node", NULL);
    if (gv_order(c, t, &o, NULL, &e) != GV_OK) fail("order own", &e);
    if (gv_same_structure(c, t, o, &e) != GV_OK) fail("same_structure own", &e);
    if (gv_map(c, add_one, NULL, &t, 1, true, &o, &e) != GV_OK) fail("map", &e);
    sink k1 = {0, 0};
    if (gv_print(c, t, count_sink, &k1, &e) != GV_OK) fail("print own", &e);
    /* copy into the second child: the seed stays the parent's */
    if (gv_copy(c2, t, &cp, &e) != GV_OK) {
      fail("copy", &e);
    } else {
      if (gv_get(cp, gv_key(cp, 1)) != s->node) fail("copy did not share the seed", NULL);
      uint8_t f1[16], f2[16];
      if (gv_fingerprint(c, t, f1, &e) != GV_OK || gv_fingerprint(c2, cp, f2, &e) != GV_OK ||
          memcmp(f1, f2, 16) != 0)
        fail("copy fingerprint", &e);
    }
    /* a build over the budget fails and leaves the child as it was */
    gv_stats before, after;
    const gv_node *big = NULL;
    const gv_node *items[512];
    for (int i = 0; i < 512; i++)
      items[i] = t;
    gv_status bs = GV_OK;
    /* up to 100 new lists of 4 KiB, each holding the one before (once: the
     * leaf count stays far from 2^64) -- over 256 KiB */
    for (int i = 0; i < 100; i++) {
      gv_arena_stats(c, &before);
      bs = gv_list(c, items, 512, &big, NULL);
      if (bs != GV_OK) break;
      items[0] = big;
    }
    gv_arena_stats(c, &after);
    if (bs != GV_ENOMEM) fail("a build over the budget did not run out of it", NULL);
    if (memcmp(&before, &after, sizeof before) != 0) fail("a failed build changed the child", NULL);
    if (after.bytes_reserved > cfg.max_bytes) fail("budget exceeded", NULL);
    if (gv_arena_rollback(c, &m) != GV_OK) fail("rollback", NULL);
    if (r % 50 == 49) { /* compaction of the second child keeps only the last copy */
      gv_arena *f = NULL;
      const gv_node *root = cp;
      if (cp && gv_arena_compact(c2, &root, 1, &f, &root, &e) == GV_OK) {
        if (gv_get(root, gv_key(root, 1)) != s->node) fail("compact did not share", NULL);
        gv_arena_free(c2);
        c2 = f;
      } else {
        fail("compact", &e);
      }
    }
  }
  gv_arena_free(c);
  gv_arena_free(c2);
  return NULL;
}

int main(void) {
  if (gv_arena_new(NULL, &g_parent) != GV_OK) return 2;
  gv_error e;
  for (size_t i = 0; i < NSEEDS; i++) {
    seed *s = &g_seed[i];
    const gv_node *o = NULL;
    if (gv_parse(g_parent, SEEDS[i], strlen(SEEDS[i]), &s->node, &e) != GV_OK ||
        gv_order(g_parent, s->node, &o, NULL, &e) != GV_OK ||
        gv_fingerprint(g_parent, s->node, s->fp, &e) != GV_OK ||
        gv_fingerprint(g_parent, o, s->ofp, &e) != GV_OK) {
      fail("main", &e);
      return 1;
    }
    s->ordered = o;
    s->leaves = gv_num_leaves(s->node);
    sink k = {0, 0};
    if (gv_print(g_parent, s->node, count_sink, &k, &e) != GV_OK) return 1;
    s->print_len = k.n;
  }
  if (gv_arena_freeze(g_parent) != GV_OK) return 1;
  pthread_t th[NBUILDERS + NREADERS];
  for (uintptr_t i = 0; i < NBUILDERS; i++)
    if (pthread_create(&th[i], NULL, builder, (void *)i) != 0) return 2;
  for (uintptr_t i = 0; i < NREADERS; i++)
    if (pthread_create(&th[NBUILDERS + i], NULL, reader, (void *)i) != 0) return 2;
  /* once every thread holds a child, the owner lets go: the last child frees the parent */
  while (atomic_load(&g_ready) < NBUILDERS + NREADERS)
    ;
  gv_arena_free(g_parent);
  for (size_t i = 0; i < NBUILDERS + NREADERS; i++)
    pthread_join(th[i], NULL);
  int bad = atomic_load(&g_errors);
  if (bad) fprintf(stderr, "threads_children: %d failures\n", bad);
  return bad ? 1 : 0;
}
