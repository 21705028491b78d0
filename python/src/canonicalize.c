/* SPDX-License-Identifier: MIT */
/* canonicalize.c -- canonicalize: every dict of a tree in sorted-key
 * order; a fast pass that runs no Python code, else the general pass. */
#include "builds.h"

/* ---------------------------------------------------------------------------
 * canonicalize(tree) -> (tree, changed): every dict in sorted-key insertion
 * order; the same object when nothing changes, else only the containers on
 * the paths to unsorted dicts are rebuilt. Leaves: what tree_leaves calls
 * leaves (None included); registered classes are left as they are.
 * ------------------------------------------------------------------------- */

typedef struct cframe {
  PyObject *obj;   /* owned */
  PyObject *items; /* owned tuple of children (insertion order for dicts) */
  PyObject *keys;  /* dict kinds: owned tuple of keys (insertion order) */
  uint32_t *perm;  /* owned copy, or NULL when already sorted */
  Py_ssize_t n, i, vbase;
  int kind, changed;
} cframe;

static int canon_kind(gstate *st, PyObject *o) {
  PyTypeObject *tp = Py_TYPE(o);
  if (tp == &PyList_Type) return K_LIST;
  if (tp == &PyTuple_Type) return K_TUPLE;
  if (tp == &PyDict_Type) return K_DICT;
  if (tp == st->odict_t) return K_ODICT;
  if (tp == st->ddict_t) return K_DDICT;
  if (tp == st->deque_t) return K_DEQUE;
  if (tp == &PyLong_Type || tp == &PyFloat_Type || tp == &PyUnicode_Type || o == Py_None)
    return K_LEAF;
  PyObject *reg = NULL;
  int k = classify(st, NULL, tp, &reg); /* (may run code: the caller holds what it uses) */
  if (k < 0) return -1;
  return (k == K_NT || k == K_SS) ? k : K_LEAF;
}

/* The fast pass: lists, tuples and dicts of built-in scalar keys, over
 * borrowed references. It runs no Python code (the cycle collector is off
 * while it runs, no key compares or hashes in Python), so the tree cannot
 * change under it; anything else (another container kind, a class not yet
 * classified, keys the host must order, a full generation, a deep tree) makes
 * it give up, and the general pass below does the work. Only the changed
 * children of a container are kept (cchg), so an unchanged tree costs one
 * read of each container and of each leaf's type. */
#define CF_DEPTH 256

typedef struct cfframe {
  PyObject *obj; /* borrowed */
  int kind;
  Py_ssize_t n, i;
  Py_ssize_t kvbase;    /* dict: its keys and values (insertion order) on the kv stacks */
  const gv_node *ks;    /* dict: its keyset */
  const uint32_t *perm; /* dict: sorted position -> insertion position, or NULL */
  Py_ssize_t cbase;     /* its changed children on the cchg stack from here */
} cfframe;

typedef struct cfchg {
  Py_ssize_t at; /* child position (traversal order) */
  PyObject *obj; /* owned: the new child */
} cfchg;

typedef struct cfast {
  gstate *st;
  GenObject *g; /* st->cur throughout: nothing the pass calls starts a generation */
  Py_ssize_t nfr;
  PyObject **kk, **vv; /* dict keys and values */
  size_t nkv, ckv;
  cfchg *ch;
  size_t nch, cch;
  PyObject **tmp; /* a rebuilt container's children */
  size_t ctmp;
  PyObject **keys; /* a rebuilt dict's keys (sorted order) */
  size_t ckeys;
  cfframe fr[CF_DEPTH]; /* last: left uninitialised (a frame is written when pushed) */
} cfast;

enum { CF_GIVE_UP = 100 };

/* Where the kv stacks hold the r-th child (traversal order) of dict frame f. */
static inline Py_ssize_t cf_kv(const cfframe *f, Py_ssize_t r) {
  return f->kvbase + (f->perm ? (Py_ssize_t)f->perm[r] : r);
}

