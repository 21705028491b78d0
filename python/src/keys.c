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
  uint64_t h = handle_for(w->g, k);
  if (!h) return -1;
  w->handles = 1;
  gv_error e;
  gv_status s = gv_handle(w->a, h, out, &e);
  if (s != GV_OK) {
    if (s == GV_ENOMEM) w->oom = 1;
    raise_gv(s, &e);
    return -1;
  }
  return 0;
}

static int key_scalar(walk *w, PyObject *k, const gv_node **out, gv_status *s, gv_error *e) {
  return scalar_node(w->a, k, out, s, e);
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
  if (r == 1 && Py_TYPE(k) == &PyTuple_Type && PyTuple_GET_SIZE(k) <= VALUE_TUPLE_MAX) {
    *host = 1;
    Py_ssize_t n = PyTuple_GET_SIZE(k);
    const gv_node *items[VALUE_TUPLE_MAX];
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
/* Whether keyset ks (grove's key order) traverses its keys in insertion order. */
static int in_insertion_order(const gv_node *ks, Py_ssize_t n) {
  const uint32_t *perm = GV__CONT(ks)->perm;
  for (Py_ssize_t r = 0; perm && r < n; r++)
    if (perm[r] != (uint32_t)r) return 0;
  return 1;
}

const gv_node *keyset_for(walk *w, PyObject *const *keys, Py_ssize_t n, int order_by, uint64_t h) {
  GenObject *g = w->g;
  const gv_node *ks = NULL;
  g->kc.misses++;
  /* the keys are the caller's, borrowed: hold them before anything is
   * allocated (an allocation may run the collector's finalizers) */
  PyObject **own = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *own);
  if (!own) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    Py_INCREF(keys[i]);
    own[i] = keys[i];
  }
  /* a tuple (no code can change it) of the keys: given to the key order
   * helper, kept as the keyset's key objects, and the cache's keys */
  PyObject *kt = PyTuple_New(n);
  if (!kt) {
    for (Py_ssize_t i = 0; i < n; i++)
      Py_DECREF(own[i]);
    PyMem_Free(own);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; i++)
    PyTuple_SET_ITEM(kt, i, own[i]); /* (the references go to the tuple) */
  PyMem_Free(own);
  const gv_node **kn = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *kn);
  uint32_t *order = PyMem_Calloc((size_t)(n ? n : 1), sizeof *order);
  unsigned char *seen = NULL;
  PyObject *ord = NULL;
  if (!kn || !order) {
    PyErr_NoMemory();
    goto out;
  }
  int host = 0;
  for (Py_ssize_t i = 0; i < n; i++)
    if (key_node(w, PyTuple_GET_ITEM(kt, i), &kn[i], &host) < 0) goto out;
  gv_error e;
  gv_status s;
  if (!host) {
    s = gv_keyset(w->a, kn, (size_t)n, &ks, &e);
    /* insertion order: the sorted keyset when that is the same order (as
     * optree, such a dict's structure equals the sorted one), else the keys
     * in insertion order as the host's order */
    if (s == GV_OK && order_by == KS_INSERTION && !in_insertion_order(ks, n)) {
      for (Py_ssize_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
      s = gv_keyset_ordered(w->a, kn, (size_t)n, order, &ks, &e);
    }
  } else {
    if (w->nocode && order_by == KS_SORTED) {
      w->refused = 1;
      goto out;
    }
    if (order_by != KS_SORTED) {
      for (Py_ssize_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    } else {
      if (!w->st->key_order) {
        PyErr_SetString(PyExc_RuntimeError,
                        "grove._grove is set up by importing the grove package");
        goto out;
      }
      ord = PyObject_CallOneArg(w->st->key_order, kt);
      if (!ord) goto out;
      seen = PyMem_Calloc((size_t)(n ? n : 1), 1);
      if (!seen) {
        PyErr_NoMemory();
        goto out;
      }
      int bad = !PyList_CheckExact(ord) || PyList_GET_SIZE(ord) != n;
      for (Py_ssize_t i = 0; !bad && i < n; i++) { /* a permutation of 0..n */
        PyObject *x = PyList_GET_ITEM(ord, i);
        Py_ssize_t v = PyLong_CheckExact(x) ? PyLong_AsSsize_t(x) : -1;
        if (v < 0 || v >= n || seen[v]) {
          bad = 1;
        } else {
          seen[v] = 1;
          order[i] = (uint32_t)v;
        }
      }
      if (bad) {
        PyErr_Clear();
        PyErr_SetString(PyExc_SystemError, "grove: the key order helper returned a bad list");
        goto out;
      }
    }
    s = gv_keyset_ordered(w->a, kn, (size_t)n, order, &ks, &e);
  }
  if (s != GV_OK) {
    if (s == GV_ENOMEM) w->oom = 1;
    raise_gv(s, &e);
    ks = NULL;
    goto out;
  }
  if (pm_put(&g->rev, ks, kt) < 0) { /* (a keyset already there keeps its objects) */
    PyErr_NoMemory();
    ks = NULL;
    goto out;
  }
  /* a full cache is emptied first, which releases objects (code may run):
   * a caller that must run none does not cache */
  if (!(w->nocode && kc_full(&g->kc, n)) &&
      kc_put(&g->kc, h, &PyTuple_GET_ITEM(kt, 0), n, ks) < 0) {
    PyErr_NoMemory();
    ks = NULL;
  }
out:
  Py_XDECREF(ord);
  Py_DECREF(kt);
  PyMem_Free(kn);
  PyMem_Free(order);
  PyMem_Free(seen);
  return ks;
}

/* The keyset of a dict's keys (karr[0..n), held by the caller) in the
 * operation's generation *g (held; a full one is replaced, gen_renew), for
 * canonicalize and grove.keras, which need only the order. May run code
 * (the keys' __hash__, __eq__, __lt__). NULL with an exception. */
const gv_node *canon_keyset(gstate *st, GenObject **g, PyObject *const *karr, Py_ssize_t n) {
  for (int attempt = 0; attempt < 2; attempt++) {
    walk w;
    memset(&w, 0, offsetof(walk, fr_inl));
    w.st = st;
    w.g = *g;
    w.a = w.g->a;
    uint64_t h = 0;
    const gv_node *ks = keyset_cached(&w, karr, n, 0, &h);
    if (!ks) ks = keyset_for(&w, karr, n, 0, h);
    if (ks || !w.oom) return ks;
    PyErr_Clear();
    if (gen_renew(st, g) < 0) return NULL;
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

PyObject *keys_of(GenObject *g, const gv_node *ks) {
  PyObject *t = pm_get(&g->rev, ks);
  if (t) return t;
  size_t n = gv_arity(ks);
  t = gc_hide(PyTuple_New((Py_ssize_t)n)); /* (until full: a key's tuple is an allocation) */
  if (!t) return NULL;
  for (size_t i = 0; i < n; i++) {
    PyObject *k = value_obj(g, GV__CONT(ks)->kids[i]);
    if (!k) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, k);
  }
  gc_show(t);
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
PyObject *dict_template(GenObject *g, const gv_node *ksn, const gv_node *tn, const uint32_t *perm,
                        size_t arity) {
  PyObject *tm = pm_get(&g->tmpl, tn);
  if (tm) return tm;
  PyObject *keys = keys_of(g, ksn);
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
