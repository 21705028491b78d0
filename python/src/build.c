/* SPDX-License-Identifier: MIT */
/* build.c -- structure + leaves -> Python objects: tree_unflatten, tree_map,
 * flatten_up_to; canonicalize. Explicit stacks only. */
#include "grove_py.h"

#include <stdarg.h>

/* The Python kind of a structure node. */
static int node_kind(gstate *st, GenObject *g, const gv_node *n, PyObject *ns, PyObject **cls,
                     PyObject **reg) {
  switch (gv_kind(n)) {
  case GV_STAR:
    return K_LEAF;
  case GV_LIST:
    return K_LIST;
  case GV_TUPLE:
    return K_TUPLE;
  case GV_DICT:
    return K_DICT;
  case GV_ODICT:
    return K_ODICT;
  case GV_DDICT:
    return K_DDICT;
  case GV_DEQUE:
    return K_DEQUE;
  case GV_CUSTOM:
    return custom_info(st, g, n, ns, cls, reg);
  default:
    PyErr_SetString(PyExc_ValueError, "grove: not a structure node");
    return -1;
  }
}

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

static int bgrow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t nc = *cap ? *cap : 32;
  while (nc < need)
    nc *= 2;
  void *np = PyMem_Realloc(*p, nc * elem);
  if (!np) {
    PyErr_NoMemory();
    return -1;
  }
  *p = np;
  *cap = nc;
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

static PyObject *unflatten_node(gstate *st, GenObject *g, const gv_node *node, PyObject *ns,
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
 * flatten_up_to: the subtrees of tree at the leaves of the structure.
 * ------------------------------------------------------------------------- */

typedef struct uframe {
  const gv_node *n;
  PyObject *obj;   /* owned */
  PyObject *items; /* owned tuple: the children in traversal order */
  size_t i;
} uframe;

static const char *kind_word(int k) {
  switch (k) {
  case K_LIST:
    return "list";
  case K_TUPLE:
    return "tuple";
  case K_DICT:
    return "dict";
  case K_ODICT:
    return "OrderedDict";
  case K_DDICT:
    return "defaultdict";
  case K_DEQUE:
    return "deque";
  case K_NT:
    return "namedtuple";
  case K_SS:
    return "PyStructSequence";
  default:
    return "custom node";
  }
}

static PyObject *up_path(uframe *fr, size_t depth, gstate *st, GenObject *g) {
  PyObject *t = PyTuple_New((Py_ssize_t)depth);
  for (size_t d = 0; t && d < depth; d++) {
    const gv_node *n = fr[d].n;
    size_t r = fr[d].i - 1;
    PyObject *e;
    unsigned k = gv_kind(n);
    if (k == GV_DICT || k == GV_DDICT || k == GV_ODICT) {
      PyObject *keys = keys_of(st, g, gv_meta(n));
      e = keys ? PyTuple_GET_ITEM(keys, (Py_ssize_t)(k == GV_ODICT ? r : gv_order_index(n, r)))
               : NULL;
      Py_XINCREF(e);
    } else if (k == GV_CUSTOM && ctype_meta(n)) {
      PyObject *md = handle_obj(st, gv_get_handle(ctype_meta(n)));
      PyObject *ents = md ? PyTuple_GET_ITEM(md, 1) : NULL;
      e = ents && ents != Py_None ? PyTuple_GET_ITEM(ents, (Py_ssize_t)r) : NULL;
      if (e)
        Py_INCREF(e);
      else
        e = PyLong_FromSize_t(r);
    } else {
      e = PyLong_FromSize_t(r);
    }
    if (!e) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)d, e);
  }
  return t;
}

static int up_err(uframe *fr, size_t depth, gstate *st, GenObject *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (!msg) return -1;
  PyObject *path = up_path(fr, depth, st, g);
  if (!path) {
    Py_DECREF(msg);
    return -1;
  }
  if (PyTuple_GET_SIZE(path))
    PyErr_Format(PyExc_ValueError, "at %R: %U", path, msg);
  else
    PyErr_SetObject(PyExc_ValueError, msg);
  Py_DECREF(path);
  Py_DECREF(msg);
  return -1;
}

/* Children of obj matching structure node n, in n's traversal order (new
 * tuple), or NULL with a ValueError. */
