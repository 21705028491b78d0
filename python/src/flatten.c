/* SPDX-License-Identifier: MIT */
/* flatten.c -- Python objects -> leaves (+ structure): tree_flatten,
 * tree_leaves, tree_structure (dict keys -> keysets: keys.c).
 *
 * One explicit stack of frames, no C recursion. A frame holds a strong
 * reference to its container (a callback may drop the last other one), dict
 * values are on a value stack while their dict is walked (borrowed until the
 * first call that can allocate or run code, then held: pin_all), and a
 * custom node's children are held as a tuple. The walk holds its generation.
 * Registered classes nest at most MAX_CUSTOM_DEPTH deep (each level runs the
 * class's flatten function). Frames deeper than CYCLE_DEPTH put
 * their container in a pointer set: an object met again on the current path
 * is a cycle (RecursionError naming both places), found within CYCLE_DEPTH +
 * the cycle's length steps; shallow trees pay nothing for it. */
#include "walk.h"

#include <stdarg.h>

#define CYCLE_DEPTH 1024
#define MAX_WALK_DEPTH ((Py_ssize_t)1 << 24)
/* Custom nodes on one path: each level runs the class's flatten function, so
 * a class that makes a new child every time (an endless tree) stops here,
 * at once, as optree stops at its recursion limit; containers have only the
 * limit above. */
#define MAX_CUSTOM_DEPTH 10000
#define FRCACHE_MAX 4096 /* frames (512 KiB) */

static const gv_node *STAR(void) {
  return gv__imm(GV_STAR, 0);
}

/* Grow *p (capacity *cap elements of size elem, initially the inline buffer
 * inl or heap) to hold need elements. */
static int grow(void **p, Py_ssize_t *cap, Py_ssize_t need, size_t elem, void *inl) {
  if (need <= *cap) return 0;
  Py_ssize_t nc = *cap ? *cap : 16;
  while (nc < need)
    nc *= 2;
  void *np;
  if (*p == inl || !*p) {
    np = PyMem_Malloc((size_t)nc * elem);
    if (np && *p) memcpy(np, *p, (size_t)*cap * elem);
  } else {
    np = PyMem_Realloc(*p, (size_t)nc * elem);
  }
  if (!np) {
    PyErr_NoMemory();
    return -1;
  }
  *p = np;
  *cap = nc;
  return 0;
}

#define GROW(w, arr, cnt, cap, extra, inl)                                                         \
  (((w)->cnt + (extra) <= (w)->cap)                                                                \
       ? 0                                                                                         \
       : grow((void **)&(w)->arr, &(w)->cap, (w)->cnt + (extra), sizeof *(w)->arr, (inl)))

/* ---------------------------------------------------------------------------
 * Errors with paths
 * ------------------------------------------------------------------------- */

/* The path entry of traversal child r of a frame (new ref). */
static PyObject *frame_entry(walk *w, const frame *f, Py_ssize_t r) {
  switch (f->kind) {
  case K_DICT:
  case K_DDICT:
  case K_ODICT: {
    PyObject *keys = pm_get(&w->g->rev, f->ks);
    if (!keys) return PyLong_FromSsize_t(r);
    Py_ssize_t ix = f->perm ? (Py_ssize_t)f->perm[r] : r;
    PyObject *k = PyTuple_GET_ITEM(keys, ix);
    Py_INCREF(k);
    return k;
  }
  case K_CUSTOM:
    if (f->entries) {
      PyObject *e = PyTuple_GET_ITEM(f->entries, r);
      Py_INCREF(e);
      return e;
    }
    return PyLong_FromSsize_t(r);
  default:
    return PyLong_FromSsize_t(r);
  }
}

/* The path of the node being visited (frames 0..depth), as a tuple; a long
 * one (for error messages) cut to its ends around an Ellipsis (path_repr). */
static PyObject *walk_path(walk *w, Py_ssize_t depth) {
  Py_ssize_t cut = depth > 2 * PATH_ENDS + 1 ? PATH_ENDS : depth;
  PyObject *t = PyTuple_New(cut < depth ? 2 * PATH_ENDS + 1 : depth);
  if (!t) return NULL;
  Py_ssize_t j = 0;
  for (Py_ssize_t d = 0; d < depth; d++) {
    if (d == cut && cut < depth) {
      Py_INCREF(Py_Ellipsis);
      PyTuple_SET_ITEM(t, j++, Py_Ellipsis);
      d = depth - PATH_ENDS;
    }
    const frame *f = &w->fr[d];
    PyObject *e = frame_entry(w, f, f->i - 1);
    if (!e) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, j++, e);
  }
  return t;
}

