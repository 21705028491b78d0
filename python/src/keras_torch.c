/* SPDX-License-Identifier: MIT */
/* keras_torch.c -- keras_torch_plain: the scan grove.keras does on keras's
 * torch backend (python/grove/_keras_torch.py) to decide, per call, whether
 * grove's functions (keras's optree semantics) return exactly what keras's
 * torch implementation (keras/src/tree/torchtree_impl.py) returns.
 *
 * They do on "plain" trees: exact lists, tuples and dicts whose keys are all
 * exact str or all exact int, already in ascending order (so that sorting
 * them, at one level as torchtree_impl does or at every level as grove does,
 * changes nothing), and leaves that neither side takes for a node (no tuple
 * subclass: namedtuples and structseqs; no class in torch's SUPPORTED_NODES
 * or in grove's 'keras' namespace), no deeper than KT_MAX_DEPTH (torch's
 * pytree recurses in Python). None is a leaf for both in mode 0; mode 2
 * (map_structure(..., none_is_leaf=False)) and mode 1 (map_structure_up_to,
 * where grove takes a None in the shallow tree for a node) refuse it. With
 * several trees the others must have the first one's shape exactly (the same
 * types, lengths and keys in the same order; leaves where it has leaves, or
 * anything there in mode 1): then neither side raises for the structure and
 * both call a function on the same leaves in the same order. Mode bit 4
 * (flatten, flatten_with_path) lets dicts with no dict above them be in any
 * order, as both sides sort those for a flatten; bit 8 (assert_same_structure,
 * where neither sorts) lets all be. Anything else is handed to keras's own
 * function. */
#include "keras_walk.h"

#define KT_MAX_DEPTH 64
/* on the depth stack: the group has a dict above it */
#define KT_IN_DICT (1u << 31)
/* mode bits above the None rule (mode & 3): dicts without a dict above them
 * may be in any order (flatten: both sides sort those); no order at all
 * (assert_same_structure: neither side sorts) */
#define KT_OUTER_FREE 4
#define KT_ANY_ORDER 8

/* Whether d's keys are all exact str or all exact int (so both sides can sort
 * them, alike), in ascending order if sorted (runs no code: those comparisons
 * are C's). */
static int keys_ok(PyObject *d, int sorted) {
  Py_ssize_t pos = 0;
  PyObject *k, *v, *prev = NULL;
  while (PyDict_Next(d, &pos, &k, &v)) {
    int str = PyUnicode_CheckExact(k);
    if (!str && !PyLong_CheckExact(k)) return 0;
    if (prev) {
      if (Py_TYPE(prev) != Py_TYPE(k)) return 0;
      if (sorted &&
          (str ? PyUnicode_Compare(prev, k) >= 0 : PyObject_RichCompareBool(prev, k, Py_LT) != 1))
        return 0;
    }
    prev = k;
  }
  return 1;
}

/* Whether dicts a and b (a's keys checked) have the same keys in the same order. */
static int same_keys(PyObject *a, PyObject *b) {
  if (PyDict_GET_SIZE(a) != PyDict_GET_SIZE(b)) return 0;
  Py_ssize_t pa = 0, pb = 0;
  PyObject *ka, *va, *kb, *vb;
  while (PyDict_Next(a, &pa, &ka, &va) && PyDict_Next(b, &pb, &kb, &vb)) {
    if (Py_TYPE(ka) != Py_TYPE(kb)) return 0;
    if (PyUnicode_CheckExact(ka) ? PyUnicode_Compare(ka, kb) != 0
                                 : PyObject_RichCompareBool(ka, kb, Py_EQ) != 1)
      return 0;
  }
  return 1;
}

/* 1 when o is a leaf for both sides, 0 when not, -1 with an exception
 * (the caller holds o: the registry lookup may run code). */
static int plain_leaf(gstate *st, PyObject *supported, PyObject *o, int mode) {
  if (o == Py_None) return mode == 0;
  if (PyTuple_Check(o) || PyList_Check(o) || PyDict_Check(o)) return 0;
  int in = PyDict_Contains(supported, (PyObject *)Py_TYPE(o));
  if (in != 0) return in < 0 ? -1 : 0;
  PyObject *reg = NULL;
  int k = kkind(st, o, 1, &reg);
  if (k < 0) return -1;
  return k == K_LEAF;
}

/* Pushes a group: the n trees' children at one position (references taken). */
static int push_group(ostack *s, ustack *ds, PyObject *const *kids, Py_ssize_t n, uint32_t depth) {
  if (os_reserve(s, n) < 0) return -1;
  if (grow_to((void **)&ds->v, &ds->cap, ds->n + 1, sizeof *ds->v) < 0) return -1;
  for (Py_ssize_t j = 0; j < n; j++) {
    Py_INCREF(kids[j]);
    s->v[s->n++] = kids[j];
  }
  ds->v[ds->n++] = depth;
  return 0;
}