static PyObject *match_children(gstate *st, GenObject *g, PyObject *ns, int none_is_leaf,
                                const gv_node *n, PyObject *o, uframe *fr, size_t depth) {
  PyObject *cls = NULL, *reg = NULL;
  int k = node_kind(st, g, n, ns, &cls, &reg);
  if (k < 0) return NULL;
  PyTypeObject *tp = Py_TYPE(o);
  size_t arity = gv_arity(n);
  (void)none_is_leaf;
  switch (k) {
  case K_NONE:
    if (o != Py_None) {
      up_err(fr, depth, st, g, "Expected None, got %R.", o);
      return NULL;
    }
    return PyTuple_New(0);
  case K_LIST:
  case K_TUPLE:
  case K_DEQUE: {
    PyTypeObject *want = k == K_LIST ? &PyList_Type : k == K_TUPLE ? &PyTuple_Type : st->deque_t;
    if (tp != want) {
      up_err(fr, depth, st, g, "Expected an instance of %s, got %R.", kind_word(k), o);
      return NULL;
    }
    PyObject *t = PySequence_Tuple(o);
    if (t && (size_t)PyTuple_GET_SIZE(t) != arity) {
      up_err(fr, depth, st, g, "%s arity mismatch; expected: %zu, got: %zd; %s: %R.", kind_word(k),
             arity, PyTuple_GET_SIZE(t), k == K_DEQUE ? "deque" : kind_word(k), o);
      Py_DECREF(t);
      return NULL;
    }
    return t;
  }
  case K_DICT:
  case K_ODICT:
  case K_DDICT: {
    if (tp != &PyDict_Type && tp != st->odict_t && tp != st->ddict_t) {
      up_err(fr, depth, st, g,
             "Expected an instance of dict, collections.OrderedDict, or "
             "collections.defaultdict, got %R.",
             o);
      return NULL;
    }
    PyObject *keys = keys_of(st, g, gv_meta(n));
    if (!keys) return NULL;
    PyObject *t = PyTuple_New((Py_ssize_t)arity);
    if (!t) return NULL;
    int ok = (size_t)PyDict_GET_SIZE(o) == arity;
    for (size_t r = 0; ok && r < arity; r++) {
      size_t ix = k == K_ODICT ? r : gv_order_index(n, r);
      PyObject *v = PyDict_GetItemWithError(o, PyTuple_GET_ITEM(keys, (Py_ssize_t)ix));
      if (!v) {
        if (PyErr_Occurred()) {
          Py_DECREF(t);
          return NULL;
        }
        ok = 0;
        break;
      }
      Py_INCREF(v);
      PyTuple_SET_ITEM(t, (Py_ssize_t)r, v);
    }
    if (!ok) {
      Py_DECREF(t);
      PyObject *got = PySequence_List(o);
      if (got) {
        up_err(fr, depth, st, g,
               "dictionary key mismatch; expected key(s): %R, got key(s): %R; %s: %R.", keys, got,
               kind_word(k), o);
        Py_DECREF(got);
      }
      return NULL;
    }
    return t;
  }
  case K_NT:
  case K_SS:
    if ((PyObject *)tp != cls) {
      if (PyTuple_Check(o) && (size_t)PyTuple_GET_SIZE(o) != arity && tp != &PyTuple_Type)
        up_err(fr, depth, st, g, "%s arity mismatch; expected: %zu, got: %zd; tuple: %R.",
               kind_word(k), arity, PyTuple_GET_SIZE(o), o);
      else
        up_err(fr, depth, st, g, "%s type mismatch; expected type: %R, got type: %R; tuple: %R.",
               kind_word(k), cls, (PyObject *)tp, o);
      return NULL;
    }
    if ((size_t)PyTuple_GET_SIZE(o) != arity) {
      up_err(fr, depth, st, g, "%s arity mismatch; expected: %zu, got: %zd; tuple: %R.",
             kind_word(k), arity, PyTuple_GET_SIZE(o), o);
      return NULL;
    }
    return PySequence_Tuple(o);
  case K_CUSTOM: {
    if ((PyObject *)tp != cls) {
      up_err(fr, depth, st, g,
             "Custom node type mismatch; expected type: %R, got type: %R; value: %R.", cls,
             (PyObject *)tp, o);
      return NULL;
    }
    PyObject *out = PyObject_CallOneArg(PyTuple_GET_ITEM(reg, 1), o);
    if (!out) return NULL;
    PyObject *t = PySequence_Tuple(out);
    Py_DECREF(out);
    if (!t) return NULL;
    if (PyTuple_GET_SIZE(t) != 2 && PyTuple_GET_SIZE(t) != 3) {
      PyErr_Format(PyExc_RuntimeError,
                   "PyTree custom flatten function for type %R should return a 2- or 3-tuple, "
                   "got %zd.",
                   cls, PyTuple_GET_SIZE(t));
      Py_DECREF(t);
      return NULL;
    }
    PyObject *md = handle_obj(st, gv_get_handle(ctype_meta(n)));
    int eq =
        md ? PyObject_RichCompareBool(PyTuple_GET_ITEM(md, 0), PyTuple_GET_ITEM(t, 1), Py_EQ) : -1;
    if (eq <= 0) {
      if (eq == 0)
        up_err(fr, depth, st, g, "Mismatch custom node data; expected: %R, got: %R; value: %R.",
               PyTuple_GET_ITEM(md, 0), PyTuple_GET_ITEM(t, 1), o);
      Py_DECREF(t);
      return NULL;
    }
    PyObject *kids = PySequence_Tuple(PyTuple_GET_ITEM(t, 0));
    Py_DECREF(t);
    if (kids && (size_t)PyTuple_GET_SIZE(kids) != arity) {
      up_err(fr, depth, st, g, "Custom type arity mismatch; expected: %zu, got: %zd; value: %R.",
             arity, PyTuple_GET_SIZE(kids), o);
      Py_CLEAR(kids);
    }
    return kids;
  }
  default:
    return NULL;
  }
}

