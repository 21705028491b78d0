/* SPDX-License-Identifier: MIT */
/* keras.c -- the C side of grove.keras: keras.tree's functions with the
 * semantics of keras's optree implementation (namespace 'keras', None a leaf
 * unless map_structure says otherwise, dicts by sorted key, OrderedDicts by
 * insertion order, registered classes through their registration).
 *
 *   keras_is_nested, keras_flatten, keras_flatten_with_path,
 *   keras_pack_sequence_as, keras_map_structure, keras_map_structure_up_to,
 *   keras_map_shape_structure    on the walk (walk.c) and the builder (build.c)
 *   keras_assert_same_structure  a walk over two trees at once (below)
 *   keras_traverse, keras_lists_to_tuples
 *                                a walk that calls a function on every subtree
 *                                and rebuilds (below)
 *
 * Explicit stacks only. Every object a walk looks at is held by one of its
 * stacks (a strong reference), so user code (a mapped function, a custom
 * flatten function, a key's __eq__) may change or drop anything. */
#include "grove_py.h"

#include <stdarg.h>

#define K_CYCLE_DEPTH 1024
#define K_MAX_DEPTH ((Py_ssize_t)1 << 24)

typedef struct kstate {
  PyObject *ns;          /* 'keras' */
  PyObject *s_name;      /* '__name__' */
  PyObject *s_map_none;  /* 'MAP_TO_NONE' */
  PyObject *s_paths;     /* 'paths' */
  PyObject *s_none_leaf; /* 'none_is_leaf' */
  PyObject *s_top_down;  /* 'top_down' */
} kstate;

static kstate *ks_of(gstate *st) {
  return st->keras;
}

static PyObject *knsdict(gstate *st) {
  return PyDict_GetItem(st->nsreg, st->keras->ns);
}

/* The kind of o in keras's namespace (K_LEAF for a leaf); *reg gets a custom
 * node's registration (borrowed). */
static inline int kkind(gstate *st, PyObject *nsdict, PyObject *o, int none_is_leaf,
                        PyObject **reg) {
  PyTypeObject *tp = Py_TYPE(o);
  if (tp == &PyList_Type) return K_LIST;
  if (tp == &PyTuple_Type) return K_TUPLE;
  if (tp == &PyDict_Type) return K_DICT;
  if (tp == &PyLong_Type || tp == &PyFloat_Type || tp == &PyUnicode_Type || tp == &PyBool_Type)
    return K_LEAF;
  if (o == Py_None) return none_is_leaf ? K_LEAF : K_NONE;
  return classify_slow(st, nsdict, tp, reg);
}

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
  err_at(exc, PyList_GET_ITEM(paths, i), "%U", msg);
  Py_DECREF(paths);
  Py_DECREF(msg);
  return NULL;
}

/* ---------------------------------------------------------------------------
 * Stacks
 * ------------------------------------------------------------------------- */

typedef struct ostack { /* owned references */
  PyObject **v;
  Py_ssize_t n, cap;
} ostack;

typedef struct ustack {
  uint32_t *v;
  Py_ssize_t n, cap;
} ustack;

static int grow_to(void **p, Py_ssize_t *cap, Py_ssize_t need, size_t elem) {
  if (need <= *cap) return 0;
  Py_ssize_t nc = *cap ? *cap : 64;
  while (nc < need)
    nc *= 2;
  void *np = PyMem_Realloc(*p, (size_t)nc * elem);
  if (!np) {
    PyErr_NoMemory();
    return -1;
  }
  *p = np;
  *cap = nc;
  return 0;
}

static inline int os_reserve(ostack *s, Py_ssize_t extra) {
  return s->n + extra <= s->cap ? 0 : grow_to((void **)&s->v, &s->cap, s->n + extra, sizeof *s->v);
}

/* Push o, stealing the reference (released on failure). */
static inline int os_push_steal(ostack *s, PyObject *o) {
  if (os_reserve(s, 1) < 0) {
    Py_DECREF(o);
    return -1;
  }
  s->v[s->n++] = o;
  return 0;
}

static void os_pop_to(ostack *s, Py_ssize_t base) {
  while (s->n > base) {
    s->n--;
    Py_DECREF(s->v[s->n]);
  }
}

static void os_free(ostack *s) {
  os_pop_to(s, 0);
  PyMem_Free(s->v);
  s->v = NULL;
  s->cap = 0;
}

