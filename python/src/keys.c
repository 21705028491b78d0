/* SPDX-License-Identifier: MIT */
/* keys.c -- dict keys and keysets, both ways: key objects -> key nodes and
 * keysets, through the generation's keyset cache (the flatten walk's, and
 * canonicalize's and keras's for a dict's order), and keysets -> tuples of
 * key objects and template dicts (the builders'). */
#include "walk.h"

#include <math.h>

/* ---------------------------------------------------------------------------
 * Key objects -> keysets
 * ------------------------------------------------------------------------- */

static int key_handle(walk *w, PyObject *k, const gv_node **out) {
  uint64_t h = handle_for(w->st, k);
  if (!h) return -1;
  gv_error e;
  gv_status s = gv_handle(w->a, h, out, &e);
  if (s != GV_OK) {
    if (s == GV_ENOMEM) w->oom = 1;
    raise_gv(s, &e);
    return -1;
  }
  return 0;
}

/* A scalar key as a grove node; 1 if it is not one (then nothing is made). */
static int key_scalar(walk *w, PyObject *k, const gv_node **out, gv_status *s, gv_error *e) {
  PyTypeObject *tp = Py_TYPE(k);
  if (tp == &PyUnicode_Type) {
    Py_ssize_t len = 0;
    const char *p = PyUnicode_AsUTF8AndSize(k, &len);
    if (!p) { /* surrogates: no UTF-8 */
      PyErr_Clear();
      return 1;
    }
    *s = gv_str(w->a, p, (size_t)len, out, e);
  } else if (tp == &PyLong_Type) {
    int of = 0;
    long long v = PyLong_AsLongLongAndOverflow(k, &of);
    if (of) return 1;
    *s = gv_int(w->a, v, out, e);
  } else if (tp == &PyBool_Type) {
    *s = gv_bool(w->a, k == Py_True, out, e);
  } else if (tp == &PyFloat_Type) {
    double d = PyFloat_AS_DOUBLE(k);
    if (isnan(d)) return 1; /* NaN keys are distinct objects in Python */
    *s = gv_float(w->a, d, out, e);
  } else if (k == Py_None) {
    *s = gv_none(w->a, out, e);
  } else if (tp == &PyBytes_Type) {
    *s = gv_bytes(w->a, PyBytes_AS_STRING(k), (size_t)PyBytes_GET_SIZE(k), out, e);
  } else {
    return 1;
  }
  return 0;
}

/* A key object as a node; *host = 1 if the dict's order must come from
 * Python (a tuple or a handle among its keys). */
static int key_node(walk *w, PyObject *k, const gv_node **out, int *host) {
  gv_error e;
  gv_status s = GV_OK;
  int r = key_scalar(w, k, out, &s, &e);
  if (r == 1 && w->nocode) { /* a tuple or a handle: its lookup or order may run Python code */
    w->refused = 1;
    return -1;
  }
  if (r == 1 && Py_TYPE(k) == &PyTuple_Type && PyTuple_GET_SIZE(k) <= 64) {
    *host = 1;
    Py_ssize_t n = PyTuple_GET_SIZE(k);
    const gv_node *items[64];
    for (Py_ssize_t i = 0; i < n && r == 1; i++) {
      if (key_scalar(w, PyTuple_GET_ITEM(k, i), &items[i], &s, &e) != 0) goto handle;
      if (s != GV_OK) goto fail;
    }
    s = gv_tuple(w->a, items, (size_t)n, out, &e);
    r = 0;
  }
  if (r == 0) {
    if (s != GV_OK) goto fail;
    return 0;
  }
handle:
  *host = 1;
  return key_handle(w, k, out);
fail:
  if (s == GV_ENOMEM) w->oom = 1;
  raise_gv(s, &e);
  return -1;
}

/* The keyset of keys[0..n) made (a cache miss). Key conversion may run user
 * code (__hash__, __eq__, __lt__): the caller has pinned, and keys[] are
 * held here while it runs. */
