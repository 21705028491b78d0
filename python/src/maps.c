/* SPDX-License-Identifier: MIT */
/* maps.c -- the plain tables of the extension: a pointer map (node -> object),
 * a type map (class -> kind), an identity map (object -> handle), a node memo
 * (a walk's distinct nodes), the keyset cache (key objects by identity ->
 * keyset node) and a pointer set (the walk path). Open addressing, linear
 * probing, power-of-two sizes. */
#include "tables.h"

static size_t slot_of(const void *p, size_t mask) {
  uint64_t x = (uint64_t)(uintptr_t)p * UINT64_C(0x9E3779B97F4A7C15);
  return (size_t)(x >> 32) & mask;
}

/* Grow a table keyed by pointer (*t: *cap slots of esz bytes, each starting
 * with its key, NULL in an empty slot) to hold len + 1 at half load: a new
 * zeroed table, every entry moved to its slot there. -1 no memory. */
static int grow_by_key(void **t, size_t *cap, size_t len, size_t esz) {
  if (2 * (len + 1) <= *cap) return 0;
  size_t ncap = *cap ? *cap * 2 : 64;
  char *nt = PyMem_Calloc(ncap, esz), *ot = *t;
  if (!nt) return -1;
  for (size_t i = 0; i < *cap; i++) {
    const void *k;
    memcpy(&k, ot + i * esz, sizeof k);
    if (!k) continue;
    size_t j = slot_of(k, ncap - 1);
    for (;;) {
      const void *q;
      memcpy(&q, nt + j * esz, sizeof q);
      if (!q) break;
      j = (j + 1) & (ncap - 1);
    }
    memcpy(nt + j * esz, ot + i * esz, esz);
  }
  PyMem_Free(ot);
  *t = nt;
  *cap = ncap;
  return 0;
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

int pm_put(ptrmap *m, const void *k, PyObject *v) {
  if (grow_by_key((void **)&m->t, &m->cap, m->len, sizeof *m->t) < 0) return -1;
  size_t mask = m->cap - 1, i = slot_of(k, mask);
  while (m->t[i].k && m->t[i].k != k)
    i = (i + 1) & mask;
  if (m->t[i].k) return 0; /* the first value stays: it may be held borrowed */
  Py_INCREF(v);
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

/* ---- type map ---- */

const tm_ent *tm_get(const typemap *m, const PyTypeObject *t) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = slot_of(t, mask);; i = (i + 1) & mask) {
    if (!m->t[i].t) return NULL;
    if (m->t[i].t == t) return &m->t[i];
  }
}

int tm_put(typemap *m, PyTypeObject *t, int kind, PyObject *reg, PyObject *nsregs) {
  if (grow_by_key((void **)&m->t, &m->cap, m->len, sizeof *m->t) < 0) return -1;
  size_t mask = m->cap - 1, i = slot_of(t, mask);
  while (m->t[i].t && m->t[i].t != t)
    i = (i + 1) & mask;
  if (m->t[i].t) return 0;
  Py_INCREF(t);
  Py_XINCREF(reg);
  Py_XINCREF(nsregs);
  m->t[i] = (tm_ent){t, reg, nsregs, kind};
  m->len++;
  return 0;
}

void tm_clear(typemap *m) {
  tm_ent *t = m->t;
  size_t cap = m->cap;
  m->t = NULL;
  m->cap = m->len = 0;
  for (size_t i = 0; i < cap; i++) {
    if (!t[i].t) continue;
    Py_XDECREF(t[i].reg);
    Py_XDECREF(t[i].nsregs);
    Py_DECREF(t[i].t);
  }
  PyMem_Free(t);
}

/* ---- identity map ---- */

uint64_t im_get(const idmap *m, const void *k) {
  if (!m->cap) return 0;
  size_t mask = m->cap - 1;
  for (size_t i = slot_of(k, mask);; i = (i + 1) & mask) {
    if (!m->t[i].k) return 0;
    if (m->t[i].k == k) return m->t[i].v;
  }
}

int im_put(idmap *m, const void *k, uint64_t v) {
  if (grow_by_key((void **)&m->t, &m->cap, m->len, sizeof *m->t) < 0) return -1;
  size_t mask = m->cap - 1, i = slot_of(k, mask);
  while (m->t[i].k && m->t[i].k != k)
    i = (i + 1) & mask;
  if (!m->t[i].k) m->len++;
  m->t[i] = (im_ent){k, v};
  return 0;
}

void im_free(idmap *m) {
  PyMem_Free(m->t);
  m->t = NULL;
  m->cap = m->len = 0;
}

/* ---- node memo ---- */

nm_ent *nm_get(const nmemo *m, const void *k) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = slot_of(k, mask);; i = (i + 1) & mask) {
    if (!m->t[i].k) return NULL;
    if (m->t[i].k == k) return &m->t[i];
  }
}

nm_ent *nm_put(nmemo *m, const void *k, int *fresh) {
  if (grow_by_key((void **)&m->t, &m->cap, m->len, sizeof *m->t) < 0) return NULL;
  size_t mask = m->cap - 1, i = slot_of(k, mask);
  while (m->t[i].k && m->t[i].k != k)
    i = (i + 1) & mask;
  if (fresh) *fresh = !m->t[i].k;
  if (!m->t[i].k) {
    m->t[i].k = k;
    m->len++;
  }
  return &m->t[i];
}

void nm_free(nmemo *m) {
  nm_ent *t = m->t;
  size_t cap = m->cap;
  m->t = NULL;
  m->cap = m->len = 0;
  for (size_t i = 0; i < cap; i++)
    Py_XDECREF(t[i].obj);
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

int kc_full(const keycache *c, Py_ssize_t n) {
  return c->len + 1 > KC_MAX_ENTRIES || c->nkeys + (size_t)n > KC_MAX_KEYS;
}

int kc_put(keycache *c, uint64_t h, PyObject *const *keys, Py_ssize_t n, const gv_node *ks) {
  if (kc_full(c, n)) {
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
  if (grow_by_key((void **)&s->t, &s->cap, s->len, sizeof *s->t) < 0) return -1;
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