/* ---------------------------------------------------------------------------
 * Frames: one node being walked, its children on the child stack.
 * ------------------------------------------------------------------------- */

typedef struct kframe {
  PyObject *obj;     /* owned: the node */
  PyObject *aux;     /* owned or NULL: defaultdict factory, deque maxlen, custom metadata */
  PyObject *reg;     /* owned or NULL: a custom node's registration */
  PyObject *entries; /* owned or NULL: a custom node's path entries */
  PyObject *b;       /* owned or NULL: the other tree's node (assert_same_structure) */
  Py_ssize_t n, i;
  Py_ssize_t cbase; /* children on the child stack (dicts: values in insertion order) */
  Py_ssize_t kbase; /* dicts: keys in insertion order on the child stack, else -1 */
  Py_ssize_t pbase; /* dicts in sorted order: traversal -> insertion on the perm stack, or -1 */
  Py_ssize_t bbase; /* the other tree's children, in this node's traversal order */
  Py_ssize_t vbase; /* results on the value stack */
  int kind, in_path;
} kframe;

typedef struct kwalk {
  gstate *st;
  PyObject *nsdict;
  kframe *fr;
  Py_ssize_t nfr, cfr;
  ostack cs; /* children (and dict keys) */
  ostack vs; /* results */
  ustack ps; /* dict permutations */
  PyObject **tmp;
  Py_ssize_t ctmp;
  pset path;
} kwalk;

static inline PyObject *fr_child(const kwalk *w, const kframe *f, Py_ssize_t r) {
  Py_ssize_t ix = f->pbase >= 0 ? (Py_ssize_t)w->ps.v[f->pbase + r] : r;
  return w->cs.v[f->cbase + ix];
}

/* The path entry of child r of f (new reference). */
static PyObject *fr_entry(const kwalk *w, const kframe *f, Py_ssize_t r) {
  if (f->kbase >= 0) {
    Py_ssize_t ix = f->pbase >= 0 ? (Py_ssize_t)w->ps.v[f->pbase + r] : r;
    PyObject *k = w->cs.v[f->kbase + ix];
    Py_INCREF(k);
    return k;
  }
  if (f->entries) {
    PyObject *e = PyTuple_GET_ITEM(f->entries, r);
    Py_INCREF(e);
    return e;
  }
  return PyLong_FromSsize_t(r);
}

/* The path of the child being visited in the frame at depth (frames 0..depth). */
static PyObject *kw_path(const kwalk *w, Py_ssize_t depth) {
  PyObject *t = PyTuple_New(depth);
  for (Py_ssize_t d = 0; t && d < depth; d++) {
    const kframe *f = &w->fr[d];
    PyObject *e = fr_entry(w, f, f->i - 1);
    if (!e) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, d, e);
  }
  return t;
}

/* Raise exc at the node being visited (the path of all frames). */
static int kw_err(kwalk *w, PyObject *exc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (!msg) return -1;
  PyObject *path = kw_path(w, w->nfr);
  if (path) {
    err_at(exc, path, "%U", msg);
    Py_DECREF(path);
  }
  Py_DECREF(msg);
  return -1;
}

static void fr_release(kwalk *w, kframe *f) {
  if (f->in_path) ps_del(&w->path, f->obj);
  Py_XDECREF(f->aux);
  Py_XDECREF(f->reg);
  Py_XDECREF(f->entries);
  Py_XDECREF(f->b);
  Py_DECREF(f->obj);
  Py_ssize_t base = f->kbase >= 0 ? f->kbase : f->cbase;
  os_pop_to(&w->cs, base);
  if (f->pbase >= 0) w->ps.n = f->pbase;
}

static void kw_free(kwalk *w) {
  while (w->nfr > 0) {
    w->nfr--;
    fr_release(w, &w->fr[w->nfr]);
  }
  PyMem_Free(w->fr);
  os_free(&w->cs);
  os_free(&w->vs);
  PyMem_Free(w->ps.v);
  PyMem_Free(w->tmp);
  ps_free(&w->path);
}

/* A custom node's flatten: (children tuple, metadata, entries tuple or NULL)
 * through its registration. 0, or -1 with an exception. */