/* The r-th child (traversal order) of frame f, borrowed. */
static inline PyObject *cf_child(const cfast *c, const cfframe *f, Py_ssize_t r) {
  if (f->kind == K_LIST) return PyList_GET_ITEM(f->obj, r);
  if (f->kind == K_TUPLE) return PyTuple_GET_ITEM(f->obj, r);
  return c->vv[cf_kv(f, r)];
}

/* The kind of o for the fast pass: K_LEAF, K_LIST, K_TUPLE, K_DICT, or
 * CF_GIVE_UP. */
static int cf_kind(gstate *st, PyObject *o) {
  PyTypeObject *tp = Py_TYPE(o);
  if (tp == &PyLong_Type || tp == &PyFloat_Type || tp == &PyUnicode_Type || o == Py_None ||
      tp == &PyBool_Type || tp == &PyBytes_Type)
    return K_LEAF;
  if (tp == &PyList_Type) return K_LIST;
  if (tp == &PyTuple_Type) return K_TUPLE;
  if (tp == &PyDict_Type) return K_DICT;
  int kind;
  PyObject *reg;
  if (!classify_cached(st, NULL, tp, &kind, &reg)) return CF_GIVE_UP; /* the general pass does it */
  return kind == K_LEAF || kind == K_CUSTOM ? K_LEAF : CF_GIVE_UP;    /* (registered: left as is) */
}

/* -1 error, 0 pushed, CF_GIVE_UP */
static int cf_push(cfast *c, PyObject *o, int kind) {
  if (c->nfr == CF_DEPTH) return CF_GIVE_UP;
  cfframe *f = &c->fr[c->nfr];
  f->obj = o;
  f->kind = kind;
  f->i = 0;
  f->cbase = (Py_ssize_t)c->nch;
  f->perm = NULL;
  f->ks = NULL;
  if (kind != K_DICT) {
    f->n = kind == K_LIST ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o);
    c->nfr++;
    return 0;
  }
  Py_ssize_t n = PyDict_GET_SIZE(o);
  if (c->nkv + (size_t)n > c->ckv) {
    size_t cap = c->ckv;
    if (bgrow((void **)&c->kk, &cap, c->nkv + (size_t)n, sizeof *c->kk) < 0) return -1;
    cap = c->ckv;
    if (bgrow((void **)&c->vv, &cap, c->nkv + (size_t)n, sizeof *c->vv) < 0) return -1;
    c->ckv = cap;
  }
  PyObject **kk = n ? c->kk + c->nkv : NULL, **vv = n ? c->vv + c->nkv : NULL;
  Py_ssize_t j = dict_items(o, kk, vv, n);
  for (Py_ssize_t q = 0; q < j; q++)
    __builtin_prefetch(vv[q], 0); /* their types are read soon */
  int refused = 0;
  const gv_node *ks = keyset_nocode(c->st, c->g, kk, j, &refused);
  if (!ks) return refused ? CF_GIVE_UP : -1;
  if (ks->aux16 & GV__KS_HOST) return CF_GIVE_UP;
  f->ks = ks;
  f->perm = GV__CONT(ks)->perm;
  f->n = j;
  f->kvbase = (Py_ssize_t)c->nkv;
  c->nkv += (size_t)j;
  c->nfr++;
  return 0;
}

/* The new container for frame f (a child changed or its keys' order does):
 * its children in traversal order, the changed ones replaced (stolen from
 * the cchg stack). NULL with an exception, or with *give_up set. */
