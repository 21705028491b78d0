/* SPDX-License-Identifier: MIT */
/* flatten_up_to.c -- TreeSpec.flatten_up_to and tree_map's other trees: the
 * subtrees of a tree at the leaves of a structure, every node matched
 * against the structure's (optree's errors). An explicit stack. */
#include "builds.h"

#include <stdarg.h>

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

static PyObject *up_path(uframe *fr, size_t depth, GenObject *g) {
  /* (a long path is cut to its ends around an Ellipsis: it is for a message) */
  size_t cut = depth > 2 * PATH_ENDS + 1 ? PATH_ENDS : depth, j = 0;
  /* (hidden until full: keys_of and custom_md allocate, which may run a finalizer) */
  PyObject *t = gc_hide(PyTuple_New((Py_ssize_t)(cut < depth ? 2 * PATH_ENDS + 1 : depth)));
  for (size_t d = 0; t && d < depth; d++) {
    if (d == cut && cut < depth) {
      Py_INCREF(Py_Ellipsis);
      PyTuple_SET_ITEM(t, (Py_ssize_t)j++, Py_Ellipsis);
      d = depth - PATH_ENDS;
    }
    const gv_node *n = fr[d].n;
    size_t r = fr[d].i - 1;
    PyObject *e;
    unsigned k = gv__kind(n);
    if (k == GV_DICT || k == GV_DDICT || k == GV_ODICT) {
      PyObject *keys = keys_of(g, gv_meta(n));
      e = keys ? PyTuple_GET_ITEM(keys, (Py_ssize_t)(k == GV_ODICT ? r : gv_order_index(n, r)))
               : NULL;
      Py_XINCREF(e);
    } else if (k == GV_CUSTOM && ctype_meta(n)) {
      PyObject *md = NULL, *ents = NULL;
      if (custom_md(g, n, &md, &ents) < 0) {
        Py_CLEAR(t);
        break;
      }
      e = ents && (Py_ssize_t)r < PyTuple_GET_SIZE(ents) ? PyTuple_GET_ITEM(ents, (Py_ssize_t)r)
                                                         : NULL;
      if (e)
        Py_INCREF(e);
      else
        e = PyLong_FromSize_t(r);
      Py_DECREF(md);
      Py_XDECREF(ents);
    } else {
      e = PyLong_FromSize_t(r);
    }
    if (!e) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)j++, e);
  }
  if (t) gc_show(t);
  return t;
}

static int up_err(uframe *fr, size_t depth, GenObject *g, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (!msg) return -1;
  PyObject *path = up_path(fr, depth, g);
  if (!path) {
    Py_DECREF(msg);
    return -1;
  }
  err_at(PyExc_ValueError, path, "%U", msg);
  Py_DECREF(path);
  Py_DECREF(msg);
  return -1;
}

/* Children of obj matching structure node n, in n's traversal order (new
 * tuple), or NULL with a ValueError. */