static int custom_flatten(kwalk *w, PyObject *reg, PyObject *o, PyObject **kids, PyObject **meta,
                          PyObject **entries) {
  *kids = *meta = *entries = NULL;
  PyObject *out = PyObject_CallOneArg(PyTuple_GET_ITEM(reg, 1), o), *t;
  if (!out) return -1;
  t = PySequence_Tuple(out);
  Py_DECREF(out);
  if (!t) return -1;
  Py_ssize_t no = PyTuple_GET_SIZE(t);
  if (no != 2 && no != 3) {
    Py_DECREF(t);
    return kw_err(w, PyExc_RuntimeError,
                  "PyTree custom flatten function for type %R should return a 2- or 3-tuple, "
                  "got %zd.",
                  (PyObject *)Py_TYPE(o), no);
  }
  *kids = PySequence_Tuple(PyTuple_GET_ITEM(t, 0));
  if (!*kids) goto fail;
  if (no == 3 && PyTuple_GET_ITEM(t, 2) != Py_None) {
    *entries = PySequence_Tuple(PyTuple_GET_ITEM(t, 2));
    if (!*entries) goto fail;
    if (PyTuple_GET_SIZE(*entries) != PyTuple_GET_SIZE(*kids)) {
      kw_err(w, PyExc_RuntimeError,
             "PyTree custom flatten function for type %R returned inconsistent number of "
             "children (%zd) and number of entries (%zd).",
             (PyObject *)Py_TYPE(o), PyTuple_GET_SIZE(*kids), PyTuple_GET_SIZE(*entries));
      goto fail;
    }
  }
  *meta = PyTuple_GET_ITEM(t, 1);
  Py_INCREF(*meta);
  Py_DECREF(t);
  return 0;
fail:
  Py_CLEAR(*kids);
  Py_CLEAR(*entries);
  Py_DECREF(t);
  return -1;
}

/* Push tuple t's items onto the child stack. */
static int push_items(kwalk *w, PyObject *const *items, Py_ssize_t n) {
  if (os_reserve(&w->cs, n) < 0) return -1;
  for (Py_ssize_t j = 0; j < n; j++) {
    Py_INCREF(items[j]);
    w->cs.v[w->cs.n++] = items[j];
  }
  return 0;
}

/* A new frame for node o (a reference is taken) of the given kind: its
 * children (one level, keras's order) on the child stack. */
