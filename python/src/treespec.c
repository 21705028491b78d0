/* SPDX-License-Identifier: MIT */
/* treespec.c -- the TreeSpec type: a strong reference to its generation and a
 * structure node in that generation's arena, plus none_is_leaf and namespace.
 *
 * Equality ignores dict insertion order (as optree's does): it compares the
 * "canonical" node, the structure with every dict and defaultdict in its
 * traversal order (grove's ordering pass, O(1) for a node that is already
 * canonical). In one generation that is a pointer compare; across
 * generations it compares 128-bit fingerprints of the canonical nodes,
 * computed once per TreeSpec and cached (a content hash of the canonical
 * encoding: collisions at 2^-64 odds, no walk of either tree). hash() is the
 * canonical node's stored 64-bit hash mixed with none_is_leaf; like optree's it
 * leaves the namespace out (specs of different namespaces may compare equal). */
#include "treespec.h"

static void spec_dealloc(PyObject *self) {
  SpecObject *s = (SpecObject *)self;
  PyTypeObject *tp = Py_TYPE(self);
  Py_CLEAR(s->gen);
  Py_CLEAR(s->cgen);
  Py_CLEAR(s->ns);
  Py_CLEAR(s->regs);
  tp->tp_free(self);
  Py_DECREF(tp);
}

static gstate *spec_state(PyObject *self) {
  return state_of_type(Py_TYPE(self));
}

/* gv__copy_map's handle map from one generation to another. */
struct hcopy {
  GenObject *from, *to;
  int bad;
};
static uint64_t copy_handle(void *ctx, uint64_t h) {
  struct hcopy *c = ctx;
  PyObject *o = handle_obj(c->from, h);
  uint64_t nh = o ? handle_for(c->to, o) : 0;
  if (!nh) {
    PyErr_Clear();
    c->bad = 1;
    return h;
  }
  return nh;
}

/* The canonical node (computed once). 0, or -1 with an exception. */
static int spec_canon(SpecObject *s) {
  if (s->canon) return 0;
  gstate *st = spec_state((PyObject *)s);
  gv_error e;
  const gv_node *out = NULL;
  gv_status rc = gv_order(s->gen->a, s->node, &out, NULL, &e);
  if (rc == GV_OK) {
    Py_INCREF(s->gen);
    s->cgen = s->gen;
    s->canon = out;
    return 0;
  }
  if (rc != GV_ENOMEM) {
    raise_gv(rc, &e);
    return -1;
  }
  /* the spec's generation is full: canonicalize a copy in a fresh one (its
   * handles numbered there: the copy holds the same objects) */
  for (int attempt = 0; attempt < 2; attempt++) {
    GenObject *g = attempt ? (new_gen(st) < 0 ? NULL : st->cur) : cur_gen(st);
    if (!g) return -1;
    const gv_node *c = NULL;
    struct hcopy hc = {s->gen, g, 0};
    rc = gv__copy_map(g->a, s->node, copy_handle, &hc, &c, &e);
    if (rc == GV_OK && hc.bad) {
      PyErr_NoMemory();
      return -1;
    }
    if (rc == GV_OK) rc = gv_order(g->a, c, &out, NULL, &e);
    if (rc == GV_OK) {
      Py_INCREF(g);
      s->cgen = g;
      s->canon = out;
      return 0;
    }
    if (rc != GV_ENOMEM) break;
  }
  raise_gv(rc, &e);
  return -1;
}

static int spec_fp(SpecObject *s) {
  if (s->has_fp) return 0;
  if (spec_canon(s) < 0) return -1;
  gv_error e;
  gv_status rc = gv_fingerprint(s->cgen->a, s->canon, s->fp, &e);
  if (rc != GV_OK) {
    raise_gv(rc, &e);
    return -1;
  }
  s->has_fp = 1;
  return 0;
}

/* Whether a and b, equal as structures, were made with the same
 * registration for every class both use (optree compares them). */
