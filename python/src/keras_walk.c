/* SPDX-License-Identifier: MIT */
/* keras_walk.c -- grove.keras's walk (keras_walk.h): the frames of a walk
 * over a tree in keras's order, their path errors, and a node rebuilt from
 * its children's values. */
#include "keras_walk.h"

#include <stdarg.h>

#define K_CYCLE_DEPTH 1024
#define K_MAX_DEPTH ((Py_ssize_t)1 << 24)
#define K_MAX_CUSTOM_DEPTH 10000 /* custom nodes on a path (flatten.c's MAX_CUSTOM_DEPTH) */

/* The path entry of child r of f (new reference). */
static PyObject *fr_entry(const kwalk *w, const kframe *f, Py_ssize_t r) {
  if (f->kbase >= 0) {
    Py_ssize_t ix = f->pbase >= 0 ? (Py_ssize_t)w->ps.v[f->pbase + r] : r;
    PyObject *k = w->cs.v[f->kbase + ix];
    Py_INCREF(k);
    return k;
  }
  if (f->entries) {
    PyObject *e = PyTuple_GET_ITEM(f->entries, r);
    Py_INCREF(e);
    return e;
  }
  return PyLong_FromSsize_t(r);
}

/* The path of the child being visited in the frame at depth (frames 0..depth). */
PyObject *kw_path(const kwalk *w, Py_ssize_t depth) {
  /* (a long path is cut to its ends around an Ellipsis: it is for a message) */
  Py_ssize_t cut = depth > 2 * PATH_ENDS + 1 ? PATH_ENDS : depth, j = 0;
  PyObject *t = PyTuple_New(cut < depth ? 2 * PATH_ENDS + 1 : depth);
  for (Py_ssize_t d = 0; t && d < depth; d++) {
    if (d == cut && cut < depth) {
      Py_INCREF(Py_Ellipsis);
      PyTuple_SET_ITEM(t, j++, Py_Ellipsis);
      d = depth - PATH_ENDS;
    }
    const kframe *f = &w->fr[d];
    PyObject *e = fr_entry(w, f, f->i - 1);
    if (!e) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, j++, e);
  }
  return t;
}

/* Raise exc at the node being visited (the path of all frames). */
int kw_err(kwalk *w, PyObject *exc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (!msg) return -1;
  PyObject *path = kw_path(w, w->nfr);
  if (path) {
    err_at(exc, path, "%U", msg);
    Py_DECREF(path);
  }
  Py_DECREF(msg);
  return -1;
}

void fr_release(kwalk *w, kframe *f) {
  if (f->in_path) ps_del(&w->path, f->obj);
  if (f->kind == K_CUSTOM) w->ncust--;
  Py_XDECREF(f->aux);
  Py_XDECREF(f->reg);
  Py_XDECREF(f->entries);
  Py_XDECREF(f->b);
  Py_DECREF(f->obj);
  Py_ssize_t base = f->kbase >= 0 ? f->kbase : f->cbase;
  os_pop_to(&w->cs, base);
  if (f->pbase >= 0) w->ps.n = f->pbase;
}

void kw_free(kwalk *w) {
  while (w->nfr > 0) {
    w->nfr--;
    fr_release(w, &w->fr[w->nfr]);
  }
  PyMem_Free(w->fr);
  os_free(&w->cs);
  os_free(&w->vs);
  PyMem_Free(w->ps.v);
  PyMem_Free(w->tmp);
  ps_free(&w->path);
  Py_CLEAR(w->g);
}

/* A custom node's flatten: (children tuple, metadata, entries tuple or NULL)
 * through its registration. 0, or -1 with an exception. */
int custom_flatten(kwalk *w, PyObject *reg, PyObject *o, PyObject **kids, PyObject **meta,
                   PyObject **entries) {
  *kids = *meta = *entries = NULL;
  PyObject *out = PyObject_CallOneArg(PyTuple_GET_ITEM(reg, 1), o), *t;
  if (!out) return -1;
  t = seq_tuple(out);
  Py_DECREF(out);
  if (!t) return -1;
  Py_ssize_t no = PyTuple_GET_SIZE(t);
  if (no != 2 && no != 3) {
    Py_DECREF(t);
    return kw_err(w, PyExc_RuntimeError,
                  "PyTree custom flatten function for type %R should return a 2- or 3-tuple, "
                  "got %zd.",
                  (PyObject *)Py_TYPE(o), no);
  }
  *kids = seq_tuple(PyTuple_GET_ITEM(t, 0));
  if (!*kids) goto fail;
  if (no == 3 && PyTuple_GET_ITEM(t, 2) != Py_None) {
    *entries = seq_tuple(PyTuple_GET_ITEM(t, 2));
    if (!*entries) goto fail;
    if (PyTuple_GET_SIZE(*entries) != PyTuple_GET_SIZE(*kids)) {
      kw_err(w, PyExc_RuntimeError,
             "PyTree custom flatten function for type %R returned inconsistent number of "
             "children (%zd) and number of entries (%zd).",
             (PyObject *)Py_TYPE(o), PyTuple_GET_SIZE(*kids), PyTuple_GET_SIZE(*entries));
      goto fail;
    }
  }
  *meta = PyTuple_GET_ITEM(t, 1);
  Py_INCREF(*meta);
  Py_DECREF(t);
  return 0;
fail:
  Py_CLEAR(*kids);
  Py_CLEAR(*entries);
  Py_DECREF(t);
  return -1;
}