/* Raise exc with the current path (the child being visited). */
static int walk_err(walk *w, PyObject *exc, const char *fmt, ...) {
  PyObject *exc_t = NULL, *exc_v = NULL, *exc_tb = NULL;
  PyErr_Fetch(&exc_t, &exc_v, &exc_tb); /* an error while building the path must not win */
  va_list ap;
  va_start(ap, fmt);
  PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  PyObject *path = msg ? walk_path(w, w->nfr) : NULL;
  Py_XDECREF(exc_t);
  Py_XDECREF(exc_v);
  Py_XDECREF(exc_tb);
  if (!msg || !path) {
    Py_XDECREF(msg);
    Py_XDECREF(path);
    return -1;
  }
  err_at(exc, path, "%U", msg);
  Py_DECREF(msg);
  Py_DECREF(path);
  return -1;
}

static void pin_all(walk *w);
static int push_frame(walk *w, PyObject *o, int kind, PyObject *reg);

/* The cycle closing at the node being visited: it is the node at where
 * again, loop (where + the cycle) below it. The message names both places,
 * each path cut to its ends (path_repr), so it stays short however deep the
 * cycle is found. */
static int cycle_err(PyObject *where, PyObject *loop, const char *tpname, Py_ssize_t steps) {
  PyObject *a = path_repr(where), *b = a ? path_repr(loop) : NULL;
  if (b)
    PyErr_Format(PyExc_RecursionError,
                 "the tree contains a cycle: the %s at %U is in itself, again at %U (a cycle of "
                 "%zd steps; a tree must not contain itself)",
                 tpname, a, b, steps);
  Py_XDECREF(a);
  Py_XDECREF(b);
  return -1;
}

/* Keep reg (a registration met) for the spec, once. */
static int add_reg(walk *w, PyObject *reg) {
  for (Py_ssize_t i = 0; i < w->nregs; i++)
    if (w->regs[i] == reg) return 0;
  if (GROW(w, regs, nregs, cregs, 1, NULL) < 0) return -1;
  Py_INCREF(reg);
  w->regs[w->nregs++] = reg;
  return 0;
}

/* ---------------------------------------------------------------------------
 * The walk
 * ------------------------------------------------------------------------- */

/* Before any user code runs: own the dict values that frames hold borrowed
 * (user code could drop a dict's last reference to one). */
static void pin_all(walk *w) {
  if (w->pinned) return;
  for (Py_ssize_t d = 0; d < w->nfr; d++) {
    frame *f = &w->fr[d];
    if ((f->kind == K_DICT || f->kind == K_ODICT || f->kind == K_DDICT) && !f->pinned) {
      for (Py_ssize_t j = 0; j < f->n; j++)
        Py_INCREF(w->vals[f->vbase + j]);
      f->pinned = 1;
    }
  }
  w->pinned = 1;
}

static int push_leaf(walk *w, PyObject *o) {
  if (GROW(w, lv, nlv, clv, 1, w->lv_inl) < 0) return -1;
  Py_INCREF(o);
  w->lv[w->nlv++] = o;
  if (w->spec) {
    if (GROW(w, nodes, nnodes, cnodes, 1, w->nodes_inl) < 0) return -1;
    w->nodes[w->nnodes++] = STAR();
  }
  return 0;
}

static int push_node(walk *w, const gv_node *n) {
  if (GROW(w, nodes, nnodes, cnodes, 1, w->nodes_inl) < 0) return -1;
  w->nodes[w->nnodes++] = n;
  return 0;
}

static void frame_release(walk *w, frame *f) {
  if (f->kind == K_DICT || f->kind == K_ODICT || f->kind == K_DDICT) {
    if (f->pinned)
      for (Py_ssize_t j = 0; j < f->n; j++)
        Py_DECREF(w->vals[f->vbase + j]);
    w->nvals = f->vbase;
  }
  if (f->in_path) ps_del(&w->path, f->obj);
  if (f->kind == K_CUSTOM) w->ncust--;
  Py_XDECREF(f->seq);
  Py_XDECREF(f->entries);
  Py_XDECREF(f->reg);
  Py_DECREF(f->obj);
}

