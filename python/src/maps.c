/* SPDX-License-Identifier: MIT */
/* maps.c -- the plain tables of the extension: a pointer map (node -> object),
 * the keyset cache (key objects by identity -> keyset node) and a pointer set
 * (the walk path). Open addressing, linear probing, power-of-two sizes. */
#include "tables.h"

static size_t slot_of(const void *p, size_t mask) {
  uint64_t x = (uint64_t)(uintptr_t)p * UINT64_C(0x9E3779B97F4A7C15);
  return (size_t)(x >> 32) & mask;
}

/* ---- pointer map ---- */

PyObject *pm_get(const ptrmap *m, const void *k) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = slot_of(k, mask);; i = (i + 1) & mask) {
    if (!m->t[i].k) return NULL;
    if (m->t[i].k == k) return m->t[i].v;
  }
}

static int pm_grow(ptrmap *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  pm_ent *nt = PyMem_Calloc(ncap, sizeof *nt);
  if (!nt) return -1;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->t[i].k) continue;
    size_t j = slot_of(m->t[i].k, ncap - 1);
    while (nt[j].k)
      j = (j + 1) & (ncap - 1);
    nt[j] = m->t[i];
  }
  PyMem_Free(m->t);
  m->t = nt;
  m->cap = ncap;
  return 0;
}

int pm_put(ptrmap *m, const void *k, PyObject *v) {
  if (2 * (m->len + 1) > m->cap && pm_grow(m) < 0) return -1;
  size_t mask = m->cap - 1, i = slot_of(k, mask);
  while (m->t[i].k && m->t[i].k != k)
    i = (i + 1) & mask;
  Py_INCREF(v);
  if (m->t[i].k) {
    Py_SETREF(m->t[i].v, v);
    return 0;
  }
  m->t[i].k = k;
  m->t[i].v = v;
  m->len++;
  return 0;
}

void pm_clear(ptrmap *m) {
  pm_ent *t = m->t;
  size_t cap = m->cap;
  m->t = NULL;
  m->cap = m->len = 0;
  for (size_t i = 0; i < cap; i++)
    if (t[i].k) Py_DECREF(t[i].v);
  PyMem_Free(t);
}

/* ---- keyset cache ---- */

#define KC_MAX_ENTRIES ((size_t)1 << 16)
#define KC_MAX_KEYS ((size_t)1 << 22)

uint64_t kc_hash(PyObject *const *keys, Py_ssize_t n, int odict) {
  uint64_t h = (uint64_t)n * UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)odict;
  for (Py_ssize_t i = 0; i < n; i++) {
    h ^= (uint64_t)(uintptr_t)keys[i];
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    h ^= h >> 29;
  }
  return h | 1u; /* 0 marks an empty slot */
}

const gv_node *kc_get(const keycache *c, uint64_t h, PyObject *const *keys, Py_ssize_t n) {
  if (!c->cap) return NULL;
  size_t mask = c->cap - 1;
  for (size_t i = (size_t)(h >> 20) & mask;; i = (i + 1) & mask) {
    const kc_ent *e = &c->t[i];
    if (!e->h) return NULL;
    if (e->h == h && e->n == n && (!n || memcmp(e->keys, keys, (size_t)n * sizeof *keys) == 0))
      return e->ks;
  }
}

void kc_clear(keycache *c) {
  kc_ent *t = c->t;
  size_t cap = c->cap;
  c->t = NULL;
  c->cap = c->len = c->nkeys = 0;
  for (size_t i = 0; i < cap; i++) {
    if (!t[i].h) continue;
    for (Py_ssize_t j = 0; j < t[i].n; j++)
      Py_DECREF(t[i].keys[j]);
    PyMem_Free(t[i].keys);
  }
  PyMem_Free(t);
}

int kc_put(keycache *c, uint64_t h, PyObject *const *keys, Py_ssize_t n, const gv_node *ks) {
  if (c->len + 1 > KC_MAX_ENTRIES || c->nkeys + (size_t)n > KC_MAX_KEYS) {
    kc_clear(c);
    c->clears++;
    if ((size_t)n > KC_MAX_KEYS) return 0; /* too big to cache */
  }
  if (2 * (c->len + 1) > c->cap) {
    size_t ncap = c->cap ? c->cap * 2 : 256;
    kc_ent *nt = PyMem_Calloc(ncap, sizeof *nt);
    if (!nt) return -1;
    for (size_t i = 0; i < c->cap; i++) {
      if (!c->t[i].h) continue;
      size_t j = (size_t)(c->t[i].h >> 20) & (ncap - 1);
      while (nt[j].h)
        j = (j + 1) & (ncap - 1);
      nt[j] = c->t[i];
    }
    PyMem_Free(c->t);
    c->t = nt;
    c->cap = ncap;
  }
  PyObject **copy = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *copy);
  if (!copy) return -1;
  for (Py_ssize_t j = 0; j < n; j++) {
    copy[j] = keys[j];
    Py_INCREF(copy[j]);
  }
  size_t mask = c->cap - 1, i = (size_t)(h >> 20) & mask;
  while (c->t[i].h)
    i = (i + 1) & mask;
  c->t[i].h = h;
  c->t[i].n = n;
  c->t[i].keys = copy;
  c->t[i].ks = ks;
  c->len++;
  c->nkeys += (size_t)n;
  return 0;
}

/* ---- pointer set (tombstone-free: deletion re-inserts the cluster) ---- */

int ps_add(pset *s, const void *p) {
  if (2 * (s->len + 1) > s->cap) {
    size_t ncap = s->cap ? s->cap * 2 : 256;
    const void **nt = PyMem_Calloc(ncap, sizeof *nt);
    if (!nt) return -1;
    for (size_t i = 0; i < s->cap; i++) {
      if (!s->t[i]) continue;
      size_t j = slot_of(s->t[i], ncap - 1);
      while (nt[j])
        j = (j + 1) & (ncap - 1);
      nt[j] = s->t[i];
    }
    PyMem_Free((void *)s->t);
    s->t = nt;
    s->cap = ncap;
  }
  size_t mask = s->cap - 1, i = slot_of(p, mask);
  while (s->t[i]) {
    if (s->t[i] == p) return 0;
    i = (i + 1) & mask;
  }
  s->t[i] = p;
  s->len++;
  return 1;
}

void ps_del(pset *s, const void *p) {
  if (!s->cap) return;
  size_t mask = s->cap - 1, i = slot_of(p, mask);
  while (s->t[i] && s->t[i] != p)
    i = (i + 1) & mask;
  if (!s->t[i]) return;
  s->t[i] = NULL;
  s->len--;
  /* re-place the rest of the cluster */
  for (size_t j = (i + 1) & mask; s->t[j]; j = (j + 1) & mask) {
    const void *q = s->t[j];
    s->t[j] = NULL;
    size_t k = slot_of(q, mask);
    while (s->t[k])
      k = (k + 1) & mask;
    s->t[k] = q;
  }
}

void ps_free(pset *s) {
  PyMem_Free((void *)s->t);
  s->t = NULL;
  s->cap = s->len = 0;
}