static int same_regs(SpecObject *a, SpecObject *b) {
  if (!a->regs || !b->regs || a->regs == b->regs) return 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a->regs); i++) {
    PyObject *ra = PyTuple_GET_ITEM(a->regs, i);
    PyObject *rb = spec_registration(b->regs, PyTuple_GET_ITEM(ra, 0));
    if (rb && rb != ra) return 0;
  }
  return 1;
}

/* The hash of s's canonical node: its stored one, or, when s may hold
 * handles, the hash in which every handle counts the same (spec_compare.c). */
static int spec_hash64_of(SpecObject *s, uint64_t *out) {
  if (spec_canon(s) < 0) return -1;
  if (!s->handles) {
    *out = gv_hash(s->canon);
    return 0;
  }
  return blind_hash(s->canon, out);
}

static Py_hash_t spec_hash(PyObject *self);

/* 1 equal, 0 not, -1 error. */
static int spec_equal(SpecObject *a, SpecObject *b) {
  if (a == b) return 1;
  if (a->none_is_leaf != b->none_is_leaf) return 0;
  if (a->ns != b->ns && PyUnicode_GET_LENGTH(a->ns) && PyUnicode_GET_LENGTH(b->ns)) {
    int r = PyUnicode_Compare(a->ns, b->ns);
    if (r == -1 && PyErr_Occurred()) return -1;
    if (r != 0) return 0;
  }
  if (a->gen == b->gen && a->node == b->node) return same_regs(a, b);
  if (gv_num_leaves(a->node) != gv_num_leaves(b->node)) return 0;
  if (spec_canon(a) < 0 || spec_canon(b) < 0) return -1;
  if (!a->handles && !b->handles) {
    int eq;
    if (a->cgen == b->cgen) {
      eq = a->canon == b->canon;
    } else {
      if (gv_hash(a->canon) != gv_hash(b->canon)) return 0;
      if (spec_fp(a) < 0 || spec_fp(b) < 0) return -1;
      eq = memcmp(a->fp, b->fp, 16) == 0;
    }
    return eq && same_regs(a, b);
  }
  /* handles: the nodes differ when the objects do, equal or not (==) */
  if (a->cgen == b->cgen && a->canon == b->canon) return same_regs(a, b);
  Py_hash_t ha = spec_hash((PyObject *)a), hb = ha == -1 ? -1 : spec_hash((PyObject *)b);
  if (ha == -1 || hb == -1) return -1; /* (cached: computed once per TreeSpec) */
  if (ha != hb) return 0;
  Py_INCREF(a); /* (== of the objects is code: it may drop the last other reference) */
  Py_INCREF(b);
  int eq = nodes_equal(a->cgen, a->canon, b->cgen, b->canon);
  if (eq > 0) eq = same_regs(a, b);
  Py_DECREF(a);
  Py_DECREF(b);
  return eq;
}

static PyObject *spec_richcompare(PyObject *a, PyObject *b, int op) {
  gstate *st = spec_state(a);
  if (!PyObject_TypeCheck(b, st->spec_type)) Py_RETURN_NOTIMPLEMENTED;
  if (op != Py_EQ && op != Py_NE) {
    /* optree's order: a < b when a is a strict prefix of b, a <= b a prefix, and
     * > and >= the same the other way round (TreeSpec.is_prefix: the Python layer) */
    PyObject *x = op == Py_LT || op == Py_LE ? a : b, *y = x == a ? b : a;
    return PyObject_CallMethod(x, "is_prefix", "OO", y,
                               op == Py_LT || op == Py_GT ? Py_True : Py_False);
  }
  int r = spec_equal((SpecObject *)a, (SpecObject *)b);
  if (r < 0) return NULL;
  return PyBool_FromLong(op == Py_EQ ? r : !r);
}

static Py_hash_t spec_hash(PyObject *self) {
  SpecObject *s = (SpecObject *)self;
  if (s->hash != -1) return s->hash;
  uint64_t h;
  if (spec_hash64_of(s, &h) < 0) return -1;
  h ^= s->none_is_leaf ? UINT64_C(0x9E3779B97F4A7C15) : 0;
  Py_hash_t r = (Py_hash_t)h;
  if (r == -1) r = -2;
  s->hash = r;
  return r;
}