/* The scan: 1 plain, 0 not, -1 with an exception. trees[0] is the first. */
static int scan(gstate *st, PyObject *supported, int mode, PyObject *const *trees, Py_ssize_t n) {
  ostack s = {0};
  ustack ds = {0};
  PyObject *kids[16];
  int r = 1;
  if (push_group(&s, &ds, trees, n, 0) < 0) goto fail;
  while (r == 1 && ds.n > 0) {
    uint32_t depth = ds.v[--ds.n] & ~KT_IN_DICT, in_dict = ds.v[ds.n] & KT_IN_DICT;
    Py_ssize_t base = s.n - n;
    PyObject **g = s.v + base, *a = g[0];
    PyTypeObject *tp = Py_TYPE(a);
    if (tp == &PyList_Type || tp == &PyTuple_Type || tp == &PyDict_Type) {
      if (depth >= KT_MAX_DEPTH) {
        r = 0;
        break;
      }
      Py_ssize_t len = Py_SIZE(a);
      if (tp == &PyDict_Type) {
        len = PyDict_GET_SIZE(a);
        /* sorted: always (0), below a dict only (KT_OUTER_FREE), never (KT_ANY_ORDER) */
        int sorted = !(mode & KT_ANY_ORDER) && (!(mode & KT_OUTER_FREE) || in_dict);
        if (!keys_ok(a, sorted)) r = 0;
      }
      for (Py_ssize_t j = 1; r && j < n; j++)
        if (Py_TYPE(g[j]) != tp ||
            (tp == &PyDict_Type ? !same_keys(a, g[j]) : Py_SIZE(g[j]) != len))
          r = 0;
      if (!r) break;
      /* the group's children, taken out of the group before it is popped */
      PyObject *grp[16];
      for (Py_ssize_t j = 0; j < n; j++)
        grp[j] = g[j];
      s.n = base; /* grp now owns the group's references */
      Py_ssize_t pos[16] = {0};
      int bad = 0;
      for (Py_ssize_t i = 0; i < len && !bad; i++) {
        for (Py_ssize_t j = 0; j < n; j++) {
          PyObject *k, *v;
          if (tp == &PyList_Type)
            kids[j] = PyList_GET_ITEM(grp[j], i);
          else if (tp == &PyTuple_Type)
            kids[j] = PyTuple_GET_ITEM(grp[j], i);
          else
            kids[j] = PyDict_Next(grp[j], &pos[j], &k, &v) ? v : Py_None;
        }
        uint32_t d = (depth + 1) | (tp == &PyDict_Type ? KT_IN_DICT : in_dict);
        if (push_group(&s, &ds, kids, n, d) < 0) bad = 1;
      }
      for (Py_ssize_t j = 0; j < n; j++)
        Py_DECREF(grp[j]);
      if (bad) goto fail;
      continue;
    }
    for (Py_ssize_t j = 0; j < ((mode & 3) == 1 ? 1 : n) && r == 1; j++) {
      r = plain_leaf(st, supported, g[j], mode & 3);
    }
    if (r < 0) goto fail;
    os_pop_to(&s, base);
  }
  os_free(&s);
  PyMem_Free(ds.v);
  return r;
fail:
  os_free(&s);
  PyMem_Free(ds.v);
  return -1;
}

/* keras_torch_plain(supported, mode, first, *rest) -> bool */
PyObject *py_torch_plain(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs < 3 || nargs > 3 + 15) {
    PyErr_SetString(PyExc_TypeError,
                    "keras_torch_plain(supported, mode, first, *rest): 1 to 16 trees");
    return NULL;
  }
  if (!PyDict_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "keras_torch_plain: supported must be a dict");
    return NULL;
  }
  long mode = PyLong_AsLong(args[1]);
  if (mode == -1 && PyErr_Occurred()) return NULL;
  int r = scan(state_of_module(m), args[0], (int)mode, args + 2, nargs - 2);
  if (r < 0) return NULL;
  return PyBool_FromLong(r);
}

/* keras_torch_is_nested(supported, structure) -> True, False, or None when
 * keras's torch implementation must say (a tuple subclass: namedtuples and
 * structseqs are nodes there by their class's shape, not by registration). */
PyObject *py_torch_is_nested(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
  (void)m;
  if (nargs != 2 || !PyDict_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "keras_torch_is_nested(supported, structure)");
    return NULL;
  }
  PyObject *o = args[1];
  PyTypeObject *tp = Py_TYPE(o);
  if (tp == &PyList_Type || tp == &PyTuple_Type || tp == &PyDict_Type) Py_RETURN_TRUE;
  int in = PyDict_Contains(args[0], (PyObject *)tp);
  if (in < 0) return NULL;
  if (in) Py_RETURN_TRUE;
  if (PyTuple_Check(o)) Py_RETURN_NONE;
  Py_RETURN_FALSE;
}
