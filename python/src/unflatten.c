/* SPDX-License-Identifier: MIT */
/* unflatten.c -- structure + leaves -> Python objects: tree_unflatten,
 * TreeSpec.unflatten and the rebuild that ends tree_map. An explicit stack. */
#include "builds.h"

/* ---------------------------------------------------------------------------
 * Rebuilding: an explicit stack over the structure, values on a value stack
 * in traversal order.
 * ------------------------------------------------------------------------- */

#define DC_SLOTS 8   /* the builder's keyset cache (a power of two) */
#define SMALL_DICT 8 /* up to this many keys a dict is filled by plain inserts */

typedef struct bframe {
  const gv_node *n;
  const gv_node *const *kids; /* n's children in insertion order */
  const uint32_t *perm;       /* traversal -> insertion (dict, defaultdict), or NULL */
  size_t i, arity;
  size_t chain; /* a chain of one-child lists (or tuples): its links, 1 for any other node */
  Py_ssize_t vbase;
} bframe;

typedef struct builder {
  gstate *st;
  GenObject *g;
  PyObject *ns, *regs;
  /* The leaves: an array no code can change (leaves[0..nleaves)), or, with
   * list set, the caller's list, which code (a finalizer run by any
   * allocation) may change: then leaves and nleaves are re-read from it
   * (leaves_at) after every allocation, and an item is held as it is taken. */
  PyObject *list;
  PyObject *const *leaves;
  Py_ssize_t nleaves, used;
  bframe *fr;
  size_t nfr, cfr;
  PyObject **v; /* owned references, in traversal order */
  Py_ssize_t nv, cv;
  int pinned;     /* user code may run: every value is owned from now on */
  int few;        /* too few leaves were found */
  PyObject *hold; /* once pinned: a tuple of the leaves (the caller's list may change) */
  PyObject **tmp;
  Py_ssize_t ctmp;
  /* keysets met in this build: their key tuple and (big dicts) template,
   * borrowed from the generation's maps (which only grow while it lives) */
  struct dcache {
    const gv_node *ks;
    PyObject *keys, *tm;
  } dc[DC_SLOTS];
  struct tcache { /* sorted keysets -> their template (dict_fill) */
    const gv_node *tw;
    PyObject *tm;
  } tc[DC_SLOTS];
  /* small trees need no allocation */
  bframe fr_inl[16];
  PyObject *v_inl[64];
} builder;

/* Grow *p (cap elements of elem bytes; it may still be the inline buffer inl)
 * to hold need elements. */
static int igrow(void **p, size_t cap, size_t need, size_t elem, void *inl, size_t *ncap) {
  size_t nc = cap ? cap : 32;
  while (nc < need)
    nc *= 2;
  void *np;
  if (*p == inl) {
    np = PyMem_Malloc(nc * elem);
    if (np) memcpy(np, inl, cap * elem);
  } else {
    np = PyMem_Realloc(*p, nc * elem);
  }
  if (!np) {
    PyErr_NoMemory();
    return -1;
  }
  *p = np;
  *ncap = nc;
  return 0;
}

/* Push o (a reference given to the value stack). */
static int push_val(builder *b, PyObject *o) {
  if (b->nv == b->cv) {
    size_t cap1 = 0;
    if (igrow((void **)&b->v, (size_t)b->cv, (size_t)b->cv + 1, sizeof *b->v, b->v_inl, &cap1) <
        0) {
      Py_DECREF(o);
      return -1;
    }
    b->cv = (Py_ssize_t)cap1;
  }
  b->v[b->nv++] = o;
  return 0;
}

/* The leaves from position at on, n of them, or NULL when there are fewer:
 * valid until the next allocation or code. */
static inline PyObject *const *leaves_at(builder *b, Py_ssize_t at, Py_ssize_t n) {
  if (b->list) {
    b->leaves = ((PyListObject *)b->list)->ob_item;
    b->nleaves = PyList_GET_SIZE(b->list);
  }
  static PyObject *const none[1] = {NULL}; /* (no leaves at all: a valid empty range) */
  if (at + n > b->nleaves) return NULL;
  return b->leaves ? b->leaves + at : none;
}

