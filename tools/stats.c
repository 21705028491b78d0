/* SPDX-License-Identifier: MIT */
/* stats.c -- the stats operation: nodes, distinct nodes, leaves, depth and arena bytes of a tree,
 * by an explicit-stack walk with a pointer map (node -> subtree size). */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct pmap {
  const gv_node **keys;
  uint64_t *vals;
  size_t cap, len; /* cap a power of two */
} pmap;

static size_t pmap_slot(const pmap *m, const gv_node *k) {
  uint64_t h = (uint64_t)(uintptr_t)k;
  h ^= h >> 33;
  h *= UINT64_C(0xff51afd7ed558ccd);
  h ^= h >> 33;
  size_t i = (size_t)h & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != k)
    i = (i + 1) & (m->cap - 1);
  return i;
}

static int pmap_get(const pmap *m, const gv_node *k, uint64_t *v) {
  if (!m->cap) return 0;
  size_t i = pmap_slot(m, k);
  if (!m->keys[i]) return 0;
  *v = m->vals[i];
  return 1;
}

static int pmap_put(pmap *m, const gv_node *k, uint64_t v) {
  if ((m->len + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    if (ncap > SIZE_MAX / sizeof(uint64_t)) return 0;
    pmap nm = {calloc(ncap, sizeof(const gv_node *)), calloc(ncap, sizeof(uint64_t)), ncap, 0};
    if (!nm.keys || !nm.vals) {
      free((void *)nm.keys);
      free(nm.vals);
      return 0;
    }
    for (size_t i = 0; i < m->cap; i++) {
      if (m->keys[i]) {
        size_t j = pmap_slot(&nm, m->keys[i]);
        nm.keys[j] = m->keys[i];
        nm.vals[j] = m->vals[i];
        nm.len++;
      }
    }
    free((void *)m->keys);
    free(m->vals);
    *m = nm;
  }
  size_t i = pmap_slot(m, k);
  if (!m->keys[i]) m->len++;
  m->keys[i] = k;
  m->vals[i] = v;
  return 1;
}

static uint64_t sat_add(uint64_t x, uint64_t y) {
  return x > UINT64_MAX - y ? UINT64_MAX : x + y;
}

typedef struct sframe {
  const gv_node *n;
  size_t i;
  uint64_t sum;
} sframe;

/* oneline (--lines): the five numbers as one dict. */
int do_stats(cli *c, const gv_node *t, int oneline) {
  pmap m = {NULL, NULL, 0, 0};
  sframe *st = NULL;
  size_t sp = 0, scap = 0;
  int ok = 1;
  if (!gv_is_nested(t)) {
    ok = pmap_put(&m, t, 1);
  } else {
    scap = 64;
    st = malloc(scap * sizeof *st);
    if (!st) ok = 0;
    if (ok) st[sp++] = (sframe){t, 0, 1};
    while (ok && sp) {
      sframe *f = &st[sp - 1];
      if (f->i < gv_arity(f->n)) {
        const gv_node *ch = gv_child(f->n, f->i++);
        uint64_t v;
        if (pmap_get(&m, ch, &v)) {
          f->sum = sat_add(f->sum, v);
        } else if (!gv_is_nested(ch)) {
          if (!pmap_put(&m, ch, 1)) ok = 0;
          f->sum = sat_add(f->sum, 1);
        } else {
          if (sp == scap) {
            sframe *ns =
                scap > SIZE_MAX / 2 / sizeof *st ? NULL : realloc(st, 2 * scap * sizeof *st);
            if (!ns) {
              ok = 0;
              break;
            }
            st = ns;
            scap *= 2;
          }
          st[sp++] = (sframe){ch, 0, 1};
        }
      } else {
        sframe done = *f;
        sp--;
        if (!pmap_put(&m, done.n, done.sum)) ok = 0;
        if (sp) st[sp - 1].sum = sat_add(st[sp - 1].sum, done.sum);
      }
    }
  }
  uint64_t nodes = 0;
  if (ok) ok = pmap_get(&m, t, &nodes);
  size_t distinct = m.len;
  free(st);
  free((void *)m.keys);
  free(m.vals);
  if (!ok) {
    errf(c, "grove: error: stats: out of memory\n");
    return 2;
  }
  gv_stats s;
  gv_arena_stats(c->a, &s);
  char buf[256];
  const char *q = c->json ? "\"" : "'";
  if (oneline || c->json) /* one line; JSON's is the same with double quotes */
    snprintf(buf, sizeof buf,
             "{%snodes%s: %" PRIu64 ", %sdistinct_nodes%s: %zu, %sleaves%s: %" PRIu64
             ", %sdepth%s: %zu, %sarena_bytes%s: %zu}\n",
             q, q, nodes, q, q, distinct, q, q, gv_num_leaves(t), q, q, gv_depth(t), q, q,
             s.bytes_reserved);
  else
    snprintf(buf, sizeof buf,
             "nodes: %" PRIu64 "\ndistinct nodes: %zu\nleaves: %" PRIu64
             "\ndepth: %zu\narena bytes: %zu\n",
             nodes, distinct, gv_num_leaves(t), gv_depth(t), s.bytes_reserved);
  put_s(c, buf);
  return 0;
}
