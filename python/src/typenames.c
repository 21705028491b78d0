/* SPDX-License-Identifier: MIT */
/* typenames.c -- type names (below) and the module functions _object_named
 * and _name_for. */
#include "state.h"

/* ---------------------------------------------------------------------------
 * Type names: every class (and defaultdict factory) that a structure names
 * gets a name unique in the process while it is in use, "module·qualname"
 * made identifier-safe by the package's mangle function, with "·2", "·3",
 * ... for a second object of the same module and qualname. A generation that
 * names an object holds it (its reverse map) and counts once in the name's
 * entry of the module's table; the entry goes when the last such generation
 * is freed, so classes made at run time do not accumulate. (An entry made by
 * _name_for, with no generation yet, is swept once many such wait.)
 * ------------------------------------------------------------------------- */

#define NAME_SWEEP 1024 /* unused entries (count 0) kept before a sweep */

/* Drop the unused entries (count 0). */
static void names_sweep(gstate *st) {
  PyObject *items = PyDict_Items(st->namerefs);
  if (!items) {
    PyErr_Clear();
    return;
  }
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
    PyObject *it = PyList_GET_ITEM(items, i);
    PyObject *name = PyTuple_GET_ITEM(it, 0), *cnt = PyTuple_GET_ITEM(it, 1);
    if (PyLong_AsSsize_t(cnt) != 0) continue;
    PyObject *obj = PyDict_GetItem(st->names, name);
    PyObject *key = obj ? PyLong_FromVoidPtr(obj) : NULL;
    if (key && PyDict_DelItem(st->objnames, key) < 0) PyErr_Clear();
    Py_XDECREF(key);
    if (PyDict_DelItem(st->namerefs, name) < 0 || PyDict_DelItem(st->names, name) < 0)
      PyErr_Clear();
  }
  PyErr_Clear();
  Py_DECREF(items);
  st->names_unused = 0;
}

/* obj's name (new reference); made (with count 0) if obj has none. */
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
  Py_INCREF(obj); /* mangle is code: it could drop obj */
  PyObject *base = PyObject_CallOneArg(st->mangle, obj);
  if (!base) goto fail_obj;
  if (!PyUnicode_CheckExact(base)) {
    Py_DECREF(base);
    PyErr_SetString(PyExc_TypeError, "grove: mangle must return a str");
    goto fail_obj;
  }
  /* (mangle ran code: another thread may have named obj meanwhile) */
  name = PyDict_GetItemWithError(st->objnames, key);
  if (name || PyErr_Occurred()) {
    Py_XINCREF(name);
    Py_DECREF(base);
    Py_DECREF(obj);
    Py_DECREF(key);
    return name;
  }
  name = base;
  Py_INCREF(name);
  for (int i = 2;; i++) { /* the table's keys are exact str: no code runs */
    int has = PyDict_Contains(st->names, name);
    if (has <= 0) break;
    Py_DECREF(name);
    name = PyUnicode_FromFormat("%U%c%d", base, 0xB7, i); /* base·i */
    if (!name) break;
  }
  Py_DECREF(base);
  if (!name || PyErr_Occurred()) {
    Py_XDECREF(name);
    goto fail_obj;
  }
  PyObject *zero = PyLong_FromLong(0);
  if (!zero || PyDict_SetItem(st->names, name, obj) < 0 ||
      PyDict_SetItem(st->objnames, key, name) < 0 || PyDict_SetItem(st->namerefs, name, zero) < 0) {
    Py_XDECREF(zero);
    PyDict_DelItem(st->names, name);
    PyDict_DelItem(st->objnames, key);
    PyErr_Clear();
    PyErr_NoMemory();
    Py_DECREF(name);
    goto fail_obj;
  }
  Py_DECREF(zero);
  Py_DECREF(obj);
  Py_DECREF(key);
  if (++st->names_unused > NAME_SWEEP) {
    Py_INCREF(obj);
    names_sweep(st); /* (obj's own entry stays: it is about to be counted, or was just asked for) */
    Py_DECREF(obj);
  }
  return name;
fail_obj:
  Py_DECREF(obj);
fail:
  Py_DECREF(key);
  return NULL;
}