/* Before user code can run (a class's constructor, an unflatten function, a
 * key's __hash__/__eq__, a factory): hold the leaves themselves, which that
 * code could free by emptying or resizing the caller's list. */
static int pin_vals(builder *b) {
  if (b->pinned) return 0;
  if (!b->list) { /* already an array no code can change */
    b->pinned = 1;
    return 0;
  }
  for (int attempt = 0; attempt < 4; attempt++) {
    Py_ssize_t n = PyList_GET_SIZE(b->list);
    PyObject *t = PyTuple_New(n); /* (may run finalizers: the list is read after) */
    if (!t) return -1;
    PyObject *const *v = leaves_at(b, 0, 0);
    if (b->nleaves != n) {
      Py_DECREF(t);
      continue;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
      Py_INCREF(v[i]);
      PyTuple_SET_ITEM(t, i, v[i]);
    }
    b->hold = t;
    b->list = NULL;
    b->leaves = &PyTuple_GET_ITEM(t, 0);
    b->nleaves = n;
    b->pinned = 1;
    return 0;
  }
  PyErr_SetString(PyExc_RuntimeError, "tree_unflatten: the leaves changed size while being read");
  return -1;
}

static void release_vals(builder *b, Py_ssize_t base) {
  for (Py_ssize_t j = base; j < b->nv; j++)
    Py_DECREF(b->v[j]);
  b->nv = base;
}

/* Whether making node n may run Python code of the user's. */
static int may_call_user(const gv_node *n) {
  unsigned k = gv__kind(n);
  if (k == GV_CUSTOM || k == GV_DDICT) return 1;
  if (k == GV_DICT || k == GV_ODICT) return (GV__CONT(n)->meta->aux16 & GV__KS_HOST) != 0;
  return 0;
}

static void frame_setup(bframe *f, const gv_node *n, Py_ssize_t vbase) {
  const gv__cont *c = GV__CONT(n);
  f->n = n;
  f->chain = 1;
  if ((n->kind == GV_LIST || n->kind == GV_TUPLE) && n->arity == 1) {
    /* one frame for the whole chain of one-child links of n's kind: its child is the
     * last link's, and the links are made around the child's value when it is done */
    const gv_node *x;
    while (!gv__is_imm(x = c->kids[0]) && x->kind == n->kind && x->arity == 1) {
      c = GV__CONT(x);
      f->chain++;
    }
  }
  f->kids = c->kids;
  f->perm = (n->kind == GV_DICT || n->kind == GV_DDICT) ? GV__CONT(c->meta)->perm : NULL;
  f->i = 0;
  f->arity = n->arity;
  f->vbase = vbase;
}

/* The values of a container being made: vals (the value stack's, which no
 * code changes) or, vals NULL, the next arity leaves (re-read: call it after
 * the container's allocation, right before reading). NULL with a ValueError
 * when too few leaves are left. */
static PyObject *const *vals_now(builder *b, PyObject *const *vals, size_t arity) {
  if (vals) return vals;
  PyObject *const *v = leaves_at(b, b->used, (Py_ssize_t)arity);
  if (!v) b->few = 1;
  return v;
}

/* A new tuple of the values (vals_now). */
static PyObject *vals_tuple(builder *b, PyObject *const *vals, size_t arity) {
  PyObject *t = PyTuple_New((Py_ssize_t)arity);
  if (!t) return NULL;
  PyObject *const *v = vals_now(b, vals, arity);
  if (!v) {
    Py_DECREF(t);
    return NULL;
  }
  for (size_t i = 0; i < arity; i++) {
    Py_INCREF(v[i]);
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, v[i]);
  }
  return t;
}

