/* SPDX-License-Identifier: MIT */
/* spec_output.c -- what a TreeSpec writes out in full: repr() and paths(),
 * and the output limit that bounds both (set_output_limit);
 * tree_flatten_with_path (the flatten walk, then paths()).
 *
 * A structure shares its repeated subtrees (a list holding one list twice,
 * 64 times over, is 2^64 leaves in 65 nodes), and from_bytes reads such
 * structures from a few bytes; a path's length is its depth, so the paths of
 * a chain are O(depth x leaves). Both outputs are measured before anything is
 * built -- in O(distinct nodes), with a memo -- and refused with ValueError
 * over the limit (as the C library's max_output refuses, with GV_ERANGE, the
 * operations that follow the tree written out). repr is linear in what it
 * writes: a first pass makes each distinct node's text pieces (the Python
 * code: key and metadata reprs, class names) and sums the lengths, a second
 * one copies the pieces into the result, running no Python code. */
#include "treespec.h"

#include <string.h>

/* nm_put that raises MemoryError. */
static nm_ent *memo_put(nmemo *m, const void *k) {
  nm_ent *e = nm_put(m, k, NULL);
  if (!e) PyErr_NoMemory();
  return e;
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---------------------------------------------------------------------------
 * The output limit
 * ------------------------------------------------------------------------- */

PyObject *py_set_output_limit(PyObject *m, PyObject *arg) {
  gstate *st = state_of_module(m);
  if (!PyLong_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "set_output_limit: expected an int, got %R", arg);
    return NULL;
  }
  int over = 0;
  long long sv = PyLong_AsLongLongAndOverflow(arg, &over);
  if (sv == -1 && PyErr_Occurred()) return NULL;
  if (over < 0 || (!over && sv < 0)) {
    PyErr_SetString(PyExc_ValueError, "set_output_limit: the limit must be >= 0 (0: none)");
    return NULL;
  }
  unsigned long long v = over ? PyLong_AsUnsignedLongLong(arg) : (unsigned long long)sv;
  if (over && PyErr_Occurred()) return NULL;
  uint64_t old = st->out_limit;
  st->out_limit = v;
  return PyLong_FromUnsignedLongLong(old);
}

/* 0 when size is within the limit, else -1 with ValueError naming it. */
static int out_check(gstate *st, const char *what, const char *unit, uint64_t size) {
  if (!st->out_limit || size <= st->out_limit) return 0;
  PyErr_Format(PyExc_ValueError,
               "grove: %s of this TreeSpec would be %s%llu %s, more than the output limit of "
               "%llu (grove.set_output_limit)",
               what, size == UINT64_MAX ? "at least " : "", (unsigned long long)size, unit,
               (unsigned long long)st->out_limit);
  return -1;
}

/* ---------------------------------------------------------------------------
 * Sizes written out
 * ------------------------------------------------------------------------- */

/* Sums over the tree written out, in O(distinct nodes): each container's
 * own weight plus, for every child with leaves (with all children if
 * !leafy), the child's weight (a leaf: leaf) and its memoized sum below. */
typedef struct sizer {
  uint64_t leaf;  /* what a * child adds */
  int entries;    /* paths: a child adds its number of leaves (one entry in each path below it) */
  int only_leafy; /* children without leaves add nothing */
} sizer;

