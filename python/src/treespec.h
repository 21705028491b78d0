/* SPDX-License-Identifier: MIT */
/* treespec.h -- the TreeSpec of grove._grove (the layers: module.c). On
 * builds.h.
 *
 *   spec_output.c  what a TreeSpec writes out in full, within the output
 *                  limit: repr(), paths(); set_output_limit; num_nodes
 *   treespec.c     the TreeSpec type: equality, hash, counts, children,
 *                  fingerprint, unflatten, flatten_up_to (its repr and
 *                  paths from spec_output.c)
 *   spec_wire.c    a TreeSpec to and from the wire encoding: _spec_refs,
 *                  _spec_from_wire (TreeSpec.to_bytes / from_bytes) */
#ifndef GROVE_PY_TREESPEC_H
#define GROVE_PY_TREESPEC_H

#include "builds.h"

/* ---- spec_output.c ---- */
/* The nodes of the tree written out (leaves and None included), or -1 with
 * an exception (OverflowError past PY_SSIZE_T_MAX). O(distinct nodes). */
Py_ssize_t count_nodes(const gv_node *root);
PyObject *spec_repr(PyObject *self);
PyObject *spec_paths(PyObject *self, PyObject *unused);
PyObject *py_set_output_limit(PyObject *m, PyObject *arg);

/* ---- treespec.c ---- */
extern PyType_Spec spec_type_spec;

/* ---- spec_wire.c ---- */
PyObject *py_spec_refs(PyObject *m, PyObject *arg);
PyObject *py_spec_from_wire(PyObject *m, PyObject *args);

#endif
