/* SPDX-License-Identifier: MIT */
/* spec_graft.c -- _graft_seq: the TreeSpec of a tuple or list whose items are
 * given TreeSpecs (treespec_tuple, treespec_list, treespec_from_collection),
 * made directly from the items' structure nodes: one interned tuple or list
 * node over them, O(number of items), whatever the items' sizes.
 *
 * It takes the common case only and answers None for anything else, which
 * the package then does in Python (python/grove/_specs.py, _graft), raising
 * its errors there: an exact tuple or list of exact TreeSpecs, none_is_leaf an
 * exact bool equal to every item's, namespace an exact str, the items' own
 * namespaces all the same (that is then the result's; with the given one
 * non-empty and different, the error is Python's), all of one generation, no
 * class registered differently in two of them, and room in that generation's
 * arena. The items' nodes are then exactly what flattening the grafted
 * object in that namespace gives (each item was flattened in it), so the
 * result is the node, registrations and namespace the Python path makes. */
#include "treespec.h"

/* The answer of the fast path's refusal: the package takes the slow path. */
static PyObject *decline(void) {
  Py_RETURN_NONE;
}

/* Whether regs (a TreeSpec's registrations, or NULL) has no class that
 * have[0..nhave) registers differently; adds its new ones to have (room for
 * them given by the caller). Runs no code. */
static int merge_regs(PyObject *regs, PyObject **have, Py_ssize_t *nhave) {
  if (!regs) return 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(regs); i++) {
    PyObject *r = PyTuple_GET_ITEM(regs, i), *cls = PyTuple_GET_ITEM(r, 0);
    Py_ssize_t j = 0;
    while (j < *nhave && PyTuple_GET_ITEM(have[j], 0) != cls)
      j++;
    if (j < *nhave) {
      if (have[j] != r) return 0;
      continue;
    }
    have[(*nhave)++] = r;
  }
  return 1;
}

/* _graft_seq(items, is_list, none_is_leaf, namespace) -> TreeSpec or None
 * (is_list: a bool). */
PyObject *py_graft_seq(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 4) {
    PyErr_SetString(PyExc_TypeError, "_graft_seq takes 4 arguments");
    return NULL;
  }
  gstate *st = state_of_module(m);
  PyObject *items = args[0], *nil = args[2], *given = args[3];
  int is_list = args[1] == Py_True;
  if (!(PyTuple_CheckExact(items) || PyList_CheckExact(items)) || !PyBool_Check(nil) ||
      !PyUnicode_CheckExact(given))
    return decline();
  int none_is_leaf = nil == Py_True;
  /* Everything below up to spec_new runs no code and allocates no Python
   * object: the items (borrowed from items) and theirs stay valid. */
  Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
  PyObject *const *v = PySequence_Fast_ITEMS(items);
  PyObject *ns = NULL; /* the items' namespace (borrowed from one of them) */
  GenObject *g = NULL;
  Py_ssize_t nregs = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (Py_TYPE(v[i]) != st->spec_type) return decline();
    SpecObject *c = (SpecObject *)v[i];
    if (c->none_is_leaf != none_is_leaf) return decline();
    if (!ns) {
      ns = c->ns;
      g = c->gen;
    } else if (c->gen != g) {
      return decline();
    } else if (c->ns != ns) {
      int eq = PyUnicode_Compare(c->ns, ns); /* exact strs: no code */
      if (eq == -1 && PyErr_Occurred()) return NULL;
      if (eq != 0) return decline();
    }
    if (c->regs) nregs += PyTuple_GET_SIZE(c->regs);
  }
  if (ns && PyUnicode_GET_LENGTH(ns) && PyUnicode_GET_LENGTH(given)) {
    int eq = PyUnicode_Compare(ns, given);
    if (eq == -1 && PyErr_Occurred()) return NULL;
    if (eq != 0) return decline(); /* (the Python path raises) */
  }
  if (!ns) {
    ns = st->empty_ns;
    if (!(g = cur_gen(st))) return NULL;
  }
  const gv_node *kids_inl[16], **kids = kids_inl;
  PyObject *regs_inl[16], **regs = regs_inl;
  PyObject *res = NULL;
  if (n > 16 && !(kids = PyMem_Malloc((size_t)n * sizeof *kids))) return PyErr_NoMemory();
  if (nregs > 16 && !(regs = PyMem_Malloc((size_t)nregs * sizeof *regs))) {
    PyErr_NoMemory();
    goto done;
  }
  int handles = 0;
  Py_ssize_t nr = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    SpecObject *c = (SpecObject *)v[i];
    kids[i] = c->node;
    handles |= c->handles;
    if (!merge_regs(c->regs, regs, &nr)) {
      res = decline();
      goto done;
    }
  }
  gv_error e;
  const gv_node *node = NULL;
  gv_status rc = is_list ? gv_list(g->a, kids, (size_t)n, &node, &e)
                         : gv_tuple(g->a, kids, (size_t)n, &node, &e);
  if (rc == GV_ENOMEM) { /* g is full: the slow path makes it in a new one */
    res = decline();
    goto done;
  }
  if (rc != GV_OK) {
    raise_gv(rc, &e);
    goto done;
  }
  /* own what the spec keeps before allocating (an allocation may run code) */
  Py_INCREF(g);
  Py_INCREF(ns);
  for (Py_ssize_t i = 0; i < nr; i++)
    Py_INCREF(regs[i]);
  PyObject *rt = nr ? tuple_from(regs, nr) : NULL;
  if (rt || !nr) res = spec_new(st, g, node, none_is_leaf, ns, rt, handles);
  Py_XDECREF(rt);
  for (Py_ssize_t i = 0; i < nr; i++)
    Py_DECREF(regs[i]);
  Py_DECREF(ns);
  Py_DECREF(g);
done:
  if (kids != kids_inl) PyMem_Free(kids);
  if (regs != regs_inl) PyMem_Free(regs);
  return res;
}