/* ---- properties ---- */

static PyObject *spec_num_leaves(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromUnsignedLongLong(gv_num_leaves(((SpecObject *)self)->node));
}

static PyObject *spec_num_nodes(PyObject *self, void *c) {
  (void)c;
  SpecObject *s = (SpecObject *)self;
  if (s->num_nodes < 0) {
    s->num_nodes = count_nodes(s->node);
    if (s->num_nodes < 0) return NULL;
  }
  return PyLong_FromSsize_t(s->num_nodes);
}

static PyObject *spec_num_children(PyObject *self, void *c) {
  (void)c;
  return PyLong_FromSize_t(gv_arity(((SpecObject *)self)->node));
}

static PyObject *spec_none_is_leaf(PyObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(((SpecObject *)self)->none_is_leaf);
}

static PyObject *spec_namespace(PyObject *self, void *c) {
  (void)c;
  PyObject *ns = ((SpecObject *)self)->ns;
  Py_INCREF(ns);
  return ns;
}

static PyObject *spec_type(PyObject *self, void *c) {
  (void)c;
  SpecObject *s = (SpecObject *)self;
  gstate *st = spec_state(self);
  PyObject *o;
  switch (gv_kind(s->node)) {
  case GV_STAR:
    Py_RETURN_NONE;
  case GV_LIST:
    o = (PyObject *)&PyList_Type;
    break;
  case GV_TUPLE:
    o = (PyObject *)&PyTuple_Type;
    break;
  case GV_DICT:
    o = (PyObject *)&PyDict_Type;
    break;
  case GV_ODICT:
    o = (PyObject *)st->odict_t;
    break;
  case GV_DDICT:
    o = (PyObject *)st->ddict_t;
    break;
  case GV_DEQUE:
    o = (PyObject *)st->deque_t;
    break;
  default:
    if (ctype_name(s->node) == ctype_name(s->gen->none_node)) {
      o = (PyObject *)Py_TYPE(Py_None);
      break;
    }
    o = named_obj(st, s->gen, ctype_name(s->node));
    if (!o) return NULL;
  }
  Py_INCREF(o);
  return o;
}

/* ---- methods ---- */

static PyObject *spec_child_at(SpecObject *s, size_t r) {
  gstate *st = spec_state((PyObject *)s);
  return spec_new(st, s->gen, gv__trav_child(s->node, r), s->none_is_leaf, s->ns, s->regs,
                  s->handles);
}

static PyObject *spec_children(PyObject *self, PyObject *unused) {
  (void)unused;
  SpecObject *s = (SpecObject *)self;
  size_t n = gv_arity(s->node);
  PyObject *l = PyList_New((Py_ssize_t)n);
  for (size_t r = 0; l && r < n; r++) {
    PyObject *c = spec_child_at(s, r);
    if (!c) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, (Py_ssize_t)r, c);
  }
  return l;
}

static PyObject *spec_child(PyObject *self, PyObject *arg) {
  SpecObject *s = (SpecObject *)self;
  Py_ssize_t i = PyNumber_AsSsize_t(arg, PyExc_IndexError);
  if (i == -1 && PyErr_Occurred()) return NULL;
  Py_ssize_t n = (Py_ssize_t)gv_arity(s->node);
  if (i < 0) i += n;
  if (i < 0 || i >= n) {
    PyErr_Format(PyExc_IndexError, "index out of range: %zd (the node has %zd children)", i, n);
    return NULL;
  }
  return spec_child_at(s, (size_t)i);
}

static PyObject *spec_is_leaf(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kw) {
  static const char *const names[] = {"strict", NULL};
  PyObject *a[1];
  if (parse_args(args, nargs, kw, "is_leaf", names, 1, 0, a) < 0) return NULL;
  int strict = 1;
  if (a[0] && (strict = PyObject_IsTrue(a[0])) < 0) return NULL;
  SpecObject *s = (SpecObject *)self;
  if (gv_kind(s->node) == GV_STAR) Py_RETURN_TRUE;
  if (!strict && gv_arity(s->node) == 0) Py_RETURN_TRUE; /* one node: None, (), [], {} ... */
  Py_RETURN_FALSE;
}

