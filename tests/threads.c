/* SPDX-License-Identifier: MIT */
/* threads.c -- the thread rules of grove.h, exercised: one writer keeps
 * building in an arena (successes and failed, rolled-back operations) while
 * reader threads run the read-only calls on trees it published earlier, and
 * compare them with trees of a second arena. Run under ThreadSanitizer by
 * `make test-tsan`; a plain build runs it as an ordinary test. Exit 0 when
 * every reader saw the results it expected. */
#include "grove.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREADERS 3
#define MAXPUB 256
#define ROUNDS 2000
#define MIN_CHECKS 300 /* per reader, writer or not */

static const char *const SEEDS[] = {
    "[{'b': 1, 'a': [2, 3]}, (4, 5), 6]",
    "{'x': P(a=1, b=(2.5, None)), 'y': deque([1, 2], maxlen=3), (1, b'k'): 'v'}",
    "C({'k': [1, 2], 'j': {}}, meta=('m', 1))",
    "OrderedDict({'z': 1, 'a': [True, False]})",
    "defaultdict(list, {3: 'three', 1: 'one', 2.5: [None, *]})",
    "[[[[[[[[[[0]]]]]]]]]]",
    "{(True, (1.0,)): 1, (b'x',): 2, (2,): 3}",
};
#define NSEEDS (sizeof SEEDS / sizeof SEEDS[0])

typedef struct pub {
  const gv_node *node;  /* in arena a */
  const gv_node *other; /* the same tree in arena b */
  uint8_t fp[16];       /* its fingerprint, taken by the writer */
  uint64_t leaves;
} pub;

static gv_arena *g_a, *g_b;
static pub g_pub[MAXPUB];
static atomic_size_t g_npub;
static atomic_int g_stop;
static atomic_int g_errors;

