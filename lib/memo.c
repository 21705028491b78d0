/* SPDX-License-Identifier: MIT */
/* memo.c -- scratch memory of one call: counted (writers) or straight from
 * the allocator hook (readers), growable vectors, and the pointer-pair memo
 * that keeps every per-node pass linear in the distinct nodes of a DAG. */
#include "internal.h"

void *gv__mem_realloc(gv__mem m, void *p, size_t old_size, size_t new_size) {
  void *q;
  if (m.w) {
    q = gv__raw_realloc(m.w, p, old_size, new_size);
  } else {
    if (new_size == 0) {
      if (p) m.al->realloc(m.al->ctx, p, old_size, 0);
      return NULL;
    }
    q = m.al->realloc(m.al->ctx, p, old_size, new_size);
    if (!q && new_size <= old_size) return p; /* a shrink that failed: keep the block */
  }
  if (!q && new_size && m.failed) *m.failed = new_size;
  return q;
}

gv_status gv__mvec_reserve(gv__mem m, gv__vec *v, size_t extra) {
  if (v->cap - v->len >= extra) return GV_OK;
  size_t need = v->len + extra;
  if (need < v->len) return GV_ENOMEM;
  size_t cap = v->cap ? v->cap : 16;
  while (cap < need) {
    if (cap > SIZE_MAX / 2) return GV_ENOMEM;
    cap *= 2;
  }
  if (cap > SIZE_MAX / v->elem) return GV_ENOMEM;
  void *p;
  if (v->fixed) {
    p = gv__mem_realloc(m, NULL, 0, cap * v->elem);
    if (!p) return GV_ENOMEM;
    if (v->len) memcpy(p, v->p, v->len * v->elem);
    v->fixed = 0;
  } else {
    p = gv__mem_realloc(m, v->p, v->cap * v->elem, cap * v->elem);
    if (!p) return GV_ENOMEM;
  }
  v->p = p;
  v->cap = cap;
  return GV_OK;
}

void gv__mvec_free(gv__mem m, gv__vec *v) {
  if (v->p && !v->fixed) gv__mem_realloc(m, v->p, v->cap * v->elem, 0);
  v->p = NULL;
  v->len = v->cap = 0;
  v->fixed = 0;
}

static size_t gv__memo_slot(const void *x, const void *y, size_t mask) {
  uint64_t h = (uint64_t)(uintptr_t)x * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)(uintptr_t)y + (h >> 29);
  h *= 0xBF58476D1CE4E5B9ull;
  return (size_t)(h >> 32) & mask;
}

gv__memo_ent *gv__memo_get(const gv__memo *m, const void *x, const void *y) {
  if (!m->len) return NULL;
  size_t mask = m->cap - 1, i = gv__memo_slot(x, y, mask);
  for (;;) {
    gv__memo_ent *e = &m->t[i];
    if (!e->x) return NULL;
    if (e->x == x && e->y == y) return e;
    i = (i + 1) & mask;
  }
}

static void gv__memo_place(gv__memo_ent *t, size_t cap, const gv__memo_ent *e) {
  size_t mask = cap - 1, i = gv__memo_slot(e->x, e->y, mask);
  while (t[i].x)
    i = (i + 1) & mask;
  t[i] = *e;
}

gv_status gv__memo_put(gv__memo *m, const void *x, const void *y, uintptr_t v) {
  gv__memo_ent *e = gv__memo_get(m, x, y);
  if (e) {
    e->v = v;
    return GV_OK;
  }
  if ((m->len + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    if (cap > SIZE_MAX / 2 / sizeof(gv__memo_ent)) return GV_ENOMEM;
    gv__memo_ent *t = gv__mem_realloc(m->mem, NULL, 0, cap * sizeof *t);
    if (!t) return GV_ENOMEM;
    memset(t, 0, cap * sizeof *t);
    for (size_t i = 0; i < m->cap; i++)
      if (m->t[i].x) gv__memo_place(t, cap, &m->t[i]);
    if (m->t) gv__mem_realloc(m->mem, m->t, m->cap * sizeof *m->t, 0);
    m->t = t;
    m->cap = cap;
  }
  gv__memo_ent n = {x, y, v};
  gv__memo_place(m->t, m->cap, &n);
  m->len++;
  return GV_OK;
}

void gv__memo_free(gv__memo *m) {
  if (m->t) gv__mem_realloc(m->mem, m->t, m->cap * sizeof *m->t, 0);
  m->t = NULL;
  m->cap = m->len = 0;
}