static PyObject *spec_unflatten(PyObject *self, PyObject *leaves) {
  return do_unflatten(spec_state(self), (SpecObject *)self, leaves);
}

static PyObject *spec_flatten_up_to(PyObject *self, PyObject *tree) {
  return do_flatten_up_to(spec_state(self), (SpecObject *)self, tree);
}

static PyObject *spec_fingerprint(PyObject *self, PyObject *unused) {
  (void)unused;
  SpecObject *s = (SpecObject *)self;
  if (spec_fp(s) < 0) return NULL;
  return PyBytes_FromStringAndSize((const char *)s->fp, 16);
}

/* _info() -> (kind, arity, cls, extra) for the Python-level helpers:
 * extra = keys in traversal order (dict kinds), maxlen (deque), (metadata,
 * entries) (custom), else None. */
static PyObject *spec_info(PyObject *self, PyObject *unused) {
  (void)unused;
  SpecObject *s = (SpecObject *)self;
  gstate *st = spec_state(self);
  PyObject *cls = Py_None, *reg = NULL, *extra = NULL;
  int kind;
  const gv_node *n = s->node;
  switch (gv_kind(n)) {
  case GV_STAR:
    kind = K_LEAF;
    break;
  case GV_LIST:
    kind = K_LIST;
    break;
  case GV_TUPLE:
    kind = K_TUPLE;
    break;
  case GV_DICT:
    kind = K_DICT;
    break;
  case GV_ODICT:
    kind = K_ODICT;
    break;
  case GV_DDICT:
    kind = K_DDICT;
    break;
  case GV_DEQUE:
    kind = K_DEQUE;
    break;
  default:
    kind = custom_info(st, s->gen, n, s->ns, s->regs, &cls, &reg);
    if (kind < 0) {
      /* unknown registration: still describe it */
      if (!PyErr_ExceptionMatches(PyExc_ValueError)) return NULL;
      PyErr_Clear();
      kind = K_CUSTOM;
    }
    break;
  }
  if (kind == K_DICT || kind == K_ODICT || kind == K_DDICT) {
    PyObject *keys = keys_of(s->gen, gv_meta(n));
    if (!keys) return NULL;
    size_t ar = gv_arity(n);
    extra = PyTuple_New((Py_ssize_t)ar);
    for (size_t r = 0; extra && r < ar; r++) {
      PyObject *k = PyTuple_GET_ITEM(keys, kind == K_ODICT ? (Py_ssize_t)r
                                                           : (Py_ssize_t)gv_order_index(n, r));
      Py_INCREF(k);
      PyTuple_SET_ITEM(extra, (Py_ssize_t)r, k);
    }
    if (!extra) return NULL;
    if (kind == K_DDICT) {
      PyObject *fac = named_obj(st, s->gen, GV__CONT(n)->aux);
      if (!fac) {
        Py_DECREF(extra);
        return NULL;
      }
      cls = fac; /* for the ddict, cls carries the factory */
    }
  } else if (kind == K_DEQUE) {
    int64_t ml = gv_deque_maxlen(n);
    extra = ml < 0 ? (Py_INCREF(Py_None), Py_None) : PyLong_FromLongLong(ml);
  } else if (kind == K_CUSTOM) {
    const gv_node *m = GV__CONT(GV__CONT(n)->meta)->kids[2];
    if (m) {
      PyObject *md = NULL, *ents = NULL;
      if (custom_md(s->gen, n, &md, &ents) < 0) return NULL;
      extra = PyTuple_Pack(2, md, ents ? ents : Py_None); /* (metadata, entries) */
      Py_DECREF(md);
      Py_XDECREF(ents);
      if (!extra) return NULL;
    } else {
      extra = Py_None;
      Py_INCREF(extra);
    }
    if (cls == Py_None) {
      cls = named_obj(st, s->gen, ctype_name(n));
      if (!cls) {
        Py_DECREF(extra);
        return NULL;
      }
    }
  } else {
    extra = Py_None;
    Py_INCREF(extra);
  }
  if (!extra) return NULL;
  return Py_BuildValue("(inON)", kind, (Py_ssize_t)gv_arity(n), cls, extra);
}

