/* SPDX-License-Identifier: MIT */
/* deepstack.c -- no function recurses: every operation on 1,000,000-deep
 * trees (each container kind, through the parser and the C API), gv_key_cmp
 * and cross-arena equality on 1,000,000-deep tuples, and the DAG passes, all
 * run in a thread with a 64 KiB stack. Any recursion over the depth would need
 * tens of megabytes of stack and crash. Exit 0 when every check holds.
 *
 * Sanitizer builds (tests/CMakeLists.txt defines DEEP) use 100,000 levels:
 * under ASan every level costs about ten times the work, and 1,000,000 took
 * 170 CPU-s, past the ctest timeout on a loaded machine. 100,000 still proves
 * the point: a recursion of 64 KiB fits 2,048 frames of 32 bytes (fewer with
 * ASan's redzones), 50 times fewer than the levels walked. */
#include "grove.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DEEP
#define DEEP 1000000
#endif
#define STACK (64 * 1024)

static int g_fail;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "deepstack:%d: ", __LINE__);                                                 \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      g_fail = 1;                                                                                  \
    }                                                                                              \
  } while (0)

typedef struct kind_text {
  const char *open, *close;
} kind_text;

static const kind_text KINDS[] = {
    {"[", "]"},
    {"(", ",)"},
    {"{0: ", "}"},
    {"OrderedDict({0: ", "})"},
    {"defaultdict(list, {0: ", "})"},
    {"deque([", "])"},
    {"P(x=", ")"},
    {"C([", "])"},
};

static char *deep_text(const kind_text *k, size_t depth, const char *leaf, size_t *len) {
  size_t lo = strlen(k->open), lc = strlen(k->close), ll = strlen(leaf);
  size_t n = depth * (lo + lc) + ll;
  char *s = malloc(n + 1), *w = s;
  if (!s) abort();
  for (size_t i = 0; i < depth; i++, w += lo)
    memcpy(w, k->open, lo);
  memcpy(w, leaf, ll);
  w += ll;
  for (size_t i = 0; i < depth; i++, w += lc)
    memcpy(w, k->close, lc);
  *w = 0;
  *len = n;
  return s;
}

static gv_status sink(void *ctx, const char *d, size_t n) {
  (void)d;
  *(size_t *)ctx += n;
  return GV_OK;
}
static gv_status count_paths(void *ctx, const gv_node *const *path, size_t depth,
                             const gv_node *leaf) {
  (void)path, (void)leaf;
  *(size_t *)ctx += depth;
  return GV_OK;
}
static gv_status f_first(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                         const gv_node **out) {
  (void)ctx, (void)a, (void)n;
  *out = v[0];
  return GV_OK;
}
static gv_status f_keep(void *ctx, gv_arena *a, const gv_node *node, gv_visit *act,
                        const gv_node **rep) {
  (void)ctx, (void)a, (void)node, (void)rep;
  *act = GV_VISIT_KEEP;
  return GV_OK;
}
static gv_status f_star(void *ctx, gv_arena *a, const gv_node *const *v, size_t n,
                        const gv_node **out) {
  (void)ctx, (void)v, (void)n;
  return gv_star(a, out, NULL);
}

