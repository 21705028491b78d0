/* SPDX-License-Identifier: MIT */
/* spec_wire.c -- a TreeSpec to and from grove's wire encoding, for the
 * package's TreeSpec.to_bytes / from_bytes (which carry the handles' objects
 * and the named classes beside the encoding): _spec_refs, _spec_from_wire. */
#include "treespec.h"

#include <string.h>

/* ---- wire: the references a structure makes (for to_bytes) and decoding ---- */

/* _spec_refs(spec) -> (wire bytes, set of handles, set of names) */
typedef struct bufw {
  char *p;
  size_t len, cap;
} bufw;
static gv_status buf_write(void *ctx, const char *data, size_t len) {
  bufw *b = ctx;
  if (b->len + len > b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 256;
    while (nc < b->len + len)
      nc *= 2;
    char *np = PyMem_Realloc(b->p, nc);
    if (!np) return GV_ENOMEM;
    b->p = np;
    b->cap = nc;
  }
  memcpy(b->p + b->len, data, len);
  b->len += len;
  return GV_OK;
}

PyObject *py_spec_refs(PyObject *m, PyObject *arg) {
  gstate *st = state_of_module(m);
  if (!PyObject_TypeCheck(arg, st->spec_type)) {
    PyErr_SetString(PyExc_TypeError, "expected a TreeSpec");
    return NULL;
  }
  SpecObject *s = (SpecObject *)arg;
  bufw b = {NULL, 0, 0};
  gv_error e;
  gv_status rc = gv_encode(s->gen->a, s->node, buf_write, &b, &e);
  if (rc != GV_OK) {
    PyMem_Free(b.p);
    return raise_gv(rc, &e);
  }
  PyObject *bytes = PyBytes_FromStringAndSize(b.p, (Py_ssize_t)b.len);
  PyMem_Free(b.p);
  if (!bytes) return NULL;
  /* every handle and every str node among the interned nodes reachable:
   * walk the structure (keysets and ctypes included) with a stack */
  PyObject *handles = PySet_New(NULL), *names = PySet_New(NULL);
  const gv_node **stack = NULL;
  size_t n = 0, cap = 0;
  ptrmap seen = {NULL, 0, 0};
  if (!handles || !names) goto fail;
  if (!(stack = PyMem_Malloc(64 * sizeof *stack))) goto fail;
  cap = 64;
  stack[n++] = s->node;
  while (n) {
    const gv_node *x = stack[--n];
    if (!x) continue;
    unsigned k = gv_kind(x);
    if (k == GV_HANDLE) {
      PyObject *h = PyLong_FromUnsignedLongLong(gv_get_handle(x));
      if (!h || PySet_Add(handles, h) < 0) {
        Py_XDECREF(h);
        goto fail;
      }
      Py_DECREF(h);
      continue;
    }
    if (gv__is_imm(x) || gv__is_leaf_kind(k)) continue;
    if (pm_get(&seen, x)) continue;
    if (pm_put(&seen, x, Py_None) < 0) goto fail;
    const gv__cont *c = GV__CONT(x);
    if (k == GV_CTYPE) {
      size_t len = 0;
      const char *nm = gv_get_str(c->kids[0], &len);
      PyObject *ps = PyUnicode_DecodeUTF8(nm, (Py_ssize_t)len, "strict");
      if (!ps || PySet_Add(names, ps) < 0) {
        Py_XDECREF(ps);
        goto fail;
      }
      Py_DECREF(ps);
    }
    if (k == GV_DDICT) {
      size_t len = 0;
      const char *nm = gv_get_str(c->aux, &len);
      PyObject *ps = PyUnicode_DecodeUTF8(nm, (Py_ssize_t)len, "strict");
      if (!ps || PySet_Add(names, ps) < 0) {
        Py_XDECREF(ps);
        goto fail;
      }
      Py_DECREF(ps);
    }
    size_t need = n + x->arity + 2;
    if (need > cap) {
      while (cap < need)
        cap *= 2;
      const gv_node **ns = PyMem_Realloc(stack, cap * sizeof *ns);
      if (!ns) goto fail;
      stack = ns;
    }
    if (k == GV_DICT || k == GV_ODICT || k == GV_DDICT || k == GV_CUSTOM) stack[n++] = c->meta;
    for (size_t i = 0; i < x->arity; i++)
      stack[n++] = c->kids[i];
  }
  PyMem_Free(stack);
  pm_clear(&seen);
  return Py_BuildValue("(NNN)", bytes, handles, names);
fail:
  PyMem_Free(stack);
  pm_clear(&seen);
  Py_XDECREF(handles);
  Py_XDECREF(names);
  Py_DECREF(bytes);
  if (!PyErr_Occurred()) PyErr_NoMemory();
  return NULL;
}