static int push_frame(kwalk *w, PyObject *o, int kind, PyObject *reg) {
  if (w->nfr >= K_MAX_DEPTH)
    return kw_err(w, PyExc_RecursionError, "the tree is nested deeper than %zd levels",
                  K_MAX_DEPTH);
  if (w->nfr == w->cfr && grow_to((void **)&w->fr, &w->cfr, w->nfr + 1, sizeof *w->fr) < 0)
    return -1;
  kframe f;
  memset(&f, 0, sizeof f);
  f.kind = kind;
  f.kbase = f.pbase = -1;
  f.cbase = w->cs.n;
  f.vbase = w->vs.n;
  if (w->nfr >= K_CYCLE_DEPTH) {
    int r = ps_add(&w->path, o);
    if (r < 0) {
      PyErr_NoMemory();
      return -1;
    }
    if (r == 0)
      return kw_err(w, PyExc_RecursionError, "the tree contains a cycle: this %s contains itself",
                    Py_TYPE(o)->tp_name);
    f.in_path = 1;
  }
  switch (kind) {
  case K_LIST: { /* a snapshot: user code may change the list while it is walked */
    Py_ssize_t n = PyList_GET_SIZE(o);
    if (push_items(w, ((PyListObject *)o)->ob_item, n) < 0) goto fail;
    f.n = n;
    break;
  }
  case K_TUPLE:
  case K_NT:
  case K_SS:
    f.n = PyTuple_GET_SIZE(o);
    if (push_items(w, &PyTuple_GET_ITEM(o, 0), f.n) < 0) goto fail;
    break;
  case K_DEQUE: {
    PyObject *t = PySequence_Tuple(o);
    if (!t) goto fail;
    f.n = PyTuple_GET_SIZE(t);
    int r = push_items(w, &PyTuple_GET_ITEM(t, 0), f.n);
    Py_DECREF(t);
    if (r < 0) goto fail;
    f.aux = PyObject_GetAttr(o, w->st->s_maxlen);
    if (!f.aux) goto fail;
    break;
  }
  case K_DICT:
  case K_DDICT:
  case K_ODICT: {
    Py_ssize_t n = PyDict_GET_SIZE(o), pos = 0, j = 0;
    if (os_reserve(&w->cs, 2 * n) < 0) goto fail;
    PyObject *k, *v, **keys = w->cs.v + w->cs.n;
    f.kbase = w->cs.n;
    while (j < n && PyDict_Next(o, &pos, &k, &v)) { /* keys, then the values */
      Py_INCREF(k);
      Py_INCREF(v);
      keys[j] = k;
      keys[n + j] = v;
      j++;
    }
    if (j < n) memmove(keys + j, keys + n, (size_t)j * sizeof *keys);
    w->cs.n += 2 * j;
    f.n = j;
    f.cbase = f.kbase + j;
    if (kind != K_ODICT && j > 1) {
      int oom = 0;
      const gv_node *ksn = canon_keyset(w->st, NULL, w->cs.v + f.kbase, j, &oom);
      if (!ksn) goto fail;
      const uint32_t *perm = GV__CONT(ksn)->perm;
      if (perm) { /* copied: user code may retire the generation it lives in */
        if (grow_to((void **)&w->ps.v, &w->ps.cap, w->ps.n + j, sizeof *w->ps.v) < 0) goto fail;
        f.pbase = w->ps.n;
        memcpy(w->ps.v + w->ps.n, perm, (size_t)j * sizeof *perm);
        w->ps.n += j;
      }
    }
    if (kind == K_DDICT) {
      f.aux = PyObject_GetAttr(o, w->st->s_default_factory);
      if (!f.aux) goto fail;
    }
    break;
  }
  case K_CUSTOM: {
    PyObject *kids = NULL;
    Py_INCREF(reg);
    f.reg = reg;
    if (custom_flatten(w, reg, o, &kids, &f.aux, &f.entries) < 0) goto fail;
    f.n = PyTuple_GET_SIZE(kids);
    int r = push_items(w, &PyTuple_GET_ITEM(kids, 0), f.n);
    Py_DECREF(kids);
    if (r < 0) goto fail;
    break;
  }
  default:
    PyErr_SetString(PyExc_SystemError, "grove.keras: bad node kind");
    goto fail;
  }
  f.bbase = w->cs.n;
  Py_INCREF(o);
  f.obj = o;
  w->fr[w->nfr++] = f;
  return 0;
fail:
  if (f.in_path) ps_del(&w->path, o);
  Py_XDECREF(f.aux);
  Py_XDECREF(f.reg);
  Py_XDECREF(f.entries);
  os_pop_to(&w->cs, f.kbase >= 0 ? f.kbase : f.cbase);
  if (f.pbase >= 0) w->ps.n = f.pbase;
  return -1;
}

/* What rebuilding a node takes. */
typedef struct knode {
  int kind;
  Py_ssize_t n;
  PyObject *obj, *aux, *reg; /* borrowed */
  PyObject *const *keys;     /* dict kinds: the keys in insertion order */
  const uint32_t *perm;      /* dict kinds: traversal -> insertion, or NULL */
} knode;

static knode frame_node(const kwalk *w, const kframe *f) {
  knode k = {f->kind,
             f->n,
             f->obj,
             f->aux,
             f->reg,
             f->kbase >= 0 ? w->cs.v + f->kbase : NULL,
             f->pbase >= 0 ? w->ps.v + f->pbase : NULL};
  return k;
}

/* The node k rebuilt from vals (its children's values in traversal order,
 * borrowed), as keras's optree implementation rebuilds it: a new container
 * of the same type; dicts in the original insertion order. */
