/* SPDX-License-Identifier: MIT */
/* keras_flat.c -- the keras functions on grove's flatten walk and builder:
 * keras_is_nested, keras_flatten, keras_flatten_with_path,
 * keras_map_structure, keras_map_structure_up_to. */
#include "keras_walk.h"

#include <stdarg.h>

static int kflat(gstate *st, PyObject *tree, PyObject *is_leaf, int none_is_leaf, PyObject **leaves,
                 PyObject **spec) {
  flat_args fa = {
      .tree = tree, .is_leaf = is_leaf, .ns = st->keras->ns, .none_is_leaf = none_is_leaf};
  return do_flatten(st, &fa, leaves, spec);
}

/* Raise exc for the leaf at position i of spec: its path first. */
static PyObject *err_leaf(gstate *st, PyObject *spec, Py_ssize_t i, PyObject *exc, const char *fmt,
                          ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (!msg) return NULL;
  PyObject *paths = PyObject_CallMethodNoArgs(spec, ks_of(st)->s_paths);
  if (!paths) {
    Py_DECREF(msg);
    return NULL;
  }
  /* (TreeSpec.paths is an attribute the package sets: check what it gave) */
  PyObject *path =
      PyList_CheckExact(paths) && i < PyList_GET_SIZE(paths) ? PyList_GET_ITEM(paths, i) : NULL;
  err_at(exc, path && PyTuple_Check(path) ? path : NULL, "%U", msg);
  Py_DECREF(paths);
  Py_DECREF(msg);
  return NULL;
}

/* ---------------------------------------------------------------------------
 * The functions on grove's walk and builder
 * ------------------------------------------------------------------------- */

PyObject *py_is_nested(PyObject *m, PyObject *o) {
  gstate *st = state_of_module(m);
  PyObject *reg = NULL;
  int k = kkind(st, o, 1, &reg);
  if (k < 0) return NULL;
  return PyBool_FromLong(k != K_LEAF);
}

PyObject *py_flatten(PyObject *m, PyObject *o) {
  PyObject *leaves = NULL;
  if (kflat(state_of_module(m), o, NULL, 1, &leaves, NULL) < 0) return NULL;
  return leaves;
}

PyObject *py_flatten_with_path(PyObject *m, PyObject *o) {
  gstate *st = state_of_module(m);
  PyObject *leaves = NULL, *spec = NULL, *paths = NULL, *out = NULL;
  if (kflat(st, o, NULL, 1, &leaves, &spec) < 0) return NULL;
  paths = PyObject_CallMethodNoArgs(spec, ks_of(st)->s_paths);
  if (!paths) goto done;
  Py_ssize_t n = PyList_GET_SIZE(leaves);
  if (!PyList_CheckExact(paths) || PyList_GET_SIZE(paths) != n) { /* (an attribute: check) */
    PyErr_SetString(PyExc_TypeError, "grove.keras: TreeSpec.paths() did not give a path a leaf");
    goto done;
  }
  PyObject_GC_UnTrack(leaves);  /* (no finalizer run by the allocations below can reach it) */
  out = gc_hide(PyList_New(n)); /* (until full: its tuples are allocations) */
  for (Py_ssize_t i = 0; out && i < n; i++) {
    if (i >= PyList_GET_SIZE(paths)) { /* (a finalizer may reach paths) */
      PyErr_SetString(PyExc_RuntimeError, "list changed size during iteration");
      Py_CLEAR(out);
      break;
    }
    PyObject *p = PyList_GET_ITEM(paths, i), *x = PyList_GET_ITEM(leaves, i), *t;
    Py_INCREF(p); /* (held across the allocation) */
    t = PyTuple_Pack(2, p, x);
    Py_DECREF(p);
    if (!t) {
      Py_CLEAR(out);
      break;
    }
    PyList_SET_ITEM(out, i, t);
  }
  if (out) gc_show(out);
done:
  Py_XDECREF(paths);
  Py_DECREF(leaves);
  Py_DECREF(spec);
  return out;
}

/* func over the leaves of tree (keras's namespace, none_is_leaf as given,
 * is_leaf a predicate or NULL) and over the subtrees of rests[0..nrest) at
 * those leaves, rebuilt in tree's structure. up_to: tree is
 * map_structure_up_to's shallow structure (func does not get its leaves, and
 * None among them is an error); else every rest must hold a leaf there. */