static PyObject *make_dict_like(builder *b, const gv_node *n, PyObject *const *vals, size_t arity,
                                int kind) {
  gstate *st = b->st;
  const gv_node *ksn = GV__CONT(n)->meta;
  const uint32_t *perm = kind != K_ODICT ? GV__CONT(ksn)->perm : NULL;
  PyObject *d;
  PyObject *const *v;
  if (dict_fill_works && kind == K_DICT && arity && !(ksn->aux16 & GV__KS_HOST)) {
    /* a copy of the template of the keys in sorted order, which every dict
     * of the same keys shares whatever its order, reordered and filled in
     * place (dict_fill) */
    const gv_node *tw = perm ? GV__CONT(ksn)->meta : ksn;
    if (tw) {
      struct tcache *t = &b->tc[((uintptr_t)tw >> 6) & (DC_SLOTS - 1)];
      if (t->tw != tw) {
        if (!(t->tm = dict_template(b->g, ksn, tw, perm, arity))) {
          t->tw = NULL;
          return NULL;
        }
        t->tw = tw;
      }
      if (!(d = PyDict_Copy(t->tm))) return NULL;
      if (!(v = vals_now(b, vals, arity))) {
        Py_DECREF(d);
        return NULL;
      }
      if (dict_fill(d, t->tm, NULL, v, perm, (Py_ssize_t)arity)) return d;
      Py_DECREF(d);
    }
  }
  struct dcache *c = &b->dc[((uintptr_t)ksn >> 6) & (DC_SLOTS - 1)];
  int big = kind == K_DICT && arity > SMALL_DICT;
  if (c->ks != ksn) {
    c->ks = ksn;
    c->keys = c->tm = NULL;
  }
  if (big && !c->tm && !(c->tm = dict_template(b->g, ksn, ksn, NULL, arity))) return NULL;
  if ((Py_ssize_t)arity > b->ctmp) {
    size_t cap = (size_t)b->ctmp;
    if (bgrow((void **)&b->tmp, &cap, arity, sizeof *b->tmp) < 0) return NULL;
    b->ctmp = (Py_ssize_t)cap;
  }
  if (!c->keys && !(c->keys = keys_of(b->g, ksn))) return NULL;
  PyObject *const *kv = &PyTuple_GET_ITEM(c->keys, 0); /* (the generation holds the tuple) */
  if (kind == K_DDICT) {
    PyObject *fac = named_obj(st, b->g, GV__CONT(n)->aux);
    if (!fac) return NULL;
    d = PyObject_CallOneArg((PyObject *)st->ddict_t, fac);
  } else if (kind == K_ODICT) {
    d = PyObject_CallNoArgs((PyObject *)st->odict_t);
  } else {
    d = big ? PyDict_Copy(c->tm) : PyDict_New();
  }
  if (!d) return NULL;
  if (!(v = vals_now(b, vals, arity))) {
    Py_DECREF(d);
    return NULL;
  }
  PyObject *const *ins = v; /* values in insertion order */
  if (perm) {
    for (size_t r = 0; r < arity; r++)
      b->tmp[perm[r]] = v[r];
    ins = b->tmp;
  }
  /* in insertion order: a big dict's lookups walk the copied table in order,
   * and leaves made in that order sit in memory in that order. A dict of
   * scalar keys runs no code here (and a dict of other keys, a defaultdict
   * and an OrderedDict are built from held values: may_call_user), so ins
   * stays valid; each value is held by d as it goes in. */
  for (size_t i = 0; i < arity; i++) {
    int r = kind == K_DICT ? PyDict_SetItem(d, kv[i], ins[i]) : PyObject_SetItem(d, kv[i], ins[i]);
    if (r < 0) {
      Py_DECREF(d);
      return NULL;
    }
  }
  return d;
}

/* The container for node n from its children's values: vals (borrowed,
 * traversal order), or NULL for the next arity leaves. */