static int oom_or_raise(walk *w, gv_status s, const gv_error *e) {
  if (s == GV_ENOMEM) w->oom = 1;
  raise_gv(s, e);
  return -1;
}

/* A list or tuple frame (the common case, made in place). */
static int push_seq(walk *w, PyObject *o, int kind, Py_ssize_t n) {
  if (w->nfr >= CYCLE_DEPTH) return push_frame(w, o, kind, NULL);
  if (GROW(w, fr, nfr, cfr, 1, w->fr_inl) < 0) return -1;
  frame *f = &w->fr[w->nfr++];
  Py_INCREF(o);
  f->obj = o;
  f->seq = f->entries = f->reg = NULL;
  f->n = n;
  f->i = 0;
  f->kind = kind;
  f->in_path = f->pinned = 0;
  f->nbase = w->nnodes;
  f->tname = f->meta = NULL;
  return 0;
}

static int push_frame(walk *w, PyObject *o, int kind, PyObject *reg) {
  if (w->nfr >= MAX_WALK_DEPTH)
    return walk_err(w, PyExc_RecursionError, "the tree is nested deeper than %zd levels",
                    MAX_WALK_DEPTH);
  if (GROW(w, fr, nfr, cfr, 1, w->fr_inl) < 0) return -1;
  /* The frame's reference, taken first: o is borrowed from its parent, and from
   * here on code may run (finalizers on allocation, a class's flatten) that
   * drops the parent's. */
  Py_INCREF(o);
  int in_path = 0;
  if (w->nfr >= CYCLE_DEPTH) {
    int r = ps_add(&w->path, o);
    if (r < 0) {
      PyErr_NoMemory();
      Py_DECREF(o);
      return -1;
    }
    if (r == 0) {
      Py_ssize_t d = 0;
      while (d < w->nfr && w->fr[d].obj != o)
        d++;
      PyObject *where = walk_path(w, d), *loop = where ? walk_path(w, w->nfr) : NULL;
      if (loop) cycle_err(where, loop, Py_TYPE(o)->tp_name, w->nfr - d);
      Py_XDECREF(where);
      Py_XDECREF(loop);
      Py_DECREF(o);
      return -1;
    }
    in_path = 1;
  }
  frame f = {.kind = kind, .maxlen = -1, .nbase = w->nnodes};
  if (kind == K_CUSTOM) {
    if (w->ncust >= MAX_CUSTOM_DEPTH) {
      walk_err(w, PyExc_RecursionError,
               "Maximum recursion depth exceeded during flattening the tree: %zd custom nodes "
               "(%R) nested in one another (grove's limit for nodes flattened by Python code)",
               w->ncust, (PyObject *)Py_TYPE(o));
      goto fail;
    }
    Py_INCREF(reg); /* borrowed from the cache, which code may empty */
    f.reg = reg;
  }
  switch (kind) {
  case K_LIST:
    f.n = PyList_GET_SIZE(o);
    break;
  case K_TUPLE:
    f.n = PyTuple_GET_SIZE(o);
    break;
  case K_NT:
  case K_SS:
    f.n = PyTuple_GET_SIZE(o);
    if (w->spec && !(f.tname = name_node_known(w->g, (PyObject *)Py_TYPE(o)))) {
      int oom = 0;
      pin_all(w); /* (naming a class: code and allocations) */
      f.tname = name_node(w->st, w->g, (PyObject *)Py_TYPE(o), &oom);
      if (!f.tname) {
        w->oom |= oom;
        goto fail;
      }
    }
    break;
  case K_DICT:
  case K_ODICT:
  case K_DDICT: {
    Py_ssize_t n = PyDict_GET_SIZE(o);
    if (GROW(w, vals, nvals, cvals, n, NULL) < 0) goto fail;
    PyObject *kbuf_inl[32], **kbuf = kbuf_inl;
    if (n > 32 && !(kbuf = PyMem_Malloc((size_t)n * sizeof *kbuf))) {
      PyErr_NoMemory();
      goto fail;
    }
    PyObject **vals = n ? w->vals + w->nvals : NULL; /* borrowed until pin_all */
    Py_ssize_t j = dict_items(o, kbuf, vals, n);
    for (Py_ssize_t q = 0; q < j; q++)
      __builtin_prefetch(vals[q], 1); /* their types are read and counts written soon */
    f.vbase = w->nvals;
    f.n = j;
    w->nvals += j;
    f.pinned = w->pinned;
    if (f.pinned)
      for (Py_ssize_t q = 0; q < j; q++)
        Py_INCREF(vals[q]);
    uint64_t kh = 0;
    int order_by = kind == K_ODICT ? KS_ODICT : w->dict_ins ? KS_INSERTION : KS_SORTED;
    f.ks = keyset_cached(w, kbuf, j, order_by, &kh);
    if (!f.ks) { /* making the keyset may run user code: hold everything first */
      pin_all(w);
      if (!f.pinned) {
        for (Py_ssize_t q = 0; q < j; q++)
          Py_INCREF(w->vals[f.vbase + q]);
        f.pinned = 1;
      }
      f.ks = keyset_for(w, kbuf, j, order_by, kh);
    }
    if (kbuf != kbuf_inl) PyMem_Free(kbuf);
    if (!f.ks) {
      if (f.pinned)
        for (Py_ssize_t q = 0; q < j; q++)
          Py_DECREF(w->vals[f.vbase + q]);
      w->nvals = f.vbase;
      goto fail;
    }
    f.perm = kind == K_ODICT ? NULL : GV__CONT(f.ks)->perm;
    if (f.ks->aux16 & GV__KS_HOST) w->handles = 1; /* (its keys may be handles) */
    if (kind == K_DDICT && w->spec) {
      pin_all(w);
      if (!f.pinned) {
        for (Py_ssize_t q = 0; q < j; q++)
          Py_INCREF(w->vals[f.vbase + q]);
        f.pinned = 1;
      }
      PyObject *fac = PyObject_GetAttr(o, w->st->s_default_factory);
      int oom = 0;
      f.tname = fac ? name_node(w->st, w->g, fac, &oom) : NULL;
      Py_XDECREF(fac);
      if (!f.tname) {
        w->oom |= oom;
        f.pinned = 1;
        for (Py_ssize_t q = 0; q < j; q++)
          Py_DECREF(w->vals[f.vbase + q]);
        w->nvals = f.vbase;
        goto fail;
      }
    }
    break;
  }
  case K_DEQUE: {
    pin_all(w); /* the tuple is an allocation: the collector's finalizers may run */
    f.seq = seq_tuple(o);
    if (!f.seq) goto fail;
    f.n = PyTuple_GET_SIZE(f.seq);
    PyObject *ml = PyObject_GetAttr(o, w->st->s_maxlen);
    if (!ml) goto fail_seq;
    if (ml != Py_None) f.maxlen = PyLong_AsLongLong(ml);
    Py_DECREF(ml);
    if (f.maxlen == -1 && PyErr_Occurred()) goto fail_seq;
    break;
  }
  case K_CUSTOM: {
    pin_all(w);
    w->found_custom = 1;
    PyObject *out = PyObject_CallOneArg(PyTuple_GET_ITEM(f.reg, 1), o), *t;
    if (!out) goto fail;
    t = seq_tuple(out);
    Py_DECREF(out);
    if (!t) goto fail;
    Py_ssize_t no = PyTuple_GET_SIZE(t);
    if (no != 2 && no != 3) {
      Py_DECREF(t);
      walk_err(w, PyExc_RuntimeError,
               "PyTree custom flatten function for type %R should return a 2- or 3-tuple, "
               "got %zd.",
               (PyObject *)Py_TYPE(o), no);
      goto fail;
    }
    f.seq = seq_tuple(PyTuple_GET_ITEM(t, 0));
    if (!f.seq) {
      Py_DECREF(t);
      goto fail;
    }
    f.n = PyTuple_GET_SIZE(f.seq);
    if (no == 3 && PyTuple_GET_ITEM(t, 2) != Py_None) {
      f.entries = seq_tuple(PyTuple_GET_ITEM(t, 2));
      if (!f.entries || PyTuple_GET_SIZE(f.entries) != f.n) {
        if (f.entries)
          walk_err(w, PyExc_RuntimeError,
                   "PyTree custom flatten function for type %R returned inconsistent number of "
                   "children (%zd) and number of entries (%zd).",
                   (PyObject *)Py_TYPE(o), f.n, PyTuple_GET_SIZE(f.entries));
        Py_DECREF(t);
        Py_CLEAR(f.entries);
        goto fail_seq;
      }
    }
    if (w->spec) {
      int oom = 0;
      if (custom_meta_node(w->g, PyTuple_GET_ITEM(t, 1), f.entries, &f.meta, &w->handles, &oom) ==
              0 &&
          add_reg(w, f.reg) == 0)
        f.tname = name_node(w->st, w->g, (PyObject *)Py_TYPE(o), &oom);
      if (!f.tname) {
        w->oom |= oom;
        Py_DECREF(t);
        Py_CLEAR(f.entries);
        goto fail_seq;
      }
    }
    Py_DECREF(t);
    break;
  }
  default:
    PyErr_SetString(PyExc_SystemError, "grove: bad node kind");
    goto fail;
  }
  f.obj = o; /* (the reference taken on entry) */
  f.in_path = in_path;
  if (kind == K_CUSTOM) w->ncust++;
  w->fr[w->nfr++] = f;
  return 0;
fail_seq:
  Py_XDECREF(f.seq);
fail:
  Py_XDECREF(f.reg);
  if (in_path) ps_del(&w->path, o);
  Py_DECREF(o);
  return -1;
}

