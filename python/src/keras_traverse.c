/* SPDX-License-Identifier: MIT */
/* keras_traverse.c -- keras_traverse and keras_lists_to_tuples: a walk that
 * calls a function on every subtree and rebuilds. */
#include "keras_walk.h"

static knode frame_node(const kwalk *w, const kframe *f) {
  knode k = {f->kind,
             f->n,
             f->obj,
             f->aux,
             f->reg,
             f->kbase >= 0 ? os_at(&w->cs, f->kbase) : NULL,
             f->pbase >= 0 ? w->ps.v + f->pbase : NULL};
  return k;
}

/* ---------------------------------------------------------------------------
 * traverse(func, structure, top_down=True) and lists_to_tuples(structure)
 *
 * Top-down: func(subtree) first; None means "go on" (a leaf stays, a node is
 * rebuilt from its traversed children), a class named MAP_TO_NONE means None,
 * anything else replaces the subtree, which is not entered. Bottom-up: the
 * node is rebuilt from its traversed children first and func sees the
 * rebuilt node (leaves as they are); None keeps it, MAP_TO_NONE makes None,
 * anything else replaces it. Containers always come back as new objects.
 * lists_to_tuples is bottom-up with "a list (any subclass) becomes a tuple".
 * ------------------------------------------------------------------------- */

typedef struct tctx {
  kwalk w;
  PyObject *func; /* NULL: lists_to_tuples */
  int top_down;
} tctx;

static PyObject *tcall(tctx *c, PyObject *x) {
  if (!c->func) {
    if (PyList_Check(x)) return PySequence_Tuple(x);
    Py_RETURN_NONE;
  }
  return PyObject_CallOneArg(c->func, x);
}

/* The value for a subtree x (owned) whose func result is r (owned). */
static PyObject *tresult(tctx *c, PyObject *x, PyObject *r) {
  if (r == Py_None) {
    Py_DECREF(r);
    return x;
  }
  Py_DECREF(x);
  if (PyType_Check(r)) { /* keras's MAP_TO_NONE, recognised by its class name */
    kstate *ks = ks_of(c->w.st);
    PyObject *name = PyObject_GetAttr(r, ks->s_name);
    if (!name) {
      Py_DECREF(r);
      return NULL;
    }
    int eq = PyObject_RichCompareBool(name, ks->s_map_none, Py_EQ);
    Py_DECREF(name);
    if (eq != 0) {
      Py_DECREF(r);
      if (eq < 0) return NULL;
      Py_RETURN_NONE;
    }
  }
  return r;
}

/* Visit x (owned, consumed): a value (owned) when x is done, or NULL with
 * *pushed = 1 when x's frame was pushed (NULL and no push: an error). */
static PyObject *tvisit(tctx *c, PyObject *x, int *pushed) {
  kwalk *w = &c->w;
  *pushed = 0;
  if (c->top_down) {
    PyObject *r = tcall(c, x);
    if (!r) {
      Py_DECREF(x);
      return NULL;
    }
    if (r != Py_None) return tresult(c, x, r);
    Py_DECREF(r);
  }
  PyObject *reg = NULL;
  int kind = kkind(w->st, x, 1, &reg);
  if (kind < 0) {
    Py_DECREF(x);
    return NULL;
  }
  if (kind == K_LEAF) {
    if (c->top_down) return x;
    PyObject *r = tcall(c, x);
    if (!r) {
      Py_DECREF(x);
      return NULL;
    }
    return tresult(c, x, r);
  }
  int rc = kw_push_frame(w, x, kind, reg);
  Py_DECREF(x);
  if (rc == 0) *pushed = 1;
  return NULL;
}

static PyObject *trav_run(tctx *c, PyObject *root) {
  kwalk *w = &c->w;
  PyObject *x = root;
  Py_INCREF(x);
  for (;;) {
    if (x) {
      int pushed = 0;
      PyObject *v = tvisit(c, x, &pushed);
      x = NULL;
      if (!pushed) {
        if (!v) return NULL;
        if (w->nfr == 0) return v;
        if (os_push_steal(&w->vs, v) < 0) return NULL;
      }
    }
    kframe *f = &w->fr[w->nfr - 1];
    if (f->i < f->n) {
      x = fr_child(w, f, f->i++);
      Py_INCREF(x);
      continue;
    }
    int l2t = !c->func && f->kind == K_LIST;
    knode kn = frame_node(w, f);
    PyObject *built = rebuild(w, &kn, os_at(&w->vs, f->vbase), l2t);
    os_pop_to(&w->vs, f->vbase);
    w->nfr--;
    fr_release(w, f);
    if (!built) return NULL;
    PyObject *v = built;
    if (!c->top_down && !l2t) {
      PyObject *r = tcall(c, built);
      if (!r) {
        Py_DECREF(built);
        return NULL;
      }
      v = tresult(c, built, r);
      if (!v) return NULL;
    }
    if (w->nfr == 0) return v;
    if (os_push_steal(&w->vs, v) < 0) return NULL;
  }
}

static PyObject *traverse_impl(gstate *st, PyObject *func, PyObject *tree, int top_down) {
  tctx c;
  memset(&c, 0, sizeof c);
  c.w.st = st;
  c.func = func;
  c.top_down = top_down;
  PyObject *r = trav_run(&c, tree);
  kw_free(&c.w);
  return r;
}

PyObject *py_traverse(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"func", "structure", "top_down", NULL};
  PyObject *a[3];
  if (parse_args(args, nargs, kw, "traverse", names, 3, 2, a) < 0) return NULL;
  int top_down = 1;
  if (a[2] && (top_down = PyObject_IsTrue(a[2])) < 0) return NULL;
  return traverse_impl(state_of_module(m), a[0], a[1], top_down);
}

PyObject *py_lists_to_tuples(PyObject *m, PyObject *tree) {
  return traverse_impl(state_of_module(m), NULL, tree, 0);
}
