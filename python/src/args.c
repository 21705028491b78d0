/* SPDX-License-Identifier: MIT */
/* args.c -- what every module function begins and ends with: its module
 * state, its arguments parsed (parse_args; flat_opts for the flatten
 * options), grove statuses and paths raised as Python errors. */
#include "state.h"

#include <stdarg.h>

gstate *state_of_module(PyObject *m) {
  return (gstate *)PyModule_GetState(m);
}
gstate *state_of_type(PyTypeObject *t) {
  return (gstate *)PyType_GetModuleState(t);
}

/* ---------------------------------------------------------------------------
 * Argument parsing
 * ------------------------------------------------------------------------- */

int parse_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *fname,
               const char *const *names, int npos, int nreq, PyObject **out) {
  int total = 0;
  while (names[total])
    total++;
  for (int i = 0; i < total; i++)
    out[i] = NULL;
  if (nargs > npos) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)", fname,
                 npos, nargs);
    return -1;
  }
  for (Py_ssize_t i = 0; i < nargs; i++)
    out[i] = args[i];
  if (kwnames) {
    Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t j = 0; j < nk; j++) {
      PyObject *kn = PyTuple_GET_ITEM(kwnames, j);
      int found = -1;
      for (int i = 0; i < total; i++)
        if (PyUnicode_CompareWithASCIIString(kn, names[i]) == 0) {
          found = i;
          break;
        }
      if (found < 0) {
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fname, kn);
        return -1;
      }
      if (out[found]) {
        PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                     names[found]);
        return -1;
      }
      out[found] = args[nargs + j];
    }
  }
  for (int i = 0; i < nreq; i++)
    if (!out[i]) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname, names[i]);
      return -1;
    }
  return 0;
}

int flat_opts(gstate *st, PyObject *is_leaf, PyObject *nil, PyObject *ns, flat_args *fa) {
  fa->own = NULL;
  fa->is_leaf = (is_leaf && is_leaf != Py_None) ? is_leaf : NULL;
  if (fa->is_leaf && !PyCallable_Check(fa->is_leaf)) {
    PyErr_Format(PyExc_TypeError, "is_leaf must be callable or None, got %R", is_leaf);
    return -1;
  }
  fa->none_is_leaf = 0;
  if (nil) {
    int b = PyObject_IsTrue(nil);
    if (b < 0) return -1;
    fa->none_is_leaf = b;
  }
  fa->ns = st->empty_ns;
  if (ns) {
    if (!PyUnicode_CheckExact(ns)) {
      /* a str subclass's __hash__ / __eq__ would run in every registry
       * lookup: the walks need an exact str (kept alive by st's cache) */
      if (!PyUnicode_Check(ns)) {
        PyErr_Format(PyExc_TypeError, "The namespace must be a string, got %R.", ns);
        return -1;
      }
      if (!(fa->own = PyUnicode_Substring(ns, 0, PyUnicode_GET_LENGTH(ns)))) return -1;
      ns = fa->own;
    }
    fa->ns = ns;
  }
  return 0;
}

/* ---------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------- */

PyObject *raise_gv(gv_status s, const gv_error *e) {
  const char *msg = e ? e->msg : gv_status_name(s);
  if (s == GV_ENOMEM)
    PyErr_Format(PyExc_MemoryError, "grove: %s", msg);
  else if (s == GV_EDEPTH)
    PyErr_Format(PyExc_RecursionError, "grove: %s", msg);
  else
    PyErr_Format(PyExc_ValueError, "%s", msg);
  return NULL;
}

#define ENTRY_CHARS 60 /* an entry's repr in a message is cut to this */

PyObject *path_repr(PyObject *path) {
  Py_ssize_t n = PyTuple_GET_SIZE(path);
  PyObject *parts = PyList_New(0), *out = NULL;
  if (!parts) return NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *e = PyTuple_GET_ITEM(path, i), *r;
    if (e == Py_Ellipsis) {
      r = PyUnicode_FromString("...");
    } else {
      r = PyObject_Repr(e);
      if (r && PyUnicode_GET_LENGTH(r) > ENTRY_CHARS) {
        PyObject *c = PyUnicode_Substring(r, 0, ENTRY_CHARS - 3);
        Py_SETREF(r, c ? PyUnicode_FromFormat("%U...", c) : NULL);
        Py_XDECREF(c);
      }
    }
    if (!r || PyList_Append(parts, r) < 0) {
      Py_XDECREF(r);
      goto out;
    }
    Py_DECREF(r);
  }
  {
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *body = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    if (body) out = PyUnicode_FromFormat(n == 1 ? "(%U,)" : "(%U)", body);
    Py_XDECREF(body);
  }
out:
  Py_DECREF(parts);
  return out;
}

PyObject *err_at(PyObject *exc, PyObject *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (!msg) return NULL;
  if (path && PyTuple_GET_SIZE(path) > 0) {
    PyObject *where = path_repr(path);
    if (where) PyErr_Format(exc, "at %U: %U", where, msg);
    Py_XDECREF(where);
  } else {
    PyErr_SetObject(exc, msg);
  }
  Py_DECREF(msg);
  return NULL;
}

/* ---------------------------------------------------------------------------
 * Snapshots
 * ------------------------------------------------------------------------- */

PyObject *seq_tuple(PyObject *o) {
  if (PyTuple_CheckExact(o)) {
    Py_INCREF(o);
    return o;
  }
  if (!PyList_Check(o)) return PySequence_Tuple(o);
  /* PySequence_Tuple of a list reads its items after allocating the tuple,
   * from where they were before; the allocation may run finalizers that
   * change the list. So: allocate, then read what the list holds now. */
  for (int attempt = 0; attempt < 4; attempt++) {
    Py_ssize_t n = PyList_GET_SIZE(o);
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    if (PyList_GET_SIZE(o) != n) {
      Py_DECREF(t);
      continue;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *x = PyList_GET_ITEM(o, i);
      Py_INCREF(x);
      PyTuple_SET_ITEM(t, i, x);
    }
    return t;
  }
  PyErr_SetString(PyExc_RuntimeError, "list changed size during iteration");
  return NULL;
}