typedef struct hmap {
  PyObject *d; /* dict: handle in the encoding -> its object */
  GenObject *g;
  int bad;
} hmap;
static uint64_t map_handle(void *ctx, uint64_t h) {
  hmap *m = ctx;
  PyObject *k = PyLong_FromUnsignedLongLong(h);
  PyObject *v = k ? PyDict_GetItemWithError(m->d, k) : NULL; /* (int keys: no code) */
  Py_XDECREF(k);
  uint64_t nh = v ? handle_for(m->g, v) : 0; /* numbered in the new spec's generation */
  if (!nh) {
    PyErr_Clear();
    m->bad = 1;
    return h;
  }
  return nh;
}

/* _spec_from_wire(bytes, handle_objects, none_is_leaf, namespace, max_size) -> TreeSpec
 * max_size bounds the structure written out (gv_expanded_size; 0: no bound): the encoding
 * shares repeated subtrees, so a few bytes can describe a structure of 2^63 leaves, which
 * nothing could unflatten or print. */
PyObject *py_spec_from_wire(PyObject *m, PyObject *args) {
  gstate *st = state_of_module(m);
  Py_buffer buf;
  PyObject *hm, *ns;
  int nil;
  unsigned long long max_size = 0;
  if (!PyArg_ParseTuple(args, "y*O!pU|K", &buf, &PyDict_Type, &hm, &nil, &ns, &max_size))
    return NULL;
  gv_arena *tmp = NULL;
  gv_error e;
  gv_status rc = gv_arena_new(NULL, &tmp);
  const gv_node *dec = NULL, *out = NULL;
  if (rc == GV_OK) rc = gv_decode(tmp, buf.buf, (size_t)buf.len, &dec, &e);
  PyBuffer_Release(&buf);
  if (rc != GV_OK) {
    gv_arena_free(tmp);
    return raise_gv(rc, &e);
  }
  if (max_size && gv_expanded_size(dec) > max_size) {
    PyErr_Format(PyExc_ValueError,
                 "grove: the encoded structure is %llu nodes and bytes written out, more than "
                 "max_size=%llu",
                 (unsigned long long)gv_expanded_size(dec), max_size);
    gv_arena_free(tmp);
    return NULL;
  }
  PyObject *res = NULL;
  for (int attempt = 0; attempt < 2; attempt++) {
    GenObject *g = attempt ? (new_gen(st) < 0 ? NULL : st->cur) : cur_gen(st);
    if (!g) break;
    hmap mp = {hm, g, 0};
    rc = gv__copy_map(g->a, dec, map_handle, &mp, &out, &e);
    if (rc == GV_OK) {
      if (mp.bad) {
        PyErr_SetString(PyExc_ValueError, "grove: the encoding names a handle it does not carry");
        break;
      }
      res = spec_new(st, g, out, nil, ns, NULL, 1);
      break;
    }
    if (rc != GV_ENOMEM) {
      raise_gv(rc, &e);
      break;
    }
    if (attempt) raise_gv(rc, &e);
  }
  gv_arena_free(tmp);
  return res;
}
