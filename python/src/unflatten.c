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
  Py_ssize_t vbase;
} bframe;

typedef struct builder {
  gstate *st;
  GenObject *g;
  PyObject *ns;
  PyObject *const *leaves;
  Py_ssize_t nleaves, used;
  bframe *fr;
  size_t nfr, cfr;
  PyObject **v; /* owned references, in traversal order */
  Py_ssize_t nv, cv;
  int pinned;     /* user code may run: every value is owned from now on */
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

/* Before user code can run (a class's constructor, an unflatten function, a
 * key's __hash__/__eq__, a factory): hold the leaves themselves, which that
 * code could free by emptying or resizing the caller's list. */
static int pin_vals(builder *b) {
  if (b->pinned) return 0;
  b->hold = tuple_from(b->leaves, b->nleaves);
  if (!b->hold) return -1;
  b->leaves = &PyTuple_GET_ITEM(b->hold, 0);
  b->pinned = 1;
  return 0;
}

static void release_vals(builder *b, Py_ssize_t base) {
  for (Py_ssize_t j = base; j < b->nv; j++)
    Py_DECREF(b->v[j]);
  b->nv = base;
}

/* Whether making node n may run Python code of the user's. */
static int may_call_user(const gv_node *n) {
  unsigned k = gv_kind(n);
  if (k == GV_CUSTOM || k == GV_DDICT) return 1;
  if (k == GV_DICT || k == GV_ODICT) return (GV__CONT(n)->meta->aux16 & GV__KS_HOST) != 0;
  return 0;
}

static void frame_setup(bframe *f, const gv_node *n, Py_ssize_t vbase) {
  const gv__cont *c = GV__CONT(n);
  f->n = n;
  f->kids = c->kids;
  f->perm = (n->kind == GV_DICT || n->kind == GV_DDICT) ? GV__CONT(c->meta)->perm : NULL;
  f->i = 0;
  f->arity = n->arity;
  f->vbase = vbase;
}

static PyObject *make_dict_like(builder *b, const gv_node *n, PyObject *const *vals, size_t arity,
                                int kind) {
  gstate *st = b->st;
  const gv_node *ksn = GV__CONT(n)->meta;
  const uint32_t *perm = kind != K_ODICT ? GV__CONT(ksn)->perm : NULL;
  PyObject *d;
  if (dict_fill_works && kind == K_DICT && arity && !(ksn->aux16 & GV__KS_HOST)) {
    /* a copy of the template of the keys in sorted order, which every dict
     * of the same keys shares whatever its order, reordered and filled in
     * place (dict_fill) */
    const gv_node *tw = perm ? GV__CONT(ksn)->meta : ksn;
    if (tw) {
      struct tcache *t = &b->tc[((uintptr_t)tw >> 6) & (DC_SLOTS - 1)];
      if (t->tw != tw) {
        if (!(t->tm = dict_template(st, b->g, ksn, tw, perm, arity))) {
          t->tw = NULL;
          return NULL;
        }
        t->tw = tw;
      }
      if (!(d = PyDict_Copy(t->tm)) || dict_fill(d, t->tm, NULL, vals, perm, (Py_ssize_t)arity))
        return d;
      Py_DECREF(d);
    }
  }
  struct dcache *c = &b->dc[((uintptr_t)ksn >> 6) & (DC_SLOTS - 1)];
  int big = kind == K_DICT && arity > SMALL_DICT;
  if (c->ks != ksn) {
    c->ks = ksn;
    c->keys = c->tm = NULL;
  }
  if (big && !c->tm && !(c->tm = dict_template(st, b->g, ksn, ksn, NULL, arity))) return NULL;
  PyObject *const *ins = vals; /* values in insertion order */
  if (perm) {
    if ((Py_ssize_t)arity > b->ctmp) {
      size_t cap = (size_t)b->ctmp;
      if (bgrow((void **)&b->tmp, &cap, arity, sizeof *b->tmp) < 0) return NULL;
      b->ctmp = (Py_ssize_t)cap;
    }
    for (size_t r = 0; r < arity; r++)
      b->tmp[perm[r]] = vals[r];
    ins = b->tmp;
  }
  if (!c->keys && !(c->keys = keys_of(st, b->g, ksn))) return NULL;
  PyObject *const *kv = &PyTuple_GET_ITEM(c->keys, 0);
  if (big) {
    /* the values in insertion order: the lookups walk the copied table in
     * order, and leaves made in that order sit in memory in that order */
    d = PyDict_Copy(c->tm);
    for (size_t i = 0; d && i < arity; i++)
      if (PyDict_SetItem(d, kv[i], ins[i]) < 0) Py_CLEAR(d);
    return d;
  }
  if (kind == K_DICT) {
    d = PyDict_New();
    for (size_t i = 0; d && i < arity; i++)
      if (PyDict_SetItem(d, kv[i], ins[i]) < 0) Py_CLEAR(d);
    return d;
  }
  if (kind == K_DDICT) {
    PyObject *fac = named_obj(st, b->g, GV__CONT(n)->aux);
    if (!fac) return NULL;
    d = PyObject_CallOneArg((PyObject *)st->ddict_t, fac);
  } else {
    d = PyObject_CallNoArgs((PyObject *)st->odict_t);
  }
  if (!d) return NULL;
  for (size_t i = 0; i < arity; i++)
    if (PyObject_SetItem(d, kv[i], ins[i]) < 0) {
      Py_DECREF(d);
      return NULL;
    }
  return d;
}

/* The container for frame top from its children's values (borrowed). */
static PyObject *make_container(builder *b, const gv_node *n, PyObject *const *vals, size_t arity) {
  PyObject *cls = NULL, *reg = NULL;
  int kind = node_kind(b->st, b->g, n, b->ns, &cls, &reg);
  switch (kind) {
  case K_LIST: {
    PyObject *l = PyList_New((Py_ssize_t)arity);
    if (!l) return NULL;
    for (size_t i = 0; i < arity; i++) {
      Py_INCREF(vals[i]);
      PyList_SET_ITEM(l, (Py_ssize_t)i, vals[i]);
    }
    return l;
  }
  case K_TUPLE:
    return tuple_from(vals, (Py_ssize_t)arity);
  case K_DICT:
  case K_ODICT:
  case K_DDICT:
    return make_dict_like(b, n, vals, arity, kind);
  case K_DEQUE: {
    PyObject *l = tuple_from(vals, (Py_ssize_t)arity);
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
  case K_NT:
    return PyObject_Vectorcall(cls, vals, arity, NULL);
  case K_SS: {
    PyObject *t = tuple_from(vals, (Py_ssize_t)arity);
    if (!t) return NULL;
    PyObject *r = PyObject_CallOneArg(cls, t);
    Py_DECREF(t);
    return r;
  }
  case K_CUSTOM: {
    PyObject *md = handle_obj(b->st, gv_get_handle(ctype_meta(n)));
    if (!md) return NULL;
    PyObject *t = tuple_from(vals, (Py_ssize_t)arity);
    if (!t) return NULL;
    PyObject *r =
        PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(reg, 2), PyTuple_GET_ITEM(md, 0), t, NULL);
    Py_DECREF(t);
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

static PyObject *build_run(builder *b, const gv_node *root) {
  PyObject *res = NULL;
  if (gv_kind(root) == GV_STAR || gv_arity(root) == 0) {
    if (gv_kind(root) == GV_STAR) {
      if (b->used >= b->nleaves) goto few;
      res = b->leaves[b->used++];
      Py_INCREF(res);
    } else {
      if (may_call_user(root) && pin_vals(b) < 0) return NULL;
      res = make_container(b, root, NULL, 0);
    }
    goto done;
  }
  frame_setup(&b->fr[0], root, 0); /* the inline frames hold at least one */
  b->nfr = 1;
  while (b->nfr) {
    bframe *f = &b->fr[b->nfr - 1];
    if (f->i == f->arity) {
      if (may_call_user(f->n) && pin_vals(b) < 0) goto fail;
      PyObject *o = make_container(b, f->n, b->v + f->vbase, f->arity);
      if (!o) goto fail;
      release_vals(b, f->vbase);
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
      if (b->used >= b->nleaves) goto few;
      PyObject *leaf = b->leaves[b->used++];
      Py_INCREF(leaf);
      if (push_val(b, leaf) < 0) goto fail;
      continue;
    }
    if (c->arity == 0) {
      if (may_call_user(c) && pin_vals(b) < 0) goto fail;
      PyObject *o = make_container(b, c, NULL, 0);
      if (!o || push_val(b, o) < 0) goto fail;
      continue;
    }
    if (GV__CONT(c)->depth == 1) { /* every child is a *: made straight from the leaves */
      if (b->used + (Py_ssize_t)c->arity > b->nleaves) goto few;
      if (may_call_user(c) && pin_vals(b) < 0) goto fail;
      PyObject *o = make_container(b, c, b->leaves + b->used, c->arity);
      if (!o) goto fail;
      b->used += (Py_ssize_t)c->arity;
      if (push_val(b, o) < 0) goto fail;
      continue;
    }
    if (b->nfr == b->cfr &&
        igrow((void **)&b->fr, b->cfr, b->cfr + 1, sizeof *b->fr, b->fr_inl, &b->cfr) < 0)
      goto fail;
    frame_setup(&b->fr[b->nfr++], c, b->nv);
  }
done:
  if (res && b->used != b->nleaves) {
    Py_DECREF(res);
    PyErr_Format(PyExc_ValueError, "Too many leaves for PyTreeSpec; expected: %zd, got: %zd.",
                 star_count(root), b->nleaves);
    return NULL;
  }
  return res;
few:
  PyErr_Format(PyExc_ValueError, "Too few leaves for PyTreeSpec; expected: %zd, got: %zd.",
               star_count(root), b->nleaves);
fail:
  return NULL;
}

PyObject *unflatten_node(gstate *st, GenObject *g, const gv_node *node, PyObject *ns,
                         PyObject *const *leaves, Py_ssize_t n) {
  builder b;
  memset(&b, 0, offsetof(builder, fr_inl));
  b.fr = b.fr_inl;
  b.cfr = sizeof b.fr_inl / sizeof *b.fr_inl;
  b.v = b.v_inl;
  b.cv = sizeof b.v_inl / sizeof *b.v_inl;
  b.st = st;
  b.g = g;
  b.ns = ns;
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

PyObject *do_unflatten(gstate *st, SpecObject *s, PyObject *leaves) {
  PyObject *seq = PySequence_Fast(leaves, "tree_unflatten: leaves must be iterable");
  if (!seq) return NULL;
  PyObject *r = unflatten_node(st, s->gen, s->node, s->ns, PySequence_Fast_ITEMS(seq),
                               PySequence_Fast_GET_SIZE(seq));
  Py_DECREF(seq);
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
