/* SPDX-License-Identifier: MIT */
/* typenames.c -- type names (below) and the module functions _object_named
 * and _name_for. */
#include "state.h"

/* ---------------------------------------------------------------------------
 * Type names: every class (and defaultdict factory) that a structure names
 * gets a process-unique name, "module·qualname" made identifier-safe by the
 * package's mangle function, with "·2", "·3", ... for a second object of the
 * same module and qualname. The name table keeps its objects alive.
 * ------------------------------------------------------------------------- */

static PyObject *name_of(gstate *st, PyObject *obj) {
  PyObject *key = PyLong_FromVoidPtr(obj);
  if (!key) return NULL;
  PyObject *name = PyDict_GetItemWithError(st->objnames, key);
  if (name) {
    Py_DECREF(key);
    Py_INCREF(name);
    return name;
  }
  if (PyErr_Occurred()) goto fail;
  if (!st->mangle) {
    PyErr_SetString(PyExc_RuntimeError, "grove._grove is set up by importing the grove package");
    goto fail;
  }
  PyObject *base = PyObject_CallOneArg(st->mangle, obj);
  if (!base) goto fail;
  if (!PyUnicode_Check(base)) {
    Py_DECREF(base);
    PyErr_SetString(PyExc_TypeError, "grove: mangle must return a str");
    goto fail;
  }
  name = base;
  Py_INCREF(name);
  for (int i = 2;; i++) {
    int has = PyDict_Contains(st->names, name);
    if (has < 0) break;
    if (!has) break;
    Py_DECREF(name);
    name = PyUnicode_FromFormat("%U\xc2\xb7%d", base, i);
    if (!name) break;
  }
  Py_DECREF(base);
  if (!name || PyErr_Occurred()) {
    Py_XDECREF(name);
    goto fail;
  }
  if (PyDict_SetItem(st->names, name, obj) < 0 || PyDict_SetItem(st->objnames, key, name) < 0) {
    Py_DECREF(name);
    goto fail;
  }
  Py_DECREF(key);
  return name;
fail:
  Py_DECREF(key);
  return NULL;
}

const gv_node *name_node(gstate *st, GenObject *g, PyObject *obj, int *oom) {
  PyObject *key = PyLong_FromVoidPtr(obj);
  if (!key) return NULL;
  PyObject *v = PyDict_GetItemWithError(g->tnodes, key);
  if (v) {
    Py_DECREF(key);
    return (const gv_node *)PyLong_AsVoidPtr(v);
  }
  const gv_node *n = NULL;
  PyObject *name = PyErr_Occurred() ? NULL : name_of(st, obj);
  if (!name) goto out;
  Py_ssize_t len = 0;
  const char *s = PyUnicode_AsUTF8AndSize(name, &len);
  if (!s) goto out;
  gv_error e;
  gv_status rc = gv_str(g->a, s, (size_t)len, &n, &e);
  if (rc != GV_OK) {
    if (rc == GV_ENOMEM) *oom = 1;
    raise_gv(rc, &e);
    n = NULL;
    goto out;
  }
  PyObject *pv = PyLong_FromVoidPtr((void *)n);
  if (!pv || PyDict_SetItem(g->tnodes, key, pv) < 0 || pm_put(&g->rev, n, obj) < 0) {
    Py_XDECREF(pv);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    n = NULL;
    goto out;
  }
  Py_DECREF(pv);
out:
  Py_XDECREF(name);
  Py_DECREF(key);
  return n;
}

PyObject *named_obj(gstate *st, GenObject *g, const gv_node *name) {
  PyObject *o = pm_get(&g->rev, name);
  if (o) return o;
  size_t len = 0;
  const char *s = gv_get_str(name, &len);
  if (!s) {
    PyErr_SetString(PyExc_ValueError, "grove: a type name is not a str");
    return NULL;
  }
  PyObject *ps = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "strict");
  if (!ps) return NULL;
  o = PyDict_GetItemWithError(st->names, ps);
  if (!o) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_ValueError, "grove: no class or factory is known by the name %R", ps);
    Py_DECREF(ps);
    return NULL;
  }
  Py_DECREF(ps);
  if (pm_put(&g->rev, name, o) < 0) return PyErr_NoMemory();
  return o;
}

/* ---------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------- */

PyObject *py_object_named(PyObject *m, PyObject *arg) {
  gstate *st = state_of_module(m);
  PyObject *o = PyDict_GetItemWithError(st->names, arg);
  if (!o) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_KeyError, "%R", arg);
    return NULL;
  }
  Py_INCREF(o);
  return o;
}

PyObject *py_name_for(PyObject *m, PyObject *arg) {
  return name_of(state_of_module(m), arg);
}