const gv_node *keyset_for(walk *w, PyObject *const *keys, Py_ssize_t n, int odict, uint64_t h) {
  GenObject *g = w->g;
  const gv_node *ks;
  g->kc.misses++;
  PyObject *klist = PyList_New(n);
  if (!klist) return NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    Py_INCREF(keys[i]);
    PyList_SET_ITEM(klist, i, keys[i]);
  }
  const gv_node **kn = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *kn);
  uint32_t *order = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *order);
  PyObject *ord = NULL, *ktuple = NULL;
  ks = NULL;
  if (!kn || !order) {
    PyErr_NoMemory();
    goto out;
  }
  int host = 0;
  for (Py_ssize_t i = 0; i < n; i++)
    if (key_node(w, PyList_GET_ITEM(klist, i), &kn[i], &host) < 0) goto out;
  gv_error e;
  gv_status s;
  if (!host) {
    s = gv_keyset(w->a, kn, (size_t)n, &ks, &e);
  } else {
    if (w->nocode && !odict) {
      w->refused = 1;
      goto out;
    }
    if (odict) {
      for (Py_ssize_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    } else {
      if (!w->st->key_order) {
        PyErr_SetString(PyExc_RuntimeError,
                        "grove._grove is set up by importing the grove package");
        goto out;
      }
      ord = PyObject_CallOneArg(w->st->key_order, klist);
      if (!ord) goto out;
      if (!PyList_CheckExact(ord) || PyList_GET_SIZE(ord) != n) {
        PyErr_SetString(PyExc_SystemError, "grove: key order helper returned a bad list");
        goto out;
      }
      for (Py_ssize_t i = 0; i < n; i++)
        order[i] = (uint32_t)PyLong_AsUnsignedLong(PyList_GET_ITEM(ord, i));
      if (PyErr_Occurred()) goto out;
    }
    s = gv_keyset_ordered(w->a, kn, (size_t)n, order, &ks, &e);
  }
  if (s != GV_OK) {
    if (s == GV_ENOMEM) w->oom = 1;
    raise_gv(s, &e);
    ks = NULL;
    goto out;
  }
  if (!pm_get(&g->rev, ks)) {
    ktuple = PyList_AsTuple(klist);
    if (!ktuple || pm_put(&g->rev, ks, ktuple) < 0) {
      if (!PyErr_Occurred()) PyErr_NoMemory();
      ks = NULL;
      goto out;
    }
  }
  if (kc_put(&g->kc, h, keys, n, ks) < 0) {
    PyErr_NoMemory();
    ks = NULL;
  }
out:
  Py_XDECREF(ktuple);
  Py_XDECREF(ord);
  Py_DECREF(klist);
  PyMem_Free(kn);
  PyMem_Free(order);
  return ks;
}

/* The keyset of a dict's keys through the current generation's cache (for
 * canonicalize, which needs only the order). */
const gv_node *canon_keyset(gstate *st, PyObject *keys, PyObject *const *karr, Py_ssize_t n,
                            int *oom) {
  (void)keys;
  for (int attempt = 0; attempt < 2; attempt++) {
    walk w;
    memset(&w, 0, offsetof(walk, fr_inl));
    w.st = st;
    w.g = cur_gen(st);
    if (!w.g) return NULL;
    w.a = w.g->a;
    uint64_t h = 0;
    const gv_node *ks = keyset_cached(&w, karr, n, 0, &h);
    if (!ks) ks = keyset_for(&w, karr, n, 0, h);
    if (ks || !w.oom) return ks;
    *oom = 1;
    PyErr_Clear();
    if (new_gen(st) < 0) return NULL;
  }
  PyErr_SetString(PyExc_MemoryError, "grove: a dict's keys do not fit in the memory limit");
  return NULL;
}

/* For canonicalize's fast pass: the keyset of a dict's keys[0..n) in
 * generation g, made without running Python code. NULL with *refused = 1 and
 * no exception when that cannot be done (a key that is not a built-in scalar
 * grove holds as itself -- another type, a tuple, a NaN, a str with
 * surrogates, an int beyond 64 bits -- or g full); NULL with an exception on
 * an error. */
