/* SPDX-License-Identifier: MIT */
/* keras_tape.c -- tapes: keras_map_structure over one structure,
 * keras_map_shape_structure and keras_pack_sequence_as. */
#include "keras_walk.h"

/* ---------------------------------------------------------------------------
 * Tapes: one walk of a tree (keras's flatten: custom flatten functions run,
 * dict keys, defaultdict factories and deque maxlens read) into its leaves
 * and a post-order tape (a leaf slot, or a node and what rebuilding it
 * takes); then the tree rebuilt from the tape with new leaf values. This is
 * optree's flatten, then unflatten (tree_map's order of events), without
 * interning a structure.
 * ------------------------------------------------------------------------- */

typedef struct trec {
  PyObject *obj, *aux, *reg; /* owned, or NULL */
  Py_ssize_t n, kbase, pbase;
  int kind;
} trec;

typedef struct tape {
  kwalk w;
  trec *rec;
  Py_ssize_t nrec, crec;
  uint8_t *ev; /* in post-order: 0 a leaf slot, 1 the next record */
  Py_ssize_t nev, cev;
  ostack keys;   /* the records' dict keys */
  ustack perm;   /* the records' dict permutations */
  ostack leaves; /* the leaves in traversal order (if keep_leaves) */
  Py_ssize_t nleaves;
  int keep_leaves;
} tape;

static void tape_free(tape *tp) {
  for (Py_ssize_t i = 0; i < tp->nrec; i++) {
    Py_XDECREF(tp->rec[i].obj);
    Py_XDECREF(tp->rec[i].aux);
    Py_XDECREF(tp->rec[i].reg);
  }
  PyMem_Free(tp->rec);
  PyMem_Free(tp->ev);
  os_free(&tp->keys);
  PyMem_Free(tp->perm.v);
  os_free(&tp->leaves);
  kw_free(&tp->w);
}

static int tape_ev(tape *tp, uint8_t e) {
  if (tp->nev == tp->cev && grow_to((void **)&tp->ev, &tp->cev, tp->nev + 1, 1) < 0) return -1;
  tp->ev[tp->nev++] = e;
  return 0;
}

static int tape_rec(tape *tp, const trec *r) {
  if (tp->nrec == tp->crec &&
      grow_to((void **)&tp->rec, &tp->crec, tp->nrec + 1, sizeof *tp->rec) < 0)
    return -1;
  tp->rec[tp->nrec++] = *r;
  Py_XINCREF(r->obj);
  Py_XINCREF(r->aux);
  Py_XINCREF(r->reg);
  return tape_ev(tp, 1);
}

static int is_shape(PyObject *x);