static PyObject *cf_build(cfast *c, cfframe *f, int *give_up) {
  Py_ssize_t n = f->n;
  if ((size_t)n > c->ctmp && bgrow((void **)&c->tmp, &c->ctmp, (size_t)n, sizeof *c->tmp) < 0)
    return NULL;
  PyObject **kids = c->tmp;
  for (Py_ssize_t r = 0; r < n; r++)
    kids[r] = cf_child(c, f, r);
  for (size_t q = (size_t)f->cbase; q < c->nch; q++)
    kids[c->ch[q].at] = c->ch[q].obj; /* borrowed from cchg until it is released */
  PyObject *o = NULL;
  if (f->kind == K_LIST) {
    o = PyList_New(n);
    for (Py_ssize_t r = 0; o && r < n; r++) {
      Py_INCREF(kids[r]);
      PyList_SET_ITEM(o, r, kids[r]);
    }
  } else if (f->kind == K_TUPLE) {
    o = tuple_from(kids, n);
  } else {
    /* sorted keys, the caller's objects */
    if ((size_t)n > c->ckeys && bgrow((void **)&c->keys, &c->ckeys, (size_t)n, sizeof *c->keys) < 0)
      return NULL;
    PyObject **keys = c->keys;
    for (Py_ssize_t r = 0; r < n; r++)
      keys[r] = c->kk[cf_kv(f, r)];
    const gv_node *tw = f->perm ? GV__CONT(f->ks)->meta : f->ks;
    if (dict_fill_works && tw && n) {
      PyObject *tm = dict_template(c->g, f->ks, tw, f->perm, (size_t)n);
      o = tm ? PyDict_Copy(tm) : NULL;
      if (o && !dict_fill(o, tm, keys, kids, NULL, n)) Py_CLEAR(o);
      if (!o && !PyErr_Occurred()) *give_up = 1;
    } else {
      /* built-in scalar keys (not host-ordered): no Python code runs */
      o = _PyDict_NewPresized(n);
      for (Py_ssize_t r = 0; o && r < n; r++)
        if (PyDict_SetItem(o, keys[r], kids[r]) < 0) Py_CLEAR(o);
    }
  }
  return o;
}

/* 1 done (*out, *changed), 0 gave up (nothing changed anywhere), -1 error. */
static int canon_fast(gstate *st, PyObject *tree, int kind, PyObject **out, int *changed) {
  cfast *c = PyMem_Malloc(sizeof *c);
  if (!c) {
    PyErr_NoMemory();
    return -1;
  }
  memset(c, 0, offsetof(cfast, fr));
  c->st = st;
  int rc = -1;
  int gc_was = PyGC_Disable();
  c->g = cur_gen(st);
  if (!c->g) goto done;
  Py_INCREF(c->g);
  int r = cf_push(c, tree, kind);
  if (r != 0) {
    rc = r == CF_GIVE_UP ? 0 : -1;
    goto done;
  }
  while (c->nfr) {
    cfframe *f = &c->fr[c->nfr - 1];
    if (f->i == f->n) {
      int ch = (Py_ssize_t)c->nch > f->cbase || f->perm;
      PyObject *o = NULL;
      if (ch) {
        int give_up = 0;
        o = cf_build(c, f, &give_up);
        while ((Py_ssize_t)c->nch > f->cbase)
          Py_DECREF(c->ch[--c->nch].obj);
        if (!o) {
          rc = give_up ? 0 : -1;
          goto done;
        }
      }
      if (f->kind == K_DICT) c->nkv = (size_t)f->kvbase;
      c->nfr--;
      if (!c->nfr) {
        *out = ch ? o : (Py_INCREF(tree), tree);
        *changed = ch;
        rc = 1;
        break;
      }
      if (ch) {
        if (c->nch == c->cch && bgrow((void **)&c->ch, &c->cch, c->nch + 1, sizeof *c->ch) < 0) {
          Py_DECREF(o);
          goto done;
        }
        c->ch[c->nch++] = (cfchg){c->fr[c->nfr - 1].i - 1, o};
      }
      continue;
    }
    Py_ssize_t i = f->i++;
    PyObject *x = cf_child(c, f, i);
    int k = cf_kind(st, x);
    if (k == K_LEAF) continue;
    if (k == CF_GIVE_UP || (r = cf_push(c, x, k)) == CF_GIVE_UP) {
      rc = 0;
      goto done;
    }
    if (r < 0) goto done;
  }
done:
  while (c->nch)
    Py_DECREF(c->ch[--c->nch].obj);
  Py_XDECREF(c->g);
  PyMem_Free(c->kk);
  PyMem_Free(c->vv);
  PyMem_Free(c->ch);
  PyMem_Free(c->tmp);
  PyMem_Free(c->keys);
  PyMem_Free(c);
  if (gc_was) PyGC_Enable();
  return rc;
}