static PyObject *match_children(gstate *st, SpecObject *s, const gv_node *n, PyObject *o,
                                uframe *fr, size_t depth) {
  GenObject *g = s->gen;
  PyObject *cls = NULL, *reg = NULL;
  int k = node_kind(st, g, n, s->ns, s->regs, &cls, &reg);
  if (k < 0) return NULL;
  PyTypeObject *tp = Py_TYPE(o);
  size_t arity = gv__arity(n);
  switch (k) {
  case K_NONE:
    if (o != Py_None) {
      up_err(fr, depth, g, "Expected None, got %R.", o);
      return NULL;
    }
    return PyTuple_New(0);
  case K_LIST:
  case K_TUPLE:
  case K_DEQUE: {
    PyTypeObject *want = k == K_LIST ? &PyList_Type : k == K_TUPLE ? &PyTuple_Type : st->deque_t;
    if (tp != want) {
      up_err(fr, depth, g, "Expected an instance of %s, got %R.", kind_word(k), o);
      return NULL;
    }
    PyObject *t = seq_tuple(o);
    if (t && (size_t)PyTuple_GET_SIZE(t) != arity) {
      up_err(fr, depth, g, "%s arity mismatch; expected: %zu, got: %zd; %s: %R.", kind_word(k),
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
      up_err(fr, depth, g,
             "Expected an instance of dict, collections.OrderedDict, or "
             "collections.defaultdict, got %R.",
             o);
      return NULL;
    }
    PyObject *keys = keys_of(g, gv_meta(n));
    if (!keys) return NULL;
    PyObject *t = gc_hide(PyTuple_New((Py_ssize_t)arity)); /* (until full: lookups run code) */
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
        up_err(fr, depth, g,
               "dictionary key mismatch; expected key(s): %R, got key(s): %R; %s: %R.", keys, got,
               kind_word(k), o);
        Py_DECREF(got);
      }
      return NULL;
    }
    gc_show(t);
    return t;
  }
  case K_NT:
  case K_SS:
    if ((PyObject *)tp != cls) {
      if (PyTuple_Check(o) && (size_t)PyTuple_GET_SIZE(o) != arity && tp != &PyTuple_Type)
        up_err(fr, depth, g, "%s arity mismatch; expected: %zu, got: %zd; tuple: %R.", kind_word(k),
               arity, PyTuple_GET_SIZE(o), o);
      else
        up_err(fr, depth, g, "%s type mismatch; expected type: %R, got type: %R; tuple: %R.",
               kind_word(k), cls, (PyObject *)tp, o);
      return NULL;
    }
    if ((size_t)PyTuple_GET_SIZE(o) != arity) {
      up_err(fr, depth, g, "%s arity mismatch; expected: %zu, got: %zd; tuple: %R.", kind_word(k),
             arity, PyTuple_GET_SIZE(o), o);
      return NULL;
    }
    return seq_tuple(o);
  case K_CUSTOM: {
    if ((PyObject *)tp != cls) {
      up_err(fr, depth, g, "Custom node type mismatch; expected type: %R, got type: %R; value: %R.",
             cls, (PyObject *)tp, o);
      return NULL;
    }
    PyObject *fn = PyTuple_GET_ITEM(reg, 1);
    Py_INCREF(fn); /* (the registry may change while it runs) */
    PyObject *out = PyObject_CallOneArg(fn, o);
    Py_DECREF(fn);
    if (!out) return NULL;
    PyObject *t = seq_tuple(out);
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
    PyObject *md = NULL, *ents = NULL;
    if (custom_md(g, n, &md, &ents) < 0) {
      Py_DECREF(t);
      return NULL;
    }
    Py_XDECREF(ents);
    int eq = PyObject_RichCompareBool(md, PyTuple_GET_ITEM(t, 1), Py_EQ);
    if (eq <= 0) {
      if (eq == 0)
        up_err(fr, depth, g, "Mismatch custom node data; expected: %R, got: %R; value: %R.", md,
               PyTuple_GET_ITEM(t, 1), o);
      Py_DECREF(md);
      Py_DECREF(t);
      return NULL;
    }
    Py_DECREF(md);
    PyObject *kids = seq_tuple(PyTuple_GET_ITEM(t, 0));
    Py_DECREF(t);
    if (kids && (size_t)PyTuple_GET_SIZE(kids) != arity) {
      up_err(fr, depth, g, "Custom type arity mismatch; expected: %zu, got: %zd; value: %R.", arity,
             PyTuple_GET_SIZE(kids), o);
      Py_CLEAR(kids);
    }
    return kids;
  }
  default:
    return NULL;
  }
}

/* ---------------------------------------------------------------------------
 * The fast pass: no frames, no copies. A stack of (structure node, object)
 * pairs, each object a strong reference; a node's children are pushed in
 * reverse traversal order, so leaves come off in order, straight into a list
 * of the structure's leaf count. It takes every node kind but custom ones
 * and runs no code of the tree's but dict keys' __eq__ (as the full walk
 * does, in the same order). On a custom node or a mismatch it gives up (0)
 * with nothing run that the full walk would not run again the same way; the
 * full walk then builds the result or the error with its path.
 * ------------------------------------------------------------------------- */

typedef struct upair {
  const gv_node *n;
  PyObject *o; /* owned */
} upair;

/* 1 when the dict key dk is the structure's key k, or equal to it in a way no
 * code can see: both exact str of the same text, or both exact int of the
 * same value (a tree built apart has its own key objects). */
static inline int same_key(PyObject *dk, PyObject *k) {
  if (dk == k) return 1;
  PyTypeObject *t = Py_TYPE(dk);
  if (t != Py_TYPE(k)) return 0;
  if (t == &PyUnicode_Type) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(dk);
    int kind = PyUnicode_KIND(dk); /* (the narrowest that holds the text: equal texts, one kind) */
    return len == PyUnicode_GET_LENGTH(k) && kind == (int)PyUnicode_KIND(k) &&
           memcmp(PyUnicode_DATA(dk), PyUnicode_DATA(k), (size_t)len * (size_t)kind) == 0;
  }
  return t == &PyLong_Type && PyObject_RichCompareBool(dk, k, Py_EQ) == 1;
}

/* Pushes the children c[0..arity) of structure node nd in traversal order
 * (owned references taken), its leading leaves straight into out at *li. */
