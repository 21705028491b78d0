/* SPDX-License-Identifier: MIT */
/*
 * grove_fuzz.h -- libFuzzer's custom mutator and crossover for targets whose inputs are trees.
 *
 * A libFuzzer target that includes this header (in exactly one of its files) mutates trees,
 * not bytes: it gets LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver, built on
 * gv_mutate (grove_mutate.h). Compile the target with -fsanitize=fuzzer and link libgrove.
 *
 * Inputs are either grove's wire format (they start "GRV\x01") or text: the literal notation,
 * JSON included (docs/notation.md). Each call
 *   1. reads the input into a scratch arena (gv_decode or gv_parse);
 *   2. draws one mutation with libFuzzer's seed (gv_mutate; crossover: a subtree of the second
 *      input spliced in), bounded so the result fits MaxSize;
 *   3. writes the result back in the input's own format: wire stays wire, and text stays text
 *      -- JSON when the tree has a JSON form (so a JSON consumer keeps getting JSON), else the
 *      literal notation;
 *   4. rolls the scratch arena back to where it was (gv_arena_rollback: O(1) per node built),
 *      so nothing grows from one call to the next.
 * An input that does not read as a tree (a seed of another format, a file libFuzzer made up)
 * is handed to libFuzzer's own LLVMFuzzerMutate instead; a mutation whose text does not fit
 * MaxSize, or cannot be written in the input's format (under GROVE_FUZZ_JSON, a tree without a
 * JSON form: text such as {"a": 1e999}, whose float is inf), is drawn again with the next seed
 * (four times), as is one whose bytes are the input's (a change the text does not show), after
 * which the input goes to LLVMFuzzerMutate too: no input is handed back unchanged. The same seed
 * and input always give the same output.
 *
 * What the target receives: it may keep its own LLVMFuzzerTestOneInput and read the bytes as
 * they come (text inputs are JSON or literal text ready to parse), or let this header define it
 * by one of:
 *   GROVE_FUZZ_TREE_TARGET(fn)  int fn(const gv_node *tree, gv_arena *a): the input read as a
 *                               tree (inputs that do not read are skipped); a is the scratch
 *                               arena, rolled back after fn returns.
 *   GROVE_FUZZ_JSON_TARGET(fn)  int fn(const char *json, size_t len): text inputs as they are,
 *                               wire inputs printed as JSON (those without a JSON form are
 *                               skipped).
 * written at file scope after fn.
 *
 * Settings (define before including; all optional):
 *   GROVE_FUZZ_JSON           1: mutations keep a JSON form (GV_MUTATE_JSON), for JSON
 *                             consumers. Default 0: every kind of node may be made.
 *   GROVE_FUZZ_MAX_DEPTH      bound on the depth of a result (default 32).
 *   GROVE_FUZZ_MAX_LEAVES     bound on its leaves (default 0: none).
 *   GROVE_FUZZ_BYTE_PERCENT   this share of calls (0-100) goes to libFuzzer's byte mutation
 *                             instead, for targets whose error paths matter (default 0).
 *   GROVE_FUZZ_ARENA_BYTES    the scratch arena's budget (default 64 MiB).
 *   GROVE_FUZZ_OPTIONS(o)     a statement run on the gv_mutate_options o before each call
 *                             (set kinds, flags, a dictionary, a leaf callback...).
 * A tree's text or encoding is always within MaxSize; its depth within GROVE_FUZZ_MAX_DEPTH.
 * The scratch arena is made on the first call and lives for the process; the functions here
 * are not reentrant (libFuzzer calls them from one thread).
 */
#ifndef GROVE_FUZZ_H
#define GROVE_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grove_mutate.h"