/* Every operation on one 1,000,000-deep tree of one kind. */
static void deep_kind(size_t ki) {
  gv_arena *a = NULL, *b = NULL;
  if (gv_arena_new(NULL, &a) != GV_OK || gv_arena_new(NULL, &b) != GV_OK) abort();
  gv_error e;
  size_t len = 0, n = 0;
  char *text = deep_text(&KINDS[ki], DEEP, "1", &len);
  const gv_node *t = NULL, *t2 = NULL, *r = NULL, *s = NULL, *leaf = NULL;
  /* a second arena for some kinds (namedtuple and custom types compare by
   * value across arenas); the same arena otherwise, to keep the test short */
  int cross = ki == 0 || ki == 6 || ki == 7;
  CHECK(gv_parse(a, text, len, &t, &e) == GV_OK, "kind %zu: parse: %s", ki, e.msg);
  CHECK(gv_parse(cross ? b : a, text, len, &t2, &e) == GV_OK, "kind %zu: parse b: %s", ki, e.msg);
  if (!t || !t2) goto out;
  CHECK(gv_flatten(t, &leaf, 1, &n, &e) == GV_OK && n == 1, "kind %zu: flatten", ki);
  const char *str = NULL;
  size_t slen = 0;
  CHECK(gv_print_str(a, t, false, &str, &slen, &e) == GV_OK && slen == len &&
            memcmp(str, text, len) == 0,
        "kind %zu: print", ki);
  size_t bytes = 0;
  gv_status js = gv_print_json(a, t, sink, &bytes, &e);
  CHECK(js == GV_OK || js == GV_EINVAL, "kind %zu: print_json %d", ki, (int)js);
  CHECK(gv_structure(a, t, &s, &e) == GV_OK, "kind %zu: structure: %s", ki, e.msg);
  CHECK(gv_order(a, t, &r, NULL, &e) == GV_OK && r == t, "kind %zu: order", ki);
  CHECK(gv_lists_to_tuples(a, t, &r, &e) == GV_OK, "kind %zu: l2t", ki);
  CHECK(gv_same_structure(a, t, t2, &e) == GV_OK, "kind %zu: same_structure a/b: %s", ki, e.msg);
  CHECK(gv_same_structure(a, t, s, &e) == GV_OK, "kind %zu: same_structure t/s: %s", ki, e.msg);
  CHECK(gv_same_paths(a, t, t2, &e) == GV_OK, "kind %zu: same_paths: %s", ki, e.msg);
  CHECK(gv_same_paths(a, t, s, &e) == GV_OK, "kind %zu: same_paths t/s: %s", ki, e.msg);
  bool pre = false;
  CHECK(gv_is_prefix(a, s, t, &pre, &e) == GV_OK && pre, "kind %zu: is_prefix", ki);
  size_t depth_sum = 0;
  CHECK(gv_walk_paths(a, t, count_paths, &depth_sum, &e) == GV_OK && depth_sum == DEEP,
        "kind %zu: walk_paths", ki);
  CHECK(gv_flatten_with_path(a, t, &r, &e) == GV_OK, "kind %zu: flatten_with_path: %s", ki, e.msg);
  CHECK(gv_pack_sequence_as(a, s, &leaf, 1, &r, &e) == GV_OK && r == t, "kind %zu: pack", ki);
  CHECK(gv_map(a, f_first, NULL, &t, 1, true, &r, &e) == GV_OK && r == t, "kind %zu: map", ki);
  const gv_node *two[2] = {t, t2};
  CHECK(gv_map(a, f_first, NULL, two, 2, true, &r, &e) == GV_OK, "kind %zu: map2: %s", ki, e.msg);
  CHECK(gv_map_up_to(a, s, f_star, NULL, &t, 1, &r, &e) == GV_OK && r == s, "kind %zu: up_to", ki);
  CHECK(gv_map_shape(a, f_first, NULL, t, &r, &e) == GV_OK && r == t, "kind %zu: map_shape", ki);
  CHECK(gv_traverse(a, t, true, f_keep, NULL, &r, &e) == GV_OK && r == t, "kind %zu: td", ki);
  CHECK(gv_traverse(a, t, false, f_keep, NULL, &r, &e) == GV_OK && r == t, "kind %zu: bu", ki);
  uint8_t f1[16], f2[16];
  CHECK(gv_fingerprint(a, t, f1, &e) == GV_OK && gv_fingerprint(b, t2, f2, &e) == GV_OK &&
            memcmp(f1, f2, 16) == 0,
        "kind %zu: fingerprint", ki);
  bytes = 0;
  CHECK(gv_encode(a, t, sink, &bytes, &e) == GV_OK && bytes > DEEP, "kind %zu: encode", ki);
  /* failures deep down: messages cut, no recursion */
  const gv_node *bad = NULL;
  text[len / 2] = ']';
  CHECK(gv_parse(a, text, len, &bad, &e) == GV_EPARSE, "kind %zu: bad parse", ki);
  if (cross) {
    char *other = deep_text(&KINDS[ki], DEEP, "[1, 2]", &len);
    const gv_node *u = NULL;
    CHECK(gv_parse(b, other, len, &u, &e) == GV_OK, "kind %zu: parse other", ki);
    CHECK(gv_same_structure(a, t, u, &e) == GV_EMISMATCH && strlen(e.msg) < sizeof e.msg,
          "kind %zu: mismatch deep down", ki);
    CHECK(gv_same_paths(a, t, u, &e) == GV_EMISMATCH, "kind %zu: same_paths deep down", ki);
    free(other);
  }
out:
  free(text);
  gv_arena_free(a);
  gv_arena_free(b);
}

/* Two 1,000,000-deep tuples: gv_key_cmp (they are not keys), and exact
 * equality across arenas as custom metadata. */
