/* SPDX-License-Identifier: MIT */
/* walks.h -- the walks of grove._grove: Python objects -> leaves and a
 * structure (the layers: module.c). On state.h.
 *
 *   keys.c      dict keys <-> keysets: key objects -> keysets through the
 *               keyset cache; keysets -> key tuples and template dicts
 *   flatten.c   the flatten walk: tree_flatten, tree_leaves, tree_structure
 *   walk.h      the walk's state, shared by the two (nothing else includes it) */
#ifndef GROVE_PY_WALKS_H
#define GROVE_PY_WALKS_H

#include "state.h"

/* ---- keys.c ---- */
/* The keyset of karr[0..n) (held by the caller) in *g (an operation's held
 * generation; replaced when full). May run code. NULL with an exception. */
const gv_node *canon_keyset(gstate *st, GenObject **g, PyObject *const *karr, Py_ssize_t n);
const gv_node *keyset_nocode(gstate *st, GenObject *g, PyObject *const *keys, Py_ssize_t n,
                             int *refused);
/* The Python object for a dict-kind keyset's keys (tuple, borrowed). */
PyObject *keys_of(GenObject *g, const gv_node *ks);
/* The template dict of keyset node tn (keys in tn's order, values None), borrowed. */
PyObject *dict_template(GenObject *g, const gv_node *ksn, const gv_node *tn, const uint32_t *perm,
                        size_t arity);

/* ---- flatten.c ---- */
/* Leaves as a list; with spec non-NULL also the structure (a TreeSpec). */
int do_flatten(gstate *st, const flat_args *fa, PyObject **leaves, PyObject **spec);
PyObject *py_tree_flatten(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);
PyObject *py_tree_leaves(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);
PyObject *py_tree_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);

#endif