/* A dict's keys and values as two tuples (new references), in its
 * iteration order: an OrderedDict's own (after move_to_end too), a dict's
 * insertion order. Safe against finalizers run by the allocations. */
static int dict_snapshot(PyObject *d, int odict, PyObject **keys, PyObject **vals) {
  *keys = *vals = NULL;
  if (odict) {
    PyObject *pairs = PyMapping_Items(d); /* a new list of (key, value) tuples */
    if (!pairs) return -1;
    PyObject_GC_UnTrack(pairs); /* (no code can reach it while it is read) */
    Py_ssize_t n = PyList_GET_SIZE(pairs);
    *keys = gc_hide(PyTuple_New(n)); /* (until full: the next allocation may run code) */
    *vals = *keys ? gc_hide(PyTuple_New(n)) : NULL;
    for (Py_ssize_t j = 0; *vals && j < n; j++) {
      PyObject *p = PyList_GET_ITEM(pairs, j);
      if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) != 2) {
        PyErr_SetString(PyExc_TypeError, "OrderedDict.items() did not give pairs");
        Py_CLEAR(*vals);
        break;
      }
      PyObject *k = PyTuple_GET_ITEM(p, 0), *v = PyTuple_GET_ITEM(p, 1);
      Py_INCREF(k);
      Py_INCREF(v);
      PyTuple_SET_ITEM(*keys, j, k);
      PyTuple_SET_ITEM(*vals, j, v);
    }
    Py_DECREF(pairs);
    if (!*vals) {
      Py_CLEAR(*keys);
      return -1;
    }
    gc_show(*keys);
    gc_show(*vals);
    return 0;
  }
  for (int attempt = 0; attempt < 4; attempt++) {
    Py_ssize_t n = PyDict_GET_SIZE(d), pos = 0, j = 0;
    *keys = gc_hide(PyTuple_New(n)); /* (until full: the next allocation may run code) */
    *vals = *keys ? gc_hide(PyTuple_New(n)) : NULL;
    if (!*vals) {
      Py_CLEAR(*keys);
      return -1;
    }
    if (PyDict_GET_SIZE(d) == n) { /* (the allocations may have run finalizers) */
      PyObject *kk, *vv;
      while (j < n && PyDict_Next(d, &pos, &kk, &vv)) {
        Py_INCREF(kk);
        Py_INCREF(vv);
        PyTuple_SET_ITEM(*keys, j, kk);
        PyTuple_SET_ITEM(*vals, j, vv);
        j++;
      }
      if (j == n) {
        gc_show(*keys);
        gc_show(*vals);
        return 0;
      }
    }
    Py_CLEAR(*keys);
    Py_CLEAR(*vals);
  }
  PyErr_SetString(PyExc_RuntimeError, "dictionary changed size during iteration");
  return -1;
}