/* Push tuple t's items onto the child stack. */
int push_items(kwalk *w, PyObject *const *items, Py_ssize_t n) {
  if (os_reserve(&w->cs, n) < 0) return -1;
  for (Py_ssize_t j = 0; j < n; j++) {
    Py_INCREF(items[j]);
    w->cs.v[w->cs.n++] = items[j];
  }
  return 0;
}

/* A new frame for node o (a reference is taken) of the given kind: its
 * children (one level, keras's order) on the child stack. */
int kw_push_frame(kwalk *w, PyObject *o, int kind, PyObject *reg) {
  if (w->nfr >= K_MAX_DEPTH)
    return kw_err(w, PyExc_RecursionError, "the tree is nested deeper than %zd levels",
                  K_MAX_DEPTH);
  if (w->nfr == w->cfr && grow_to((void **)&w->fr, &w->cfr, w->nfr + 1, sizeof *w->fr) < 0)
    return -1;
  kframe f;
  memset(&f, 0, sizeof f);
  f.kind = kind;
  f.kbase = f.pbase = -1;
  f.cbase = w->cs.n;
  f.vbase = w->vs.n;
  if (w->nfr >= K_CYCLE_DEPTH) {
    int r = ps_add(&w->path, o);
    if (r < 0) {
      PyErr_NoMemory();
      return -1;
    }
    if (r == 0) {
      Py_ssize_t d = 0;
      while (d < w->nfr && w->fr[d].obj != o)
        d++;
      PyObject *where = kw_path(w, d), *loop = where ? kw_path(w, w->nfr) : NULL;
      PyObject *a = loop ? path_repr(where) : NULL, *b = a ? path_repr(loop) : NULL;
      if (b)
        PyErr_Format(PyExc_RecursionError,
                     "the tree contains a cycle: the %s at %U is in itself, again at %U (a cycle "
                     "of %zd steps; a tree must not contain itself)",
                     Py_TYPE(o)->tp_name, a, b, w->nfr - d);
      Py_XDECREF(where);
      Py_XDECREF(loop);
      Py_XDECREF(a);
      Py_XDECREF(b);
      return -1;
    }
    f.in_path = 1;
  }
  if (kind == K_CUSTOM && w->ncust >= K_MAX_CUSTOM_DEPTH) {
    kw_err(w, PyExc_RecursionError,
           "Maximum recursion depth exceeded during flattening the tree: %zd custom nodes (%R) "
           "nested in one another (grove's limit for nodes flattened by Python code)",
           w->ncust, (PyObject *)Py_TYPE(o));
    goto fail;
  }
  switch (kind) {
  case K_LIST: { /* a snapshot: user code may change the list while it is walked */
    Py_ssize_t n = PyList_GET_SIZE(o);
    if (push_items(w, ((PyListObject *)o)->ob_item, n) < 0) goto fail;
    f.n = n;
    break;
  }
  case K_TUPLE:
  case K_NT:
  case K_SS:
    f.n = PyTuple_GET_SIZE(o);
    if (push_items(w, &PyTuple_GET_ITEM(o, 0), f.n) < 0) goto fail;
    break;
  case K_DEQUE: {
    PyObject *t = seq_tuple(o);
    if (!t) goto fail;
    f.n = PyTuple_GET_SIZE(t);
    int r = push_items(w, &PyTuple_GET_ITEM(t, 0), f.n);
    Py_DECREF(t);
    if (r < 0) goto fail;
    f.aux = PyObject_GetAttr(o, w->st->s_maxlen);
    if (!f.aux) goto fail;
    break;
  }
  case K_DICT:
  case K_DDICT:
  case K_ODICT: {
    Py_ssize_t n = PyDict_GET_SIZE(o), pos = 0, j = 0;
    if (os_reserve(&w->cs, 2 * n) < 0) goto fail;
    PyObject *k, *v, **keys = os_at(&w->cs, w->cs.n);
    f.kbase = w->cs.n;
    while (j < n && PyDict_Next(o, &pos, &k, &v)) { /* keys, then the values */
      Py_INCREF(k);
      Py_INCREF(v);
      keys[j] = k;
      keys[n + j] = v;
      j++;
    }
    if (j < n) memmove(keys + j, keys + n, (size_t)j * sizeof *keys);
    w->cs.n += 2 * j;
    f.n = j;
    f.cbase = f.kbase + j;
    if (kind != K_ODICT && j > 1) {
      if (!w->g) {
        if (!(w->g = cur_gen(w->st))) goto fail;
        Py_INCREF(w->g);
      }
      const gv_node *ksn = canon_keyset(w->st, &w->g, w->cs.v + f.kbase, j);
      if (!ksn) goto fail;
      const uint32_t *perm = GV__CONT(ksn)->perm;
      if (perm) { /* copied: user code may retire the generation it lives in */
        if (grow_to((void **)&w->ps.v, &w->ps.cap, w->ps.n + j, sizeof *w->ps.v) < 0) goto fail;
        f.pbase = w->ps.n;
        memcpy(w->ps.v + w->ps.n, perm, (size_t)j * sizeof *perm);
        w->ps.n += j;
      }
    }
    if (kind == K_DDICT) {
      f.aux = PyObject_GetAttr(o, w->st->s_default_factory);
      if (!f.aux) goto fail;
    }
    break;
  }
  case K_CUSTOM: {
    PyObject *kids = NULL;
    Py_INCREF(reg);
    f.reg = reg;
    if (custom_flatten(w, reg, o, &kids, &f.aux, &f.entries) < 0) goto fail;
    f.n = PyTuple_GET_SIZE(kids);
    int r = push_items(w, &PyTuple_GET_ITEM(kids, 0), f.n);
    Py_DECREF(kids);
    if (r < 0) goto fail;
    break;
  }
  default:
    PyErr_SetString(PyExc_SystemError, "grove.keras: bad node kind");
    goto fail;
  }
  f.bbase = w->cs.n;
  Py_INCREF(o);
  f.obj = o;
  if (kind == K_CUSTOM) w->ncust++;
  w->fr[w->nfr++] = f;
  return 0;
fail:
  if (f.in_path) ps_del(&w->path, o);
  Py_XDECREF(f.aux);
  Py_XDECREF(f.reg);
  Py_XDECREF(f.entries);
  os_pop_to(&w->cs, f.kbase >= 0 ? f.kbase : f.cbase);
  if (f.pbase >= 0) w->ps.n = f.pbase;
  return -1;
}