static void fail(const char *what, const gv_error *e) {
  fprintf(stderr, "threads: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
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

static void check_one(const pub *p, const pub *q) {
  gv_error e;
  uint8_t fp[16];
  if (gv_fingerprint(g_a, p->node, fp, &e) != GV_OK || memcmp(fp, p->fp, 16) != 0)
    fail("fingerprint", &e);
  if (gv_fingerprint(g_b, p->other, fp, &e) != GV_OK || memcmp(fp, p->fp, 16) != 0)
    fail("fingerprint in b", &e);
  if (gv_same_structure(g_a, p->node, p->other, &e) != GV_OK) fail("same_structure a/b", &e);
  if (gv_same_paths(g_a, p->node, p->other, &e) != GV_OK) fail("same_paths a/b", &e);
  bool pre = false;
  if (gv_is_prefix(g_a, p->other, p->node, &pre, &e) != GV_OK || !pre) fail("is_prefix", &e);
  gv_status s = gv_same_structure(g_a, p->node, q->node, &e);
  if (s != GV_OK && s != GV_EMISMATCH) fail("same_structure p/q", &e);
  s = gv_same_paths(g_a, p->node, q->node, &e);
  if (s != GV_OK && s != GV_EMISMATCH) fail("same_paths p/q", &e);
  sink s1 = {0, 0}, s2 = {0, 0};
  if (gv_print(g_a, p->node, count_sink, &s1, &e) != GV_OK) fail("print", &e);
  if (gv_print(g_b, p->other, count_sink, &s2, &e) != GV_OK) fail("print b", &e);
  if (s1.n != s2.n || s1.h != s2.h) fail("print a and b differ", NULL);
  s = gv_print_json(g_a, p->node, count_sink, &s1, &e);
  if (s != GV_OK && s != GV_EINVAL) fail("print_json", &e);
  sink w = {0, 0};
  if (gv_encode(g_a, p->node, count_sink, &w, &e) != GV_OK) fail("encode", &e);
  const gv_node *buf[64];
  size_t n = 0;
  if (p->leaves <= 64) {
    if (gv_flatten(p->node, buf, 64, &n, &e) != GV_OK || n != p->leaves) fail("flatten", &e);
  }
  if (gv_num_leaves(p->node) != p->leaves) fail("num_leaves", NULL);
  if (gv_expanded_size(p->node) != gv_expanded_size(p->other)) fail("expanded size", NULL);
  for (size_t i = 0; i < gv_arity(p->node); i++) {
    const gv_node *k = gv_key(p->node, i);
    if (k && gv_get(p->node, k) != gv_child(p->node, i)) fail("get", NULL);
    const gv_node *k2 = gv_key(p->other, i);
    if (k && k2 && gv_key_cmp(k, k2) != 0) fail("key_cmp a/b", NULL);
  }
}

static void *reader(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1u;
  for (int done = 0; done < MIN_CHECKS || !atomic_load(&g_stop); done++) {
    size_t n = atomic_load_explicit(&g_npub, memory_order_acquire);
    if (n == 0) continue;
    seed = seed * 1103515245u + 12345u;
    const pub *p = &g_pub[(seed >> 8) % n];
    seed = seed * 1103515245u + 12345u;
    const pub *q = &g_pub[(seed >> 8) % n];
    check_one(p, q);
  }
  return NULL;
}

static gv_status add_one(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                         const gv_node **out) {
  (void)ctx, (void)n;
  if (gv_kind(v[0]) == GV_INT) return gv_int(a, gv_get_int(v[0]) + 1, out, NULL);
  *out = v[0];
  return GV_OK;
}

static gv_status fail_on_str(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                             const gv_node **out) {
  (void)ctx, (void)a, (void)n;
  if (gv_kind(v[0]) == GV_STR) return GV_EUSER;
  *out = v[0];
  return GV_OK;
}

/* Parses text in both arenas and publishes it. */
static void publish(const char *text) {
  size_t k = atomic_load(&g_npub);
  if (k == MAXPUB) return;
  pub *p = &g_pub[k];
  gv_error e;
  if (gv_parse(g_a, text, strlen(text), &p->node, &e) != GV_OK ||
      gv_parse(g_b, text, strlen(text), &p->other, &e) != GV_OK) {
    fail("parse", &e);
    return;
  }
  if (gv_fingerprint(g_a, p->node, p->fp, &e) != GV_OK) fail("writer fingerprint", &e);
  p->leaves = gv_num_leaves(p->node);
  atomic_store_explicit(&g_npub, k + 1, memory_order_release);
}

int main(void) {
  if (gv_arena_new(NULL, &g_a) != GV_OK || gv_arena_new(NULL, &g_b) != GV_OK) return 2;
  for (size_t i = 0; i < NSEEDS; i++)
    publish(SEEDS[i]);
  pthread_t th[NREADERS];
  for (uintptr_t i = 0; i < NREADERS; i++)
    if (pthread_create(&th[i], NULL, reader, (void *)i) != 0) return 2;
  /* the writer: builds, transforms, fails and rolls back, publishes more */
  char text[256];
  gv_error e;
  for (int r = 0; r < ROUNDS; r++) {
    snprintf(text, sizeof text, "{'r%d': [%d, %d.5, 'x%d'], 'k': (%d, {'z': %d})}", r, r, r, r, r,
             r * 7);
    const gv_node *t = NULL, *o = NULL;
    if (gv_parse(g_a, text, strlen(text), &t, &e) != GV_OK) fail("writer parse", &e);
    if (gv_order(g_a, t, &o, NULL, &e) != GV_OK) fail("writer order", &e);
    if (gv_structure(g_a, t, &o, &e) != GV_OK) fail("writer structure", &e);
    if (gv_map(g_a, add_one, NULL, &t, 1, true, &o, &e) != GV_OK) fail("writer map", &e);
    /* a failing operation: rolled back while the readers read */
    if (gv_map(g_a, fail_on_str, NULL, &t, 1, true, &o, &e) != GV_EUSER) fail("writer fail", &e);
    if (gv_parse(g_a, "[1, 2", 5, &o, &e) != GV_EPARSE) fail("writer bad parse", NULL);
    gv_mark m = gv_arena_mark(g_a);
    const gv_node *tmp;
    if (gv_parse(g_a, "[[9, 9], 'tmp']", 15, &tmp, &e) != GV_OK) fail("writer tmp", &e);
    if (gv_arena_rollback(g_a, &m) != GV_OK) fail("writer rollback", NULL);
    if (r % 16 == 0) publish(text);
  }
  atomic_store(&g_stop, 1);
  for (size_t i = 0; i < NREADERS; i++)
    pthread_join(th[i], NULL);
  gv_arena_free(g_a);
  gv_arena_free(g_b);
  int bad = atomic_load(&g_errors);
  if (bad) fprintf(stderr, "threads: %d failures\n", bad);
  return bad ? 1 : 0;
}