/* The subtrees of tree at the leaves of node, into a new list. */
static PyObject *up_to_node(gstate *st, GenObject *g, const gv_node *node, PyObject *ns,
                            int none_is_leaf, PyObject *tree) {
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  if (gv_kind(node) == GV_STAR) {
    if (PyList_Append(out, tree) < 0) Py_CLEAR(out);
    return out;
  }
  uframe *fr = NULL;
  size_t nfr = 0, cfr = 0;
  PyObject *items = match_children(st, g, ns, none_is_leaf, node, tree, fr, 0);
  if (!items) goto fail;
  if (bgrow((void **)&fr, &cfr, 1, sizeof *fr) < 0) {
    Py_DECREF(items);
    goto fail;
  }
  Py_INCREF(tree);
  fr[nfr++] = (uframe){node, tree, items, 0};
  while (nfr) {
    uframe *f = &fr[nfr - 1];
    if (f->i == gv_arity(f->n)) {
      Py_DECREF(f->obj);
      Py_DECREF(f->items);
      nfr--;
      continue;
    }
    size_t r = f->i++;
    const gv_node *c = gv__trav_child(f->n, r);
    PyObject *co = PyTuple_GET_ITEM(f->items, (Py_ssize_t)r);
    if (gv_kind(c) == GV_STAR) {
      if (PyList_Append(out, co) < 0) goto fail;
      continue;
    }
    PyObject *ci = match_children(st, g, ns, none_is_leaf, c, co, fr, nfr);
    if (!ci) goto fail;
    if (bgrow((void **)&fr, &cfr, nfr + 1, sizeof *fr) < 0) {
      Py_DECREF(ci);
      goto fail;
    }
    Py_INCREF(co);
    fr[nfr++] = (uframe){c, co, ci, 0};
  }
  PyMem_Free(fr);
  return out;
fail:
  while (nfr) {
    nfr--;
    Py_DECREF(fr[nfr].obj);
    Py_DECREF(fr[nfr].items);
  }
  PyMem_Free(fr);
  Py_XDECREF(out);
  return NULL;
}

PyObject *do_flatten_up_to(gstate *st, SpecObject *s, PyObject *tree) {
  return up_to_node(st, s->gen, s->node, s->ns, s->none_is_leaf, tree);
}

PyObject **flatten_rests_up_to(gstate *st, SpecObject *s, PyObject *const *rests,
                               Py_ssize_t nrest) {
  PyObject **lists = PyMem_Calloc((size_t)nrest, sizeof *lists);
  if (!lists) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t j = 0; j < nrest; j++) {
    if (!(lists[j] = do_flatten_up_to(st, s, rests[j]))) {
      free_rests(lists, nrest);
      return NULL;
    }
  }
  return lists;
}

void free_rests(PyObject **lists, Py_ssize_t nrest) {
  if (!lists) return;
  for (Py_ssize_t j = 0; j < nrest; j++)
    Py_XDECREF(lists[j]);
  PyMem_Free(lists);
}

/* ---------------------------------------------------------------------------
 * tree_map(func, tree, *rests, is_leaf=None, none_is_leaf=False, namespace='')
 * ------------------------------------------------------------------------- */

