/* SPDX-License-Identifier: MIT */
/* registry.c -- the registry's C side: which kind of node an object of a
 * class is (classification, with the namespaces' registrations), and which
 * class and registration a custom structure node names; _setup /
 * _registry_changed; _is_leaf (the kind of a tree's root).
 *
 * Classes are looked up by identity, never through a dict keyed by class: a
 * metaclass's __hash__ or __eq__ is user code, and classification runs in
 * the middle of walks. The package's registry (namespace -> {class:
 * registration}) is read once per change into a snapshot keyed by class
 * pointer (st->regs: class -> {namespace: registration}); the classification
 * cache (st->typecache) is keyed the same way. */
#include "state.h"

/* ---------------------------------------------------------------------------
 * The registry's snapshot
 * ------------------------------------------------------------------------- */

PyObject *registration(gstate *st, PyObject *ns, PyTypeObject *t) {
  PyObject *d = pm_get(&st->regs, t);
  if (!d) return NULL;
  PyObject *r = NULL;
  if (ns && PyUnicode_GET_LENGTH(ns) != 0) r = PyDict_GetItem(d, ns); /* exact str keys */
  if (!r) r = PyDict_GetItem(d, st->empty_ns);
  return r;
}

/* The leaf types the walks take without looking at the registry while none
 * of them is registered (optree lets any class be registered but its own
 * containers and None). */
static int fast_leaf_type(PyTypeObject *t) {
  return t == &PyLong_Type || t == &PyFloat_Type || t == &PyUnicode_Type || t == &PyBool_Type;
}

/* Rebuild st->regs from the package's registry (st->nsreg). Entries that
 * are not a class mapped to a 4-tuple naming that class are ignored. */
static int snapshot_registry(gstate *st) {
  ptrmap fresh = {NULL, 0, 0};
  int leaf_regs = 0, rc = -1;
  PyObject *spaces = PyDict_Items(st->nsreg); /* a list we own: the registry may change */
  if (!spaces) return -1;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(spaces); i++) {
    PyObject *item = PyList_GET_ITEM(spaces, i);
    PyObject *ns = PyTuple_GET_ITEM(item, 0), *table = PyTuple_GET_ITEM(item, 1);
    if (!PyUnicode_CheckExact(ns) || !PyDict_Check(table)) continue;
    PyObject *entries = PyDict_Items(table);
    if (!entries) goto out;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(entries); j++) {
      PyObject *e = PyList_GET_ITEM(entries, j);
      PyObject *cls = PyTuple_GET_ITEM(e, 0), *reg = PyTuple_GET_ITEM(e, 1);
      if (!PyType_Check(cls) || !PyTuple_CheckExact(reg) || PyTuple_GET_SIZE(reg) != 4 ||
          PyTuple_GET_ITEM(reg, 0) != cls)
        continue;
      PyObject *d = pm_get(&fresh, cls);
      if (!d) {
        PyObject *nd = PyDict_New();
        if (!nd) {
          Py_DECREF(entries);
          goto out;
        }
        int r = pm_put(&fresh, cls, nd);
        Py_DECREF(nd);
        if (r < 0) {
          Py_DECREF(entries);
          PyErr_NoMemory();
          goto out;
        }
        d = nd;
      }
      if (PyDict_SetItem(d, ns, reg) < 0) {
        Py_DECREF(entries);
        goto out;
      }
      if (fast_leaf_type((PyTypeObject *)cls)) leaf_regs = 1;
    }
    Py_DECREF(entries);
  }
  {
    ptrmap old = st->regs;
    st->regs = fresh;
    fresh = old;
  }
  st->leaf_regs = leaf_regs;
  rc = 0;
out:
  Py_DECREF(spaces);
  pm_clear(&fresh); /* the old snapshot (or the unfinished one) */
  return rc;
}

/* ---------------------------------------------------------------------------
 * Classification
 * ------------------------------------------------------------------------- */

static int has_callable(PyObject *t, PyObject *name) {
  PyObject *a = PyObject_GetAttr(t, name);
  if (!a) {
    PyErr_Clear();
    return 0;
  }
  int r = PyCallable_Check(a);
  Py_DECREF(a);
  return r;
}