#ifndef GROVE_FUZZ_JSON
#define GROVE_FUZZ_JSON 0
#endif
#ifndef GROVE_FUZZ_MAX_DEPTH
#define GROVE_FUZZ_MAX_DEPTH 32
#endif
#ifndef GROVE_FUZZ_MAX_LEAVES
#define GROVE_FUZZ_MAX_LEAVES 0
#endif
#ifndef GROVE_FUZZ_BYTE_PERCENT
#define GROVE_FUZZ_BYTE_PERCENT 0
#endif
#ifndef GROVE_FUZZ_ARENA_BYTES
#define GROVE_FUZZ_ARENA_BYTES ((size_t)64 << 20)
#endif
#ifndef GROVE_FUZZ_OPTIONS
#define GROVE_FUZZ_OPTIONS(o) ((void)(o))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* libFuzzer's own entry points (it defines LLVMFuzzerMutate; this header the other two). */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
                                 size_t size2, uint8_t *out, size_t max_out_size,
                                 unsigned int seed);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The scratch arena (NULL if it cannot be made: every call then falls back to bytes). */
static inline gv_arena *grove_fuzz_arena(void) {
  static gv_arena *a;
  if (!a) {
    gv_arena_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_bytes = GROVE_FUZZ_ARENA_BYTES;
    cfg.max_depth = 4 * GROVE_FUZZ_MAX_DEPTH + 64; /* reads deeper inputs than it makes */
    cfg.max_output = (uint64_t)1 << 24;
    if (gv_arena_new(&cfg, &a) != GV_OK) a = NULL;
  }
  return a;
}

static inline int grove_fuzz_is_wire(const uint8_t *d, size_t n) {
  return n >= 4 && memcmp(d, "GRV\x01", 4) == 0;
}

/* data as a tree of a (wire or text); 0 if it does not read. */
static inline int grove_fuzz_read(gv_arena *a, const uint8_t *d, size_t n, const gv_node **t) {
  if (grove_fuzz_is_wire(d, n)) return gv_decode(a, d, n, t, NULL) == GV_OK;
  return gv_parse(a, (const char *)d, n, t, NULL) == GV_OK;
}

/* A bounded sink into out[0..cap). */
typedef struct grove_fuzz_sink {
  uint8_t *p;
  size_t len, cap;
} grove_fuzz_sink;
static inline gv_status grove_fuzz_put(void *ctx, const char *d, size_t n) {
  grove_fuzz_sink *s = (grove_fuzz_sink *)ctx;
  if (n > s->cap - s->len) return GV_ERANGE;
  memcpy(s->p + s->len, d, n);
  s->len += n;
  return GV_OK;
}

/* t (read from in[0..in_len)) mutated (crossover with other when it is not NULL) and written
 * to out[0..cap) in the input's format; the length written, or 0 when no try fit. A try whose
 * bytes are the input's is no fit: GV_MUT_NONE (t itself), or a change the text does not show
 * (a JSON input whose list became a tuple still prints as a JSON array). */
static inline size_t grove_fuzz_mutate_into(gv_arena *a, const gv_node *t, const uint8_t *in,
                                            size_t in_len, const gv_node *other, int wire,
                                            unsigned int seed, uint8_t *out, size_t cap) {
  static uint8_t *buf;
  static size_t bufcap;
  if (bufcap < cap) { /* written here first: out still holds the input until one fits */
    uint8_t *p = (uint8_t *)realloc(buf, cap);
    if (!p) return 0;
    buf = p, bufcap = cap;
  }
  for (unsigned k = 0; k < 4; k++) {
    gv_mutate_options o;
    memset(&o, 0, sizeof o);
    o.max_depth = GROVE_FUZZ_MAX_DEPTH;
    o.max_leaves = GROVE_FUZZ_MAX_LEAVES;
    if (wire)
      o.max_wire = cap;
    else /* a node or a byte of a str prints at least one character */
      o.max_size = cap;
    o.flags = GROVE_FUZZ_JSON ? GV_MUTATE_JSON : 0;
    o.other = other;
    if (other) o.kinds = GV_MUT_CROSSOVER;
    GROVE_FUZZ_OPTIONS(o);
    gv_mark m = gv_arena_mark(a);
    const gv_node *r = NULL;
    grove_fuzz_sink s = {buf, 0, cap};
    uint64_t sd = (uint64_t)seed * 4 + k;
    gv_status st = gv_mutate(a, t, sd, &o, &r, NULL, NULL);
    if (st == GV_OK && wire) st = gv_encode(a, r, grove_fuzz_put, &s, NULL);
    if (st == GV_OK && !wire) {
      st = gv_print_json(a, r, grove_fuzz_put, &s, NULL);
      if (st == GV_EINVAL && !GROVE_FUZZ_JSON) { /* no JSON form: the literal notation */
        s.len = 0;
        st = gv_print(a, r, grove_fuzz_put, &s, NULL);
      }
    }
    (void)gv_arena_rollback(a, &m);
    if (st == GV_OK && s.len && !(s.len == in_len && memcmp(buf, in, in_len) == 0)) {
      memcpy(out, buf, s.len);
      return s.len;
    }
  }
  return 0;
}

