/* SPDX-License-Identifier: MIT */
/* registry.c -- the registry's C side: which kind of node an object of a
 * class is (classification, with the namespaces' registrations), and which
 * class and registration a custom structure node names; _setup /
 * _registry_changed. */
#include "state.h"

/* ---------------------------------------------------------------------------
 * Registry and classification
 * ------------------------------------------------------------------------- */

PyObject *registration(gstate *st, PyObject *ns, PyTypeObject *t) {
  PyObject *d = PyDict_GetItem(st->nsreg, ns);
  if (d) {
    PyObject *r = PyDict_GetItem(d, (PyObject *)t);
    if (r) return r;
  }
  if (PyUnicode_GET_LENGTH(ns) != 0) {
    d = PyDict_GetItem(st->nsreg, st->empty_ns);
    if (d) return PyDict_GetItem(d, (PyObject *)t);
  }
  return NULL;
}

static int has_callable(PyObject *t, PyObject *name) {
  PyObject *a = PyObject_GetAttr(t, name);
  if (!a) {
    PyErr_Clear();
    return 0;
  }
  int r = PyCallable_Check(a);
  Py_DECREF(a);
  return r;
}

static int is_namedtuple_class(gstate *st, PyTypeObject *t) {
  if (!PyType_FastSubclass(t, Py_TPFLAGS_TUPLE_SUBCLASS)) return 0;
  PyObject *f = PyObject_GetAttr((PyObject *)t, st->s_fields);
  if (!f) {
    PyErr_Clear();
    return 0;
  }
  int ok = PyTuple_CheckExact(f);
  for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(f); i++)
    if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(f, i))) ok = 0;
  Py_DECREF(f);
  return ok && has_callable((PyObject *)t, st->s_make) && has_callable((PyObject *)t, st->s_asdict);
}

static int is_structseq_class(gstate *st, PyTypeObject *t) {
  if (!PyType_FastSubclass(t, Py_TPFLAGS_TUPLE_SUBCLASS) || !t->tp_bases ||
      !PyTuple_CheckExact(t->tp_bases) || PyTuple_GET_SIZE(t->tp_bases) != 1 ||
      PyTuple_GET_ITEM(t->tp_bases, 0) != (PyObject *)&PyTuple_Type)
    return 0;
  PyObject *names[3] = {st->s_n_fields, st->s_n_sequence_fields, st->s_n_unnamed_fields};
  for (int i = 0; i < 3; i++) {
    PyObject *a = PyObject_GetAttr((PyObject *)t, names[i]);
    if (!a) {
      PyErr_Clear();
      return 0;
    }
    int ok = PyLong_CheckExact(a);
    Py_DECREF(a);
    if (!ok) return 0;
  }
  return !PyType_HasFeature(t, Py_TPFLAGS_BASETYPE);
}

int classify_slow(gstate *st, PyObject *nsdict, PyTypeObject *t, PyObject **reg) {
  if (nsdict) {
    PyObject *r = PyDict_GetItem(nsdict, (PyObject *)t);
    if (r) {
      *reg = r;
      return K_CUSTOM;
    }
  }
  PyObject *v = PyDict_GetItem(st->typecache, (PyObject *)t);
  if (v) {
    if (PyLong_CheckExact(v)) return (int)PyLong_AsLong(v);
    *reg = v;
    return K_CUSTOM;
  }
  int k;
  PyObject *g = PyDict_GetItem(st->nsreg, st->empty_ns),
           *r = g ? PyDict_GetItem(g, (PyObject *)t) : NULL;
  if (r) {
    *reg = r;
    k = K_CUSTOM;
  } else if (t == st->odict_t) {
    k = K_ODICT;
  } else if (t == st->ddict_t) {
    k = K_DDICT;
  } else if (t == st->deque_t) {
    k = K_DEQUE;
  } else if (t == Py_TYPE(Py_None)) {
    k = K_NONE;
  } else if (is_namedtuple_class(st, t)) {
    k = K_NT;
  } else if (is_structseq_class(st, t)) {
    k = K_SS;
  } else {
    k = K_LEAF;
  }
  if (PyDict_GET_SIZE(st->typecache) > 4096) PyDict_Clear(st->typecache);
  PyObject *val = r ? (Py_INCREF(r), r) : PyLong_FromLong(k);
  if (val) {
    if (PyDict_SetItem(st->typecache, (PyObject *)t, val) < 0) PyErr_Clear();
    Py_DECREF(val);
  } else {
    PyErr_Clear();
  }
  return k;
}

int custom_info(gstate *st, GenObject *g, const gv_node *n, PyObject *ns, PyObject **cls,
                PyObject **reg) {
  const gv_node *tn = ctype_name(n);
  if (tn == ctype_name(g->none_node)) return K_NONE;
  PyObject *c = named_obj(st, g, tn);
  if (!c) return -1;
  *cls = c;
  *reg = NULL;
  if (ctype_meta(n)) {
    if (!PyType_Check(c) || !(*reg = registration(st, ns, (PyTypeObject *)c))) {
      PyErr_Format(PyExc_ValueError, "grove: %R is not registered as a pytree node class", c);
      return -1;
    }
    return K_CUSTOM;
  }
  if (!PyType_Check(c)) {
    PyErr_Format(PyExc_ValueError, "grove: %R is not a class", c);
    return -1;
  }
  return PyObject_HasAttr(c, st->s_n_sequence_fields) ? K_SS : K_NT;
}

/* ---------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------- */

PyObject *py_setup(PyObject *m, PyObject *args) {
  gstate *st = state_of_module(m);
  PyObject *nsreg, *key_order, *mangle;
  if (!PyArg_ParseTuple(args, "O!OO", &PyDict_Type, &nsreg, &key_order, &mangle)) return NULL;
  Py_INCREF(nsreg);
  Py_XSETREF(st->nsreg, nsreg);
  Py_INCREF(key_order);
  Py_XSETREF(st->key_order, key_order);
  Py_INCREF(mangle);
  Py_XSETREF(st->mangle, mangle);
  PyDict_Clear(st->typecache);
  Py_RETURN_NONE;
}

PyObject *py_registry_changed(PyObject *m, PyObject *unused) {
  (void)unused;
  gstate *st = state_of_module(m);
  PyDict_Clear(st->typecache);
  Py_RETURN_NONE;
}
