/* SPDX-License-Identifier: MIT */
/* handles.c -- handles (below) and the module functions _handle_object and
 * _handle_for. */
#include "state.h"

/* ---------------------------------------------------------------------------
 * Handles: objects that are no grove scalars (dict keys, custom metadata),
 * numbered once per process; equal objects (== and hash) share a number.
 * ------------------------------------------------------------------------- */

uint64_t handle_for(gstate *st, PyObject *obj) {
  PyObject *h = PyDict_GetItemWithError(st->handle_of, obj);
  if (h) return (uint64_t)PyLong_AsUnsignedLongLong(h);
  int hashable = 1;
  if (PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return 0;
    PyErr_Clear();
    hashable = 0;
    Py_ssize_t n = PyList_GET_SIZE(st->unhashable);
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *hv = PyList_GET_ITEM(st->unhashable, i);
      Py_INCREF(hv);
      uint64_t hh = (uint64_t)PyLong_AsUnsignedLongLong(hv);
      PyObject *o = PyList_GET_ITEM(st->handles, (Py_ssize_t)hh - 1);
      Py_INCREF(o);
      int eq = PyObject_RichCompareBool(o, obj, Py_EQ);
      Py_DECREF(o);
      Py_DECREF(hv);
      if (eq < 0) { /* e.g. numpy arrays: no truth value; then they are not one handle */
        PyErr_Clear();
        eq = 0;
      }
      if (eq) return hh;
      n = PyList_GET_SIZE(st->unhashable);
    }
  }
  if (PyList_Append(st->handles, obj) < 0) return 0;
  uint64_t hh = (uint64_t)PyList_GET_SIZE(st->handles);
  PyObject *hv = PyLong_FromUnsignedLongLong(hh);
  if (!hv) return 0;
  int r = hashable ? PyDict_SetItem(st->handle_of, obj, hv) : PyList_Append(st->unhashable, hv);
  Py_DECREF(hv);
  return r < 0 ? 0 : hh;
}

PyObject *handle_obj(gstate *st, uint64_t h) {
  if (h == 0 || h > (uint64_t)PyList_GET_SIZE(st->handles)) {
    PyErr_Format(PyExc_ValueError, "grove: unknown handle %llu", (unsigned long long)h);
    return NULL;
  }
  return PyList_GET_ITEM(st->handles, (Py_ssize_t)h - 1);
}

/* ---------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------- */

PyObject *py_handle_object(PyObject *m, PyObject *arg) {
  gstate *st = state_of_module(m);
  unsigned long long h = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  PyObject *o = handle_obj(st, h);
  Py_XINCREF(o);
  return o;
}

PyObject *py_handle_for(PyObject *m, PyObject *arg) {
  gstate *st = state_of_module(m);
  uint64_t h = handle_for(st, arg);
  if (!h) return NULL;
  return PyLong_FromUnsignedLongLong(h);
}
