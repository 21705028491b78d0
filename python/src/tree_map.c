/* SPDX-License-Identifier: MIT */
/* tree_map.c -- tree_map: flatten the tree, flatten the others up to its
 * structure, call the function on each leaf and the others' subtrees there,
 * unflatten the results. */
#include "builds.h"

/* ---------------------------------------------------------------------------
 * tree_map(func, tree, *rests, is_leaf=None, none_is_leaf=False, namespace='')
 * ------------------------------------------------------------------------- */

PyObject *py_tree_map(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  gstate *st = state_of_module(m);
  if (nargs < 2) {
    PyErr_Format(PyExc_TypeError, "tree_map() takes at least 2 positional arguments (%zd given)",
                 nargs);
    return NULL;
  }
  static const char *const names[] = {"is_leaf", "none_is_leaf", "namespace", NULL};
  PyObject *a[3];
  flat_args fa;
  if (parse_args(args + nargs, 0, kw, "tree_map", names, 0, 0, a) < 0) return NULL;
  if (flat_opts(st, a[0], a[1], a[2], &fa) < 0) {
    flat_done(&fa);
    return NULL;
  }
  PyObject *func = args[0];
  fa.tree = args[1];
  Py_ssize_t nrest = nargs - 2;
  PyObject *leaves = NULL, *spec = NULL, *res = NULL, **lists = NULL, *out = NULL;
  int rc = do_flatten(st, &fa, &leaves, &spec);
  flat_done(&fa);
  if (rc < 0) return NULL;
  /* The lists made here are held only by this call; out of the collector's
   * sight (untracked), no code the function runs can reach and change them,
   * so their items are read borrowed. */
  PyObject_GC_UnTrack(leaves);
  SpecObject *s = (SpecObject *)spec;
  Py_ssize_t n = PyList_GET_SIZE(leaves);
  if (nrest && !(lists = flatten_rests_up_to(st, s, args + 2, nrest))) goto out;
  for (Py_ssize_t j = 0; j < nrest; j++)
    PyObject_GC_UnTrack(lists[j]);
  res = PyList_New(n);
  if (!res) goto out;
  PyObject_GC_UnTrack(res);
  {
    PyObject *stack_inl[9], **stack = stack_inl;
    if (nrest + 1 > 8 && !(stack = PyMem_Malloc((size_t)(nrest + 2) * sizeof *stack))) {
      PyErr_NoMemory();
      goto out;
    }
    PyObject **argv = stack + 1; /* room for PY_VECTORCALL_ARGUMENTS_OFFSET */
    vectorcallfunc vc = PyVectorcall_Function(func);
    for (Py_ssize_t i = 0; i < n; i++) {
      argv[0] = PyList_GET_ITEM(leaves, i);
      for (Py_ssize_t j = 0; j < nrest; j++)
        argv[1 + j] = PyList_GET_ITEM(lists[j], i);
      size_t na = (size_t)(nrest + 1) | PY_VECTORCALL_ARGUMENTS_OFFSET;
      PyObject *r = vc ? vc(func, argv, na, NULL) : PyObject_Vectorcall(func, argv, na, NULL);
      if (!r) {
        if (stack != stack_inl) PyMem_Free(stack);
        goto out;
      }
      PyList_SET_ITEM(res, i, r);
    }
    if (stack != stack_inl) PyMem_Free(stack);
  }
  out = unflatten_node(st, s, ((PyListObject *)res)->ob_item, n);
out:
  free_rests(lists, nrest);
  Py_XDECREF(res);
  Py_DECREF(leaves);
  Py_DECREF(spec);
  return out;
}