PyObject *py_tree_map(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  gstate *st = state_of_module(m);
  if (nargs < 2) {
    PyErr_Format(PyExc_TypeError, "tree_map() takes at least 2 positional arguments (%zd given)",
                 nargs);
    return NULL;
  }
  static const char *const names[] = {"is_leaf", "none_is_leaf", "namespace", NULL};
  PyObject *a[3];
  flat_args fa;
  if (parse_args(args + nargs, 0, kw, "tree_map", names, 0, 0, a) < 0 ||
      flat_opts(st, a[0], a[1], a[2], &fa) < 0)
    return NULL;
  PyObject *func = args[0];
  fa.tree = args[1];
  Py_ssize_t nrest = nargs - 2;
  PyObject *leaves = NULL, *spec = NULL, *res = NULL, **lists = NULL, *out = NULL;
  if (do_flatten(st, &fa, &leaves, &spec) < 0) return NULL;
  SpecObject *s = (SpecObject *)spec;
  Py_ssize_t n = PyList_GET_SIZE(leaves);
  if (nrest && !(lists = flatten_rests_up_to(st, s, args + 2, nrest))) goto out;
  res = PyList_New(n);
  if (!res) goto out;
  {
    PyObject *stack_inl[9], **stack = stack_inl;
    if (nrest + 1 > 8 && !(stack = PyMem_Malloc((size_t)(nrest + 2) * sizeof *stack))) {
      PyErr_NoMemory();
      goto out;
    }
    PyObject **argv = stack + 1; /* room for PY_VECTORCALL_ARGUMENTS_OFFSET */
    vectorcallfunc vc = PyVectorcall_Function(func);
    for (Py_ssize_t i = 0; i < n; i++) {
      argv[0] = PyList_GET_ITEM(leaves, i);
      for (Py_ssize_t j = 0; j < nrest; j++)
        argv[1 + j] = PyList_GET_ITEM(lists[j], i);
      size_t na = (size_t)(nrest + 1) | PY_VECTORCALL_ARGUMENTS_OFFSET;
      PyObject *r = vc ? vc(func, argv, na, NULL) : PyObject_Vectorcall(func, argv, na, NULL);
      if (!r) {
        if (stack != stack_inl) PyMem_Free(stack);
        goto out;
      }
      PyList_SET_ITEM(res, i, r);
    }
    if (stack != stack_inl) PyMem_Free(stack);
  }
  out = unflatten_node(st, s->gen, s->node, s->ns, ((PyListObject *)res)->ob_item, n);
out:
  free_rests(lists, nrest);
  Py_XDECREF(res);
  Py_DECREF(leaves);
  Py_DECREF(spec);
  return out;
}

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
  int k = classify_slow(st, NULL, tp, &reg);
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
  if (Py_TYPE((PyObject *)tp) != &PyType_Type) return CF_GIVE_UP; /* a metaclass may hash */
  PyObject *v = PyDict_GetItem(st->typecache, (PyObject *)tp);
  if (!v) return CF_GIVE_UP;                /* not classified yet: the general pass does it */
  if (!PyLong_CheckExact(v)) return K_LEAF; /* a registered class: left as it is */
  return PyLong_AsLong(v) == K_LEAF ? K_LEAF : CF_GIVE_UP;
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
  PyObject **kk = c->kk + c->nkv, **vv = c->vv + c->nkv;
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
      PyObject *tm = dict_template(c->st, c->g, f->ks, tw, f->perm, (size_t)n);
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
  if (k == K_LEAF) return Py_BuildValue("(OO)", tree, Py_False);
  if (k == K_LIST || k == K_TUPLE || k == K_DICT) {
    PyObject *fo = NULL;
    int fch = 0, fr_ = canon_fast(st, tree, k, &fo, &fch);
    if (fr_ < 0) return NULL;
    if (fr_ > 0) return Py_BuildValue("(NO)", fo, fch ? Py_True : Py_False);
  }
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
          o = PyObject_Vectorcall((PyObject *)Py_TYPE(f->obj), kv, (size_t)f->n, NULL);
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
    cur = PyTuple_GET_ITEM(f->items, ix);
    cur_kind = canon_kind(st, cur);
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
      Py_ssize_t n = PyDict_GET_SIZE(cur), pos = 0, j = 0;
      nf.keys = PyTuple_New(n);
      nf.items = PyTuple_New(n);
      if (!nf.keys || !nf.items) {
        Py_XDECREF(nf.keys);
        Py_XDECREF(nf.items);
        goto fail;
      }
      PyObject *kk, *vv;
      while (j < n && PyDict_Next(cur, &pos, &kk, &vv)) {
        Py_INCREF(kk);
        Py_INCREF(vv);
        PyTuple_SET_ITEM(nf.keys, j, kk);
        PyTuple_SET_ITEM(nf.items, j, vv);
        j++;
      }
      nf.n = j;
      if (cur_kind != K_ODICT) {
        int oom = 0;
        const gv_node *ks = canon_keyset(st, nf.keys, &PyTuple_GET_ITEM(nf.keys, 0), j, &oom);
        if (!ks) {
          Py_DECREF(nf.keys);
          Py_DECREF(nf.items);
          goto fail;
        }
        const uint32_t *pp = GV__CONT(ks)->perm;
        if (pp) { /* copied: a callback may free the generation it lives in */
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
      nf.items = PySequence_Tuple(cur);
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
  return NULL;
}