static int visit_body(walk *w, PyObject *o, int *held);

/* Visit o (borrowed from its parent). While user code may run, o is held:
 * that code could drop the parent's reference to it. */
static int visit(walk *w, PyObject *o) {
  int held = 0;
  if (w->pinned) {
    Py_INCREF(o);
    held = 1;
  }
  int r = visit_body(w, o, &held);
  if (held) Py_DECREF(o);
  return r;
}

static int visit_body(walk *w, PyObject *o, int *held) {
  if (w->fa->is_leaf) {
    PyObject *r = PyObject_CallOneArg(w->fa->is_leaf, o);
    if (!r) return -1;
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    if (t < 0) return -1;
    if (t) return push_leaf(w, o);
  }
  PyTypeObject *tp = Py_TYPE(o);
  PyObject *reg = NULL;
  int kind;
  if (tp == &PyList_Type)
    return push_seq(w, o, K_LIST, PyList_GET_SIZE(o));
  else if (tp == &PyTuple_Type)
    return push_seq(w, o, K_TUPLE, PyTuple_GET_SIZE(o));
  else if (tp == &PyDict_Type)
    kind = K_DICT;
  else if ((tp == &PyLong_Type || tp == &PyFloat_Type || tp == &PyUnicode_Type ||
            tp == &PyBool_Type) &&
           fast_leaves(w->st))
    return push_leaf(w, o);
  else if (o == Py_None) {
    if (w->fa->none_is_leaf) return push_leaf(w, o);
    return w->spec ? push_node(w, w->g->none_node) : 0;
  } else if (tp == w->last_tp && !w->pinned) {
    kind = w->last_kind;
    reg = w->last_reg;
    if (kind == K_LEAF) return push_leaf(w, o);
  } else {
    if (classify_cached(w->st, w->fa->ns, tp, &kind, &reg)) {
      if (!w->pinned) {
        w->last_tp = tp;
        w->last_kind = kind;
        w->last_reg = reg;
      }
    } else {
      /* a class not seen yet: classifying it looks at its attributes (code) */
      if (!*held) {
        Py_INCREF(o);
        *held = 1;
      }
      pin_all(w);
      kind = classify(w->st, w->fa->ns, tp, &reg);
      if (kind < 0) return -1;
    }
    if (kind == K_LEAF) return push_leaf(w, o);
  }
  if (kind == K_NT || kind == K_SS) { /* in place, when its class is named already */
    const gv_node *tn = NULL;
    if (w->nfr < CYCLE_DEPTH && (!w->spec || (tn = name_node_known(w->g, (PyObject *)tp)))) {
      if (push_seq(w, o, kind, PyTuple_GET_SIZE(o)) < 0) return -1;
      w->fr[w->nfr - 1].tname = tn;
      return 0;
    }
  }
  return push_frame(w, o, kind, reg);
}

