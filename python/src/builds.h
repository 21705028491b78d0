/* SPDX-License-Identifier: MIT */
/* builds.h -- the builds of grove._grove: structures (and trees) -> Python
 * objects (the layers: module.c). On walks.h.
 *
 *   unflatten.c      structure + leaves -> objects: tree_unflatten
 *   flatten_up_to.c  the subtrees of a tree at a structure's leaves
 *   canonicalize.c   canonicalize: every dict in sorted-key order
 *   tree_map.c       tree_map: flatten, flatten_up_to, call, unflatten */
#ifndef GROVE_PY_BUILDS_H
#define GROVE_PY_BUILDS_H

#include "walks.h"

/* Grow *p (a PyMem array of *cap elements of elem bytes) to hold need. */
static inline int bgrow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap : 32;
  while (nc < need)
    nc *= 2;
  void *np = PyMem_Realloc(*p, nc * elem);
  if (!np) {
    PyErr_NoMemory();
    return -1;
  }
  *p = np;
  *cap = nc;
  return 0;
}

/* The Python kind of a structure node. */
static inline int node_kind(gstate *st, GenObject *g, const gv_node *n, PyObject *ns,
                            PyObject *regs, PyObject **cls, PyObject **reg) {
  switch (gv__kind(n)) {
  case GV_STAR:
    return K_LEAF;
  case GV_LIST:
    return K_LIST;
  case GV_TUPLE:
    return K_TUPLE;
  case GV_DICT:
    return K_DICT;
  case GV_ODICT:
    return K_ODICT;
  case GV_DDICT:
    return K_DDICT;
  case GV_DEQUE:
    return K_DEQUE;
  case GV_CUSTOM:
    return custom_info(st, g, n, ns, regs, cls, reg);
  default:
    PyErr_SetString(PyExc_ValueError, "grove: not a structure node");
    return -1;
  }
}

/* ---- unflatten.c ---- */
/* The tree of s with leaves[0..n): borrowed from an array that no code can
 * reach or change (the caller's own). */
PyObject *unflatten_node(gstate *st, SpecObject *s, PyObject *const *leaves, Py_ssize_t n);
/* The tree of s with leaves from any iterable (a list read as the build goes,
 * an iterator read up to one item more than s has leaves). */
PyObject *do_unflatten(gstate *st, SpecObject *s, PyObject *leaves);
PyObject *py_tree_unflatten(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);

/* ---- flatten_up_to.c ---- */
PyObject *do_flatten_up_to(gstate *st, SpecObject *s, PyObject *tree);
/* rests[0..nrest) each flattened up to s (new references, in a PyMem array), or NULL with
 * an exception set; free_rests releases such an array (NULL-tolerant). */
PyObject **flatten_rests_up_to(gstate *st, SpecObject *s, PyObject *const *rests, Py_ssize_t nrest);
void free_rests(PyObject **lists, Py_ssize_t nrest);

/* ---- tree_map.c ---- */
PyObject *py_tree_map(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);

/* ---- canonicalize.c ---- */
PyObject *py_canonicalize(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);

#endif
