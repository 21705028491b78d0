/* SPDX-License-Identifier: MIT */
/* treespec.h -- the TreeSpec of grove._grove (the layers: module.c). On
 * builds.h.
 *
 *   treespec.c   the TreeSpec type: equality, hash, counts, children, paths,
 *                fingerprint, unflatten, flatten_up_to
 *   spec_wire.c  a TreeSpec to and from the wire encoding: _spec_refs,
 *                _spec_from_wire (TreeSpec.to_bytes / from_bytes) */
#ifndef GROVE_PY_TREESPEC_H
#define GROVE_PY_TREESPEC_H

#include "builds.h"

/* ---- treespec.c ---- */
extern PyType_Spec spec_type_spec;

/* ---- spec_wire.c ---- */
PyObject *py_spec_refs(PyObject *m, PyObject *arg);
PyObject *py_spec_from_wire(PyObject *m, PyObject *args);

#endif