/* The node k rebuilt from vals (its children's values in traversal order,
 * borrowed), as keras's optree implementation rebuilds it: a new container
 * of the same type; dicts in the original insertion order. */
PyObject *rebuild(kwalk *w, const knode *k, PyObject **vals, int as_tuple) {
  gstate *st = w->st;
  Py_ssize_t n = k->n;
  switch (k->kind) {
  case K_LIST: {
    if (as_tuple) return tuple_from(vals, n); /* lists_to_tuples: the tuple at once */
    PyObject *l = PyList_New(n);
    if (!l) return NULL;
    for (Py_ssize_t j = 0; j < n; j++) {
      Py_INCREF(vals[j]);
      PyList_SET_ITEM(l, j, vals[j]);
    }
    return l;
  }
  case K_TUPLE:
    return tuple_from(vals, n);
  case K_NONE:
    Py_RETURN_NONE;
  case K_NT:
    return new_namedtuple(st, Py_TYPE(k->obj), vals, n);
  case K_SS:
  case K_DEQUE:
  case K_CUSTOM: {
    PyObject *t = tuple_from(vals, n), *r;
    if (!t) return NULL;
    if (k->kind == K_SS)
      r = PyObject_CallOneArg((PyObject *)Py_TYPE(k->obj), t);
    else if (k->kind == K_DEQUE)
      r = PyObject_CallFunctionObjArgs((PyObject *)st->deque_t, t, k->aux, NULL);
    else
      r = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(k->reg, 2), k->aux, t, NULL);
    Py_DECREF(t);
    return r;
  }
  default: { /* dict kinds: keys in insertion order, values from traversal order */
    PyObject **ins = vals;
    if (k->perm) {
      if (grow_to((void **)&w->tmp, &w->ctmp, n, sizeof *w->tmp) < 0) return NULL;
      for (Py_ssize_t r = 0; r < n; r++)
        w->tmp[k->perm[r]] = vals[r];
      ins = w->tmp;
    }
    PyObject *d;
    if (k->kind == K_DICT && k->obj && Py_IS_TYPE(k->obj, &PyDict_Type)) {
      /* a clone of the dict it was made from, when that still has these keys */
      if ((d = dict_copy_fill(k->obj, k->keys, ins, n))) return d;
      if (PyErr_Occurred()) return NULL;
    }
    if (k->kind == K_DICT)
      d = _PyDict_NewPresized(n);
    else if (k->kind == K_DDICT)
      d = PyObject_CallOneArg((PyObject *)st->ddict_t, k->aux);
    else
      d = PyObject_CallNoArgs((PyObject *)st->odict_t);
    if (!d) return NULL;
    for (Py_ssize_t j = 0; j < n; j++) {
      int r = k->kind == K_DICT ? PyDict_SetItem(d, k->keys[j], ins[j])
                                : PyObject_SetItem(d, k->keys[j], ins[j]);
      if (r < 0) {
        Py_DECREF(d);
        return NULL;
      }
    }
    return d;
  }
  }
}
