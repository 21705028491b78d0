/* SPDX-License-Identifier: MIT */
/* spec_wire.c -- a TreeSpec to and from grove's wire encoding, for the
 * package's TreeSpec.to_bytes / from_bytes (which carry the handles' objects
 * and the named classes beside the encoding): _spec_refs, _spec_from_wire.
 * Decoding checks every node against what the flatten walk builds before a
 * TreeSpec of it exists (see check_value). */
#include "treespec.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- wire: the references a structure makes (for to_bytes) and decoding ---- */

/* _spec_refs(spec) -> (wire bytes, set of handles, set of names) */
typedef struct bufw {
  char *p;
  size_t len, cap;
} bufw;
static gv_status buf_write(void *ctx, const char *data, size_t len) {
  bufw *b = ctx;
  if (!len) return GV_OK;
  if (b->len + len > b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 256;
    while (nc < b->len + len)
      nc *= 2;
    char *np = PyMem_Realloc(b->p, nc);
    if (!np) return GV_ENOMEM;
    b->p = np;
    b->cap = nc;
  }
  memcpy(b->p + b->len, data, len);
  b->len += len;
  return GV_OK;
}

PyObject *py_spec_refs(PyObject *m, PyObject *arg) {
  gstate *st = state_of_module(m);
  if (!PyObject_TypeCheck(arg, st->spec_type)) {
    PyErr_SetString(PyExc_TypeError, "expected a TreeSpec");
    return NULL;
  }
  SpecObject *s = (SpecObject *)arg;
  bufw b = {NULL, 0, 0};
  gv_error e;
  gv_status rc = gv_encode(s->gen->a, s->node, buf_write, &b, &e);
  if (rc != GV_OK) {
    PyMem_Free(b.p);
    return raise_gv(rc, &e);
  }
  PyObject *bytes = PyBytes_FromStringAndSize(b.p, (Py_ssize_t)b.len);
  PyMem_Free(b.p);
  if (!bytes) return NULL;
  /* every handle and every str node among the interned nodes reachable:
   * walk the structure (keysets and ctypes included) with a stack */
  PyObject *handles = PySet_New(NULL), *names = PySet_New(NULL);
  const gv_node **stack = NULL;
  size_t n = 0, cap = 0;
  ptrmap seen = {NULL, 0, 0};
  if (!handles || !names) goto fail;
  if (!(stack = PyMem_Malloc(64 * sizeof *stack))) goto fail;
  cap = 64;
  stack[n++] = s->node;
  while (n) {
    const gv_node *x = stack[--n];
    if (!x) continue;
    unsigned k = gv_kind(x);
    if (k == GV_HANDLE) {
      PyObject *h = PyLong_FromUnsignedLongLong(gv_get_handle(x));
      if (!h || PySet_Add(handles, h) < 0) {
        Py_XDECREF(h);
        goto fail;
      }
      Py_DECREF(h);
      continue;
    }
    if (gv__is_imm(x) || gv__is_leaf_kind(k)) continue;
    if (pm_get(&seen, x)) continue;
    if (pm_put(&seen, x, Py_None) < 0) goto fail;
    const gv__cont *c = GV__CONT(x);
    if (k == GV_CTYPE) {
      size_t len = 0;
      const char *nm = gv_get_str(c->kids[0], &len);
      PyObject *ps = PyUnicode_DecodeUTF8(nm, (Py_ssize_t)len, "strict");
      if (!ps || PySet_Add(names, ps) < 0) {
        Py_XDECREF(ps);
        goto fail;
      }
      Py_DECREF(ps);
    }
    if (k == GV_DDICT) {
      size_t len = 0;
      const char *nm = gv_get_str(c->aux, &len);
      PyObject *ps = PyUnicode_DecodeUTF8(nm, (Py_ssize_t)len, "strict");
      if (!ps || PySet_Add(names, ps) < 0) {
        Py_XDECREF(ps);
        goto fail;
      }
      Py_DECREF(ps);
    }
    size_t need = n + x->arity + 2;
    if (need > cap) {
      while (cap < need)
        cap *= 2;
      const gv_node **ns = PyMem_Realloc(stack, cap * sizeof *ns);
      if (!ns) goto fail;
      stack = ns;
    }
    if (k == GV_DICT || k == GV_ODICT || k == GV_DDICT || k == GV_CUSTOM) stack[n++] = c->meta;
    for (size_t i = 0; i < x->arity; i++)
      stack[n++] = c->kids[i];
  }
  PyMem_Free(stack);
  pm_clear(&seen);
  return Py_BuildValue("(NNN)", bytes, handles, names);
fail:
  PyMem_Free(stack);
  pm_clear(&seen);
  Py_XDECREF(handles);
  Py_XDECREF(names);
  Py_DECREF(bytes);
  if (!PyErr_Occurred()) PyErr_NoMemory();
  return NULL;
}

