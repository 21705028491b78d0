/* SPDX-License-Identifier: MIT */
/* tables.h -- the bottom layer of grove._grove: plain C tables and CPython's
 * dicts read and filled in place. These files call nothing else of the
 * extension (the layers: module.c).
 *
 *   maps.c      a pointer map (node -> object), a type map, an identity map,
 *               the keyset cache (key objects by identity -> keyset node), a
 *               node memo (a walk's distinct nodes), a pointer set (a walk's
 *               path)
 *   dictfill.c  dict_fill, dict_copy_fill, dict_items: a dict's table filled,
 *               cloned or read directly where this CPython's layout is known */
#ifndef GROVE_PY_TABLES_H
#define GROVE_PY_TABLES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "grove.h"
#include "internal.h"

/* ---- maps.c ---- */
typedef struct pm_ent {
  const void *k;
  PyObject *v; /* owned */
} pm_ent;
typedef struct ptrmap {
  pm_ent *t;
  size_t cap, len;
} ptrmap;
PyObject *pm_get(const ptrmap *m, const void *k); /* borrowed or NULL */
/* v is INCREF'd; -1 no memory. A key already present keeps its value (what
 * others may hold borrowed): the value in the map is what pm_get returns. */
int pm_put(ptrmap *m, const void *k, PyObject *v);
void pm_clear(ptrmap *m); /* the values are released after m is empty */

typedef struct kc_ent {
  uint64_t h;
  Py_ssize_t n;
  PyObject **keys; /* owned refs, n of them */
  const gv_node *ks;
} kc_ent;
typedef struct keycache {
  kc_ent *t;
  size_t cap, len, nkeys;
  uint64_t hits, misses, clears;
} keycache;
uint64_t kc_hash(PyObject *const *keys, Py_ssize_t n, int odict);
const gv_node *kc_get(const keycache *c, uint64_t h, PyObject *const *keys, Py_ssize_t n);
/* Whether putting n keys would clear c first (kc_put then releases the keys
 * it held, which may run code: a caller that must run none does not put). */
int kc_full(const keycache *c, Py_ssize_t n);
int kc_put(keycache *c, uint64_t h, PyObject *const *keys, Py_ssize_t n, const gv_node *ks);
void kc_clear(keycache *c); /* the keys are released after c is empty */

/* A type (by identity, a reference held) -> its kind and registrations: the
 * classification cache. Looking a type up runs no Python code (no __hash__
 * of a metaclass). */
typedef struct tm_ent {
  PyTypeObject *t;  /* owned; NULL: an empty slot */
  PyObject *reg;    /* owned or NULL: its registration in the global namespace */
  PyObject *nsregs; /* owned or NULL: dict namespace -> registration (the others) */
  int kind;         /* its kind in the global namespace */
} tm_ent;
typedef struct typemap {
  tm_ent *t;
  size_t cap, len;
} typemap;
const tm_ent *tm_get(const typemap *m, const PyTypeObject *t); /* NULL: absent */
/* The references are taken. -1 no memory. */
int tm_put(typemap *m, PyTypeObject *t, int kind, PyObject *reg, PyObject *nsregs);
/* Empties m. The references are released after m is empty (that may run code). */
void tm_clear(typemap *m);

/* An object (by identity) -> a number (a generation's handles). */
typedef struct im_ent {
  const void *k;
  uint64_t v;
} im_ent;
typedef struct idmap {
  im_ent *t;
  size_t cap, len;
} idmap;
uint64_t im_get(const idmap *m, const void *k);  /* 0: absent */
int im_put(idmap *m, const void *k, uint64_t v); /* -1 no memory */
void im_free(idmap *m);

/* A memo of the distinct nodes a walk over a structure meets (spec_output.c,
 * spec_compare.c): node (by address) -> an owned object or NULL, a number and
 * a flag. */
typedef struct nm_ent {
  const void *k;
  PyObject *obj; /* owned or NULL */
  uint64_t v;
  int flag;
} nm_ent;
typedef struct nmemo {
  nm_ent *t;
  size_t cap, len;
} nmemo;
nm_ent *nm_get(const nmemo *m, const void *k); /* NULL: absent */
/* k's entry, added (zeroed) if new: *fresh (if given) says which. NULL no
 * memory. An entry moves when the table grows: look it up again after a put. */
nm_ent *nm_put(nmemo *m, const void *k, int *fresh);
void nm_free(nmemo *m); /* the objects are released after m is empty */

/* A set of pointers (the walk path, for cycles). */
typedef struct pset {
  const void **t;
  size_t cap, len;
} pset;
int ps_add(pset *s, const void *p); /* 1 added, 0 present, -1 no memory */
void ps_del(pset *s, const void *p);
void ps_free(pset *s);

/* ---- dictfill.c ---- */
/* d: a dict just made by PyDict_Copy(tm), tm a template whose n keys were
 * inserted in order with the value None. Sets d's values to vals[0..n) and,
 * with perm (a permutation of 0..n), reorders d: the r-th key of tm and
 * vals[r] become d's entry perm[r] (its insertion order). With keys, keys[r]
 * (equal to tm's r-th key) is put in place of that key. 1 done; 0 not done
 * (this CPython's dict layout is not known here, or d is not such a copy),
 * d unchanged. Never fails and runs no Python code. */
int dict_fill(PyObject *d, PyObject *tm, PyObject *const *keys, PyObject *const *vals,
              const uint32_t *perm, Py_ssize_t n);
/* A new dict with orig's keys and the values vals[0..n) (insertion order),
 * when orig is an exact dict whose keys in insertion order are keys[0..n)
 * (by identity) in a compact table; else NULL, with an exception only when
 * memory ran out. Runs no Python code (the table is cloned, nothing hashed
 * or compared). */
PyObject *dict_copy_fill(PyObject *orig, PyObject *const *keys, PyObject *const *vals,
                         Py_ssize_t n);
/* The keys and values of dict d (n = len(d)) in insertion order, borrowed:
 * the count written (at most n). Read straight from its table where this
 * CPython's layout is known here and the table is a combined one, else
 * through PyDict_Next. Runs no Python code. */
Py_ssize_t dict_items(PyObject *d, PyObject **keys, PyObject **vals, Py_ssize_t n);
extern const int dict_fill_works; /* 1 where dict_fill can do its work */

#endif