static int is_namedtuple_class(gstate *st, PyTypeObject *t) {
  if (!PyType_FastSubclass(t, Py_TPFLAGS_TUPLE_SUBCLASS)) return 0;
  PyObject *f = PyObject_GetAttr((PyObject *)t, st->s_fields);
  if (!f) {
    PyErr_Clear();
    return 0;
  }
  int ok = PyTuple_CheckExact(f);
  for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(f); i++)
    if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(f, i))) ok = 0;
  Py_DECREF(f);
  return ok && has_callable((PyObject *)t, st->s_make) && has_callable((PyObject *)t, st->s_asdict);
}

static int is_structseq_class(gstate *st, PyTypeObject *t) {
  if (!PyType_FastSubclass(t, Py_TPFLAGS_TUPLE_SUBCLASS) || !t->tp_bases ||
      !PyTuple_CheckExact(t->tp_bases) || PyTuple_GET_SIZE(t->tp_bases) != 1 ||
      PyTuple_GET_ITEM(t->tp_bases, 0) != (PyObject *)&PyTuple_Type)
    return 0;
  PyObject *names[3] = {st->s_n_fields, st->s_n_sequence_fields, st->s_n_unnamed_fields};
  for (int i = 0; i < 3; i++) {
    PyObject *a = PyObject_GetAttr((PyObject *)t, names[i]);
    if (!a) {
      PyErr_Clear();
      return 0;
    }
    int ok = PyLong_CheckExact(a);
    Py_DECREF(a);
    if (!ok) return 0;
  }
  return !PyType_HasFeature(t, Py_TPFLAGS_BASETYPE);
}

#define TYPECACHE_MAX 1024 /* classes held by the cache (a full one is emptied) */

int classify(gstate *st, PyObject *ns, PyTypeObject *t, PyObject **reg) {
  int kind;
  if (classify_cached(st, ns, t, &kind, reg)) return kind;
  Py_INCREF(t); /* the attribute lookups below may run code that drops t */
  PyObject *regs = pm_get(&st->regs, t), *r = NULL;
  if (regs) {
    Py_INCREF(regs);
    r = PyDict_GetItem(regs, st->empty_ns);
  }
  if (r) {
    kind = K_CUSTOM;
  } else if (t == st->odict_t) {
    kind = K_ODICT;
  } else if (t == st->ddict_t) {
    kind = K_DDICT;
  } else if (t == st->deque_t) {
    kind = K_DEQUE;
  } else if (t == Py_TYPE(Py_None)) {
    kind = K_NONE;
  } else if (t == &PyList_Type) {
    kind = K_LIST;
  } else if (t == &PyTuple_Type) {
    kind = K_TUPLE;
  } else if (t == &PyDict_Type) {
    kind = K_DICT;
  } else if (is_namedtuple_class(st, t)) {
    kind = K_NT;
  } else if (is_structseq_class(st, t)) {
    kind = K_SS;
  } else {
    kind = K_LEAF;
  }
  /* only the namespaces other than the global one (which is in kind, r) */
  PyObject *others = regs && PyDict_GET_SIZE(regs) > (r ? 1 : 0) ? regs : NULL;
  if (st->typecache.len >= TYPECACHE_MAX) tm_clear(&st->typecache); /* may run code */
  if (tm_put(&st->typecache, t, kind, r, others) < 0) {
    Py_XDECREF(regs);
    Py_DECREF(t);
    PyErr_NoMemory();
    return -1;
  }
  Py_XDECREF(regs);
  Py_DECREF(t); /* the cache holds it */
  int k2 = kind;
  classify_cached(st, ns, t, &k2, reg); /* the registration borrowed from the cache */
  return k2;
}

/* ---------------------------------------------------------------------------
 * Structure nodes -> classes and registrations
 * ------------------------------------------------------------------------- */

PyObject *spec_registration(PyObject *regs, PyObject *cls) {
  if (!regs) return NULL;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(regs); i++) {
    PyObject *r = PyTuple_GET_ITEM(regs, i);
    if (PyTuple_GET_ITEM(r, 0) == cls) return r;
  }
  return NULL;
}