/* ---- decoding: from_bytes's handle map, the checks, _spec_from_wire ---- */

/* The payload's handle numbers and their objects (held; sorted by number).
 * gv__copy_map calls map_handle for every handle it copies, which numbers
 * the object in the new spec's generation (handle_for: by identity, running
 * no code), so the map is plain C. */
typedef struct hpair {
  uint64_t from;
  PyObject *obj; /* owned */
  int used;
} hpair;
typedef struct hmap {
  hpair *p;
  size_t n;
  GenObject *g; /* the generation the copy goes to (held by the caller) */
  int bad;      /* a handle the payload carries no object for */
  int oom;      /* handle_for found no memory */
} hmap;

static int hpair_cmp(const void *a, const void *b) {
  uint64_t x = ((const hpair *)a)->from, y = ((const hpair *)b)->from;
  return x < y ? -1 : x > y;
}

/* hm: dict of positive int -> object (the package checked the ints are exact). */
static int hmap_init(hmap *m, PyObject *hm) {
  m->n = 0;
  m->p = PyMem_Calloc(PyDict_GET_SIZE(hm) ? (size_t)PyDict_GET_SIZE(hm) : 1, sizeof *m->p);
  if (!m->p) {
    PyErr_NoMemory();
    return -1;
  }
  Py_ssize_t pos = 0;
  PyObject *k, *v;
  while (PyDict_Next(hm, &pos, &k, &v)) { /* (allocates nothing: the dict cannot change) */
    if (!PyLong_CheckExact(k)) {
      PyErr_SetString(PyExc_TypeError, "grove: a handle number is not an int");
      return -1;
    }
    m->p[m->n].from = PyLong_AsUnsignedLongLong(k);
    if (PyErr_Occurred()) return -1;
    Py_INCREF(v);
    m->p[m->n++].obj = v;
  }
  qsort(m->p, m->n, sizeof *m->p, hpair_cmp);
  return 0;
}

static void hmap_free(hmap *m) {
  hpair *p = m->p;
  size_t n = m->n;
  m->p = NULL;
  m->n = 0;
  for (size_t i = 0; i < n; i++)
    Py_DECREF(p[i].obj);
  PyMem_Free(p);
}

static uint64_t map_handle(void *ctx, uint64_t h) {
  hmap *m = ctx;
  size_t lo = 0, hi = m->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->p[mid].from == h) {
      m->p[mid].used = 1;
      uint64_t nh = handle_for(m->g, m->p[mid].obj);
      if (!nh) {
        PyErr_Clear(); /* (raised again after the copy) */
        m->oom = 1;
        return h;
      }
      return nh;
    }
    if (m->p[mid].from < h)
      lo = mid + 1;
    else
      hi = mid;
  }
  m->bad = 1;
  return h;
}

/* Every node of a decoded structure is checked against what the flatten walk
 * builds (flatten.c, keys.c, handles.c) before the TreeSpec exists: the
 * readers (spec_output.c, treespec.c, unflatten.c, flatten_up_to.c, ...)
 * trust a structure's kinds and the types of the objects its names and
 * handles stand for. The walk visits each distinct node once (a DAG of 2^63
 * leaves is a few hundred nodes) with an explicit stack. */
