/* SPDX-License-Identifier: MIT */
/* floor.c -- grove_floor: the benchmark's floor, not part of grove.
 *
 * For one given tree, the least work any pytree engine must do to answer
 * tree_leaves / tree_flatten, tree_unflatten and tree_map, with everything
 * that can be decided in advance decided in advance (bench/python/floor.py
 * compiles a plan from the tree: which child of which container, in which
 * order, what to build). What is left is what no engine can skip:
 *
 *   leaves     read each container's type and every child reference, in
 *              grove's order (a dict's table read once, its sorted order
 *              precomputed), and put each leaf in a presized list;
 *   unflatten  make each container from a ready template, no checks: a list
 *              or tuple filled, a namedtuple allocated as tuple.__new__ does,
 *              a dict copied from a template of its keys with the values
 *              written into its table (python/src/dictfill.c, which this
 *              module compiles too; with PyDict_SetItem where CPython's dict
 *              layout is not known), an OrderedDict by PyODict_SetItem;
 *   map        leaves, a call of the function per leaf, unflatten.
 *
 * A plan is a bytes of int32 instructions of four words (op, a, b, c) and a
 * tuple of the objects they name. The module checks nothing a plan says: it
 * is only ever given plans floor.py made for that very tree, and floor.py
 * checks its answers against grove's before any timing. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "tables.h" /* dict_fill, dict_items (python/src/dictfill.c) */

enum {
  /* leaves plans */
  OP_ENTER_SEQ = 0, /* a: child index, b: objs index of its type */
  OP_ENTER_DICT,    /* a: child index, b: objs index of its type, c: its length */
  OP_LEAF,          /* a: child index */
  OP_EXIT,
  /* unflatten plans (post-order, a value stack) */
  OP_U_LEAF = 16,
  OP_U_NONE,
  OP_U_LIST,  /* a: n */
  OP_U_TUPLE, /* a: n */
  OP_U_NT,    /* a: n, b: objs index of the class */
  OP_U_DICT,  /* a: n, b: objs index of the template (keys in insertion order, values None),
                 c: objs index of a bytes of n uint32: traversal position -> insertion position */
  OP_U_ODICT, /* a: n, b: objs index of the keys tuple (insertion order = traversal order) */
};

typedef struct {
  int32_t op, a, b, c;
} ins;

static const ins *plan_of(PyObject *code, Py_ssize_t *n) {
  if (!PyBytes_Check(code) || PyBytes_GET_SIZE(code) % (Py_ssize_t)sizeof(ins)) {
    PyErr_SetString(PyExc_TypeError, "grove_floor: a plan is a bytes of 16-byte instructions");
    return NULL;
  }
  *n = PyBytes_GET_SIZE(code) / (Py_ssize_t)sizeof(ins);
  return (const ins *)(const void *)PyBytes_AS_STRING(code);
}