static void deep_tuples(void) {
  gv_arena *a = NULL, *b = NULL;
  if (gv_arena_new(NULL, &a) != GV_OK || gv_arena_new(NULL, &b) != GV_OK) abort();
  const gv_node *x, *y, *z, *tn, *tn2, *cx, *cy;
  gv_error e;
  CHECK(gv_int(a, 1, &x, NULL) == GV_OK && gv_bool(b, true, &y, NULL) == GV_OK, "leaves");
  if (gv_int(a, 2, &z, NULL) != GV_OK) abort();
  for (size_t i = 0; i < DEEP; i++) {
    if (gv_tuple(a, &x, 1, &x, &e) != GV_OK || gv_tuple(b, &y, 1, &y, &e) != GV_OK ||
        gv_tuple(a, &z, 1, &z, &e) != GV_OK) {
      CHECK(0, "building deep tuples: %s", e.msg);
      goto out;
    }
  }
  CHECK(!gv_is_key(x), "a 1,000,000-deep tuple is not a key");
  CHECK(gv_key_cmp(x, y) != 0 && gv_key_cmp(x, y) == -gv_key_cmp(y, x), "key_cmp");
  CHECK(gv_key_cmp(x, x) == 0 && gv_key_cmp(x, z) != 0, "key_cmp self");
  CHECK(gv_get(x, y) == NULL, "get");
  /* the same deep metadata in two arenas: one custom type */
  if (gv_str(a, "T", 1, &tn, NULL) != GV_OK || gv_str(b, "T", 1, &tn2, NULL) != GV_OK) abort();
  const gv_node *xb = NULL;
  if (gv_int(b, 1, &xb, NULL) != GV_OK) abort();
  for (size_t i = 0; i < DEEP; i++)
    if (gv_tuple(b, &xb, 1, &xb, &e) != GV_OK) abort();
  CHECK(gv_custom(a, tn, NULL, NULL, 0, x, &cx, &e) == GV_OK, "custom a: %s", e.msg);
  CHECK(gv_custom(b, tn2, NULL, NULL, 0, xb, &cy, &e) == GV_OK, "custom b: %s", e.msg);
  CHECK(gv_same_structure(a, cx, cy, &e) == GV_OK, "same custom across arenas: %s", e.msg);
  const gv_node *cz;
  CHECK(gv_custom(a, tn, NULL, NULL, 0, z, &cz, &e) == GV_OK, "custom z");
  CHECK(gv_same_structure(a, cz, cy, &e) == GV_EMISMATCH, "different custom metadata");
out:
  gv_arena_free(a);
  gv_arena_free(b);
}

/* DAGs: 64 levels of one list twice over (2^63 leaves), every per-node pass. */
static void dags(void) {
  gv_arena *a = NULL, *b = NULL;
  gv_arena_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_output = 1u << 20;
  if (gv_arena_new(&cfg, &a) != GV_OK || gv_arena_new(NULL, &b) != GV_OK) abort();
  const gv_node *x, *y, *r, *s;
  gv_error e;
  if (gv_int(a, 1, &x, NULL) != GV_OK || gv_int(b, 2, &y, NULL) != GV_OK) abort();
  for (int i = 0; i < 63; i++) {
    const gv_node *two[2] = {x, x}, *two2[2] = {y, y};
    if (gv_list(a, two, 2, &x, &e) != GV_OK || gv_list(b, two2, 2, &y, &e) != GV_OK) abort();
  }
  CHECK(gv_structure(a, x, &s, &e) == GV_OK, "structure: %s", e.msg);
  CHECK(gv_lists_to_tuples(a, x, &r, &e) == GV_OK, "l2t: %s", e.msg);
  CHECK(gv_same_structure(a, x, y, &e) == GV_OK, "same_structure: %s", e.msg);
  CHECK(gv_same_paths(a, x, y, &e) == GV_OK, "same_paths: %s", e.msg);
  CHECK(gv_same_paths(a, x, r, &e) == GV_OK, "same_paths l2t: %s", e.msg);
  size_t bytes = 0;
  CHECK(gv_print(a, x, sink, &bytes, &e) == GV_ERANGE && bytes == 0, "print refused");
  CHECK(gv_map(a, f_first, NULL, &x, 1, true, &r, &e) == GV_ERANGE, "map refused");
  gv_arena_free(a);
  gv_arena_free(b);
}

static void *run(void *arg) {
  (void)arg;
  for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++)
    deep_kind(k);
  deep_tuples();
  dags();
  return NULL;
}

int main(void) {
  pthread_attr_t at;
  pthread_t th;
  if (pthread_attr_init(&at) != 0 || pthread_attr_setstacksize(&at, STACK) != 0) return 2;
  if (pthread_create(&th, &at, run, NULL) != 0) return 2;
  pthread_join(th, NULL);
  pthread_attr_destroy(&at);
  if (g_fail) fprintf(stderr, "deepstack: failures\n");
  return g_fail ? 1 : 0;
}