/* Whether this call goes to libFuzzer's byte mutation (GROVE_FUZZ_BYTE_PERCENT). Through a
 * variable, so a share of 0 is no "always false" comparison to gcc's -Wtype-limits. */
static inline int grove_fuzz_byte_turn(unsigned int seed) {
  const unsigned pct = (unsigned)(GROVE_FUZZ_BYTE_PERCENT);
  return seed % 100 < pct;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  gv_arena *a = grove_fuzz_arena();
  if (!a || grove_fuzz_byte_turn(seed)) return LLVMFuzzerMutate(data, size, max_size);
  gv_mark m = gv_arena_mark(a);
  const gv_node *t = NULL;
  size_t n = 0;
  if (grove_fuzz_read(a, data, size, &t))
    n = grove_fuzz_mutate_into(a, t, data, size, NULL, grove_fuzz_is_wire(data, size), seed, data,
                               max_size);
  (void)gv_arena_rollback(a, &m);
  return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
                                 size_t size2, uint8_t *out, size_t max_out_size,
                                 unsigned int seed) {
  gv_arena *a = grove_fuzz_arena();
  if (!a) return 0;
  gv_mark m = gv_arena_mark(a);
  const gv_node *t = NULL, *u = NULL;
  size_t n = 0;
  if (grove_fuzz_read(a, data1, size1, &t) && grove_fuzz_read(a, data2, size2, &u))
    n = grove_fuzz_mutate_into(a, t, data1, size1, u, grove_fuzz_is_wire(data1, size1), seed, out,
                               max_out_size);
  (void)gv_arena_rollback(a, &m);
  return n; /* 0: libFuzzer draws another mutation */
}

/* The targets' side. */
static inline int grove_fuzz_run_tree(const uint8_t *d, size_t n,
                                      int (*fn)(const gv_node *tree, gv_arena *a)) {
  gv_arena *a = grove_fuzz_arena();
  if (!a) return 0;
  gv_mark m = gv_arena_mark(a);
  const gv_node *t = NULL;
  int r = grove_fuzz_read(a, d, n, &t) ? fn(t, a) : 0;
  (void)gv_arena_rollback(a, &m);
  return r;
}

static inline int grove_fuzz_run_json(const uint8_t *d, size_t n,
                                      int (*fn)(const char *json, size_t len)) {
  if (!grove_fuzz_is_wire(d, n)) return fn((const char *)d, n);
  gv_arena *a = grove_fuzz_arena();
  if (!a) return 0;
  gv_mark m = gv_arena_mark(a);
  const gv_node *t = NULL;
  const char *s = NULL;
  size_t len = 0;
  int r = 0;
  if (gv_decode(a, d, n, &t, NULL) == GV_OK && gv_print_str(a, t, true, &s, &len, NULL) == GV_OK)
    r = fn(s, len);
  (void)gv_arena_rollback(a, &m);
  return r;
}

#define GROVE_FUZZ_TREE_TARGET(fn)                                                                 \
  int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {                                   \
    return grove_fuzz_run_tree(data, size, fn);                                                    \
  }
#define GROVE_FUZZ_JSON_TARGET(fn)                                                                 \
  int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {                                   \
    return grove_fuzz_run_json(data, size, fn);                                                    \
  }

#ifdef __cplusplus
}
#endif
#endif /* GROVE_FUZZ_H */