int custom_info(gstate *st, GenObject *g, const gv_node *n, PyObject *ns, PyObject *regs,
                PyObject **cls, PyObject **reg) {
  const gv_node *tn = ctype_name(n);
  if (tn == ctype_name(g->none_node)) return K_NONE;
  PyObject *c = named_obj(st, g, tn);
  if (!c) return -1;
  *cls = c;
  *reg = NULL;
  if (ctype_meta(n)) {
    if (!PyType_Check(c) || (!(*reg = spec_registration(regs, c)) &&
                             !(*reg = registration(st, ns, (PyTypeObject *)c)))) {
      PyErr_Format(PyExc_ValueError, "grove: %R is not registered as a pytree node class", c);
      return -1;
    }
    return K_CUSTOM;
  }
  if (!PyType_Check(c)) {
    PyErr_Format(PyExc_ValueError, "grove: %R is not a class", c);
    return -1;
  }
  /* a namedtuple or a PyStructSequence: the class's own attribute, looked up
   * without running code (the class's dict, then its bases') */
  return _PyType_Lookup((PyTypeObject *)c, st->s_n_sequence_fields) ? K_SS : K_NT;
}

/* The version tag of t, or 0 when it has none valid (before 3.12 a flag
 * says whether the tag is valid; from 3.12 on CPython sets it to 0). */
static unsigned int type_tag(const PyTypeObject *t) {
#if PY_VERSION_HEX < 0x030C0000
  if (!PyType_HasFeature((PyTypeObject *)t, Py_TPFLAGS_VALID_VERSION_TAG)) return 0;
#endif
  return t->tp_version_tag;
}

/* Whether globals (a function's) are the namespace collections.namedtuple
 * evaluates its __new__ in: '__name__' 'namedtuple_...', '__builtins__' an
 * empty dict, '_tuple_new' tuple.__new__. */
static int namedtuple_globals(gstate *st, PyObject *globals) {
  if (!PyDict_CheckExact(globals) || PyDict_GET_SIZE(globals) != 3) return 0;
  PyObject *name = PyDict_GetItemString(globals, "__name__");
  PyObject *bi = PyDict_GetItemString(globals, "__builtins__");
  PyObject *tn = PyDict_GetItemString(globals, "_tuple_new");
  if (!name || !bi || tn != st->tuple_new || !PyDict_CheckExact(bi) || PyDict_GET_SIZE(bi) != 0 ||
      !PyUnicode_CheckExact(name))
    return 0;
  PyObject *pre = PyUnicode_FromString("namedtuple_");
  if (!pre) {
    PyErr_Clear();
    return 0;
  }
  Py_ssize_t r = PyUnicode_Tailmatch(name, pre, 0, PY_SSIZE_T_MAX, -1);
  Py_DECREF(pre);
  if (r < 0) PyErr_Clear();
  return r == 1;
}

/* nt_plain's check, uncached: 1 plain, 0 not. */
static int nt_plain_check(gstate *st, PyTypeObject *t, Py_ssize_t n) {
  if (Py_TYPE(t) != &PyType_Type || !PyType_FastSubclass(t, Py_TPFLAGS_TUPLE_SUBCLASS) ||
      t->tp_init != PyBaseObject_Type.tp_init || t->tp_alloc != PyType_GenericAlloc)
    return 0;
  PyObject *sm = _PyType_Lookup(t, st->s_new); /* borrowed, no code */
  if (!sm || !Py_IS_TYPE(sm, &PyStaticMethod_Type)) return 0;
  Py_INCREF(sm);
  PyObject *f = PyObject_GetAttrString(sm, "__func__");
  Py_DECREF(sm);
  if (!f) {
    PyErr_Clear();
    return 0;
  }
  int ok = 0;
  if (PyFunction_Check(f)) {
    PyCodeObject *code = (PyCodeObject *)PyFunction_GET_CODE(f);
    ok = code->co_argcount == n + 1 && code->co_kwonlyargcount == 0 &&
         !(code->co_flags & (CO_VARARGS | CO_VARKEYWORDS)) &&
         namedtuple_globals(st, PyFunction_GET_GLOBALS(f));
  }
  Py_DECREF(f);
  return ok;
}

int nt_plain(gstate *st, PyTypeObject *t, Py_ssize_t n) {
  struct ntplain *e = &st->ntplain[((uintptr_t)t >> 6) & 7];
  unsigned int tag = type_tag(t);
  if (tag && e->t == t && e->tag == tag && e->n == n) return e->plain;
  Py_INCREF(t);
  int plain = nt_plain_check(st, t, n);
  tag = type_tag(t); /* (the lookup may have given t its tag) */
  if (tag) {
    e->t = t;
    e->tag = tag;
    e->n = n;
    e->plain = plain;
  }
  Py_DECREF(t);
  return plain;
}