typedef struct wcheck {
  gstate *st;
  GenObject *g;      /* held by the caller */
  PyObject *classes; /* the payload's classes: name -> object */
  PyObject *ns;      /* the spec's namespace (an exact str) */
  int none_is_leaf;
  pset seen;  /* nodes checked (a keyset used by an OrderedDict: its address + 1) */
  pset names; /* type-name and factory nodes met */
  const gv_node **stack;
  size_t n, cap;
  PyObject *keysets; /* int(keyset), + 1 for an OrderedDict's: host-ordered keysets */
  PyObject *regs;    /* the registrations of the registered classes met (a list) */
} wcheck;

static int bad(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (msg) {
    PyErr_Format(PyExc_ValueError, "grove: malformed TreeSpec encoding: %U", msg);
    Py_DECREF(msg);
  }
  return -1;
}

/* A node's kind, with its article. */
static const char *kind_name(const gv_node *n) {
  static const char *const names[] = {"nothing",        "None",          "a bool",
                                      "an int",         "a float",       "a str",
                                      "bytes",          "a handle",      "*",
                                      "a list",         "a tuple",       "a dict",
                                      "an OrderedDict", "a defaultdict", "a namedtuple",
                                      "a deque",        "a custom node", "a keyset",
                                      "a schema",       "a ctype"};
  unsigned k = gv_kind(n);
  return k < sizeof names / sizeof *names ? names[k] : "an unknown node";
}

static int push(wcheck *w, const gv_node *x) {
  if (w->n == w->cap) {
    size_t nc = w->cap ? w->cap * 2 : 64;
    const gv_node **ns = PyMem_Realloc(w->stack, nc * sizeof *ns);
    if (!ns) {
      PyErr_NoMemory();
      return -1;
    }
    w->stack = ns;
    w->cap = nc;
  }
  w->stack[w->n++] = x;
  return 0;
}

/* 1 the first time p is met, 0 after, -1 no memory. */
static int first(pset *s, const void *p) {
  int r = ps_add(s, p);
  if (r < 0) PyErr_NoMemory();
  return r;
}

/* The object a type-name or factory node names, which the payload must carry
 * (as to_bytes writes every name it uses), that very object. A new
 * reference. */
static PyObject *named(wcheck *w, const gv_node *name, const char *what) {
  if (gv_kind(name) != GV_STR) {
    bad("a %s's name is %s", what, kind_name(name));
    return NULL;
  }
  size_t len = 0;
  const char *s = gv_get_str(name, &len);
  PyObject *ps = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "strict");
  if (!ps) return NULL;
  PyObject *in = PyDict_GetItemWithError(w->classes, ps);
  if (!in) {
    if (!PyErr_Occurred()) bad("the %s %R is not among the classes it carries", what, ps);
    Py_DECREF(ps);
    return NULL;
  }
  Py_INCREF(in);
  PyObject *o = first(&w->names, name) < 0 ? NULL : named_obj(w->st, w->g, name);
  if (o && o != in) { /* (the name went, and came back for another object, since the package
                       * checked it: another thread) */
    PyErr_Format(PyExc_ValueError, "grove: the name %R is no longer %R's", ps, in);
    o = NULL;
  }
  Py_XINCREF(o); /* (named_obj's is borrowed: g holds it) */
  Py_DECREF(in);
  Py_DECREF(ps);
  return o;
}

/* A scalar node as the binding makes one for a key or a value (not a NaN:
 * those are handles). */
static int scalar_key(const gv_node *k) {
  switch (gv_kind(k)) {
  case GV_NONE:
  case GV_BOOL:
  case GV_INT:
  case GV_STR:
  case GV_BYTES:
    return 1;
  case GV_FLOAT:
    return !isnan(gv_get_float(k));
  default:
    return 0;
  }
}

/* A value node (a key, custom metadata or entries) as handles.c and keys.c
 * make one: a scalar, a tuple of at most VALUE_TUPLE_MAX scalars, or a
 * handle whose object is none of these (is_value: it would have been kept
 * as itself). what names it in messages. The handle's object in *obj
 * (borrowed: g holds it), else NULL. */
