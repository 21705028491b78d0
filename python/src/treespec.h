/* SPDX-License-Identifier: MIT */
/* treespec.h -- the TreeSpec of grove._grove (the layers: module.c). On
 * builds.h.
 *
 *   spec_output.c   what a TreeSpec writes out in full, within the output
 *                   limit: repr(), paths(); set_output_limit; num_nodes;
 *                   tree_flatten_with_path
 *   spec_compare.c  == and hash() of structures that hold handles (called
 *                   by treespec.c's == and hash())
 *   treespec.c      the TreeSpec type: equality, hash, counts, children,
 *                   fingerprint, unflatten, flatten_up_to (its repr and
 *                   paths from spec_output.c)
 *   spec_wire.c     a TreeSpec to and from the wire encoding: _spec_refs,
 *                   _spec_from_wire (TreeSpec.to_bytes / from_bytes)
 *   spec_graft.c    _graft_seq: a tuple or list of TreeSpecs as one
 *                   (treespec_tuple, treespec_list)
 *   spec_access.c   _accessors: TreeSpec.accessors() */
#ifndef GROVE_PY_TREESPEC_H
#define GROVE_PY_TREESPEC_H

#include "builds.h"

/* ---- spec_output.c ---- */
/* The nodes of the tree written out (leaves and None included), or -1 with
 * an exception (OverflowError past PY_SSIZE_T_MAX). O(distinct nodes). */
Py_ssize_t count_nodes(const gv_node *root);
PyObject *spec_repr(PyObject *self);
PyObject *spec_paths(PyObject *self, PyObject *unused);
PyObject *py_tree_flatten_with_path(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kw);
PyObject *py_set_output_limit(PyObject *m, PyObject *arg);

/* ---- spec_compare.c ---- */
/* Whether canonical nodes a (of generation ga) and b (of gb) are equal, a
 * handle equal to a handle whose object is == to its own (never to a
 * value): 1, 0, or -1 with an exception. Runs code (__eq__): the caller
 * holds ga and gb. */
int nodes_equal(GenObject *ga, const gv_node *a, GenObject *gb, const gv_node *b);
/* A hash of node a in which every handle counts the same (gv_hash(a) when
 * a holds none). 0, or -1 with an exception (no memory). */
int blind_hash(const gv_node *a, uint64_t *out);

/* ---- treespec.c ---- */
extern PyType_Spec spec_type_spec;

/* ---- spec_wire.c ---- */
PyObject *py_spec_refs(PyObject *m, PyObject *arg);
PyObject *py_spec_from_wire(PyObject *m, PyObject *args);

/* ---- spec_graft.c ---- */
PyObject *py_graft_seq(PyObject *m, PyObject *const *args, Py_ssize_t nargs);

/* ---- spec_access.c ---- */
PyObject *py_accessors(PyObject *m, PyObject *const *args, Py_ssize_t nargs);

#endif