static inline void up_push(upair *stk, size_t *n, const gv_node *nd, PyObject *const *c,
                           size_t arity, PyObject *out, size_t *li) {
  size_t r = 0;
  for (; r < arity && gv__kind(gv__trav_child(nd, r)) == GV_STAR; r++) {
    Py_INCREF(c[r]);
    PyList_SET_ITEM(out, (Py_ssize_t)(*li)++, c[r]);
  }
  for (size_t q = arity; q-- > r;) {
    Py_INCREF(c[q]);
    stk[(*n)++] = (upair){gv__trav_child(nd, q), c[q]};
  }
}

/* 1 done (*res the list), 0 given up, -1 an exception (from a key's __eq__
 * or memory). */
static int up_fast(gstate *st, SpecObject *s, PyObject *tree, PyObject **res) {
  GenObject *g = s->gen;
  uint64_t nleaves = gv_num_leaves(s->node);
  if (nleaves > (uint64_t)PY_SSIZE_T_MAX) return 0;
  PyObject *out = PyList_New((Py_ssize_t)nleaves);
  if (!out) return -1;
  /* Its slots are NULL until filled, and code may run meanwhile (a key's __hash__ or __eq__
   * in a lookup below): untracked, gc.get_objects() cannot hand it to that code. */
  PyObject_GC_UnTrack(out);
  upair *stk = NULL;
  PyObject **tmp = NULL; /* (borrowed values of one dict, while no code runs) */
  size_t n = 0, cap = 0, li = 0, ctmp = 0;
  int rc = 0;
  if (bgrow((void **)&stk, &cap, 1, sizeof *stk) < 0) goto fail;
  Py_INCREF(tree);
  stk[n++] = (upair){s->node, tree};
  while (n) {
    upair it = stk[--n];
    const gv_node *nd = it.n;
    PyObject *o = it.o;
    size_t arity;
    PyTypeObject *tp;
  again:
    arity = gv__arity(nd);
    tp = Py_TYPE(o);
    switch (gv__kind(nd)) {
    case GV_STAR:
      if (li >= nleaves) goto give_up_o;
      PyList_SET_ITEM(out, (Py_ssize_t)li++, o); /* (the reference moves to out) */
      continue;
    case GV_LIST:
    case GV_TUPLE: {
      if (tp != (gv__kind(nd) == GV_LIST ? &PyList_Type : &PyTuple_Type)) goto give_up_o;
      if (bgrow((void **)&stk, &cap, n + arity, sizeof *stk) < 0) goto fail_o;
      /* (no code runs from here to the pushes: the size read is the size used) */
      if ((size_t)Py_SIZE(o) != arity) goto give_up_o;
      PyObject **items =
          tp == &PyList_Type ? ((PyListObject *)o)->ob_item : ((PyTupleObject *)o)->ob_item;
      if (arity == 1) { /* a chain: its one child next, without the stack */
        unsigned kind = gv__kind(nd);
        const gv_node *cn = GV__CONT(nd)->kids[0];
        PyObject *c = items[0];
        /* (links of the same kind and one child each borrowed: no code runs along it) */
        while (!gv__is_imm(cn) && cn->kind == kind && cn->arity == 1 && Py_TYPE(c) == tp &&
               Py_SIZE(c) == 1) {
          c = tp == &PyList_Type ? ((PyListObject *)c)->ob_item[0]
                                 : ((PyTupleObject *)c)->ob_item[0];
          cn = GV__CONT(cn)->kids[0];
        }
        Py_INCREF(c);
        Py_DECREF(o); /* (its parent, or the caller, still holds it: nothing is freed) */
        nd = cn;
        o = c;
        goto again;
      }
      up_push(stk, &n, nd, items, arity, out, &li);
      break;
    }
    case GV_DICT:
    case GV_ODICT:
    case GV_DDICT: {
      if (tp != &PyDict_Type && tp != st->odict_t && tp != st->ddict_t) goto give_up_o;
      if ((size_t)PyDict_GET_SIZE(o) != arity) goto give_up_o;
      if (!arity) break; /* (an empty dict: nothing below it) */
      PyObject *keys = keys_of(g, gv_meta(nd));
      if (!keys) goto fail_o;
      if (bgrow((void **)&stk, &cap, n + arity, sizeof *stk) < 0) goto fail_o;
      if (bgrow((void **)&tmp, &ctmp, 2 * arity, sizeof *tmp) < 0) goto fail_o;
      size_t base = n, kind = gv__kind(nd);
      /* the dict's own keys, in its order, the very objects of the structure's (a tree
       * rebuilt from a structure, or the structure's own): the values by position, no
       * hashing, no code run */
      Py_ssize_t pos = 0;
      size_t m = 0;
      PyObject *dk, *dv;
      while (m < arity && PyDict_Next(o, &pos, &dk, &dv) &&
             same_key(dk, PyTuple_GET_ITEM(keys, (Py_ssize_t)m)))
        tmp[m++] = dv;
      if (m == arity) {
        if (kind != GV_ODICT) /* (in traversal order, where the leaves go) */
          for (size_t r = 0; r < arity; r++)
            tmp[arity + r] = tmp[gv_order_index(nd, r)];
        up_push(stk, &n, nd, tmp + (kind == GV_ODICT ? 0 : arity), arity, out, &li);
        break;
      }
      Py_INCREF(keys);
      /* else the values in traversal order, as the full walk looks them up */
      n += arity;
      for (size_t r = 0; r < arity; r++)
        stk[base + arity - 1 - r] = (upair){gv__trav_child(nd, r), NULL};
      for (size_t r = 0; r < arity; r++) {
        size_t ix = kind == GV_ODICT ? r : gv_order_index(nd, r);
        PyObject *v = PyDict_GetItemWithError(o, PyTuple_GET_ITEM(keys, (Py_ssize_t)ix));
        if (!v) {
          Py_DECREF(keys);
          if (PyErr_Occurred()) goto fail_o;
          goto give_up_o;
        }
        Py_INCREF(v);
        stk[base + arity - 1 - r].o = v;
      }
      Py_DECREF(keys);
      break;
    }
    case GV_CUSTOM: {
      PyObject *cls = NULL, *reg = NULL;
      int k = custom_info(st, g, nd, s->ns, s->regs, &cls, &reg);
      if (k < 0) goto fail_o;
      if (k == K_NONE) {
        if (o != Py_None) goto give_up_o;
        break;
      }
      if ((k != K_NT && k != K_SS) || (PyObject *)tp != cls) goto give_up_o;
      if (bgrow((void **)&stk, &cap, n + arity, sizeof *stk) < 0) goto fail_o;
      if ((size_t)PyTuple_GET_SIZE(o) != arity) goto give_up_o;
      for (size_t r = arity; r-- > 0;) {
        PyObject *x = PyTuple_GET_ITEM(o, (Py_ssize_t)r);
        Py_INCREF(x);
        stk[n++] = (upair){gv__trav_child(nd, r), x};
      }
      break;
    }
    default: /* deques and anything else: the full walk */
      goto give_up_o;
    }
    Py_DECREF(o);
    continue;
  give_up_o:
    Py_DECREF(o);
    rc = 0;
    goto out;
  fail_o:
    Py_DECREF(o);
    goto fail;
  }
  if (li != nleaves) goto out;
  PyMem_Free(stk);
  PyMem_Free(tmp);
  PyObject_GC_Track(out); /* (full now) */
  *res = out;
  return 1;
fail:
  rc = -1;
out:
  while (n) {
    n--;
    Py_XDECREF(stk[n].o);
  }
  PyMem_Free(stk);
  PyMem_Free(tmp);
  Py_DECREF(out);
  return rc;
}