/* _hash64() -> the stored 64-bit hash of the canonical node */
static PyObject *spec_hash64(PyObject *self, PyObject *unused) {
  (void)unused;
  SpecObject *s = (SpecObject *)self;
  uint64_t h;
  if (spec_hash64_of(s, &h) < 0) return NULL;
  return PyLong_FromUnsignedLongLong(h);
}

static PyObject *spec_len(PyObject *self, PyObject *unused) {
  (void)unused;
  return spec_num_leaves(self, NULL);
}

static Py_ssize_t spec_sq_len(PyObject *self) {
  return (Py_ssize_t)gv_num_leaves(((SpecObject *)self)->node);
}

static PyGetSetDef spec_getset[] = {
    {"num_leaves", spec_num_leaves, NULL, "number of leaves", NULL},
    {"num_nodes", spec_num_nodes, NULL, "number of nodes (leaves and None included)", NULL},
    {"num_children", spec_num_children, NULL, "number of children of the root", NULL},
    {"none_is_leaf", spec_none_is_leaf, NULL, "whether None is a leaf", NULL},
    {"namespace", spec_namespace, NULL, "the registry namespace", NULL},
    {"type", spec_type, NULL, "the root's type (None for a leaf)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* The methods' docstrings: a text signature first (inspect.signature), then parameters,
 * result, errors and an example (doctests: tests/python/test_doctests.py). */
PyDoc_STRVAR(doc_spec_children,
             "children($self, /)\n--\n\n"
             "The structures of the root's children, in traversal order.\n\n"
             "Returns:\n"
             "    A list of num_children TreeSpecs (empty for a leaf or None).\n\n"
             "Example:\n"
             "    >>> grove.tree_structure({'a': 1, 'b': (2, None)}).children()\n"
             "    [PyTreeSpec(*), PyTreeSpec((*, None))]\n");

PyDoc_STRVAR(doc_spec_child, "child($self, index, /)\n--\n\n"
                             "The structure of the root's child number index.\n\n"
                             "Args:\n"
                             "    index: an int; negative counts from the end.\n\n"
                             "Returns:\n"
                             "    A TreeSpec.\n\n"
                             "Raises:\n"
                             "    IndexError: index is out of range.\n\n"
                             "Example:\n"
                             "    >>> grove.tree_structure({'a': 1, 'b': (2, None)}).child(1)\n"
                             "    PyTreeSpec((*, None))\n");

PyDoc_STRVAR(doc_spec_is_leaf,
             "is_leaf($self, /, strict=True)\n--\n\n"
             "Whether the structure is a single leaf.\n\n"
             "Args:\n"
             "    strict: if false, a structure without children (None, (), []) counts too.\n\n"
             "Returns:\n"
             "    A bool.\n\n"
             "Example:\n"
             "    >>> grove.tree_structure(1).is_leaf()\n"
             "    True\n"
             "    >>> spec = grove.tree_structure(None)\n"
             "    >>> spec.is_leaf(), spec.is_leaf(strict=False)\n"
             "    (False, True)\n");

PyDoc_STRVAR(doc_spec_unflatten,
             "unflatten($self, leaves, /)\n--\n\n"
             "Build a tree of this structure from leaves (grove.tree_unflatten(self, leaves)).\n\n"
             "Args:\n"
             "    leaves: an iterable of exactly num_leaves leaves, in leaf order.\n\n"
             "Returns:\n"
             "    A new tree.\n\n"
             "Raises:\n"
             "    ValueError: there are too few or too many leaves.\n\n"
             "Example:\n"
             "    >>> grove.tree_structure({'a': 1, 'b': (2, None)}).unflatten('xy')\n"
             "    {'a': 'x', 'b': ('y', None)}\n");

PyDoc_STRVAR(doc_spec_flatten_up_to,
             "flatten_up_to($self, tree, /)\n--\n\n"
             "Flatten tree down to this structure's leaves: the subtrees of tree there.\n\n"
             "Args:\n"
             "    tree: a pytree with this structure, or one this structure is a prefix of.\n\n"
             "Returns:\n"
             "    The list of num_leaves subtrees of tree, in leaf order.\n\n"
             "Raises:\n"
             "    ValueError: tree does not match the structure (the message names the path).\n\n"
             "Example:\n"
             "    >>> spec = grove.tree_structure({'a': 1, 'b': (2, None)})\n"
             "    >>> spec.flatten_up_to({'a': [1, 2], 'b': ('x', None)})\n"
             "    [[1, 2], 'x']\n");

PyDoc_STRVAR(doc_spec_paths,
             "paths($self, /)\n--\n\n"
             "The path of every leaf, in leaf order.\n\n"
             "Returns:\n"
             "    A list of tuples of entries (indices, keys, attribute names).\n\n"
             "Raises:\n"
             "    ValueError: the output would be over grove.set_output_limit's bound.\n\n"
             "Example:\n"
             "    >>> grove.tree_structure({'a': 1, 'b': (2, [3])}).paths()\n"
             "    [('a',), ('b', 0), ('b', 1, 0)]\n");

PyDoc_STRVAR(doc_spec_fingerprint,
             "fingerprint($self, /)\n--\n\n"
             "A stable content hash of the structure: equal structures have equal fingerprints in\n"
             "every process (dict insertion order is not part of it).\n\n"
             "Returns:\n"
             "    16 bytes.\n\n"
             "Example:\n"
             "    >>> a = grove.tree_structure({'a': 1, 'b': 2})\n"
             "    >>> a.fingerprint() == grove.tree_structure({'b': 0, 'a': 0}).fingerprint()\n"
             "    True\n"
             "    >>> len(a.fingerprint())\n"
             "    16\n");

static PyMethodDef spec_methods[] = {
    {"children", spec_children, METH_NOARGS, doc_spec_children},
    {"child", spec_child, METH_O, doc_spec_child},
    {"is_leaf", (PyCFunction)(void (*)(void))spec_is_leaf, METH_FASTCALL | METH_KEYWORDS,
     doc_spec_is_leaf},
    {"unflatten", spec_unflatten, METH_O, doc_spec_unflatten},
    {"flatten_up_to", spec_flatten_up_to, METH_O, doc_spec_flatten_up_to},
    {"paths", spec_paths, METH_NOARGS, doc_spec_paths},
    {"fingerprint", spec_fingerprint, METH_NOARGS, doc_spec_fingerprint},
    {"_info", spec_info, METH_NOARGS, NULL},
    {"_hash64", spec_hash64, METH_NOARGS, NULL},
    {"__len__", spec_len, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

PyDoc_STRVAR(doc_spec_type,
             "The structure of a pytree, interned: equal structures are one node, so == and\n"
             "hash() take O(1). Made by grove.tree_structure / tree_flatten and the treespec_*\n"
             "functions, never directly.\n\n"
             "Example:\n"
             "    >>> spec = grove.tree_structure({'a': 1, 'b': (2, None)})\n"
             "    >>> spec.num_leaves, spec.num_nodes, spec.num_children\n"
             "    (2, 5, 2)\n"
             "    >>> spec == grove.tree_structure({'b': ('x', None), 'a': 'y'})\n"
             "    True\n");

static PyType_Slot spec_slots[] = {{Py_tp_dealloc, (void *)spec_dealloc},
                                   {Py_tp_repr, (void *)spec_repr},
                                   {Py_tp_richcompare, (void *)spec_richcompare},
                                   {Py_tp_hash, (void *)spec_hash},
                                   {Py_tp_getset, (void *)spec_getset},
                                   {Py_tp_methods, (void *)spec_methods},
                                   {Py_sq_length, (void *)spec_sq_len},
                                   {Py_tp_doc, (void *)doc_spec_type},
                                   {0, NULL}};

PyType_Spec spec_type_spec = {
    "grove.TreeSpec", sizeof(SpecObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION, spec_slots};
