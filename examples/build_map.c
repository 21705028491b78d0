/* SPDX-License-Identifier: MIT */
/* build_map.c -- build a tree with the C API, map a function over it, see the sharing.
 *
 * README. Builds the parameters of a tiny model, {'layer': Dense(w=[0.5, -1.5], b=0.25),
 * 'steps': 3}, node by node with the constructors (gv_float, gv_list, gv_namedtuple, gv_dict),
 * then:
 *   - maps a callback over the leaves (floats are doubled, other leaves kept);
 *   - shows hash-consing: building an equal tree again gives the very same pointer, and a map
 *     that changes nothing returns its input;
 *   - encodes the tree to grove's binary format in memory and decodes it back to the same node.
 *
 *   cc build_map.c $(pkg-config --cflags --libs grove) -o build_map && ./build_map
 */
#include <grove.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gv_status write_stdout(void *ctx, const char *data, size_t len) {
  (void)ctx;
  return fwrite(data, 1, len, stdout) == len ? GV_OK : GV_EINVAL;
}

/* A growing memory buffer, filled by gv_encode through buf_write. */
typedef struct buffer {
  char *data;
  size_t len, cap;
} buffer;

static gv_status buf_write(void *ctx, const char *data, size_t len) {
  buffer *b = ctx;
  if (b->cap - b->len < len) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < len)
      cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) return GV_ENOMEM;
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, len);
  b->len += len;
  return GV_OK;
}

/* The tree: {'layer': Dense(w=[w0, w1], b=b), 'steps': steps}. */
static gv_status build(gv_arena *a, double w0, double w1, double b, int64_t steps,
                       const gv_node **out, gv_error *err) {
  const gv_node *ws[2], *w, *bias, *dense, *nsteps, *k_layer, *k_steps, *name, *fields[2];
  gv_status s;
  if ((s = gv_float(a, w0, &ws[0], err)) || (s = gv_float(a, w1, &ws[1], err)) ||
      (s = gv_list(a, ws, 2, &w, err)) || (s = gv_float(a, b, &bias, err)))
    return s;
  if ((s = gv_str(a, "Dense", 5, &name, err)) || (s = gv_str(a, "w", 1, &fields[0], err)) ||
      (s = gv_str(a, "b", 1, &fields[1], err)))
    return s;
  const gv_node *values[2] = {w, bias};
  if ((s = gv_namedtuple(a, name, fields, values, 2, &dense, err))) return s;
  if ((s = gv_int(a, steps, &nsteps, err)) || (s = gv_str(a, "layer", 5, &k_layer, err)) ||
      (s = gv_str(a, "steps", 5, &k_steps, err)))
    return s;
  const gv_node *keys[2] = {k_layer, k_steps}, *vals[2] = {dense, nsteps};
  return gv_dict(a, keys, vals, 2, out, err);
}

/* A gv_map_fn: gets the leaf (one tree: n == 1) and sets *out. */
static gv_status double_floats(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                               const gv_node **out) {
  (void)ctx, (void)n;
  if (gv_kind(values[0]) != GV_FLOAT) {
    *out = values[0]; /* kept as is */
    return GV_OK;
  }
  return gv_float(a, 2.0 * gv_get_float(values[0]), out, NULL);
}

static gv_status keep(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                      const gv_node **out) {
  (void)ctx, (void)a, (void)n;
  *out = values[0];
  return GV_OK;
}

int main(void) {
  gv_arena *a = NULL;
  gv_arena_config cfg = {.max_bytes = 1 << 20}; /* a budget: 1 MiB is plenty here */
  if (gv_arena_new(&cfg, &a) != GV_OK) return 1;
  gv_error err = {.msg = ""};
  const gv_node *t = NULL, *again = NULL, *doubled = NULL, *same = NULL, *back = NULL;
  buffer wire = {NULL, 0, 0};
  int ok = build(a, 0.5, -1.5, 0.25, 3, &t, &err) == GV_OK &&
           build(a, 0.5, -1.5, 0.25, 3, &again, &err) == GV_OK &&
           gv_map(a, double_floats, NULL, &t, 1, true, &doubled, &err) == GV_OK &&
           gv_map(a, keep, NULL, &t, 1, true, &same, &err) == GV_OK &&
           gv_encode(a, t, buf_write, &wire, &err) == GV_OK &&
           gv_decode(a, wire.data, wire.len, &back, &err) == GV_OK;
  if (ok) {
    fputs("built:    ", stdout);
    ok = gv_print(a, t, write_stdout, NULL, &err) == GV_OK;
    fputs("\ndoubled:  ", stdout);
    ok = ok && gv_print(a, doubled, write_stdout, NULL, &err) == GV_OK;
    printf("\nleaves: %llu, depth: %zu\n", (unsigned long long)gv_num_leaves(t), gv_depth(t));
    printf("built twice, same node: %s\n", t == again ? "yes" : "no");
    printf("map that changes nothing returns its input: %s\n", same == t ? "yes" : "no");
    printf("binary round trip gives the same node: %s\n", back == t ? "yes" : "no");
    ok = ok && t == again && same == t && back == t && doubled != t;
  }
  if (!ok) fprintf(stderr, "build_map: %s\n", err.msg);
  free(wire.data);
  gv_arena_free(a);
  return ok ? 0 : 1;
}