/* Walk tree onto the tape (shapes: map_shape_structure's shapes are leaves). */
static int tape_walk(tape *tp, PyObject *tree, int none_is_leaf, int shapes) {
  kwalk *w = &tp->w;
  PyObject *x = tree;
  Py_INCREF(x);
  for (;;) {
    if (x) {
      PyObject *reg = NULL;
      int kind = K_LEAF, rc;
      if (shapes && (rc = is_shape(x)) != 0) {
        if (rc < 0) {
          Py_DECREF(x);
          return -1;
        }
      } else {
        kind = kkind(w->st, x, none_is_leaf, &reg);
        if (kind < 0) {
          Py_DECREF(x);
          return -1;
        }
      }
      if (kind == K_LEAF) {
        tp->nleaves++;
        if (tp->keep_leaves) {
          rc = os_push_steal(&tp->leaves, x);
        } else {
          Py_DECREF(x);
          rc = 0;
        }
        if (rc < 0 || tape_ev(tp, 0) < 0) return -1;
      } else if (kind == K_NONE) {
        trec r = {NULL, NULL, NULL, 0, -1, -1, K_NONE};
        Py_DECREF(x);
        if (tape_rec(tp, &r) < 0) return -1;
      } else {
        rc = kw_push_frame(w, x, kind, reg);
        Py_DECREF(x);
        if (rc < 0) return -1;
      }
      x = NULL;
    }
    if (!w->nfr) return 0;
    kframe *f = &w->fr[w->nfr - 1];
    if (f->i < f->n) {
      x = fr_child(w, f, f->i++);
      Py_INCREF(x);
      continue;
    }
    trec r = {f->obj, f->aux, f->reg, f->n, -1, -1, f->kind};
    if (f->kbase >= 0) {
      r.kbase = tp->keys.n;
      if (os_reserve(&tp->keys, f->n) < 0) return -1;
      for (Py_ssize_t j = 0; j < f->n; j++) {
        PyObject *k = w->cs.v[f->kbase + j];
        Py_INCREF(k);
        tp->keys.v[tp->keys.n++] = k;
      }
    }
    if (f->pbase >= 0) {
      if (grow_to((void **)&tp->perm.v, &tp->perm.cap, tp->perm.n + f->n, sizeof *tp->perm.v) < 0)
        return -1;
      r.pbase = tp->perm.n;
      memcpy(tp->perm.v + tp->perm.n, w->ps.v + f->pbase, (size_t)f->n * sizeof *tp->perm.v);
      tp->perm.n += f->n;
    }
    int rc = tape_rec(tp, &r);
    w->nfr--;
    fr_release(w, f);
    if (rc < 0) return -1;
  }
}

/* The tree of the tape with leaf values vals[0..nleaves) (borrowed; each is
 * held from the moment it is taken). */
static PyObject *tape_build(tape *tp, PyObject *const *vals) {
  kwalk *w = &tp->w;
  Py_ssize_t li = 0, ri = 0;
  for (Py_ssize_t e = 0; e < tp->nev; e++) {
    if (!tp->ev[e]) {
      Py_INCREF(vals[li]);
      if (os_push_steal(&w->vs, vals[li++]) < 0) return NULL;
      continue;
    }
    const trec *r = &tp->rec[ri++];
    knode k = {r->kind,
               r->n,
               r->obj,
               r->aux,
               r->reg,
               r->kbase >= 0 ? os_at(&tp->keys, r->kbase) : NULL,
               r->pbase >= 0 ? tp->perm.v + r->pbase : NULL};
    Py_ssize_t base = w->vs.n - r->n;
    PyObject *built = rebuild(w, &k, os_at(&w->vs, base), 0);
    os_pop_to(&w->vs, base);
    if (!built || os_push_steal(&w->vs, built) < 0) return NULL;
  }
  w->vs.n = 0; /* the root's reference goes to the caller */
  return w->vs.v[0];
}

static void tape_init(tape *tp, gstate *st, int keep_leaves) {
  memset(tp, 0, sizeof *tp);
  tp->w.st = st;
  tp->keep_leaves = keep_leaves;
}

/* map_structure(func, tree) (one structure) and map_shape_structure. */
PyObject *tape_map(gstate *st, PyObject *func, PyObject *tree, int none_is_leaf, int shapes) {
  tape tp;
  tape_init(&tp, st, 1);
  PyObject *out = NULL;
  ostack res = {NULL, 0, 0};
  if (tape_walk(&tp, tree, none_is_leaf, shapes) < 0) goto done;
  Py_ssize_t n = tp.leaves.n;
  if (os_reserve(&res, n) < 0) goto done;
  vectorcallfunc vc = PyVectorcall_Function(func);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *argv[2] = {NULL, tp.leaves.v[i]};
    size_t na = 1 | PY_VECTORCALL_ARGUMENTS_OFFSET;
    PyObject *r = vc ? vc(func, argv + 1, na, NULL) : PyObject_Vectorcall(func, argv + 1, na, NULL);
    if (!r) goto done;
    res.v[res.n++] = r;
  }
  out = tape_build(&tp, res.v);