/* leaves(code, objs, tree, nleaves, scratch, depth) -> list */
static PyObject *floor_leaves(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
  (void)m;
  Py_ssize_t n, nleaves, nscratch, depth;
  if (nargs != 6 || (nleaves = PyLong_AsSsize_t(args[3])) < 0 ||
      (nscratch = PyLong_AsSsize_t(args[4])) < 0 || (depth = PyLong_AsSsize_t(args[5])) < 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "leaves(code, objs, tree, n, s, d)");
    return NULL;
  }
  const ins *p = plan_of(args[0], &n);
  if (!p) return NULL;
  PyObject *const *objs = &PyTuple_GET_ITEM(args[1], 0);
  PyObject *out = PyList_New(nleaves);
  struct lframe {
    PyObject **kids, **top;
  } *fr = PyMem_Malloc(sizeof *fr * (size_t)(depth + 1));
  PyObject **scr = PyMem_Malloc(sizeof *scr * (size_t)(2 * nscratch + 1));
  if (!out || !fr || !scr) {
    Py_XDECREF(out);
    PyMem_Free(fr);
    PyMem_Free(scr);
    return PyErr_NoMemory();
  }
  PyObject *root = args[2];
  PyObject **kids = &root, **top = scr;
  Py_ssize_t nf = 0, j = 0;
  PyObject **item = ((PyListObject *)out)->ob_item;
  for (Py_ssize_t i = 0; i < n; i++) {
    const ins *x = &p[i];
    switch (x->op) {
    case OP_LEAF: {
      PyObject *v = kids[x->a];
      Py_INCREF(v);
      item[j++] = v;
      break;
    }
    case OP_ENTER_SEQ: {
      PyObject *c = kids[x->a];
      if ((PyObject *)Py_TYPE(c) != objs[x->b]) goto changed;
      fr[nf].kids = kids;
      fr[nf++].top = top;
      kids = PyList_CheckExact(c) ? ((PyListObject *)c)->ob_item : ((PyTupleObject *)c)->ob_item;
      break;
    }
    case OP_ENTER_DICT: {
      PyObject *c = kids[x->a];
      if ((PyObject *)Py_TYPE(c) != objs[x->b] || PyDict_GET_SIZE(c) != x->c) goto changed;
      fr[nf].kids = kids;
      fr[nf++].top = top;
      /* the values in insertion order; the plan's child indices are positions in it */
      dict_items(c, top + x->c, top, x->c);
      kids = top;
      top += 2 * x->c;
      break;
    }
    case OP_EXIT:
      nf--;
      kids = fr[nf].kids;
      top = fr[nf].top;
      break;
    }
  }
  PyMem_Free(fr);
  PyMem_Free(scr);
  return out;
changed:
  PyMem_Free(fr);
  PyMem_Free(scr);
  for (Py_ssize_t k = j; k < nleaves; k++)
    item[k] = Py_NewRef(Py_None);
  Py_DECREF(out);
  PyErr_SetString(PyExc_ValueError, "grove_floor: the tree is not the plan's");
  return NULL;
}

/* unflatten(code, objs, leaves, height) -> tree (leaves: a list or tuple; height: the
 * value stack's greatest height) */
static PyObject *floor_unflatten(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
  (void)m;
  Py_ssize_t n, depth;
  if (nargs != 4 || (depth = PyLong_AsSsize_t(args[3])) < 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "unflatten(code, objs, leaves, d)");
    return NULL;
  }
  const ins *p = plan_of(args[0], &n);
  if (!p) return NULL;
  PyObject *const *objs = &PyTuple_GET_ITEM(args[1], 0);
  PyObject *const *lv =
      PyList_Check(args[2]) ? ((PyListObject *)args[2])->ob_item : &PyTuple_GET_ITEM(args[2], 0);
  PyObject **st = PyMem_Malloc(sizeof *st * (size_t)(depth + 1)), **tmp = NULL;
  Py_ssize_t ns = 0, j = 0, ctmp = 0;
  if (!st) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < n; i++) {
    const ins *x = &p[i];
    PyObject *o = NULL, **v = st + ns - x->a;
    switch (x->op) {
    case OP_U_LEAF:
      st[ns++] = Py_NewRef(lv[j++]);
      continue;
    case OP_U_NONE:
      st[ns++] = Py_NewRef(Py_None);
      continue;
    case OP_U_LIST:
      o = PyList_New(x->a);
      if (o) memcpy(((PyListObject *)o)->ob_item, v, sizeof *v * (size_t)x->a);
      break;
    case OP_U_TUPLE:
      o = PyTuple_New(x->a);
      if (o) memcpy(((PyTupleObject *)o)->ob_item, v, sizeof *v * (size_t)x->a);
      break;
    case OP_U_NT: {
      PyTypeObject *t = (PyTypeObject *)objs[x->b];
      o = t->tp_alloc(t, x->a);
      if (o) memcpy(((PyTupleObject *)o)->ob_item, v, sizeof *v * (size_t)x->a);
      break;
    }
    case OP_U_DICT: {
      PyObject *tm = objs[x->b];
      const uint32_t *perm = (const uint32_t *)(const void *)PyBytes_AS_STRING(objs[x->c]);
      o = PyDict_Copy(tm);
      if (o && !dict_fill(o, tm, NULL, v, perm, x->a)) { /* (this CPython: by inserts) */
        Py_DECREF(o);
        o = _PyDict_NewPresized(x->a);
        if (ctmp < x->a) {
          PyMem_Free(tmp);
          ctmp = x->a;
          if (!(tmp = PyMem_Malloc(sizeof *tmp * (size_t)ctmp))) {
            ctmp = 0;
            Py_CLEAR(o);
            PyErr_NoMemory();
          }
        }
        Py_ssize_t pos = 0;
        int32_t r = 0;
        PyObject *k, *val;
        while (o && PyDict_Next(tm, &pos, &k, &val))
          tmp[perm[r++]] = k;
        for (r = 0; o && r < x->a; r++) /* tmp: the keys in insertion order */
          for (int32_t q = 0; q < x->a; q++)
            if (perm[q] == (uint32_t)r && PyDict_SetItem(o, tmp[r], v[q]) < 0) Py_CLEAR(o);
      }
      for (int32_t r = 0; r < x->a; r++)
        Py_DECREF(v[r]);
      break;
    }
    case OP_U_ODICT: {
      PyObject *keys = objs[x->b];
      o = PyODict_New();
      for (int32_t r = 0; o && r < x->a; r++)
        if (PyODict_SetItem(o, PyTuple_GET_ITEM(keys, r), v[r]) < 0) Py_CLEAR(o);
      for (int32_t r = 0; r < x->a; r++)
        Py_DECREF(v[r]);
      break;
    }
    default:
      PyErr_SetString(PyExc_ValueError, "grove_floor: not an unflatten plan");
      break;
    }
    if (!o) {
      if (x->op <= OP_U_NT) /* the values were not taken */
        for (int32_t r = 0; r < x->a; r++)
          Py_DECREF(v[r]);
      ns -= x->a;
      goto fail;
    }
    ns -= x->a;
    st[ns++] = o;
  }
  PyMem_Free(tmp);
  PyObject *r = ns == 1 ? st[0] : NULL;
  if (!r) {
    PyErr_SetString(PyExc_ValueError, "grove_floor: the plan left no single tree");
    goto fail;
  }
  PyMem_Free(st);
  return r;