static PyObject *rebuild(kwalk *w, const knode *k, PyObject **vals, int as_tuple) {
  gstate *st = w->st;
  Py_ssize_t n = k->n;
  switch (k->kind) {
  case K_LIST: {
    if (as_tuple) return tuple_from(vals, n); /* lists_to_tuples: the tuple at once */
    PyObject *l = PyList_New(n);
    if (!l) return NULL;
    for (Py_ssize_t j = 0; j < n; j++) {
      Py_INCREF(vals[j]);
      PyList_SET_ITEM(l, j, vals[j]);
    }
    return l;
  }
  case K_TUPLE:
    return tuple_from(vals, n);
  case K_NONE:
    Py_RETURN_NONE;
  case K_NT:
    return PyObject_Vectorcall((PyObject *)Py_TYPE(k->obj), vals, (size_t)n, NULL);
  case K_SS:
  case K_DEQUE:
  case K_CUSTOM: {
    PyObject *t = tuple_from(vals, n), *r;
    if (!t) return NULL;
    if (k->kind == K_SS)
      r = PyObject_CallOneArg((PyObject *)Py_TYPE(k->obj), t);
    else if (k->kind == K_DEQUE)
      r = PyObject_CallFunctionObjArgs((PyObject *)st->deque_t, t, k->aux, NULL);
    else
      r = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(k->reg, 2), k->aux, t, NULL);
    Py_DECREF(t);
    return r;
  }
  default: { /* dict kinds: keys in insertion order, values from traversal order */
    PyObject **ins = vals;
    if (k->perm) {
      if (grow_to((void **)&w->tmp, &w->ctmp, n, sizeof *w->tmp) < 0) return NULL;
      for (Py_ssize_t r = 0; r < n; r++)
        w->tmp[k->perm[r]] = vals[r];
      ins = w->tmp;
    }
    PyObject *d;
    if (k->kind == K_DICT && k->obj && Py_IS_TYPE(k->obj, &PyDict_Type)) {
      /* a clone of the dict it was made from, when that still has these keys */
      if ((d = dict_copy_fill(k->obj, k->keys, ins, n))) return d;
      if (PyErr_Occurred()) return NULL;
    }
    if (k->kind == K_DICT)
      d = _PyDict_NewPresized(n);
    else if (k->kind == K_DDICT)
      d = PyObject_CallOneArg((PyObject *)st->ddict_t, k->aux);
    else
      d = PyObject_CallNoArgs((PyObject *)st->odict_t);
    if (!d) return NULL;
    for (Py_ssize_t j = 0; j < n; j++) {
      int r = k->kind == K_DICT ? PyDict_SetItem(d, k->keys[j], ins[j])
                                : PyObject_SetItem(d, k->keys[j], ins[j]);
      if (r < 0) {
        Py_DECREF(d);
        return NULL;
      }
    }
    return d;
  }
  }
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
  int kind = kkind(w->st, w->nsdict, x, 1, &reg);
  if (kind == K_LEAF) {
    if (c->top_down) return x;
    PyObject *r = tcall(c, x);
    if (!r) {
      Py_DECREF(x);
      return NULL;
    }
    return tresult(c, x, r);
  }
  int rc = push_frame(w, x, kind, reg);
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
    PyObject *built = rebuild(w, &kn, w->vs.v + f->vbase, l2t);
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
  c.w.nsdict = knsdict(st);
  c.func = func;
  c.top_down = top_down;
  PyObject *r = trav_run(&c, tree);
  kw_free(&c.w);
  return r;
}

static PyObject *py_traverse(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  static const char *const names[] = {"func", "structure", "top_down", NULL};
  PyObject *a[3];
  if (parse_args(args, nargs, kw, "traverse", names, 3, 2, a) < 0) return NULL;
  int top_down = 1;
  if (a[2] && (top_down = PyObject_IsTrue(a[2])) < 0) return NULL;
  return traverse_impl(state_of_module(m), a[0], a[1], top_down);
}

static PyObject *py_lists_to_tuples(PyObject *m, PyObject *tree) {
  return traverse_impl(state_of_module(m), NULL, tree, 0);
}

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
    PyObject *t = PySequence_Tuple(b);
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
      int kb = kkind(st, w->nsdict, b, 1, &reg);
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
    for (Py_ssize_t q = 0; !bad && q < n; q++) {
      PyObject *k = PyList_GET_ITEM(expected, q);
      int has = PyDict_Contains(b, k);
      if (has < 0 || (!has && PyList_Append(missing, k) < 0)) bad = 1;
    }
    for (Py_ssize_t q = 0; !bad && q < PyList_GET_SIZE(got); q++) {
      PyObject *k = PyList_GET_ITEM(got, q);
      int has = PyDict_Contains(o, k);
      if (has < 0 || (!has && PyList_Append(extra, k) < 0)) bad = 1;
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

static PyObject *py_assert_same_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                          PyObject *kw) {
  static const char *const names[] = {"a", "b", NULL};
  PyObject *ab[2];
  if (parse_args(args, nargs, kw, "assert_same_structure", names, 2, 2, ab) < 0) return NULL;
  gstate *st = state_of_module(m);
  kwalk w;
  memset(&w, 0, sizeof w);
  w.st = st;
  w.nsdict = knsdict(st);
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
      int kind = kkind(st, w.nsdict, x, 1, &reg);
      if (kind == K_LEAF) {
        PyObject *rb = NULL;
        if (y && !deeper && kkind(st, w.nsdict, y, 1, &rb) != K_LEAF) {
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
        int pr = push_frame(&w, x, kind, reg);
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
        kind = kkind(w->st, w->nsdict, x, none_is_leaf, &reg);
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
        rc = push_frame(w, x, kind, reg);
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
               r->kbase >= 0 ? tp->keys.v + r->kbase : NULL,
               r->pbase >= 0 ? tp->perm.v + r->pbase : NULL};
    Py_ssize_t base = w->vs.n - r->n;
    PyObject *built = rebuild(w, &k, w->vs.v + base, 0);
    os_pop_to(&w->vs, base);
    if (!built || os_push_steal(&w->vs, built) < 0) return NULL;
  }
  w->vs.n = 0; /* the root's reference goes to the caller */
  return w->vs.v[0];
}