static PyObject *make_container(builder *b, const gv_node *n, PyObject *const *vals, size_t arity) {
  PyObject *cls = NULL, *reg = NULL;
  int kind = node_kind(b->st, b->g, n, b->ns, b->regs, &cls, &reg);
  switch (kind) {
  case K_LIST: {
    PyObject *l = PyList_New((Py_ssize_t)arity);
    if (!l) return NULL;
    PyObject *const *v = vals_now(b, vals, arity);
    if (!v) {
      Py_DECREF(l);
      return NULL;
    }
    for (size_t i = 0; i < arity; i++) {
      Py_INCREF(v[i]);
      PyList_SET_ITEM(l, (Py_ssize_t)i, v[i]);
    }
    return l;
  }
  case K_TUPLE:
    return vals_tuple(b, vals, arity);
  case K_DICT:
  case K_ODICT:
  case K_DDICT:
    return make_dict_like(b, n, vals, arity, kind);
  case K_DEQUE: {
    PyObject *l = vals_tuple(b, vals, arity);
    if (!l) return NULL;
    int64_t ml = gv_deque_maxlen(n);
    PyObject *mlo = ml < 0 ? (Py_INCREF(Py_None), Py_None) : PyLong_FromLongLong(ml);
    PyObject *d =
        mlo ? PyObject_CallFunctionObjArgs((PyObject *)b->st->deque_t, l, mlo, NULL) : NULL;
    Py_XDECREF(mlo);
    Py_DECREF(l);
    return d;
  }
  case K_NONE:
    Py_RETURN_NONE;
  }
  /* the rest runs the user's code: the values are held (pin_vals) */
  PyObject *const *v = vals_now(b, vals, arity);
  if (!v) return NULL;
  switch (kind) {
  case K_NT: { /* (the values are pinned: no code changes v) */
    Py_INCREF(cls);
    PyObject *r = new_namedtuple(b->st, (PyTypeObject *)cls, v, (Py_ssize_t)arity);
    Py_DECREF(cls);
    return r;
  }
  case K_SS: {
    PyObject *t = tuple_from(v, (Py_ssize_t)arity);
    if (!t) return NULL;
    Py_INCREF(cls);
    PyObject *r = PyObject_CallOneArg(cls, t);
    Py_DECREF(cls);
    Py_DECREF(t);
    return r;
  }
  case K_CUSTOM: {
    PyObject *md = NULL, *ents = NULL;
    if (custom_md(b->g, n, &md, &ents) < 0) return NULL;
    Py_XDECREF(ents);
    PyObject *t = tuple_from(v, (Py_ssize_t)arity);
    PyObject *fn = PyTuple_GET_ITEM(reg, 2), *r = NULL;
    Py_INCREF(fn); /* (the registry may change while it runs) */
    if (t) r = PyObject_CallFunctionObjArgs(fn, md, t, NULL);
    Py_DECREF(fn);
    Py_XDECREF(t);
    Py_DECREF(md);
    return r;
  }
  default:
    return NULL;
  }
}

/* Count of * in n (its leaves as a structure). */
static Py_ssize_t star_count(const gv_node *n) {
  return (Py_ssize_t)gv_num_leaves(n);
}

/* Take the next leaf onto the value stack (held). */
static int take_leaf(builder *b) {
  PyObject *const *v = leaves_at(b, b->used, 1);
  if (!v) {
    b->few = 1;
    return -1;
  }
  PyObject *leaf = *v;
  Py_INCREF(leaf);
  b->used++;
  return push_val(b, leaf);
}

/* The container of node c (arity > 0, every child a *) from the next
 * leaves, onto the value stack. */
static int take_flat(builder *b, const gv_node *c) {
  if (!leaves_at(b, b->used, (Py_ssize_t)c->arity)) {
    b->few = 1;
    return -1;
  }
  if (may_call_user(c) && pin_vals(b) < 0) return -1;
  PyObject *o = make_container(b, c, NULL, c->arity);
  if (!o) return -1;
  b->used += (Py_ssize_t)c->arity;
  return push_val(b, o);
}