PyObject *py_canonicalize(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  gstate *st = state_of_module(m);
  static const char *const names[] = {"tree", NULL};
  PyObject *a[1];
  if (parse_args(args, nargs, kw, "canonicalize", names, 1, 1, a) < 0) return NULL;
  PyObject *tree = a[0];
  cframe *fr = NULL;
  size_t nfr = 0, cfr = 0;
  PyObject **v = NULL; /* results */
  size_t nv = 0, cv = 0;
  PyObject *result = NULL;
  int root_changed = 0;
  pset path = {NULL, 0, 0};
  int k = canon_kind(st, tree);
  if (k < 0) return NULL;
  if (k == K_LEAF) return Py_BuildValue("(OO)", tree, Py_False);
  if (k == K_LIST || k == K_TUPLE || k == K_DICT) {
    PyObject *fo = NULL;
    int fch = 0, fr_ = canon_fast(st, tree, k, &fo, &fch);
    if (fr_ < 0) return NULL;
    if (fr_ > 0) return Py_BuildValue("(NO)", fo, fch ? Py_True : Py_False);
  }
  /* The general pass holds every object it reads (a frame holds its
   * container and a tuple of its children) and the generation its keysets
   * come from: the keys' __hash__/__eq__/__lt__ and the finalizers any
   * allocation may run are code that may change the tree, start a
   * generation, or free the current one. */
  GenObject *g = cur_gen(st);
  if (!g) return NULL;
  Py_INCREF(g);
  PyObject *cur = tree;
  int cur_kind = k;
  /* push the root */
  goto push;
loop:
  while (nfr) {
    cframe *f = &fr[nfr - 1];
    if (f->i == f->n) {
      /* rebuild if a child changed or the dict order changes */
      PyObject *vals = (PyObject *)NULL, *o = NULL;
      int changed = f->changed || ((f->kind == K_DICT || f->kind == K_DDICT) && f->perm);
      if (!changed) {
        o = f->obj;
        Py_INCREF(o);
      } else {
        PyObject **kv = v + f->vbase;
        switch (f->kind) {
        case K_LIST:
          o = PyList_New(f->n);
          for (Py_ssize_t j = 0; o && j < f->n; j++) {
            Py_INCREF(kv[j]);
            PyList_SET_ITEM(o, j, kv[j]);
          }
          break;
        case K_TUPLE:
          o = tuple_from(kv, f->n);
          break;
        case K_NT:
          o = new_namedtuple(st, Py_TYPE(f->obj), kv, f->n);
          break;
        case K_SS:
          vals = tuple_from(kv, f->n);
          o = vals ? PyObject_CallOneArg((PyObject *)Py_TYPE(f->obj), vals) : NULL;
          break;
        case K_DEQUE: {
          vals = tuple_from(kv, f->n);
          PyObject *ml = vals ? PyObject_GetAttr(f->obj, st->s_maxlen) : NULL;
          o = ml ? PyObject_CallFunctionObjArgs((PyObject *)st->deque_t, vals, ml, NULL) : NULL;
          Py_XDECREF(ml);
          break;
        }
        default: { /* dict kinds: kv in traversal order (sorted for dict/ddict) */
          if (f->kind == K_DICT) {
            o = _PyDict_NewPresized(f->n);
          } else if (f->kind == K_DDICT) {
            PyObject *fac = PyObject_GetAttr(f->obj, st->s_default_factory);
            o = fac ? PyObject_CallOneArg((PyObject *)st->ddict_t, fac) : NULL;
            Py_XDECREF(fac);
          } else {
            o = PyObject_CallNoArgs((PyObject *)st->odict_t);
          }
          for (Py_ssize_t j = 0; o && j < f->n; j++) {
            Py_ssize_t ix = f->perm ? (Py_ssize_t)f->perm[j] : j;
            if (PyObject_SetItem(o, PyTuple_GET_ITEM(f->keys, ix), kv[j]) < 0) Py_CLEAR(o);
          }
        }
        }
      }
      Py_XDECREF(vals);
      if (!o) goto fail;
      for (size_t j = (size_t)f->vbase; j < nv; j++)
        Py_DECREF(v[j]);
      nv = (size_t)f->vbase;
      if (nfr - 1 >= 256) ps_del(&path, f->obj);
      Py_DECREF(f->obj);
      Py_DECREF(f->items);
      Py_XDECREF(f->keys);
      PyMem_Free(f->perm);
      nfr--;
      if (!nfr) {
        result = o;
        root_changed = changed;
        break;
      }
      fr[nfr - 1].changed |= changed;
      if (bgrow((void **)&v, &cv, nv + 1, sizeof *v) < 0) {
        Py_DECREF(o);
        goto fail;
      }
      v[nv++] = o;
      continue;
    }
    Py_ssize_t r = f->i++;
    Py_ssize_t ix = f->perm ? (Py_ssize_t)f->perm[r] : r;
    cur = PyTuple_GET_ITEM(f->items, ix); /* (held by the frame's tuple) */
    cur_kind = canon_kind(st, cur);
    if (cur_kind < 0) goto fail;
    if (cur_kind == K_LEAF) {
      if (bgrow((void **)&v, &cv, nv + 1, sizeof *v) < 0) goto fail;
      Py_INCREF(cur);
      v[nv++] = cur;
      continue;
    }
  push : {
    if (nfr > ((size_t)1 << 24)) {
      PyErr_SetString(PyExc_RecursionError, "canonicalize: the tree is nested too deep");
      goto fail;
    }
    if (nfr >= 256) {
      int added = ps_add(&path, cur);
      if (added <= 0) {
        if (added < 0)
          PyErr_NoMemory();
        else
          PyErr_SetString(PyExc_RecursionError,
                          "canonicalize: the tree contains a cycle (a container inside itself)");
        goto fail;
      }
    }
    cframe nf;
    memset(&nf, 0, sizeof nf);
    nf.kind = cur_kind;
    nf.vbase = (Py_ssize_t)nv;
    if (cur_kind == K_DICT || cur_kind == K_ODICT || cur_kind == K_DDICT) {
      if (dict_snapshot(cur, cur_kind == K_ODICT, &nf.keys, &nf.items) < 0) goto fail;
      Py_ssize_t j = PyTuple_GET_SIZE(nf.keys);
      nf.n = j;
      if (cur_kind != K_ODICT) {
        const gv_node *ks = canon_keyset(st, &g, &PyTuple_GET_ITEM(nf.keys, 0), j);
        if (!ks) {
          Py_DECREF(nf.keys);
          Py_DECREF(nf.items);
          goto fail;
        }
        const uint32_t *pp = GV__CONT(ks)->perm;
        if (pp) { /* (copied: the frame outlives the next renewal of g) */
          uint32_t *cp = PyMem_Malloc((size_t)(j ? j : 1) * sizeof *cp);
          if (!cp) {
            Py_DECREF(nf.keys);
            Py_DECREF(nf.items);
            PyErr_NoMemory();
            goto fail;
          }
          memcpy(cp, pp, (size_t)j * sizeof *cp);
          nf.perm = cp;
        }
      }
    } else {
      nf.items = seq_tuple(cur);
      if (!nf.items) goto fail;
      nf.n = PyTuple_GET_SIZE(nf.items);
    }
    if (bgrow((void **)&fr, &cfr, nfr + 1, sizeof *fr) < 0) {
      Py_DECREF(nf.items);
      Py_XDECREF(nf.keys);
      goto fail;
    }
    Py_INCREF(cur);
    nf.obj = cur;
    fr[nfr++] = nf;
    goto loop;
  }
  }
  PyMem_Free(fr);
  PyMem_Free(v);
  ps_free(&path);
  Py_DECREF(g);
  {
    PyObject *r = Py_BuildValue("(NO)", result, root_changed ? Py_True : Py_False);
    return r;
  }
fail:
  while (nfr) {
    nfr--;
    Py_DECREF(fr[nfr].obj);
    Py_DECREF(fr[nfr].items);
    Py_XDECREF(fr[nfr].keys);
    PyMem_Free(fr[nfr].perm);
  }
  for (size_t j = 0; j < nv; j++)
    Py_DECREF(v[j]);
  PyMem_Free(fr);
  PyMem_Free(v);
  ps_free(&path);
  Py_DECREF(g);
  return NULL;
}