static int finish(walk *w) {
  frame *f = &w->fr[w->nfr - 1];
  if (w->spec) {
    const gv_node **kids = w->nodes + f->nbase, *out = NULL;
    size_t n = (size_t)f->n;
    gv_error e;
    gv_status s;
    switch (f->kind) {
    case K_LIST:
    case K_TUPLE: {
      unsigned kind = f->kind == K_LIST ? GV_LIST : GV_TUPLE;
      s = memo_seq(w->g, (size_t)w->nfr, kind, kids, n, &out, &e);
      break;
    }
    case K_DICT:
    case K_DDICT:
      if (f->perm) {
        if (GROW(w, tmp, ctmp, ctmp, (Py_ssize_t)n - w->ctmp, NULL) < 0) return -1;
        for (size_t r = 0; r < n; r++)
          w->tmp[f->perm[r]] = kids[r];
        kids = w->tmp;
      }
      /* fall through */
    case K_ODICT: {
      unsigned kind = f->kind == K_DICT ? GV_DICT : f->kind == K_ODICT ? GV_ODICT : GV_DDICT;
      const gv_node *aux = f->kind == K_DDICT ? f->tname : NULL;
      s = memo_record(w->g, kind, f->ks, aux, kids, n, &out, &e);
      break;
    }
    case K_DEQUE:
      s = gv_deque(w->a, kids, n, f->maxlen, &out, &e);
      break;
    default: /* namedtuple, structseq, custom */
      if (w->ct && f->tname == w->ct_name && f->meta == w->ct_meta) {
        /* the type node of the last one (the same as gv_custom would find) */
        s = memo_record(w->g, GV_CUSTOM, w->ct, NULL, kids, n, &out, &e);
        break;
      }
      s = gv_custom(w->a, f->tname, NULL, kids, n, f->meta, &out, &e);
      if (s == GV_OK) {
        w->ct_name = f->tname;
        w->ct_meta = f->meta;
        w->ct = GV__CONT(out)->meta;
      }
      break;
    }
    if (s != GV_OK) return oom_or_raise(w, s, &e);
    w->nnodes = f->nbase;
    w->nodes[w->nnodes++] = out;
  }
  frame_release(w, f);
  w->nfr--;
  return 0;
}