/* The subtrees of tree at the leaves of node, into a new list. */
static PyObject *up_to_node(gstate *st, SpecObject *s, PyObject *tree) {
  const gv_node *node = s->node;
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  if (gv__kind(node) == GV_STAR) {
    if (PyList_Append(out, tree) < 0) Py_CLEAR(out);
    return out;
  }
  uframe *fr = NULL;
  size_t nfr = 0, cfr = 0;
  PyObject *items = match_children(st, s, node, tree, fr, 0);
  if (!items) goto fail;
  if (bgrow((void **)&fr, &cfr, 1, sizeof *fr) < 0) {
    Py_DECREF(items);
    goto fail;
  }
  Py_INCREF(tree);
  fr[nfr++] = (uframe){node, tree, items, 0};
  while (nfr) {
    uframe *f = &fr[nfr - 1];
    if (f->i == gv__arity(f->n)) {
      Py_DECREF(f->obj);
      Py_DECREF(f->items);
      nfr--;
      continue;
    }
    size_t r = f->i++;
    const gv_node *c = gv__trav_child(f->n, r);
    PyObject *co = PyTuple_GET_ITEM(f->items, (Py_ssize_t)r);
    if (gv__kind(c) == GV_STAR) {
      if (PyList_Append(out, co) < 0) goto fail;
      continue;
    }
    PyObject *ci = match_children(st, s, c, co, fr, nfr);
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
  Py_INCREF(s); /* (its generation and registrations, whatever the code run drops) */
  PyObject *r = NULL;
  /* (a structure flatten made with registered classes in it goes straight to the full walk) */
  int fast = s->regs ? 0 : up_fast(st, s, tree, &r);
  if (fast == 0) r = up_to_node(st, s, tree);
  Py_DECREF(s);
  return r;
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