static PyObject *kmap(gstate *st, PyObject *func, PyObject *tree, PyObject *const *rests,
                      Py_ssize_t nrest, int none_is_leaf, int up_to) {
  PyObject *leaves = NULL, *spec = NULL, *res = NULL, **lists = NULL, *out = NULL;
  PyObject *stack_inl[9], **stack = stack_inl;
  if (kflat(st, tree, NULL, none_is_leaf, &leaves, &spec) < 0) return NULL;
  /* the lists made here are held only by this call: untracked, no code the
   * function runs can reach them (their items are read borrowed) */
  PyObject_GC_UnTrack(leaves);
  Py_ssize_t n = PyList_GET_SIZE(leaves);
  if (nrest && !(lists = flatten_rests_up_to(st, (SpecObject *)spec, rests, nrest))) goto done;
  for (Py_ssize_t j = 0; j < nrest; j++)
    PyObject_GC_UnTrack(lists[j]);
  if (nrest + 1 > 8 && !(stack = PyMem_Malloc((size_t)(nrest + 2) * sizeof *stack))) {
    PyErr_NoMemory();
    goto done;
  }
  res = PyList_New(n);
  if (!res) goto done;
  PyObject_GC_UnTrack(res);
  PyObject **argv = stack + 1; /* room for PY_VECTORCALL_ARGUMENTS_OFFSET */
  Py_ssize_t off = up_to ? 0 : 1, nargs = nrest + off;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *leaf = PyList_GET_ITEM(leaves, i);
    if (up_to) {
      if (leaf == Py_None) { /* keras: the shallow structure's leaves must not be None */
        err_leaf(st, spec, i, PyExc_ValueError,
                 "Structures don't have the same nested structure: the shallow structure has "
                 "None here (None is a node there).");
        goto done;
      }
    } else {
      argv[0] = leaf;
    }
    for (Py_ssize_t j = 0; j < nrest; j++) {
      PyObject *sub = PyList_GET_ITEM(lists[j], i), *reg = NULL;
      int ks = up_to ? K_LEAF : kkind(st, sub, none_is_leaf, &reg);
      if (ks < 0) goto done;
      if (ks != K_LEAF) {
        err_leaf(st, spec, i, PyExc_ValueError,
                 "Structures don't have the same nested structure: the first structure has a "
                 "leaf where structure %zd has a nested %s.",
                 j + 2, Py_TYPE(sub)->tp_name);
        goto done;
      }
      argv[off + j] = sub;
    }
    PyObject *r =
        PyObject_Vectorcall(func, argv, (size_t)nargs | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    if (!r) goto done;
    PyList_SET_ITEM(res, i, r);
  }
  out = unflatten_node(st, (SpecObject *)spec, ((PyListObject *)res)->ob_item, n);
done:
  if (stack != stack_inl) PyMem_Free(stack);
  free_rests(lists, nrest);
  Py_XDECREF(res);
  Py_DECREF(leaves);
  Py_DECREF(spec);
  return out;
}

PyObject *py_map_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
  gstate *st = state_of_module(m);
  int none_is_leaf = 1;
  Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t j = 0; j < nk; j++) {
    PyObject *name = PyTuple_GET_ITEM(kwnames, j);
    if (PyUnicode_Compare(name, ks_of(st)->s_none_leaf) != 0) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "map_structure() got an unexpected keyword argument %R",
                     name);
      return NULL;
    }
    if ((none_is_leaf = PyObject_IsTrue(args[nargs + j])) < 0) return NULL;
  }
  if (nargs < 1) {
    PyErr_SetString(PyExc_TypeError, "map_structure() missing required argument 'func'");
    return NULL;
  }
  if (nargs < 2) {
    PyErr_SetString(PyExc_ValueError, "map_structure: give at least one structure to map over");
    return NULL;
  }
  if (nargs == 2) return tape_map(st, args[0], args[1], none_is_leaf, 0);
  return kmap(st, args[0], args[1], args + 2, nargs - 2, none_is_leaf, 0);
}

PyObject *py_map_structure_up_to(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < 2) {
    PyErr_Format(PyExc_TypeError,
                 "map_structure_up_to() takes shallow_structure, func and the structures (%zd "
                 "given)",
                 nargs);
    return NULL;
  }
  if (nargs < 3) {
    PyErr_SetString(PyExc_ValueError,
                    "map_structure_up_to: give at least one structure to map over");
    return NULL;
  }
  return kmap(state_of_module(m), args[1], args[0], args + 2, nargs - 2, 1, 1);
}