static int run(walk *w, PyObject *root) {
  if (visit(w, root) < 0) return -1;
  while (w->nfr > 0) {
    frame *f = &w->fr[w->nfr - 1];
    if (f->i >= f->n) {
      if (finish(w) < 0) return -1;
      continue;
    }
    Py_ssize_t r = f->i++;
    PyObject *child;
    switch (f->kind) {
    case K_LIST:
      if (r >= PyList_GET_SIZE(f->obj)) {
        f->i--;
        return walk_err(w, PyExc_IndexError,
                        "list index out of range (the list changed size during iteration)");
      }
      child = PyList_GET_ITEM(f->obj, r);
      break;
    case K_TUPLE:
    case K_NT:
    case K_SS:
      child = PyTuple_GET_ITEM(f->obj, r);
      break;
    case K_DICT:
    case K_DDICT:
      child = w->vals[f->vbase + (f->perm ? (Py_ssize_t)f->perm[r] : r)];
      break;
    case K_ODICT:
      child = w->vals[f->vbase + r];
      break;
    default:
      child = PyTuple_GET_ITEM(f->seq, r);
      break;
    }
    if (visit(w, child) < 0) return -1;
  }
  return 0;
}

static void walk_free(walk *w) {
  while (w->nfr > 0) {
    frame_release(w, &w->fr[w->nfr - 1]);
    w->nfr--;
  }
  for (Py_ssize_t i = 0; i < w->nlv; i++)
    Py_DECREF(w->lv[i]);
  if (w->fr != w->fr_inl) {
    /* a deep tree's frame stack is kept for the next walk (re-growing it
     * from the inline frames costs copies on every call) */
    if (!w->st->frcache && w->cfr <= FRCACHE_MAX) {
      w->st->frcache = w->fr;
      w->st->frcache_cap = w->cfr;
    } else {
      PyMem_Free(w->fr);
    }
  }
  if (w->lv != w->lv_inl) PyMem_Free(w->lv);
  if (w->nodes != w->nodes_inl) PyMem_Free(w->nodes);
  PyMem_Free(w->vals);
  PyMem_Free(w->tmp);
  ps_free(&w->path);
  for (Py_ssize_t i = 0; i < w->nregs; i++)
    Py_DECREF(w->regs[i]);
  PyMem_Free(w->regs);
}

