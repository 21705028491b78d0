/* SPDX-License-Identifier: MIT */
/* keras_assert.c -- keras_assert_same_structure: a walk over two trees at
 * once. */
#include "keras_walk.h"

/* ---------------------------------------------------------------------------
 * assert_same_structure(a, b): b must match a node by node (optree's rules:
 * list, tuple and deque by exact type and length; namedtuples and
 * PyStructSequences by class; dict, OrderedDict and defaultdict
 * interchangeably by key set; registered classes by type, metadata (==) and
 * length), and hold a leaf wherever a does. The order of errors is optree's
 * (it flattens a, then b up to a's structure, then checks the leaves): an
 * error of a's own (its custom flatten), then the first mismatched node of
 * b, then the first node of b where a has a leaf.
 * ------------------------------------------------------------------------- */

static const char *seq_word(int kind) {
  return kind == K_LIST ? "list" : kind == K_TUPLE ? "tuple" : "deque";
}

/* b's children for a's frame f (the top frame), in f's traversal order, onto
 * the child stack; or a ValueError naming the mismatch. */
static int match_b(kwalk *w, kframe *f, PyObject *b) {
  gstate *st = w->st;
  PyTypeObject *tb = Py_TYPE(b);
  PyObject *o = f->obj;
  Py_ssize_t n = f->n;
  /* report at the node itself: its frame is on the stack, so hide it */
  w->nfr--;
  int rc = -1;
  switch (f->kind) {
  case K_LIST:
  case K_TUPLE:
  case K_DEQUE: {
    PyTypeObject *want = f->kind == K_LIST    ? &PyList_Type
                         : f->kind == K_TUPLE ? &PyTuple_Type
                                              : st->deque_t;
    if (tb != want) {
      kw_err(w, PyExc_ValueError, "Expected an instance of %s, got %R.",
             f->kind == K_DEQUE ? "collections.deque" : seq_word(f->kind), b);
      break;
    }
    PyObject *t = seq_tuple(b);
    if (!t) break;
    if (PyTuple_GET_SIZE(t) != n) {
      kw_err(w, PyExc_ValueError, "%s arity mismatch; expected: %zd, got: %zd; %s: %R.",
             seq_word(f->kind), n, PyTuple_GET_SIZE(t), seq_word(f->kind), b);
    } else {
      rc = push_items(w, &PyTuple_GET_ITEM(t, 0), n);
    }
    Py_DECREF(t);
    break;
  }
  case K_NT:
  case K_SS: {
    const char *what = f->kind == K_NT ? "namedtuple" : "PyStructSequence";
    PyObject *reg = NULL;
    if (tb != Py_TYPE(o)) {
      int kb = kkind(st, b, 1, &reg);
      if (kb < 0) break;
      if (kb != f->kind)
        kw_err(w, PyExc_ValueError, "Expected an instance of %s%s, got %R.",
               f->kind == K_NT ? "collections." : "", what, b);
      else
        kw_err(w, PyExc_ValueError, "%s type mismatch; expected type: %R, got type: %R; tuple: %R.",
               what, (PyObject *)Py_TYPE(o), (PyObject *)tb, b);
      break;
    }
    if (PyTuple_GET_SIZE(b) != n) {
      kw_err(w, PyExc_ValueError, "%s arity mismatch; expected: %zd, got: %zd; tuple: %R.", what, n,
             PyTuple_GET_SIZE(b), b);
      break;
    }
    rc = push_items(w, &PyTuple_GET_ITEM(b, 0), n);
    break;
  }
  case K_DICT:
  case K_DDICT:
  case K_ODICT: {
    if (tb != &PyDict_Type && tb != st->odict_t && tb != st->ddict_t) {
      kw_err(w, PyExc_ValueError,
             "Expected an instance of dict, collections.OrderedDict, or collections.defaultdict, "
             "got %R.",
             b);
      break;
    }
    int ok = PyDict_GET_SIZE(b) == n;
    if (ok && os_reserve(&w->cs, n) < 0) break;
    Py_ssize_t r = 0;
    for (; ok && r < n; r++) {
      Py_ssize_t ix = f->pbase >= 0 ? (Py_ssize_t)w->ps.v[f->pbase + r] : r;
      PyObject *v = PyDict_GetItemWithError(b, w->cs.v[f->kbase + ix]);
      if (!v) {
        if (PyErr_Occurred()) {
          os_pop_to(&w->cs, f->bbase);
          goto out;
        }
        ok = 0;
        break;
      }
      Py_INCREF(v);
      w->cs.v[w->cs.n++] = v;
    }
    if (ok) {
      rc = 0;
      break;
    }
    os_pop_to(&w->cs, f->bbase);
    /* the key sets differ: say which keys (a's in traversal order) */
    PyObject *expected = PyList_New(n), *got = NULL, *missing = NULL, *extra = NULL;
    for (Py_ssize_t q = 0; expected && q < n; q++) {
      Py_ssize_t ix = f->pbase >= 0 ? (Py_ssize_t)w->ps.v[f->pbase + q] : q;
      PyObject *k = w->cs.v[f->kbase + ix];
      Py_INCREF(k);
      PyList_SET_ITEM(expected, q, k);
    }
    got = expected ? PySequence_List(b) : NULL;
    missing = got ? PyList_New(0) : NULL;
    extra = missing ? PyList_New(0) : NULL;
    int bad = !extra;
    /* (a key is held while its __eq__ runs: that code may empty the lists) */
    for (Py_ssize_t q = 0; !bad && q < PyList_GET_SIZE(expected); q++) {
      PyObject *k = PyList_GET_ITEM(expected, q);
      Py_INCREF(k);
      int has = PyDict_Contains(b, k);
      if (has < 0 || (!has && PyList_Append(missing, k) < 0)) bad = 1;
      Py_DECREF(k);
    }
    for (Py_ssize_t q = 0; !bad && q < PyList_GET_SIZE(got); q++) {
      PyObject *k = PyList_GET_ITEM(got, q);
      Py_INCREF(k);
      int has = PyDict_Contains(o, k);
      if (has < 0 || (!has && PyList_Append(extra, k) < 0)) bad = 1;
      Py_DECREF(k);
    }
    if (!bad)
      kw_err(w, PyExc_ValueError,
             "dictionary key mismatch; expected key(s): %R, got key(s): %R, missing key(s): %R, "
             "extra key(s): %R; %s: %R.",
             expected, got, missing, extra, tb->tp_name, b);
    Py_XDECREF(expected);
    Py_XDECREF(got);
    Py_XDECREF(missing);
    Py_XDECREF(extra);
    break;
  }
  case K_CUSTOM: {
    if (tb != Py_TYPE(o)) {
      kw_err(w, PyExc_ValueError,
             "Custom node type mismatch; expected type: %R, got type: %R; value: %R.",
             (PyObject *)Py_TYPE(o), (PyObject *)tb, b);
      break;
    }
    PyObject *kids, *meta, *ents;
    if (custom_flatten(w, f->reg, b, &kids, &meta, &ents) < 0) break;
    Py_XDECREF(ents);
    int eq = PyObject_RichCompareBool(f->aux, meta, Py_EQ);
    if (eq == 0)
      kw_err(w, PyExc_ValueError, "Mismatch custom node data; expected: %R, got: %R; value: %R.",
             f->aux, meta, b);
    else if (eq > 0 && PyTuple_GET_SIZE(kids) != n)
      kw_err(w, PyExc_ValueError, "Custom type arity mismatch; expected: %zd, got: %zd; value: %R.",
             n, PyTuple_GET_SIZE(kids), b);
    else if (eq > 0)
      rc = push_items(w, &PyTuple_GET_ITEM(kids, 0), n);
    Py_DECREF(kids);
    Py_DECREF(meta);
    break;
  }
  default:
    PyErr_SetString(PyExc_SystemError, "grove.keras: bad node kind");
  }
out:
  w->nfr++;
  return rc;
}