static int tree_sum(const gv_node *root, const sizer *z, uint64_t *out) {
  typedef struct {
    const gv_node *n;
    size_t i;
    uint64_t sum;
  } fr;
  nmemo memo = {NULL, 0, 0};
  fr *stack = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  *out = 0;
  if (gv_kind(root) == GV_STAR) return 0;
  if (bgrow((void **)&stack, &cap, 1, sizeof *stack) < 0) return -1;
  stack[n++] = (fr){root, 0, z->entries ? 0 : 1};
  while (n) {
    fr *f = &stack[n - 1];
    if (f->i < gv_arity(f->n)) {
      const gv_node *c = GV__CONT(f->n)->kids[f->i++];
      uint64_t l = gv_num_leaves(c);
      if (!l && z->only_leafy) continue;
      if (z->entries) f->sum = sat_add(f->sum, l); /* this entry, in each path below it */
      if (gv_kind(c) == GV_STAR) {
        f->sum = sat_add(f->sum, z->leaf);
        continue;
      }
      nm_ent *e = nm_get(&memo, c);
      if (e) {
        f->sum = sat_add(f->sum, e->v);
        continue;
      }
      if (bgrow((void **)&stack, &cap, n + 1, sizeof *stack) < 0) goto fail;
      stack[n++] = (fr){c, 0, z->entries ? 0 : 1};
      continue;
    }
    fr done = *f;
    n--;
    nm_ent *e = memo_put(&memo, done.n);
    if (!e) goto fail;
    e->v = done.sum;
    if (n)
      stack[n - 1].sum = sat_add(stack[n - 1].sum, done.sum);
    else
      *out = done.sum;
  }
  goto out;
fail:
  rc = -1;
out:
  PyMem_Free(stack);
  nm_free(&memo);
  return rc;
}

Py_ssize_t count_nodes(const gv_node *root) {
  static const sizer nodes = {1, 0, 0};
  uint64_t n = 1;
  if (gv_kind(root) != GV_STAR && tree_sum(root, &nodes, &n) < 0) return -1;
  if (n > (uint64_t)PY_SSIZE_T_MAX) {
    PyErr_SetString(PyExc_OverflowError, "grove: the structure has more than 2^63 - 1 nodes");
    return -1;
  }
  return (Py_ssize_t)n;
}

/* ---------------------------------------------------------------------------
 * paths()
 * ------------------------------------------------------------------------- */

/* paths() -> the path of every leaf, in leaf order: tuples of entries (the
 * position, the dict key, or a custom node's entry). An explicit stack;
 * subtrees without leaves are not entered. */
typedef struct pframe {
  const gv_node *n;
  const gv_node *const *kids;
  const uint32_t *perm;
  PyObject *keys; /* owned: dict keys (insertion order) or custom entries, or NULL */
  int dict;
  size_t i, arity;
} pframe;

#define PATH_INL 16         /* frames on the C stack: most structures are shallower */
#define PATH_MEMO_LEAVES 64 /* paths kept for structures of at most this many leaves */