fail:
  PyMem_Free(tmp);
  while (ns)
    Py_DECREF(st[--ns]);
  PyMem_Free(st);
  return NULL;
}

/* map(lcode, ucode, objs, f, tree, nleaves, nscratch, depth, height) -> tree: the
 * leaves, f called on each (vectorcall), the tree of the results */
static PyObject *floor_map(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 9) {
    PyErr_SetString(PyExc_TypeError, "map(lcode, ucode, objs, f, tree, n, s, d, h)");
    return NULL;
  }
  PyObject *la[6] = {args[0], args[2], args[4], args[5], args[6], args[7]};
  PyObject *l = floor_leaves(m, la, 6);
  if (!l) return NULL;
  PyObject *f = args[3];
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(l); i++) {
    PyObject *x = PyList_GET_ITEM(l, i);
    PyObject *y = PyObject_Vectorcall(f, &x, 1, NULL);
    if (!y) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, y);
    Py_DECREF(x);
  }
  PyObject *ua[4] = {args[1], args[2], l, args[8]};
  PyObject *r = floor_unflatten(m, ua, 4);
  Py_DECREF(l);
  return r;
}

static PyMethodDef floor_methods[] = {
    {"leaves", (PyCFunction)(void (*)(void))floor_leaves, METH_FASTCALL,
     "leaves(code, objs, tree, nleaves, nscratch, depth): the leaves by a plan"},
    {"unflatten", (PyCFunction)(void (*)(void))floor_unflatten, METH_FASTCALL,
     "unflatten(code, objs, leaves, height): the tree by a plan"},
    {"map", (PyCFunction)(void (*)(void))floor_map, METH_FASTCALL,
     "map(lcode, ucode, objs, f, tree, nleaves, nscratch, depth, height): tree_map by the plans"},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot floor_slots[] = {
#if PY_VERSION_HEX >= 0x030C0000
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef floor_module = {
    PyModuleDef_HEAD_INIT,
    "grove_floor",
    "The benchmark's floor for one tree (bench/python/floor.c): not part of grove.",
    0,
    floor_methods,
    floor_slots,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit_grove_floor(void);
PyMODINIT_FUNC PyInit_grove_floor(void) {
  return PyModuleDef_Init(&floor_module);
}
