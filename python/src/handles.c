/* SPDX-License-Identifier: MIT */
/* handles.c -- handles (below) and the module function _handle_object. */
#include "state.h"

#include <math.h>

/* ---------------------------------------------------------------------------
 * Handles: the objects a structure holds that are no grove values (dict keys
 * such as enums, custom objects or big ints; custom metadata), numbered in
 * the generation that holds them, by identity: a rebuilt tree gets back the
 * very objects it was made of, numbering one never hashes or compares it (no
 * user code runs), and the generation keeps them alive until it is freed.
 * ------------------------------------------------------------------------- */

uint64_t handle_for(GenObject *g, PyObject *obj) {
  uint64_t h = im_get(&g->hmap, obj);
  if (h) return h;
  if (g->nh == g->ch) {
    size_t nc = g->ch ? g->ch * 2 : 64;
    PyObject **nv = PyMem_Realloc(g->hobj, nc * sizeof *nv);
    if (!nv) {
      PyErr_NoMemory();
      return 0;
    }
    g->hobj = nv;
    g->ch = nc;
  }
  if (im_put(&g->hmap, obj, (uint64_t)g->nh + 1) < 0) {
    PyErr_NoMemory();
    return 0;
  }
  Py_INCREF(obj);
  g->hobj[g->nh++] = obj;
  return (uint64_t)g->nh;
}

PyObject *handle_obj(GenObject *g, uint64_t h) {
  if (h == 0 || h > (uint64_t)g->nh) {
    PyErr_Format(PyExc_ValueError, "grove: unknown handle %llu", (unsigned long long)h);
    return NULL;
  }
  return g->hobj[h - 1];
}

void handles_free(GenObject *g) {
  PyObject **v = g->hobj;
  size_t n = g->nh;
  g->hobj = NULL;
  g->nh = g->ch = 0;
  im_free(&g->hmap);
  for (size_t i = 0; i < n; i++)
    Py_DECREF(v[i]);
  PyMem_Free(v);
}

/* ---------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------- */

/* _handle_object(spec, h) -> the object of handle h in spec's generation */
PyObject *py_handle_object(PyObject *m, PyObject *args) {
  gstate *st = state_of_module(m);
  PyObject *spec;
  unsigned long long h;
  if (!PyArg_ParseTuple(args, "O!K", st->spec_type, &spec, &h)) return NULL;
  PyObject *o = handle_obj(((SpecObject *)spec)->gen, h);
  Py_XINCREF(o);
  return o;
}

/* ---------------------------------------------------------------------------
 * Values: the objects grove holds as themselves (by type and value) rather
 * than as handles -- exact None, bool, int within int64, float but NaN,
 * str without surrogates, bytes -- and tuples of them (one level, at most
 * VALUE_TUPLE_MAX items); as nodes and back.
 * ------------------------------------------------------------------------- */

int is_scalar_value(PyObject *o) {
  PyTypeObject *tp = Py_TYPE(o);
  if (o == Py_None || tp == &PyBool_Type || tp == &PyBytes_Type) return 1;
  if (tp == &PyFloat_Type) return !isnan(PyFloat_AS_DOUBLE(o)); /* NaN != NaN: an object */
  if (tp == &PyLong_Type) {
    int of = 0;
    (void)PyLong_AsLongLongAndOverflow(o, &of);
    return !of;
  }
  if (tp == &PyUnicode_Type) { /* unless it holds a surrogate (no UTF-8 for it) */
    int kind = PyUnicode_KIND(o);
    const void *data = PyUnicode_DATA(o);
    if (kind == PyUnicode_1BYTE_KIND) return 1;
    for (Py_ssize_t i = 0, n = PyUnicode_GET_LENGTH(o); i < n; i++) {
      Py_UCS4 c = PyUnicode_READ(kind, data, i);
      if (c >= 0xD800 && c <= 0xDFFF) return 0;
    }
    return 1;
  }
  return 0;
}

int is_value(PyObject *o) {
  if (is_scalar_value(o)) return 1;
  if (Py_TYPE(o) != &PyTuple_Type || PyTuple_GET_SIZE(o) > VALUE_TUPLE_MAX) return 0;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); i++)
    if (!is_scalar_value(PyTuple_GET_ITEM(o, i))) return 0;
  return 1;
}