PyObject *spec_paths(PyObject *self, PyObject *unused) {
  (void)unused;
  SpecObject *s = (SpecObject *)self;
  gstate *st = state_of_type(Py_TYPE(self));
  /* what gv_flatten_with_path counts: the tree written out, plus every
   * path's entries (bounded by leaves x depth before they are summed) */
  uint64_t size = gv_expanded_size(s->node), leaves = gv_num_leaves(s->node),
           depth = gv_depth(s->node);
  uint64_t entries = leaves && depth > UINT64_MAX / leaves ? UINT64_MAX : leaves * depth;
  static const sizer path_entries = {0, 1, 1};
  if (st->out_limit && sat_add(size, entries) > st->out_limit &&
      tree_sum(s->node, &path_entries, &entries) < 0)
    return NULL;
  if (out_check(st, "paths()", "nodes and path entries", sat_add(size, entries)) < 0) return NULL;
  if (leaves > (uint64_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
  /* a small structure's paths are kept (the tuples, shared by the lists
   * given out): the next call for it copies them */
  struct pathmemo *pm = NULL;
  if (leaves > 1 && leaves <= PATH_MEMO_LEAVES) {
    pm = &st->pathmemo[((uintptr_t)s->node >> 4) % (sizeof st->pathmemo / sizeof *st->pathmemo)];
    if (pm->paths && pm->serial == s->gen->serial && pm->n == s->node) {
      PyObject *t = pm->paths;
      Py_INCREF(t); /* (the list's allocation may run code that replaces the entry) */
      Py_ssize_t n = PyTuple_GET_SIZE(t);
      PyObject *l = PyList_New(n);
      if (l)
        for (Py_ssize_t i = 0; i < n; i++) {
          PyObject *p = PyTuple_GET_ITEM(t, i);
          Py_INCREF(p);
          PyList_SET_ITEM(l, i, p);
        }
      Py_DECREF(t);
      return l;
    }
  }
  /* one path a leaf: the list is made at its size, and hidden from the
   * collector until every slot is set */
  PyObject *out = gc_hide(PyList_New((Py_ssize_t)leaves));
  if (!out) return NULL;
  if (gv_kind(s->node) == GV_STAR) {
    PyObject *e = PyTuple_New(0);
    if (!e) {
      Py_DECREF(out);
      return NULL;
    }
    PyList_SET_ITEM(out, 0, e);
    PyObject_GC_Track(out); /* (a list, even empty, is tracked) */
    return out;
  }
  pframe fr_inl[PATH_INL], *fr = fr_inl;
  PyObject *path_inl[PATH_INL], **path = path_inl;
  size_t nfr = 0, cap = PATH_INL;
  Py_ssize_t nout = 0;
  const gv_node *push = leaves ? s->node : NULL;
  for (;;) {
    if (push) {
      if (nfr == cap) {
        size_t nc = cap * 2;
        pframe *nf =
            fr == fr_inl ? PyMem_Malloc(nc * sizeof *nf) : PyMem_Realloc(fr, nc * sizeof *nf);
        if (nf && fr == fr_inl) memcpy(nf, fr, cap * sizeof *nf);
        if (nf) fr = nf;
        PyObject **np = !nf                ? NULL
                        : path == path_inl ? PyMem_Malloc(nc * sizeof *np)
                                           : PyMem_Realloc(path, nc * sizeof *np);
        if (np && path == path_inl) memcpy(np, path, cap * sizeof *np);
        if (!np) {
          PyErr_NoMemory();
          goto fail;
        }
        path = np;
        cap = nc;
      }
      pframe *f = &fr[nfr];
      const gv__cont *c = GV__CONT(push);
      unsigned k = push->kind;
      f->n = push;
      f->kids = c->kids;
      f->perm = (k == GV_DICT || k == GV_DDICT) ? GV__CONT(c->meta)->perm : NULL;
      f->dict = k == GV_DICT || k == GV_DDICT || k == GV_ODICT;
      f->keys = NULL;
      f->i = 0;
      f->arity = push->arity;
      path[nfr] = NULL;
      nfr++;
      if (f->dict) {
        f->keys = keys_of(s->gen, c->meta);
        if (!f->keys) goto fail;
        Py_INCREF(f->keys);
      } else if (k == GV_CUSTOM && ctype_meta(push)) {
        PyObject *md;
        if (custom_md(s->gen, push, &md, &f->keys) < 0) goto fail; /* (entries: one per child) */
        Py_DECREF(md);
      }
      push = NULL;
    }
    if (!nfr) break;
    pframe *f = &fr[nfr - 1];
    if (f->i == f->arity) {
      Py_CLEAR(path[nfr - 1]);
      Py_CLEAR(f->keys);
      nfr--;
      continue;
    }
    size_t r = f->i++, ix = f->perm ? f->perm[r] : r;
    const gv_node *ch = f->kids[ix];
    if (!gv_num_leaves(ch)) continue;
    PyObject *e;
    if (f->keys) {
      e = PyTuple_GET_ITEM(f->keys, (Py_ssize_t)(f->dict ? ix : r));
      Py_INCREF(e);
    } else {
      e = PyLong_FromSize_t(r);
      if (!e) goto fail;
    }
    Py_XSETREF(path[nfr - 1], e);
    if (gv_kind(ch) == GV_STAR) {         /* a leaf: its path */
      if (nout == PyList_GET_SIZE(out)) { /* (more leaves than counted: cannot be) */
        PyErr_SetString(PyExc_SystemError, "grove: paths(): a leaf was not counted");
        goto fail;
      }
      PyObject *t = tuple_from(path, (Py_ssize_t)nfr);
      if (!t) goto fail;
      /* a tuple of atomic entries cannot be in a cycle: keep it out of the
       * collector's way (as CPython itself does for such tuples) */
      int atomic = 1;
      for (size_t d = 0; d < nfr && atomic; d++) {
        PyTypeObject *et = Py_TYPE(path[d]);
        atomic = et == &PyLong_Type || et == &PyUnicode_Type || et == &PyFloat_Type ||
                 et == &PyBytes_Type || et == &PyBool_Type || path[d] == Py_None;
      }
      if (atomic) PyObject_GC_UnTrack(t);
      PyList_SET_ITEM(out, nout++, t);
    } else {
      push = ch;
    }
  }
  if (fr != fr_inl) PyMem_Free(fr);
  if (path != path_inl) PyMem_Free(path);
  if (nout != PyList_GET_SIZE(out)) {
    PyErr_SetString(PyExc_SystemError, "grove: paths(): fewer leaves than counted");
    Py_DECREF(out);
    return NULL;
  }
  if (pm) {
    PyObject *t = PyList_AsTuple(out), *old = pm->paths;
    if (!t) {
      Py_DECREF(out);
      return NULL;
    }
    pm->paths = t;
    pm->serial = s->gen->serial;
    pm->n = s->node;
    Py_XDECREF(old); /* (last: it may run code) */
  }
  PyObject_GC_Track(out); /* (a list, even empty, is tracked) */
  return out;
fail:
  while (nfr) {
    nfr--;
    Py_XDECREF(path[nfr]);
    Py_XDECREF(fr[nfr].keys);
  }
  if (fr != fr_inl) PyMem_Free(fr);
  if (path != path_inl) PyMem_Free(path);
  Py_DECREF(out); /* (empty slots are NULL: the list's dealloc skips them) */
  return NULL;
}

/* tree_flatten_with_path(tree, is_leaf=None, *, none_is_leaf=False,
 * namespace='') -> (paths, leaves, spec): the flatten walk, then the paths
 * of its structure (paths() above: within the output limit). */
static const char *const FWP_NAMES[] = {"tree", "is_leaf", "none_is_leaf", "namespace", NULL};

PyObject *py_tree_flatten_with_path(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kw) {
  gstate *st = state_of_module(m);
  PyObject *a[4], *leaves = NULL, *spec = NULL;
  flat_args fa;
  if (parse_args(args, nargs, kw, "tree_flatten_with_path", FWP_NAMES, 2, 1, a) < 0) return NULL;
  int rc = flat_opts(st, a[1], a[2], a[3], &fa);
  fa.tree = a[0];
  if (rc == 0) rc = do_flatten(st, &fa, &leaves, &spec);
  flat_done(&fa);
  if (rc < 0) return NULL;
  PyObject *paths = spec_paths(spec, NULL), *out = NULL;
  if (paths) {
    out = PyTuple_New(3);
    if (out) { /* (the tuple takes the three references) */
      PyTuple_SET_ITEM(out, 0, paths);
      PyTuple_SET_ITEM(out, 1, leaves);
      PyTuple_SET_ITEM(out, 2, spec);
      return out;
    }
    Py_DECREF(paths);
  }
  Py_DECREF(leaves);
  Py_DECREF(spec);
  return NULL;
}

/* ---------------------------------------------------------------------------
 * repr()
 *
 * Each distinct container node gets its pieces, a tuple (open, close, labels)
 * (labels: one str per child in traversal order -- "'key': ", "field=" -- or
 * None); the node reads open, then each child preceded by its label (and ", "
 * after the first), then close: optree's TreeSpec repr.
 * ------------------------------------------------------------------------- */

static PyObject *getattr_str(PyObject *o, const char *name) {
  PyObject *a = PyObject_GetAttrString(o, name);
  if (a && !PyUnicode_Check(a)) {
    PyErr_Format(PyExc_TypeError, "%R.%s is not a str", o, name);
    Py_CLEAR(a);
  }
  return a;
}

/* labels[r] = fmt % (the r-th key in traversal order) */
static PyObject *key_labels(SpecObject *s, const gv_node *n) {
  PyObject *keys = keys_of(s->gen, gv_meta(n));
  if (!keys) return NULL;
  Py_INCREF(keys);
  size_t ar = gv_arity(n);
  PyObject *labels = gc_hide(PyTuple_New((Py_ssize_t)ar)); /* (until full: reprs run code) */
  for (size_t r = 0; labels && r < ar; r++) {
    size_t ix = gv_kind(n) == GV_ODICT ? r : gv_order_index(n, r);
    PyObject *l = PyUnicode_FromFormat("%R: ", PyTuple_GET_ITEM(keys, (Py_ssize_t)ix));
    if (!l)
      Py_CLEAR(labels);
    else
      PyTuple_SET_ITEM(labels, (Py_ssize_t)r, l);
  }
  Py_DECREF(keys);
  if (labels) gc_show(labels);
  return labels;
}

/* labels[r] = "name=" for the names of fields (a tuple, or NULL: unnamed) */
static PyObject *field_labels(PyObject *fields, size_t ar) {
  PyObject *labels = gc_hide(PyTuple_New((Py_ssize_t)ar)); /* (until full: str() runs code) */
  for (size_t r = 0; labels && r < ar; r++) {
    PyObject *l = fields && (Py_ssize_t)r < PyTuple_GET_SIZE(fields)
                      ? PyUnicode_FromFormat("%S=", PyTuple_GET_ITEM(fields, (Py_ssize_t)r))
                      : PyUnicode_FromFormat("<unnamed@%zu>=", r);
    if (!l)
      Py_CLEAR(labels);
    else
      PyTuple_SET_ITEM(labels, (Py_ssize_t)r, l);
  }
  if (labels) gc_show(labels);
  return labels;
}

/* A PyStructSequence's repr prefix: "module." unless built in or __main__. */
static PyObject *ss_open(PyObject *cls) {
  PyObject *qn = getattr_str(cls, "__qualname__");
  if (!qn) return NULL;
  PyObject *mod = PyObject_GetAttrString(cls, "__module__"), *r = NULL;
  if (!mod) {
    PyErr_Clear();
    mod = Py_None;
    Py_INCREF(mod);
  }
  int plain = mod == Py_None || !PyUnicode_Check(mod) || !PyUnicode_GET_LENGTH(mod) ||
              !PyUnicode_CompareWithASCIIString(mod, "__main__") ||
              !PyUnicode_CompareWithASCIIString(mod, "builtins") ||
              !PyUnicode_CompareWithASCIIString(mod, "__builtins__");
  r = plain ? PyUnicode_FromFormat("%U(", qn) : PyUnicode_FromFormat("%S.%U(", mod, qn);
  Py_DECREF(mod);
  Py_DECREF(qn);
  return r;
}

/* The pieces of container n: a new (open, close, labels or None) tuple. May
 * run Python code (reprs, class attributes). */
static PyObject *make_pieces(gstate *st, SpecObject *s, const gv_node *n) {
  PyObject *open = NULL, *labels = NULL, *cls = NULL, *reg = NULL, *a = NULL;
  const char *close = ")";
  size_t ar = gv_arity(n);
  switch (gv_kind(n)) {
  case GV_LIST:
    open = PyUnicode_FromString("[");
    close = "]";
    break;
  case GV_TUPLE:
    open = PyUnicode_FromString("(");
    close = ar == 1 ? ",)" : ")";
    break;
  case GV_DICT:
    open = PyUnicode_FromString("{");
    close = "}";
    labels = key_labels(s, n);
    break;
  case GV_ODICT:
    open = PyUnicode_FromString(ar ? "OrderedDict({" : "OrderedDict(");
    close = ar ? "})" : ")";
    labels = key_labels(s, n);
    break;
  case GV_DDICT:
    if (!(cls = named_obj(st, s->gen, gv_ddict_factory(n)))) return NULL;
    Py_INCREF(cls);
    open = PyUnicode_FromFormat("defaultdict(%R, {", cls);
    close = "})";
    labels = key_labels(s, n);
    break;
  case GV_DEQUE: {
    int64_t ml = gv_deque_maxlen(n);
    open = PyUnicode_FromString(ar ? "deque([" : "deque(");
    a = ml < 0 ? PyUnicode_FromString(ar ? "])" : ")")
               : PyUnicode_FromFormat(ar ? "], maxlen=%lld)" : "maxlen=%lld)", (long long)ml);
    break;
  }
  case GV_CUSTOM: {
    int kind = custom_info(st, s->gen, n, s->ns, s->regs, &cls, &reg);
    if (kind < 0) { /* a registration gone: still describe it */
      if (!PyErr_ExceptionMatches(PyExc_ValueError)) return NULL;
      PyErr_Clear();
      if (!(cls = named_obj(st, s->gen, ctype_name(n)))) return NULL;
      kind = K_CUSTOM;
    }
    if (kind == K_NONE) {
      open = PyUnicode_FromString("None");
      close = "";
      break;
    }
    Py_INCREF(cls);
    if (kind == K_NT) {
      PyObject *nm = getattr_str(cls, "__name__");
      PyObject *fields = nm ? PyObject_GetAttrString(cls, "_fields") : NULL;
      if (fields && !PyTuple_Check(fields)) Py_CLEAR(fields);
      if (fields) {
        open = PyUnicode_FromFormat("%U(", nm);
        labels = open ? field_labels(fields, ar) : NULL;
      } else if (nm) {
        PyErr_Format(PyExc_TypeError, "%R._fields is not a tuple", cls);
      }
      Py_XDECREF(fields);
      Py_XDECREF(nm);
    } else if (kind == K_SS) {
      PyObject *fields = PyObject_GetAttrString(cls, "__match_args__");
      if (!fields) PyErr_Clear();
      if (fields && (!PyTuple_Check(fields) || (size_t)PyTuple_GET_SIZE(fields) != ar))
        Py_CLEAR(fields);
      open = ss_open(cls);
      labels = open ? field_labels(fields, ar) : NULL;
      Py_XDECREF(fields);
    } else {
      PyObject *nm = getattr_str(cls, "__name__"), *md = NULL, *ents = NULL;
      if (nm && ctype_meta(n) && custom_md(s->gen, n, &md, &ents) == 0) {
        open = PyUnicode_FromFormat("CustomTreeNode(%U[%R], [", nm, md);
        Py_DECREF(md);
        Py_XDECREF(ents);
      } else if (nm && !ctype_meta(n)) {
        open = PyUnicode_FromFormat("CustomTreeNode(%U[], [", nm);
      }
      close = "])";
      Py_XDECREF(nm);
    }
    break;
  }
  default:
    PyErr_SetString(PyExc_SystemError, "grove: not a structure node");
    return NULL;
  }
  if (!a && open) a = PyUnicode_FromString(close);
  PyObject *r = NULL;
  if (open && a && (labels || !PyErr_Occurred()))
    r = PyTuple_Pack(3, open, a, labels ? labels : Py_None);
  Py_XDECREF(open);
  Py_XDECREF(a);
  Py_XDECREF(labels);
  Py_XDECREF(cls);
  return r;
}

/* The pieces of container n (a new reference), shared where they depend on
 * less than the node: the pieces of lists, tuples and None are the same for
 * every node, a dict's or OrderedDict's those of its keyset (a chain of
 * dicts of one key is one keyset). They are kept in memo under their keyset
 * or a constant (keys that no node has: nodes are 8-byte aligned). */
static PyObject *pieces_of(gstate *st, SpecObject *s, const gv_node *n, nmemo *memo) {
  const char *key = NULL;
  switch (gv_kind(n)) {
  case GV_LIST:
    key = (const char *)(uintptr_t)1;
    break;
  case GV_TUPLE:
    key = (const char *)(uintptr_t)(gv_arity(n) == 1 ? 2 : 3);
    break;
  case GV_DICT:
  case GV_ODICT:
    key = (const char *)gv_meta(n) + (gv_kind(n) == GV_DICT ? 1 : 2);
    break;
  case GV_CUSTOM:
    if (ctype_name(n) == ctype_name(s->gen->none_node)) key = (const char *)(uintptr_t)4;
    break;
  default:
    break;
  }
  nm_ent *e = key ? nm_get(memo, key) : NULL;
  if (e) {
    Py_INCREF(e->obj);
    return e->obj;
  }
  PyObject *pc = make_pieces(st, s, n);
  if (pc && key) {
    if (!(e = memo_put(memo, key))) {
      Py_DECREF(pc);
      return NULL;
    }
    Py_INCREF(pc);
    e->obj = pc;
  }
  return pc;
}

/* The UTF-8 length of str o (cached in o: later calls do not allocate). */
static uint64_t u8len(PyObject *o, int *ascii) {
  Py_ssize_t len = 0;
  if (!PyUnicode_IS_ASCII(o)) *ascii = 0;
  if (!PyUnicode_AsUTF8AndSize(o, &len)) return UINT64_MAX;
  return (uint64_t)len;
}

typedef struct rframe {
  const gv_node *n;
  nm_ent *e; /* pass 2 */
  size_t i;
  uint64_t sum; /* pass 1 */
} rframe;

/* Pass 1: pieces and the length written out of every distinct container
 * under root, into memo (v: the length). -1 with an exception. */
static int repr_measure(gstate *st, SpecObject *s, nmemo *memo, int *ascii) {
  rframe *stack = NULL;
  size_t n = 0, cap = 0;
  const gv_node *root = s->node;
  /* (pieces_of may put into memo: the entry is made after it) */
  PyObject *rpc = pieces_of(st, s, root, memo);
  nm_ent *e = rpc ? memo_put(memo, root) : NULL;
  if (!e) {
    Py_XDECREF(rpc);
    goto fail;
  }
  e->obj = rpc;
  if (bgrow((void **)&stack, &cap, 1, sizeof *stack) < 0) goto fail;
  stack[n++] = (rframe){root, NULL, 0, 0};
  while (n) {
    rframe *f = &stack[n - 1];
    size_t ar = gv_arity(f->n);
    if (f->i < ar) {
      const gv_node *c = gv__trav_child(f->n, f->i++);
      if (gv_kind(c) == GV_STAR) {
        f->sum = sat_add(f->sum, 1);
        continue;
      }
      if ((e = nm_get(memo, c)) && e->obj) {
        f->sum = sat_add(f->sum, e->v);
        continue;
      }
      /* pieces_of runs Python code: nm_put may move the table, so entries
       * are looked up again rather than kept */
      PyObject *pc = pieces_of(st, s, c, memo);
      if (!pc || !(e = memo_put(memo, c))) {
        Py_XDECREF(pc);
        goto fail;
      }
      e->obj = pc;
      if (bgrow((void **)&stack, &cap, n + 1, sizeof *stack) < 0) goto fail;
      stack[n++] = (rframe){c, NULL, 0, 0};
      continue;
    }
    PyObject *pc = nm_get(memo, f->n)->obj, *labels = PyTuple_GET_ITEM(pc, 2);
    uint64_t len =
        sat_add(u8len(PyTuple_GET_ITEM(pc, 0), ascii), u8len(PyTuple_GET_ITEM(pc, 1), ascii));
    if (ar) len = sat_add(len, 2 * (uint64_t)(ar - 1));
    for (size_t r = 0; labels != Py_None && r < ar; r++)
      len = sat_add(len, u8len(PyTuple_GET_ITEM(labels, (Py_ssize_t)r), ascii));
    if (PyErr_Occurred()) goto fail;
    len = sat_add(len, f->sum);
    nm_get(memo, f->n)->v = len;
    n--;
    if (n) stack[n - 1].sum = sat_add(stack[n - 1].sum, len);
  }
  PyMem_Free(stack);
  return 0;
fail:
  PyMem_Free(stack);
  return -1;
}

static char *put(char *p, PyObject *str) {
  Py_ssize_t len = 0;
  const char *u = PyUnicode_AsUTF8AndSize(str, &len); /* cached by pass 1 */
  memcpy(p, u, (size_t)len);
  return p + len;
}

/* Pass 2: the text of root into out (exactly its measured length). Runs no
 * Python code. -1 on no memory. */
static int repr_write(const gv_node *root, const nmemo *memo, char *out) {
  rframe *stack = NULL;
  size_t n = 0, cap = 0;
  char *p = out;
  if (bgrow((void **)&stack, &cap, 1, sizeof *stack) < 0) return -1;
  nm_ent *e = nm_get(memo, root);
  p = put(p, PyTuple_GET_ITEM(e->obj, 0));
  stack[n++] = (rframe){root, e, 0, 0};
  while (n) {
    rframe *f = &stack[n - 1];
    PyObject *pc = f->e->obj, *labels = PyTuple_GET_ITEM(pc, 2);
    if (f->i == gv_arity(f->n)) {
      p = put(p, PyTuple_GET_ITEM(pc, 1));
      n--;
      continue;
    }
    size_t r = f->i++;
    if (r) {
      *p++ = ',';
      *p++ = ' ';
    }
    if (labels != Py_None) p = put(p, PyTuple_GET_ITEM(labels, (Py_ssize_t)r));
    const gv_node *c = gv__trav_child(f->n, r);
    if (gv_kind(c) == GV_STAR) {
      *p++ = '*';
      continue;
    }
    if (bgrow((void **)&stack, &cap, n + 1, sizeof *stack) < 0) return -1;
    e = nm_get(memo, c);
    p = put(p, PyTuple_GET_ITEM(e->obj, 0));
    stack[n++] = (rframe){c, e, 0, 0};
  }
  PyMem_Free(stack);
  return 0;
}

PyObject *spec_repr(PyObject *self) {
  SpecObject *s = (SpecObject *)self;
  gstate *st = state_of_type(Py_TYPE(self));
  PyObject *tail =
      PyUnicode_GET_LENGTH(s->ns)
          ? PyUnicode_FromFormat("%s, namespace=%R)", s->none_is_leaf ? ", NoneIsLeaf" : "", s->ns)
          : PyUnicode_FromString(s->none_is_leaf ? ", NoneIsLeaf)" : ")");
  if (!tail) return NULL;
  static const char head[] = "PyTreeSpec(";
  int ascii = 1;
  uint64_t body = 1;
  nmemo memo = {NULL, 0, 0};
  PyObject *res = NULL;
  char *buf = NULL;
  if (gv_kind(s->node) != GV_STAR) {
    if (repr_measure(st, s, &memo, &ascii) < 0) goto done;
    body = nm_get(&memo, s->node)->v;
  }
  uint64_t total = sat_add(sat_add(body, sizeof head - 1), u8len(tail, &ascii));
  if (PyErr_Occurred() || out_check(st, "repr()", "characters", total) < 0) goto done;
  if (total > (uint64_t)PY_SSIZE_T_MAX) {
    PyErr_NoMemory();
    goto done;
  }
  /* an ASCII text is written straight into the str; any other as UTF-8 */
  if (ascii) {
    if (!(res = PyUnicode_New((Py_ssize_t)total, 127))) goto done;
    buf = (char *)PyUnicode_DATA(res);
  } else if (!(buf = PyMem_Malloc((size_t)total))) {
    PyErr_NoMemory();
    goto done;
  }
  memcpy(buf, head, sizeof head - 1);
  if (gv_kind(s->node) == GV_STAR)
    buf[sizeof head - 1] = '*';
  else if (repr_write(s->node, &memo, buf + sizeof head - 1) < 0) {
    PyErr_NoMemory();
    Py_CLEAR(res);
    goto done;
  }
  put(buf + total - u8len(tail, &ascii), tail);
  if (!ascii) res = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)total, "strict");
done:
  if (!ascii) PyMem_Free(buf);
  nm_free(&memo);
  Py_DECREF(tail);
  return res;
}