/* Count one more (d = 1) or one fewer (d = -1) generation naming name; the
 * entry goes at zero. */
static void name_count(gstate *st, PyObject *name, int d) {
  PyObject *c = PyDict_GetItem(st->namerefs, name);
  if (!c) return;
  Py_ssize_t n = PyLong_AsSsize_t(c) + d;
  if (n == 1 && d > 0 && st->names_unused) st->names_unused--;
  if (n <= 0) {
    PyObject *obj = PyDict_GetItem(st->names, name);
    PyObject *key = obj ? PyLong_FromVoidPtr(obj) : NULL;
    Py_INCREF(name);
    if (key && PyDict_DelItem(st->objnames, key) < 0) PyErr_Clear();
    Py_XDECREF(key);
    if (PyDict_DelItem(st->namerefs, name) < 0) PyErr_Clear();
    if (PyDict_DelItem(st->names, name) < 0) PyErr_Clear();
    Py_DECREF(name);
    return;
  }
  PyObject *nc = PyLong_FromSsize_t(n);
  if (!nc || PyDict_SetItem(st->namerefs, name, nc) < 0) PyErr_Clear();
  Py_XDECREF(nc);
}

/* g names obj by node n from now on: its maps, and the count. 0 or -1. */
static int gen_names(gstate *st, GenObject *g, PyObject *key, PyObject *obj, PyObject *name,
                     const gv_node *n) {
  PyObject *pv = PyLong_FromVoidPtr((void *)n);
  if (!pv || PyDict_SetItem(g->tnodes, key, pv) < 0 || pm_put(&g->rev, n, obj) < 0 ||
      im_put(&g->tnid, obj, (uint64_t)(uintptr_t)n) < 0) {
    Py_XDECREF(pv);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return -1;
  }
  Py_DECREF(pv);
  name_count(st, name, 1);
  return 0;
}

const gv_node *name_node(gstate *st, GenObject *g, PyObject *obj, int *oom) {
  const gv_node *known = name_node_known(g, obj);
  if (known) return known;
  PyObject *key = PyLong_FromVoidPtr(obj);
  if (!key) return NULL;
  PyObject *v = PyDict_GetItemWithError(g->tnodes, key); /* int keys: no code */
  if (v) {
    Py_DECREF(key);
    return (const gv_node *)PyLong_AsVoidPtr(v);
  }
  const gv_node *n = NULL;
  Py_INCREF(obj);
  PyObject *name = PyErr_Occurred() ? NULL : name_of(st, obj); /* may run code */
  if (!name) goto out;
  v = PyDict_GetItemWithError(g->tnodes, key); /* (named meanwhile, by that code) */
  if (v) {
    n = (const gv_node *)PyLong_AsVoidPtr(v);
    goto out;
  }
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
  if (gen_names(st, g, key, obj, name, n) < 0) n = NULL;
out:
  Py_XDECREF(name);
  Py_DECREF(obj);
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
  Py_INCREF(o);
  PyObject *key = PyLong_FromVoidPtr(o);
  int r = key ? gen_names(st, g, key, o, ps, name) : -1;
  Py_XDECREF(key);
  Py_DECREF(ps);
  Py_DECREF(o); /* g's reverse map holds it */
  return r < 0 ? NULL : pm_get(&g->rev, name);
}

void gen_names_free(GenObject *g) {
  gstate *st = g->st;
  PyObject *t = g->tnodes;
  g->tnodes = NULL;
  im_free(&g->tnid);
  if (!t) return;
  if (st && st->objnames && st->namerefs && st->names) {
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    /* (name_count changes only the module's tables, not t) */
    while (PyDict_Next(t, &pos, &k, &v)) {
      PyObject *name = PyDict_GetItem(st->objnames, k);
      if (name) name_count(st, name, -1);
    }
  }
  Py_DECREF(t);
}

/* ---------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------- */

PyObject *py_object_named(PyObject *m, PyObject *arg) {
  gstate *st = state_of_module(m);
  if (!PyUnicode_CheckExact(arg)) {
    PyErr_Format(PyExc_TypeError, "expected a str, got %R", arg);
    return NULL;
  }
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