int scalar_node(gv_arena *a, PyObject *k, const gv_node **out, gv_status *s, gv_error *e) {
  if (!is_scalar_value(k)) return 1;
  PyTypeObject *tp = Py_TYPE(k);
  if (tp == &PyUnicode_Type) {
    Py_ssize_t len = 0;
    const char *p = PyUnicode_AsUTF8AndSize(k, &len);
    if (!p) { /* (no memory for its UTF-8: then it is held as an object) */
      PyErr_Clear();
      return 1;
    }
    *s = gv_str(a, p, (size_t)len, out, e);
  } else if (tp == &PyLong_Type) {
    *s = gv_int(a, PyLong_AsLongLong(k), out, e);
  } else if (tp == &PyBool_Type) {
    *s = gv_bool(a, k == Py_True, out, e);
  } else if (tp == &PyFloat_Type) {
    *s = gv_float(a, PyFloat_AS_DOUBLE(k), out, e);
  } else if (k == Py_None) {
    *s = gv_none(a, out, e);
  } else {
    *s = gv_bytes(a, PyBytes_AS_STRING(k), (size_t)PyBytes_GET_SIZE(k), out, e);
  }
  return 0;
}

/* o as a value node, else as a handle of g (*handles = 1). 0, or -1 with an
 * exception (*oom = 1 when g is full). Runs no code. */
static int md_node(GenObject *g, PyObject *o, const gv_node **out, int *handles, int *oom) {
  gv_error e;
  gv_status s = GV_OK;
  int r = scalar_node(g->a, o, out, &s, &e);
  if (r == 1 && Py_TYPE(o) == &PyTuple_Type && PyTuple_GET_SIZE(o) <= VALUE_TUPLE_MAX) {
    Py_ssize_t n = PyTuple_GET_SIZE(o);
    const gv_node *items[VALUE_TUPLE_MAX];
    r = 0;
    for (Py_ssize_t i = 0; i < n && r == 0 && s == GV_OK; i++)
      r = scalar_node(g->a, PyTuple_GET_ITEM(o, i), &items[i], &s, &e);
    if (r == 0 && s == GV_OK) s = gv_tuple(g->a, items, (size_t)n, out, &e);
  }
  if (r == 1) {
    uint64_t h = handle_for(g, o);
    if (!h) return -1;
    *handles = 1;
    s = gv_handle(g->a, h, out, &e);
  }
  if (s != GV_OK) {
    if (s == GV_ENOMEM) *oom = 1;
    raise_gv(s, &e);
    return -1;
  }
  return 0;
}

int custom_meta_node(GenObject *g, PyObject *md, PyObject *entries, const gv_node **out,
                     int *handles, int *oom) {
  const gv_node *kids[2];
  if (md_node(g, md, &kids[0], handles, oom) < 0 ||
      md_node(g, entries ? entries : Py_None, &kids[1], handles, oom) < 0)
    return -1;
  gv_error e;
  gv_status s = gv_tuple(g->a, kids, 2, out, &e);
  if (s != GV_OK) {
    if (s == GV_ENOMEM) *oom = 1;
    raise_gv(s, &e);
    return -1;
  }
  return 0;
}

/* A scalar value node as an object (new reference). */
static PyObject *scalar_obj(GenObject *g, const gv_node *k) {
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
    PyObject *o = handle_obj(g, gv_get_handle(k));
    Py_XINCREF(o);
    return o;
  }
  default:
    PyErr_SetString(PyExc_ValueError, "grove: not a value node");
    return NULL;
  }
}

PyObject *value_obj(GenObject *g, const gv_node *k) {
  if (gv_kind(k) != GV_TUPLE) return scalar_obj(g, k);
  size_t n = gv_arity(k);
  PyObject *t = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; t && i < n; i++) {
    const gv_node *c = gv_child(k, i);
    PyObject *e = gv_kind(c) == GV_TUPLE ? NULL : scalar_obj(g, c);
    if (!e) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "grove: not a value node");
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, e);
  }
  return t;
}

int custom_md(GenObject *g, const gv_node *n, PyObject **md, PyObject **entries) {
  *md = *entries = NULL;
  const gv_node *meta = ctype_meta(n), *en;
  if (!meta || gv_kind(meta) != GV_TUPLE || gv_arity(meta) != 2) goto malformed;
  en = gv_child(meta, 1);
  if (gv_kind(en) != GV_NONE) {
    if (!(*entries = value_obj(g, en))) return -1;
    if (!PyTuple_Check(*entries) || (size_t)PyTuple_GET_SIZE(*entries) != gv_arity(n)) {
      Py_CLEAR(*entries);
      goto malformed;
    }
  }
  if ((*md = value_obj(g, gv_child(meta, 0)))) return 0;
  Py_CLEAR(*entries);
  return -1;
malformed: /* (the flatten walk and from_bytes make none such) */
  PyErr_SetString(PyExc_SystemError,
                  "grove: a custom node's metadata is not (metadata, entries) with entries None "
                  "or one per child");
  return -1;
}