static int check_value_node(wcheck *w, const gv_node *k, const char *what, PyObject **obj) {
  *obj = NULL;
  if (scalar_key(k)) return 0;
  switch (gv_kind(k)) {
  case GV_TUPLE:
    if (gv_arity(k) > VALUE_TUPLE_MAX) return bad("%s is a tuple of %zu items", what, gv_arity(k));
    for (size_t j = 0; j < gv_arity(k); j++)
      if (!scalar_key(gv_child(k, j)))
        return bad("%s is a tuple holding %s", what, kind_name(gv_child(k, j)));
    return 0;
  case GV_HANDLE: {
    PyObject *o = handle_obj(w->g, gv_get_handle(k));
    if (!o) return -1;
    if (is_value(o))
      return bad("%s is a handle of an object of type %s, a value grove keeps as itself (no "
                 "handle)",
                 what, Py_TYPE(o)->tp_name);
    *obj = o;
    return 0;
  }
  default:
    return bad("%s is %s", what, kind_name(k));
  }
}

/* Whether a keyset's traversal order is its insertion order. */
static int insertion_ordered(const gv_node *ks) {
  const uint32_t *perm = GV__CONT(ks)->perm;
  for (size_t r = 0; perm && r < gv_arity(ks); r++)
    if (perm[r] != r) return 0;
  return 1;
}

/* A keyset as keys.c makes it: scalar keys (grove's order), or with a tuple
 * of scalars or a handle among them the host's order (an OrderedDict's:
 * insertion order); or, a dict's under dict_insertion_ordered, any keys in
 * insertion order as the host's order. */
static int check_keyset(wcheck *w, const gv_node *ks, int odict) {
  int r = first(&w->seen, (const char *)ks + (odict ? 1 : 0));
  if (r <= 0) return r;
  if (gv_kind(ks) != GV_KEYSET) return bad("a dict's keys are %s", kind_name(ks));
  size_t n = gv_arity(ks);
  int host = 0;
  for (size_t i = 0; i < n; i++) {
    const gv_node *k = GV__CONT(ks)->kids[i];
    PyObject *o;
    if (scalar_key(k)) continue;
    host = 1;
    if (check_value_node(w, k, "a dict key", &o) < 0) return -1;
  }
  int ins = !odict && gv_keyset_host_ordered(ks) && insertion_ordered(ks);
  if (host != gv_keyset_host_ordered(ks) && !ins)
    return bad(host ? "a dict of tuple or object keys is not in the host's order"
                    : "a dict of scalar keys is in a host's order");
  const uint32_t *perm = GV__CONT(ks)->perm;
  if (odict && host && perm)
    for (size_t i = 0; i < n; i++)
      if (perm[i] != i) return bad("an OrderedDict's keys are not in insertion order");
  if (host) { /* its order and its objects: check_host_keysets */
    PyObject *v = PyLong_FromVoidPtr((void *)((const char *)ks + (odict ? 1 : 0)));
    r = v ? PyList_Append(w->keysets, v) : -1;
    Py_XDECREF(v);
    if (r < 0) return -1;
  }
  return 0;
}

/* The number of fields of a namedtuple or PyStructSequence class, or -1. */
static Py_ssize_t field_count(gstate *st, PyObject *cls) {
  PyObject *a = PyObject_GetAttr(cls, st->s_n_sequence_fields);
  if (a) {
    Py_ssize_t n = PyLong_CheckExact(a) ? PyLong_AsSsize_t(a) : -1;
    Py_DECREF(a);
    return n;
  }
  PyErr_Clear();
  a = PyObject_GetAttr(cls, st->s_fields);
  if (!a) {
    PyErr_Clear();
    return -1;
  }
  Py_ssize_t n = PyTuple_CheckExact(a) ? PyTuple_GET_SIZE(a) : -1;
  Py_DECREF(a);
  return n;
}