static PyObject *build_run(builder *b, const gv_node *root) {
  PyObject *res = NULL;
  if (gv__kind(root) == GV_STAR) {
    if (take_leaf(b) < 0) goto fail;
    res = b->v[--b->nv];
    goto done;
  }
  if (gv__arity(root) == 0) {
    if (may_call_user(root) && pin_vals(b) < 0) return NULL;
    res = make_container(b, root, NULL, 0);
    goto done;
  }
  if (GV__CONT(root)->depth == 1) {
    if (take_flat(b, root) < 0) goto fail;
    res = b->v[--b->nv];
    goto done;
  }
  frame_setup(&b->fr[0], root, 0); /* the inline frames hold at least one */
  b->nfr = 1;
  while (b->nfr) {
    bframe *f = &b->fr[b->nfr - 1];
    if (f->i == f->arity) {
      unsigned k = gv__kind(f->n);
      PyObject *o;
      if (k == GV_LIST || k == GV_TUPLE) { /* the values on the stack move into it */
        o = k == GV_LIST ? PyList_New((Py_ssize_t)f->arity) : PyTuple_New((Py_ssize_t)f->arity);
        if (!o) goto fail;
        memcpy(k == GV_LIST ? ((PyListObject *)o)->ob_item : ((PyTupleObject *)o)->ob_item,
               b->v + f->vbase, f->arity * sizeof *b->v);
        b->nv = f->vbase;
        for (size_t l = 1; l < f->chain; l++) { /* the chain's other links, inside out */
          PyObject *w = k == GV_LIST ? PyList_New(1) : PyTuple_New(1);
          if (!w) {
            Py_DECREF(o);
            goto fail;
          }
          if (k == GV_LIST)
            PyList_SET_ITEM(w, 0, o);
          else
            PyTuple_SET_ITEM(w, 0, o);
          o = w;
        }
      } else {
        if (may_call_user(f->n) && pin_vals(b) < 0) goto fail;
        o = make_container(b, f->n, b->v + f->vbase, f->arity);
        if (!o) goto fail;
        release_vals(b, f->vbase);
      }
      b->nfr--;
      if (!b->nfr) {
        res = o;
        break;
      }
      if (push_val(b, o) < 0) goto fail;
      continue;
    }
    size_t r = f->i++;
    const gv_node *c = f->kids[f->perm ? f->perm[r] : r];
    if (gv__is_imm(c)) { /* a * (the only immediate in a structure) */
      if (take_leaf(b) < 0) goto fail;
      continue;
    }
    if (c->arity == 0) {
      if (may_call_user(c) && pin_vals(b) < 0) goto fail;
      PyObject *o = make_container(b, c, NULL, 0);
      if (!o || push_val(b, o) < 0) goto fail;
      continue;
    }
    if (GV__CONT(c)->depth == 1) { /* every child is a *: made straight from the leaves */
      if (take_flat(b, c) < 0) goto fail;
      continue;
    }
    if (b->nfr == b->cfr &&
        igrow((void **)&b->fr, b->cfr, b->cfr + 1, sizeof *b->fr, b->fr_inl, &b->cfr) < 0)
      goto fail;
    frame_setup(&b->fr[b->nfr++], c, b->nv);
  }
done:
  if (res) {
    leaves_at(b, 0, 0);
    /* (a list that code emptied after its leaves were all read is not too long) */
    if (b->used < b->nleaves) {
      Py_DECREF(res);
      PyErr_Format(PyExc_ValueError, "Too many leaves for PyTreeSpec; expected: %zd.",
                   star_count(root));
      return NULL;
    }
  }
  return res;
fail:
  if (b->few) {
    PyErr_Clear();
    leaves_at(b, 0, 0);
    PyErr_Format(PyExc_ValueError, "Too few leaves for PyTreeSpec; expected: %zd, got: %zd.",
                 star_count(root), b->nleaves);
  }
  return NULL;
}