PyObject *new_namedtuple(gstate *st, PyTypeObject *t, PyObject *const *v, Py_ssize_t n) {
  if (!nt_plain(st, t, n)) return PyObject_Vectorcall((PyObject *)t, v, (size_t)n, NULL);
  PyObject *r = t->tp_alloc(t, n);
  if (!r) return NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    Py_INCREF(v[i]);
    PyTuple_SET_ITEM(r, i, v[i]);
  }
  return r;
}

/* Whether the dicts flattened in namespace ns (an exact str) keep insertion
 * order: *out = 0 no, 1 by the global namespace's mode, 2 by ns's own. */
int dict_insertion_ordered(gstate *st, PyObject *ns, int *out) {
  *out = 0;
  if (!st->ins_ordered || PySet_GET_SIZE(st->ins_ordered) == 0) return 0;
  int r = PyUnicode_GET_LENGTH(ns) ? PySet_Contains(st->ins_ordered, ns) : 0;
  if (r > 0) *out = 2;
  if (r == 0 && (r = PySet_Contains(st->ins_ordered, st->empty_ns)) > 0) *out = 1;
  return r < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------- */

PyObject *py_setup(PyObject *m, PyObject *args) {
  gstate *st = state_of_module(m);
  PyObject *nsreg, *key_order, *mangle, *ins_ordered;
  if (!PyArg_ParseTuple(args, "O!OOO!", &PyDict_Type, &nsreg, &key_order, &mangle, &PySet_Type,
                        &ins_ordered))
    return NULL;
  Py_INCREF(ins_ordered);
  Py_XSETREF(st->ins_ordered, ins_ordered);
  Py_INCREF(nsreg);
  Py_XSETREF(st->nsreg, nsreg);
  Py_INCREF(key_order);
  Py_XSETREF(st->key_order, key_order);
  Py_INCREF(mangle);
  Py_XSETREF(st->mangle, mangle);
  if (snapshot_registry(st) < 0) return NULL;
  tm_clear(&st->typecache);
  Py_RETURN_NONE;
}

PyObject *py_registry_changed(PyObject *m, PyObject *unused) {
  (void)unused;
  gstate *st = state_of_module(m);
  if (snapshot_registry(st) < 0) return NULL;
  tm_clear(&st->typecache);
  Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------
 * _is_leaf: a root's kind
 * ------------------------------------------------------------------------- */

static const char *const IS_LEAF_NAMES[] = {"tree", "is_leaf", "none_is_leaf", "namespace", NULL};

/* _is_leaf(tree, is_leaf=None, none_is_leaf=False, namespace='') -> the kind
 * number of tree's root (0 = leaf), for the Python-level helpers. */
static PyObject *is_leaf_kind(gstate *st, flat_args *fa, PyObject *o) {
  if (fa->is_leaf) {
    PyObject *r = PyObject_CallOneArg(fa->is_leaf, o);
    if (!r) return NULL;
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    if (t < 0) return NULL;
    if (t) return PyLong_FromLong(K_LEAF);
  }
  PyTypeObject *tp = Py_TYPE(o);
  if (o == Py_None) return PyLong_FromLong(fa->none_is_leaf ? K_LEAF : K_NONE);
  if (tp == &PyList_Type) return PyLong_FromLong(K_LIST);
  if (tp == &PyTuple_Type) return PyLong_FromLong(K_TUPLE);
  if (tp == &PyDict_Type) return PyLong_FromLong(K_DICT);
  PyObject *reg = NULL;
  int k = classify(st, fa->ns, tp, &reg);
  return k < 0 ? NULL : PyLong_FromLong(k);
}

PyObject *py_is_leaf(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  gstate *st = state_of_module(m);
  PyObject *a[4];
  flat_args fa;
  if (parse_args(args, nargs, kw, "_is_leaf", IS_LEAF_NAMES, 2, 1, a) < 0) return NULL;
  if (flat_opts(st, a[1], a[2], a[3], &fa) < 0) {
    flat_done(&fa);
    return NULL;
  }
  PyObject *res = is_leaf_kind(st, &fa, a[0]);
  flat_done(&fa);
  return res;
}