/* A registered class's metadata: the pair (M, E) handles.c's
 * custom_meta_node makes, M the metadata and E the path entries, each a
 * value node; E None (no entries), or one entry per child: a tuple value of
 * arity items, or a handle of an exact tuple of arity objects. */
static int check_custom_meta(wcheck *w, const gv_node *md, PyObject *cls, size_t arity) {
  if (gv_kind(md) != GV_TUPLE || gv_arity(md) != 2)
    return bad("a %R node's metadata is %s, not the pair (metadata, entries)", cls,
               gv_kind(md) == GV_TUPLE ? "a tuple of another length" : kind_name(md));
  const gv_node *m = gv_child(md, 0), *en = gv_child(md, 1);
  PyObject *o;
  if (check_value_node(w, m, "a custom node's metadata", &o) < 0) return -1;
  if (gv_kind(en) == GV_NONE) return 0;
  if (check_value_node(w, en, "a custom node's entries", &o) < 0) return -1;
  if (o ? !PyTuple_CheckExact(o) : gv_kind(en) != GV_TUPLE)
    return bad("a %R node's entries are %s, not a tuple", cls,
               o ? Py_TYPE(o)->tp_name : kind_name(en));
  size_t ne = o ? (size_t)PyTuple_GET_SIZE(o) : gv_arity(en);
  if (ne != arity) return bad("a %R node of %zu children has %zu entries", cls, arity, ne);
  return 0;
}

/* None (not when None is a leaf), a namedtuple or PyStructSequence (a tuple
 * class, with as many fields as children), or a registered class's node (a
 * class registered here, in the spec's namespace or the global one, whose
 * metadata is checked by check_custom_meta): its registration goes to
 * w->regs, which the TreeSpec keeps. No keyed custom nodes. */
static int check_custom(wcheck *w, const gv_node *n) {
  const gv_node *ct = gv_meta(n), *name = GV__CONT(ct)->kids[0], *md = GV__CONT(ct)->kids[2];
  size_t arity = gv_arity(n);
  if (GV__CONT(ct)->kids[1]) return bad("a custom node with keys");
  if (name == ctype_name(w->g->none_node)) {
    if (w->none_is_leaf) return bad("a None node, where None is a leaf");
    if (arity || md) return bad("a None node with children or metadata");
    return 0;
  }
  PyObject *cls = named(w, name, "class");
  if (!cls) return -1;
  int r = 0;
  if (!PyType_Check(cls)) {
    r = bad("a custom node's class is %R, not a class", cls);
  } else if (!md) {
    Py_ssize_t f = PyType_FastSubclass((PyTypeObject *)cls, Py_TPFLAGS_TUPLE_SUBCLASS)
                       ? field_count(w->st, cls)
                       : -1;
    if (f < 0 && PyErr_Occurred())
      r = -1;
    else if (f < 0)
      r = bad("%R is neither a namedtuple nor a PyStructSequence class", cls);
    else if ((size_t)f != arity)
      r = bad("a %R node of %zu children, not %zd", cls, arity, f);
  } else if ((r = check_custom_meta(w, md, cls, arity)) == 0) {
    PyObject *reg = registration(w->st, w->ns, (PyTypeObject *)cls); /* borrowed: used at once */
    if (!reg) {
      PyErr_Format(PyExc_ValueError, "grove: %R is not registered as a pytree node class", cls);
      r = -1;
    } else {
      Py_ssize_t i = 0, nr = PyList_GET_SIZE(w->regs);
      while (i < nr && PyList_GET_ITEM(w->regs, i) != reg)
        i++;
      if (i == nr) r = PyList_Append(w->regs, reg);
    }
  }
  Py_DECREF(cls);
  return r;
}