/* The tree of node (in g, held by the caller) with the leaves: an array
 * leaves[0..n) that no code can change, or (list non-NULL, held by the
 * caller) the caller's list, read as the build goes. */
static PyObject *build(gstate *st, GenObject *g, const gv_node *node, PyObject *ns, PyObject *regs,
                       PyObject *list, PyObject *const *leaves, Py_ssize_t n) {
  builder b;
  memset(&b, 0, offsetof(builder, fr_inl));
  b.fr = b.fr_inl;
  b.cfr = sizeof b.fr_inl / sizeof *b.fr_inl;
  b.v = b.v_inl;
  b.cv = sizeof b.v_inl / sizeof *b.v_inl;
  b.st = st;
  b.g = g;
  b.ns = ns;
  b.regs = regs;
  b.list = list;
  b.leaves = leaves;
  b.nleaves = n;
  PyObject *r = build_run(&b, node);
  release_vals(&b, 0);
  Py_XDECREF(b.hold);
  if (b.v != b.v_inl) PyMem_Free(b.v);
  if (b.fr != b.fr_inl) PyMem_Free(b.fr);
  PyMem_Free(b.tmp);
  return r;
}

PyObject *unflatten_node(gstate *st, SpecObject *s, PyObject *const *leaves, Py_ssize_t n) {
  return build(st, s->gen, s->node, s->ns, s->regs, NULL, leaves, n);
}

PyObject *do_unflatten(gstate *st, SpecObject *s, PyObject *leaves) {
  Py_INCREF(s); /* (code run by the build could drop the caller's last reference) */
  PyObject *r = NULL;
  Py_INCREF(leaves);
  if (PyList_Check(leaves)) {
    r = build(st, s->gen, s->node, s->ns, s->regs, leaves, NULL, 0);
  } else if (PyTuple_Check(leaves)) {
    r = build(st, s->gen, s->node, s->ns, s->regs, NULL, &PyTuple_GET_ITEM(leaves, 0),
              PyTuple_GET_SIZE(leaves));
  } else {
    /* any other iterable: read into an array of held items, at most one
     * item more than the structure has leaves (an endless iterator is fine) */
    uint64_t want = gv_num_leaves(s->node);
    PyObject *it = PyObject_GetIter(leaves), *x;
    PyObject **v = NULL;
    size_t nv = 0, cv = 0;
    if (!it) {
      if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "tree_unflatten: leaves must be iterable");
      }
      goto out;
    }
    while ((uint64_t)nv <= want && (x = PyIter_Next(it))) {
      if (bgrow((void **)&v, &cv, nv + 1, sizeof *v) < 0) {
        Py_DECREF(x);
        break;
      }
      v[nv++] = x;
    }
    Py_DECREF(it);
    if (!PyErr_Occurred()) {
      if ((uint64_t)nv > want)
        PyErr_Format(PyExc_ValueError, "Too many leaves for PyTreeSpec; expected: %llu.",
                     (unsigned long long)want);
      else
        r = build(st, s->gen, s->node, s->ns, s->regs, NULL, v, (Py_ssize_t)nv);
    }
    for (size_t i = 0; i < nv; i++)
      Py_DECREF(v[i]);
    PyMem_Free(v);
  }
out:
  Py_DECREF(leaves);
  Py_DECREF(s);
  return r;
}
/* ---------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------- */

PyObject *py_tree_unflatten(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  gstate *st = state_of_module(m);
  static const char *const names[] = {"treespec", "leaves", NULL};
  PyObject *a[2];
  if (parse_args(args, nargs, kw, "tree_unflatten", names, 2, 2, a) < 0) return NULL;
  if (!PyObject_TypeCheck(a[0], st->spec_type)) {
    PyErr_Format(PyExc_TypeError, "Expected a TreeSpec, got %R.", a[0]);
    return NULL;
  }
  return do_unflatten(st, (SpecObject *)a[0], a[1]);
}