static void tape_init(tape *tp, gstate *st, int keep_leaves) {
  memset(tp, 0, sizeof *tp);
  tp->w.st = st;
  tp->w.nsdict = knsdict(st);
  tp->keep_leaves = keep_leaves;
}

/* map_structure(func, tree) (one structure) and map_shape_structure. */
static PyObject *tape_map(gstate *st, PyObject *func, PyObject *tree, int none_is_leaf,
                          int shapes) {
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

/* ---------------------------------------------------------------------------
 * The functions on grove's walk and builder
 * ------------------------------------------------------------------------- */

static PyObject *py_is_nested(PyObject *m, PyObject *o) {
  gstate *st = state_of_module(m);
  PyObject *reg = NULL;
  if (kkind(st, knsdict(st), o, 1, &reg) == K_LEAF) Py_RETURN_FALSE;
  Py_RETURN_TRUE;
}

static PyObject *py_flatten(PyObject *m, PyObject *o) {
  PyObject *leaves = NULL;
  if (kflat(state_of_module(m), o, NULL, 1, &leaves, NULL) < 0) return NULL;
  return leaves;
}

static PyObject *py_flatten_with_path(PyObject *m, PyObject *o) {
  gstate *st = state_of_module(m);
  PyObject *leaves = NULL, *spec = NULL, *paths = NULL, *out = NULL;
  if (kflat(st, o, NULL, 1, &leaves, &spec) < 0) return NULL;
  paths = PyObject_CallMethodNoArgs(spec, ks_of(st)->s_paths);
  if (!paths) goto done;
  Py_ssize_t n = PyList_GET_SIZE(leaves);
  out = PyList_New(n);
  for (Py_ssize_t i = 0; out && i < n; i++) {
    PyObject *t = PyTuple_Pack(2, PyList_GET_ITEM(paths, i), PyList_GET_ITEM(leaves, i));
    if (!t) {
      Py_CLEAR(out);
      break;
    }
    PyList_SET_ITEM(out, i, t);
  }
done:
  Py_XDECREF(paths);
  Py_DECREF(leaves);
  Py_DECREF(spec);
  return out;
}

static PyObject *py_pack_sequence_as(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                     PyObject *kw) {
  static const char *const names[] = {"structure", "flat_sequence", NULL};
  PyObject *a[2];
  if (parse_args(args, nargs, kw, "pack_sequence_as", names, 2, 2, a) < 0) return NULL;
  tape tp;
  tape_init(&tp, state_of_module(m), 0);
  PyObject *out = NULL, *seq = NULL;
  if (tape_walk(&tp, a[0], 1, 0) < 0) goto done;
  seq = PySequence_Fast(a[1],
                        "pack_sequence_as: flat_sequence must be an iterable (a list of leaves)");
  if (!seq) goto done;
  if (PyList_CheckExact(seq)) /* rebuilding may run code that changes the caller's list */
    Py_SETREF(seq, PyList_AsTuple(seq));
  if (!seq) goto done;
  Py_ssize_t got = PySequence_Fast_GET_SIZE(seq);
  if (got < tp.nleaves)
    PyErr_Format(PyExc_ValueError,
                 "Too few leaves for the structure (pack_sequence_as); expected: %zd, got: %zd.",
                 tp.nleaves, got);
  else if (got > tp.nleaves)
    PyErr_Format(PyExc_ValueError,
                 "Too many leaves for the structure (pack_sequence_as); expected: %zd, got: %zd.",
                 tp.nleaves, got);
  else
    out = tape_build(&tp, PySequence_Fast_ITEMS(seq));
done:
  Py_XDECREF(seq);
  tape_free(&tp);
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
  Py_ssize_t n = PyList_GET_SIZE(leaves);
  if (nrest && !(lists = flatten_rests_up_to(st, (SpecObject *)spec, rests, nrest))) goto done;
  if (nrest + 1 > 8 && !(stack = PyMem_Malloc((size_t)(nrest + 2) * sizeof *stack))) {
    PyErr_NoMemory();
    goto done;
  }
  res = PyList_New(n);
  if (!res) goto done;
  PyObject *nsdict = knsdict(st);
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
      if (!up_to && kkind(st, nsdict, sub, none_is_leaf, &reg) != K_LEAF) {
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
  out = do_unflatten(st, (SpecObject *)spec, res);
done:
  if (stack != stack_inl) PyMem_Free(stack);
  free_rests(lists, nrest);
  Py_XDECREF(res);
  Py_DECREF(leaves);
  Py_DECREF(spec);
  return out;
}

static PyObject *py_map_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
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

static PyObject *py_map_structure_up_to(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
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

static PyObject *py_map_shape_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
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

/* ---------------------------------------------------------------------------
 * Module glue
 * ------------------------------------------------------------------------- */

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef keras_methods[] = {
    {"keras_is_nested", py_is_nested, METH_O,
     "keras_is_nested(structure) -> whether structure is a node in keras's namespace"},
    {"keras_flatten", py_flatten, METH_O,
     "keras_flatten(structure) -> the leaves (None a leaf, keras's namespace)"},
    {"keras_flatten_with_path", py_flatten_with_path, METH_O,
     "keras_flatten_with_path(structure) -> [(path, leaf), ...]"},
    {"keras_pack_sequence_as", FASTKW(py_pack_sequence_as),
     "keras_pack_sequence_as(structure, flat_sequence) -> structure rebuilt from the leaves"},
    {"keras_map_structure", FASTKW(py_map_structure),
     "keras_map_structure(func, *structures, none_is_leaf=True)"},
    {"keras_map_structure_up_to", (PyCFunction)(void (*)(void))py_map_structure_up_to,
     METH_FASTCALL, "keras_map_structure_up_to(shallow_structure, func, *structures)"},
    {"keras_map_shape_structure", FASTKW(py_map_shape_structure),
     "keras_map_shape_structure(func, structure): shapes (lists or tuples of ints and None) "
     "are leaves"},
    {"keras_assert_same_structure", FASTKW(py_assert_same_structure),
     "keras_assert_same_structure(a, b): ValueError unless b has a's structure"},
    {"keras_traverse", FASTKW(py_traverse), "keras_traverse(func, structure, top_down=True)"},
    {"keras_lists_to_tuples", py_lists_to_tuples, METH_O,
     "keras_lists_to_tuples(structure) -> every list (bottom-up) made a tuple"},
    {NULL, NULL, 0, NULL}};

int keras_init(PyObject *m, gstate *st) {
  kstate *ks = PyMem_Calloc(1, sizeof *ks);
  if (!ks) {
    PyErr_NoMemory();
    return -1;
  }
  st->keras = ks;
  ks->ns = PyUnicode_InternFromString("keras");
  ks->s_name = PyUnicode_InternFromString("__name__");
  ks->s_map_none = PyUnicode_InternFromString("MAP_TO_NONE");
  ks->s_paths = PyUnicode_InternFromString("paths");
  ks->s_none_leaf = PyUnicode_InternFromString("none_is_leaf");
  ks->s_top_down = PyUnicode_InternFromString("top_down");
  if (!ks->ns || !ks->s_name || !ks->s_map_none || !ks->s_paths || !ks->s_none_leaf ||
      !ks->s_top_down)
    return -1;
  return PyModule_AddFunctions(m, keras_methods);
}

void keras_clear(gstate *st) {
  kstate *ks = st->keras;
  if (!ks) return;
  st->keras = NULL;
  Py_CLEAR(ks->ns);
  Py_CLEAR(ks->s_name);
  Py_CLEAR(ks->s_map_none);
  Py_CLEAR(ks->s_paths);
  Py_CLEAR(ks->s_none_leaf);
  Py_CLEAR(ks->s_top_down);
  PyMem_Free(ks);
}