static int check_node(wcheck *w, const gv_node *n) {
  unsigned k = gv_kind(n);
  if (k == GV_STAR) return 0;
  int r = first(&w->seen, n);
  if (r <= 0) return r;
  switch (k) {
  case GV_LIST:
  case GV_TUPLE:
    break;
  case GV_DICT:
  case GV_ODICT:
    if (check_keyset(w, gv_meta(n), k == GV_ODICT) < 0) return -1;
    break;
  case GV_DDICT: {
    if (check_keyset(w, gv_meta(n), 0) < 0) return -1;
    PyObject *fac = named(w, gv_ddict_factory(n), "default factory");
    if (!fac) return -1;
    int ok = fac == Py_None || PyCallable_Check(fac);
    if (!ok) bad("a defaultdict's factory is %R, which is not callable", fac);
    Py_DECREF(fac);
    if (!ok) return -1;
    break;
  }
  case GV_DEQUE: {
    int64_t ml = gv_deque_maxlen(n);
    if (ml >= 0 && gv_arity(n) > (uint64_t)ml)
      return bad("a deque of %zu items with maxlen=%lld", gv_arity(n), (long long)ml);
    break;
  }
  case GV_CUSTOM:
    if (check_custom(w, n) < 0) return -1;
    break;
  default:
    return bad("%s where the structure has a node", kind_name(n));
  }
  for (size_t i = gv_arity(n); i-- > 0;)
    if (push(w, GV__CONT(n)->kids[i]) < 0) return -1;
  return 0;
}

/* A host-ordered keyset's keys are hashable and distinct, as a dict's are,
 * and (but an OrderedDict's) in the order Python gives them (the package's
 * key order, which the flatten walk asks too). The keys' __hash__, __eq__
 * and __lt__ run here. */
static int check_host_keysets(wcheck *w) {
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(w->keysets); i++) {
    const char *p = PyLong_AsVoidPtr(PyList_GET_ITEM(w->keysets, i));
    int odict = (int)((uintptr_t)p & 1);
    const gv_node *ks = (const gv_node *)(const void *)(p - odict);
    PyObject *keys = keys_of(w->g, ks);
    if (!keys) return -1;
    PyObject *list = PySequence_List(keys); /* a list of its own: held while code runs */
    if (!list) return -1;
    Py_ssize_t n = PyList_GET_SIZE(list);
    PyObject *set = PySet_New(list);
    if (!set) {
      Py_DECREF(list);
      if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
      PyErr_Clear();
      return bad("a dict key is not hashable");
    }
    Py_ssize_t m = PySet_GET_SIZE(set);
    Py_DECREF(set);
    if (m != n) {
      Py_DECREF(list);
      return bad("a dict has a repeated key (equal keys)");
    }
    if (odict || insertion_ordered(ks)) { /* (dict_insertion_ordered's order) */
      Py_DECREF(list);
      continue;
    }
    PyObject *ord = w->st->key_order ? PyObject_CallOneArg(w->st->key_order, list) : NULL;
    Py_DECREF(list);
    if (!ord) {
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_RuntimeError,
                        "grove._grove is set up by importing the grove package");
      return -1;
    }
    int same = PyList_CheckExact(ord) && PyList_GET_SIZE(ord) == n;
    const uint32_t *perm = GV__CONT(ks)->perm;
    for (Py_ssize_t r = 0; same && r < n; r++) {
      PyObject *x = PyList_GET_ITEM(ord, r);
      same =
          PyLong_CheckExact(x) && PyLong_AsSsize_t(x) == (Py_ssize_t)(perm ? perm[r] : (uint32_t)r);
    }
    Py_DECREF(ord);
    if (PyErr_Occurred()) return -1;
    if (!same) return bad("a dict's keys are not in the order Python gives them");
  }
  return 0;
}

static int check_decoded(wcheck *w, const gv_node *root, const hmap *hm) {
  if (push(w, root) < 0) return -1;
  while (w->n)
    if (check_node(w, w->stack[--w->n]) < 0) return -1;
  if (check_host_keysets(w) < 0) return -1;
  if ((Py_ssize_t)w->names.len != PyDict_GET_SIZE(w->classes))
    return bad("it carries classes that it does not name");
  for (size_t i = 0; i < hm->n; i++)
    if (!hm->p[i].used) return bad("it carries objects for handles that it does not hold");
  return 0;
}