PyObject *py_assert_same_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kw) {
  static const char *const names[] = {"a", "b", NULL};
  PyObject *ab[2];
  if (parse_args(args, nargs, kw, "assert_same_structure", names, 2, 2, ab) < 0) return NULL;
  gstate *st = state_of_module(m);
  kwalk w;
  memset(&w, 0, sizeof w);
  w.st = st;
  PyObject *deeper = NULL; /* the path where b first holds a node at a leaf of a */
  PyObject *deeper_what = NULL;
  /* The first error about b (a mismatch, or b's custom flatten failing) is
   * raised only once a is walked to its end: optree flattens a whole first,
   * so an error of a's own comes first. */
  PyObject *berr_t = NULL, *berr_v = NULL, *berr_tb = NULL;
  PyObject *x = ab[0], *y = ab[1];
  Py_INCREF(x);
  Py_INCREF(y);
  int rc = -1;
  for (;;) {
    if (x) {
      PyObject *reg = NULL;
      int kind = kkind(st, x, 1, &reg), kb = K_LEAF;
      if (kind < 0 || (kind == K_LEAF && y && !deeper && (kb = kkind(st, y, 1, &reg)) < 0)) {
        Py_DECREF(x);
        Py_XDECREF(y);
        goto out;
      }
      if (kind == K_LEAF) {
        if (y && !deeper && kb != K_LEAF) {
          deeper = kw_path(&w, w.nfr);
          deeper_what = PyUnicode_FromString(Py_TYPE(y)->tp_name);
          if (!deeper || !deeper_what) {
            Py_DECREF(x);
            Py_DECREF(y);
            goto out;
          }
        }
        Py_DECREF(x);
        Py_XDECREF(y);
      } else {
        int pr = kw_push_frame(&w, x, kind, reg);
        Py_DECREF(x);
        if (pr < 0) {
          Py_XDECREF(y);
          goto out;
        }
        kframe *f = &w.fr[w.nfr - 1];
        f->b = y; /* the frame owns it (NULL once b has failed) */
        f->bbase = w.cs.n;
        if (y && match_b(&w, f, y) < 0) {
          PyErr_Fetch(&berr_t, &berr_v, &berr_tb);
          Py_CLEAR(f->b);
        }
      }
      x = y = NULL;
    }
    if (w.nfr == 0) break;
    kframe *f = &w.fr[w.nfr - 1];
    if (f->i < f->n) {
      Py_ssize_t r = f->i++;
      x = fr_child(&w, f, r);
      Py_INCREF(x);
      if (f->b && !berr_t) {
        y = w.cs.v[f->bbase + r];
        Py_INCREF(y);
      }
      continue;
    }
    os_pop_to(&w.cs, f->bbase);
    w.nfr--;
    fr_release(&w, f);
  }
  if (berr_t) {
    PyErr_Restore(berr_t, berr_v, berr_tb);
    berr_t = berr_v = berr_tb = NULL;
    goto out;
  }
  if (deeper) {
    err_at(PyExc_ValueError, deeper,
           "Structures don't have the same nested structure: `a` has a leaf where `b` has a "
           "nested %U.",
           deeper_what);
    goto out;
  }
  rc = 0;
out:
  Py_XDECREF(berr_t);
  Py_XDECREF(berr_v);
  Py_XDECREF(berr_tb);
  Py_XDECREF(deeper);
  Py_XDECREF(deeper_what);
  kw_free(&w);
  if (rc < 0) return NULL;
  Py_RETURN_NONE;
}