static int walk_once(gstate *st, const flat_args *fa, PyObject **leaves, PyObject **spec,
                     int *oom) {
  walk w;
  memset(&w, 0, offsetof(walk, fr_inl));
  w.st = st;
  if (dict_insertion_ordered(st, fa->ns, &w.dict_ins) < 0) return -1;
  w.g = op_gen(st);
  if (!w.g) return -1;
  Py_INCREF(w.g); /* the generation may be replaced by a callback; keep ours */
  w.a = w.g->a;
  w.fa = fa;
  w.spec = spec != NULL;
  w.fr = w.fr_inl;
  w.cfr = INL_FR;
  if (st->frcache) { /* (a nested walk, from a callback, finds none and uses its own) */
    w.fr = st->frcache;
    w.cfr = st->frcache_cap;
    st->frcache = NULL;
  }
  w.lv = w.lv_inl;
  w.clv = INL_N;
  w.nodes = w.nodes_inl;
  w.cnodes = INL_N;
  w.pinned = fa->is_leaf != NULL;
  w.found_custom = w.dict_ins == 2; /* (optree's spec then keeps the namespace) */
  int rc = run(&w, fa->tree);
  if (rc == 0) {
    PyObject *l = PyList_New(w.lv == w.lv_inl ? w.nlv : 0);
    if (!l) {
      rc = -1;
    } else {
      if (w.lv == w.lv_inl) {
        if (w.nlv) memcpy(((PyListObject *)l)->ob_item, w.lv, (size_t)w.nlv * sizeof(PyObject *));
      } else { /* the list takes the buffer (PyMem memory, as a list's own) */
        PyListObject *pl = (PyListObject *)l;
        pl->ob_item = w.lv;
        pl->allocated = w.clv;
        Py_SET_SIZE(pl, w.nlv);
        w.lv = w.lv_inl;
      }
      w.nlv = 0; /* stolen */
      if (spec) {
        PyObject *regs = w.nregs ? tuple_from(w.regs, w.nregs) : NULL;
        *spec = (regs || !w.nregs)
                    ? spec_new(st, w.g, w.nodes[0], fa->none_is_leaf,
                               w.found_custom ? fa->ns : st->empty_ns, regs, w.handles)
                    : NULL;
        Py_XDECREF(regs);
        if (!*spec) {
          Py_DECREF(l);
          rc = -1;
        }
      }
      if (rc == 0) *leaves = l;
    }
  }
  *oom = w.oom;
  walk_free(&w);
  Py_DECREF(w.g);
  return rc;
}

int do_flatten(gstate *st, const flat_args *fa, PyObject **leaves, PyObject **spec) {
  int oom = 0;
  if (walk_once(st, fa, leaves, spec, &oom) == 0) return 0;
  if (!oom) return -1;
  /* the generation is full: start a new one and try once more there */
  PyErr_Clear();
  if (new_gen(st) < 0) return -1;
  oom = 0;
  if (walk_once(st, fa, leaves, spec, &oom) == 0) return 0;
  if (oom) {
    PyErr_Clear();
    PyErr_Format(PyExc_MemoryError,
                 "grove: this structure does not fit in the memory limit (%zu bytes); raise it "
                 "with grove.set_memory_limit()",
                 st->limit);
  }
  return -1;
}

/* ---------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------- */

static const char *const FLAT_NAMES[] = {"tree", "is_leaf", "none_is_leaf", "namespace", NULL};

/* fname(tree, is_leaf=None, none_is_leaf=False, namespace=''): its arguments
 * parsed and the tree flattened (do_flatten). */
static int flat_call(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw,
                     const char *fname, PyObject **leaves, PyObject **spec) {
  gstate *st = state_of_module(m);
  PyObject *a[4];
  flat_args fa;
  if (parse_args(args, nargs, kw, fname, FLAT_NAMES, 2, 1, a) < 0) return -1;
  int rc = flat_opts(st, a[1], a[2], a[3], &fa);
  fa.tree = a[0];
  if (rc == 0) rc = do_flatten(st, &fa, leaves, spec);
  flat_done(&fa);
  return rc;
}

PyObject *py_tree_flatten(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  PyObject *leaves = NULL, *spec = NULL;
  if (flat_call(m, args, nargs, kw, "tree_flatten", &leaves, &spec) < 0) return NULL;
  PyObject *r = PyTuple_Pack(2, leaves, spec);
  Py_DECREF(leaves);
  Py_DECREF(spec);
  return r;
}

PyObject *py_tree_leaves(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  PyObject *leaves = NULL;
  return flat_call(m, args, nargs, kw, "tree_leaves", &leaves, NULL) < 0 ? NULL : leaves;
}

PyObject *py_tree_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
  PyObject *leaves = NULL, *spec = NULL;
  if (flat_call(m, args, nargs, kw, "tree_structure", &leaves, &spec) < 0) return NULL;
  Py_DECREF(leaves);
  return spec;
}