/* _spec_from_wire(bytes, handle_objects, classes, none_is_leaf, namespace, max_size) -> TreeSpec
 * handle_objects: the payload's handle numbers -> their objects, numbered anew (by identity)
 * in the generation the TreeSpec is made in; classes: the payload's name -> object (the
 * package checked that each object has that name here). max_size bounds the structure
 * written out (gv_expanded_size; 0: no bound): the encoding shares repeated subtrees, so a
 * few bytes can describe a structure of 2^63 leaves. The TreeSpec keeps the registrations
 * its registered classes have now, as one tree_structure made now would. */
PyObject *py_spec_from_wire(PyObject *m, PyObject *args) {
  gstate *st = state_of_module(m);
  Py_buffer buf;
  PyObject *hm, *classes, *ns;
  int nil;
  unsigned long long max_size = 0;
  if (!PyArg_ParseTuple(args, "y*O!O!pU|K", &buf, &PyDict_Type, &hm, &PyDict_Type, &classes, &nil,
                        &ns, &max_size))
    return NULL;
  if (!PyUnicode_CheckExact(ns)) { /* (looked up in the registry: no code may run) */
    PyBuffer_Release(&buf);
    PyErr_SetString(PyExc_TypeError, "grove: the namespace is not a str");
    return NULL;
  }
  hmap map = {NULL, 0, NULL, 0, 0};
  if (hmap_init(&map, hm) < 0) {
    PyBuffer_Release(&buf);
    hmap_free(&map);
    return NULL;
  }
  gv_arena *tmp = NULL;
  gv_error e;
  gv_status rc = gv_arena_new(NULL, &tmp);
  const gv_node *dec = NULL, *out = NULL;
  if (rc == GV_OK) rc = gv_decode(tmp, buf.buf, (size_t)buf.len, &dec, &e);
  PyBuffer_Release(&buf);
  PyObject *res = NULL;
  if (rc != GV_OK) {
    raise_gv(rc, &e);
    goto done;
  }
  if (max_size && gv_expanded_size(dec) > max_size) {
    PyErr_Format(PyExc_ValueError,
                 "grove: the encoded structure is %llu nodes and bytes written out, more than "
                 "max_size=%llu",
                 (unsigned long long)gv_expanded_size(dec), max_size);
    goto done;
  }
  for (int attempt = 0; attempt < 2; attempt++) {
    GenObject *g = attempt ? (new_gen(st) < 0 ? NULL : st->cur) : cur_gen(st);
    if (!g) break;
    Py_INCREF(g); /* the checks below may run Python code, which may drop it */
    map.g = g;
    map.bad = map.oom = 0;
    for (size_t i = 0; i < map.n; i++)
      map.p[i].used = 0;
    rc = gv__copy_map(g->a, dec, map_handle, &map, &out, &e);
    if (rc == GV_OK) {
      wcheck w = {.st = st, .g = g, .classes = classes, .ns = ns, .none_is_leaf = nil};
      w.keysets = PyList_New(0);
      w.regs = w.keysets ? PyList_New(0) : NULL;
      if (map.oom) {
        PyErr_NoMemory();
      } else if (map.bad) {
        bad("it holds a handle that it carries no object for");
      } else if (w.regs && check_decoded(&w, out, &map) == 0) {
        PyObject *regs = PyList_GET_SIZE(w.regs) ? PyList_AsTuple(w.regs) : NULL;
        if (regs || !PyList_GET_SIZE(w.regs)) res = spec_new(st, g, out, nil, ns, regs, map.n != 0);
        Py_XDECREF(regs);
      }
      Py_XDECREF(w.keysets);
      Py_XDECREF(w.regs);
      PyMem_Free(w.stack);
      ps_free(&w.seen);
      ps_free(&w.names);
    } else if (rc != GV_ENOMEM) {
      bad("%s", e.msg); /* two handles of the payload are here one (the same object) */
    } else if (attempt) {
      raise_gv(rc, &e);
    }
    Py_DECREF(g);
    if (rc != GV_ENOMEM) break;
  }
done:
  gv_arena_free(tmp);
  hmap_free(&map);
  return res;
}