const gv_node *keyset_nocode(gstate *st, GenObject *g, PyObject *const *keys, Py_ssize_t n,
                             int *refused) {
  walk w;
  memset(&w, 0, offsetof(walk, fr_inl));
  w.st = st;
  w.g = g;
  w.a = g->a;
  w.nocode = 1;
  uint64_t h = 0;
  const gv_node *ks = keyset_cached(&w, keys, n, 0, &h);
  if (ks) return ks;
  ks = keyset_for(&w, keys, n, 0, h);
  if (!ks && (w.oom || w.refused)) {
    PyErr_Clear();
    *refused = 1;
  }
  return ks;
}

/* ---------------------------------------------------------------------------
 * Keysets -> key objects
 * ------------------------------------------------------------------------- */

/* A scalar key node as a Python object (new ref). */
static PyObject *scalar_to_py(gstate *st, const gv_node *k) {
  size_t len = 0;
  switch (gv_kind(k)) {
  case GV_NONE:
    Py_RETURN_NONE;
  case GV_BOOL:
    return PyBool_FromLong(gv_get_bool(k));
  case GV_INT:
    return PyLong_FromLongLong(gv_get_int(k));
  case GV_FLOAT:
    return PyFloat_FromDouble(gv_get_float(k));
  case GV_STR: {
    const char *s = gv_get_str(k, &len);
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "strict");
  }
  case GV_BYTES: {
    const char *s = gv_get_bytes(k, &len);
    return PyBytes_FromStringAndSize(s, (Py_ssize_t)len);
  }
  case GV_HANDLE: {
    PyObject *o = handle_obj(st, gv_get_handle(k));
    Py_XINCREF(o);
    return o;
  }
  default:
    PyErr_SetString(PyExc_ValueError, "grove: not a key node");
    return NULL;
  }
}

PyObject *key_to_py(gstate *st, const gv_node *k) {
  if (gv_kind(k) != GV_TUPLE) return scalar_to_py(st, k);
  size_t n = gv_arity(k); /* a tuple key's elements are scalars (key_node makes no deeper ones) */
  PyObject *t = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; t && i < n; i++) {
    PyObject *e = scalar_to_py(st, gv_child(k, i));
    if (!e) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, e);
  }
  return t;
}

PyObject *keys_of(gstate *st, GenObject *g, const gv_node *ks) {
  PyObject *t = pm_get(&g->rev, ks);
  if (t) return t;
  size_t n = gv_arity(ks);
  t = PyTuple_New((Py_ssize_t)n);
  if (!t) return NULL;
  for (size_t i = 0; i < n; i++) {
    PyObject *k = key_to_py(st, GV__CONT(ks)->kids[i]);
    if (!k) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, k);
  }
  int r = pm_put(&g->rev, ks, t);
  Py_DECREF(t);
  if (r < 0) return PyErr_NoMemory();
  return t; /* borrowed from the map */
}

/* The template of keyset node tn: a dict of its keys in its insertion order,
 * values None (borrowed from the generation's map, made on first use).
 * Copying it costs no hashing, no probing for free slots and no resizing.
 * The key objects are keys_of(ksn): tn is ksn itself (perm NULL) or its
 * sorted twin (the r-th key of tn is ksn's key perm[r]). */
PyObject *dict_template(gstate *st, GenObject *g, const gv_node *ksn, const gv_node *tn,
                        const uint32_t *perm, size_t arity) {
  PyObject *tm = pm_get(&g->tmpl, tn);
  if (tm) return tm;
  PyObject *keys = keys_of(st, g, ksn);
  if (!keys) return NULL;
  tm = PyDict_New(); /* (3.11's presized dicts get no str-keys table) */
  for (size_t i = 0; tm && i < arity; i++)
    if (PyDict_SetItem(tm, PyTuple_GET_ITEM(keys, (Py_ssize_t)(perm ? perm[i] : i)), Py_None) < 0)
      Py_CLEAR(tm);
  if (!tm) return NULL;
  int r = pm_put(&g->tmpl, tn, tm);
  Py_DECREF(tm); /* the map holds it */
  if (r < 0) return PyErr_NoMemory();
  return tm;
}
