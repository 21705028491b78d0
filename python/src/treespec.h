/* SPDX-License-Identifier: MIT */
/* treespec.h -- the TreeSpec of grove._grove (the layers: module.c). On
 * builds.h.
 *
 *   treespec.c      the TreeSpec type: equality, hash, counts, children,
 *                   paths, fingerprint, unflatten, flatten_up_to
 *   spec_compare.c  == and hash() of structures that hold handles (called
 *                   by treespec.c's == and hash())
 *   spec_wire.c     a TreeSpec to and from the wire encoding: _spec_refs,
 *                   _spec_from_wire (TreeSpec.to_bytes / from_bytes) */
#ifndef GROVE_PY_TREESPEC_H
#define GROVE_PY_TREESPEC_H

#include "builds.h"

/* ---- treespec.c ---- */
extern PyType_Spec spec_type_spec;

/* ---- spec_compare.c ---- */
/* Whether canonical nodes a (of generation ga) and b (of gb) are equal, a
 * handle equal to a handle whose object is == to its own (never to a
 * value): 1, 0, or -1 with an exception. Runs code (__eq__): the caller
 * holds ga and gb. */
int nodes_equal(GenObject *ga, const gv_node *a, GenObject *gb, const gv_node *b);
/* A hash of node a in which every handle counts the same (gv_hash(a) when
 * a holds none). 0, or -1 with an exception (no memory). */
int blind_hash(const gv_node *a, uint64_t *out);

/* ---- spec_wire.c ---- */
PyObject *py_spec_refs(PyObject *m, PyObject *arg);
PyObject *py_spec_from_wire(PyObject *m, PyObject *args);

#endif