done:
  os_free(&res);
  tape_free(&tp);
  return out;
}

PyObject *py_pack_sequence_as(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"structure", "flat_sequence", NULL};
  PyObject *a[2];
  if (parse_args(args, nargs, kw, "pack_sequence_as", names, 2, 2, a) < 0) return NULL;
  tape tp;
  tape_init(&tp, state_of_module(m), 0);
  PyObject *out = NULL, *seq = NULL;
  if (tape_walk(&tp, a[0], 1, 0) < 0) goto done;
  /* the leaves, held (rebuilding runs code that may change the caller's
   * list): a list or tuple as a tuple, any other iterable read up to one
   * item more than the structure has leaves (an endless one is fine) */
  int exact = PyList_Check(a[1]) || PyTuple_Check(a[1]);
  if (exact) {
    seq = seq_tuple(a[1]);
  } else {
    PyObject *it = PyObject_GetIter(a[1]), *x;
    if (!it) {
      if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError,
                        "pack_sequence_as: flat_sequence must be an iterable (a list of leaves)");
      }
      goto done;
    }
    ostack got = {NULL, 0, 0};
    while (got.n <= tp.nleaves && (x = PyIter_Next(it)))
      if (os_push_steal(&got, x) < 0) break;
    Py_DECREF(it);
    if (!PyErr_Occurred()) seq = tuple_from(got.v, got.n);
    os_free(&got);
  }
  if (!seq) goto done;
  Py_ssize_t got = PyTuple_GET_SIZE(seq);
  if (got < tp.nleaves)
    PyErr_Format(PyExc_ValueError,
                 "Too few leaves for the structure (pack_sequence_as); expected: %zd, got: %zd.",
                 tp.nleaves, got);
  else if (got > tp.nleaves && exact)
    PyErr_Format(PyExc_ValueError,
                 "Too many leaves for the structure (pack_sequence_as); expected: %zd, got: %zd.",
                 tp.nleaves, got);
  else if (got > tp.nleaves)
    PyErr_Format(PyExc_ValueError,
                 "Too many leaves for the structure (pack_sequence_as); expected: %zd.",
                 tp.nleaves);
  else
    out = tape_build(&tp, &PyTuple_GET_ITEM(seq, 0));
done:
  Py_XDECREF(seq);
  tape_free(&tp);
  return out;
}

PyObject *py_map_shape_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kw) {
  static const char *const names[] = {"func", "structure", NULL};
  PyObject *a[2];
  if (parse_args(args, nargs, kw, "map_shape_structure", names, 2, 2, a) < 0) return NULL;
  return tape_map(state_of_module(m), a[0], a[1], 1, 1);
}

/* A shape: a list or tuple (subclasses too) whose items are all ints (bools
 * too) or None; the empty ones are shapes. 1, 0, or -1 with an exception. */
static int is_shape(PyObject *x) {
  if (!PyList_Check(x) && !PyTuple_Check(x)) return 0;
  if (PyList_CheckExact(x) || PyTuple_CheckExact(x)) {
    Py_ssize_t n = PyList_CheckExact(x) ? PyList_GET_SIZE(x) : PyTuple_GET_SIZE(x);
    PyObject **items =
        PyList_CheckExact(x) ? ((PyListObject *)x)->ob_item : &PyTuple_GET_ITEM(x, 0);
    for (Py_ssize_t i = 0; i < n; i++)
      if (!PyLong_Check(items[i]) && items[i] != Py_None) return 0;
    return 1;
  }
  PyObject *it = PyObject_GetIter(x), *e; /* a subclass: iterate as Python would */
  if (!it) return -1;
  int shape = 1;
  while (shape && (e = PyIter_Next(it))) {
    shape = PyLong_Check(e) || e == Py_None;
    Py_DECREF(e);
  }
  Py_DECREF(it);
  return PyErr_Occurred() ? -1 : shape;
}
