/* SPDX-License-Identifier: MIT */
/* spec_access.c -- _accessors(spec, table): TreeSpec.accessors(), the
 * PyTreeAccessor of every leaf in leaf order, each a tuple of path entries
 * (grove.accessors' classes), made in one walk of the structure with an
 * explicit stack (as paths(), spec_output.c). A node's entry for a child is
 * made once and shared by every accessor below it; subtrees without leaves
 * are not entered.
 *
 * table (the package's, python/grove/_specs.py): (PyTreeAccessor, AutoEntry,
 * kinds, entry classes, node classes, the entry / type / kind slot
 * descriptors of PyTreeEntry), the three middle ones tuples indexed by the
 * extension's kinds (K_LIST...): optree's PyTreeKind member, grove's entry
 * class of that kind (None for custom nodes), the node's class (None where
 * the node names it). An entry of grove's own classes is made as
 * object.__new__(cls) and its three slots set (their __init__ only checks
 * the kind, never LEAF or NONE here); a custom node's children's entries
 * are made by calling its registration's path_entry_type (AutoEntry when
 * none) with (entry, class, kind), which runs code: everything the walk
 * uses is owned then. */
#include "treespec.h"

enum { T_ACC, T_AUTO, T_KINDS, T_ENTRY_TYPES, T_NODE_TYPES, T_SET_ENTRY, T_SET_TYPE, T_SET_KIND };

typedef struct aframe {
  const gv_node *const *kids;
  const uint32_t *perm;
  PyObject *keys;      /* owned: dict keys (insertion order) or custom entries, or NULL */
  PyObject *ntype;     /* owned: the node's class */
  PyObject *etype;     /* owned: the class (or callable) its children's entries are made by */
  int dict, kind, own; /* own: etype is one of grove's classes (made without calling it) */
  size_t i, arity;
} aframe;

static void frame_clear(aframe *f) {
  Py_CLEAR(f->keys);
  Py_CLEAR(f->ntype);
  Py_CLEAR(f->etype);
}

/* Set a slot of e through its member descriptor d (runs no code). */
static int set_slot(PyObject *d, PyObject *e, PyObject *v) {
  return Py_TYPE(d)->tp_descr_set(d, e, v);
}

/* The entry of the child entry `ent` of frame f (new reference). */
static PyObject *make_entry(PyObject *table, const aframe *f, PyObject *ent) {
  PyObject *kind = PyTuple_GET_ITEM(PyTuple_GET_ITEM(table, T_KINDS), f->kind);
  if (!f->own) {
    PyObject *args[3] = {ent, f->ntype, kind};
    return PyObject_Vectorcall(f->etype, args, 3, NULL);
  }
  PyTypeObject *cls = (PyTypeObject *)f->etype;
  PyObject *e = cls->tp_alloc(cls, 0);
  if (!e) return NULL;
  if (set_slot(PyTuple_GET_ITEM(table, T_SET_ENTRY), e, ent) < 0 ||
      set_slot(PyTuple_GET_ITEM(table, T_SET_TYPE), e, f->ntype) < 0 ||
      set_slot(PyTuple_GET_ITEM(table, T_SET_KIND), e, kind) < 0)
    Py_CLEAR(e);
  return e;
}

/* Fill frame f for node n of s. 0, or -1 with an exception. */
static int frame_init(gstate *st, SpecObject *s, PyObject *table, aframe *f, const gv_node *n) {
  const gv__cont *c = GV__CONT(n);
  unsigned k = n->kind;
  f->kids = c->kids;
  f->perm = (k == GV_DICT || k == GV_DDICT) ? GV__CONT(c->meta)->perm : NULL;
  f->dict = k == GV_DICT || k == GV_DDICT || k == GV_ODICT;
  f->keys = f->ntype = f->etype = NULL;
  f->i = 0;
  f->arity = n->arity;
  f->own = 1;
  PyObject *cls = NULL, *reg = NULL;
  int kind = node_kind(st, s->gen, n, s->ns, s->regs, &cls, &reg);
  if (kind < 0) { /* a class no longer registered: its entries as AutoEntry's */
    if (!PyErr_ExceptionMatches(PyExc_ValueError)) return -1;
    PyErr_Clear();
    if (!(cls = named_obj(st, s->gen, ctype_name(n)))) return -1;
    kind = K_CUSTOM;
  }
  f->kind = kind;
  if (kind == K_NT || kind == K_SS || kind == K_CUSTOM) {
    f->ntype = cls;
  } else {
    f->ntype = PyTuple_GET_ITEM(PyTuple_GET_ITEM(table, T_NODE_TYPES), kind);
  }
  Py_INCREF(f->ntype);
  if (kind == K_CUSTOM) {
    PyObject *pet =
        reg && PyTuple_Check(reg) && PyTuple_GET_SIZE(reg) > 3 ? PyTuple_GET_ITEM(reg, 3) : Py_None;
    f->etype = pet != Py_None ? pet : PyTuple_GET_ITEM(table, T_AUTO);
    f->own = 0;
  } else {
    f->etype = PyTuple_GET_ITEM(PyTuple_GET_ITEM(table, T_ENTRY_TYPES), kind);
    if (!PyType_Check(f->etype)) {
      PyErr_SetString(PyExc_SystemError, "grove: _accessors: no entry class for a kind");
      f->etype = NULL;
      return -1;
    }
  }
  Py_INCREF(f->etype);
  if (f->dict) {
    if (!(f->keys = keys_of(s->gen, c->meta))) return -1;
    Py_INCREF(f->keys);
  } else if (k == GV_CUSTOM && ctype_meta(n)) {
    PyObject *md;
    if (custom_md(s->gen, n, &md, &f->keys) < 0) return -1; /* (entries: one per child) */
    Py_DECREF(md);
  }
  return 0;
}

/* A new PyTreeAccessor (a tuple subclass) of path[0..n). */
static PyObject *accessor_of(PyObject *table, PyObject *const *path, size_t n) {
  PyTypeObject *acc = (PyTypeObject *)PyTuple_GET_ITEM(table, T_ACC);
  PyObject *t = gc_hide(acc->tp_alloc(acc, (Py_ssize_t)n));
  if (!t) return NULL;
  for (size_t d = 0; d < n; d++) {
    Py_INCREF(path[d]);
    PyTuple_SET_ITEM(t, (Py_ssize_t)d, path[d]);
  }
  gc_show(t);
  return t;
}

static int table_ok(PyObject *table) {
  if (!PyTuple_CheckExact(table) || PyTuple_GET_SIZE(table) != 8) return 0;
  for (int i = T_KINDS; i <= T_NODE_TYPES; i++) {
    PyObject *t = PyTuple_GET_ITEM(table, i);
    if (!PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != K_CUSTOM + 1) return 0;
  }
  PyObject *acc = PyTuple_GET_ITEM(table, T_ACC);
  if (!PyType_Check(acc) || !PyType_IsSubtype((PyTypeObject *)acc, &PyTuple_Type)) return 0;
  for (int i = T_SET_ENTRY; i <= T_SET_KIND; i++)
    if (!Py_TYPE(PyTuple_GET_ITEM(table, i))->tp_descr_set) return 0;
  return 1;
}

PyObject *py_accessors(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
  gstate *st = state_of_module(m);
  if (nargs != 2 || !PyObject_TypeCheck(args[0], st->spec_type) || !table_ok(args[1])) {
    PyErr_SetString(PyExc_TypeError, "_accessors(spec, table)");
    return NULL;
  }
  SpecObject *s = (SpecObject *)args[0];
  PyObject *table = args[1];
  Py_INCREF(s); /* (held through any code the entries run) */
  Py_INCREF(table);
  PyObject *out = PyList_New(0);
  aframe *fr = NULL;
  PyObject **path = NULL;
  size_t nfr = 0, cap = 0;
  if (!out) goto fail;
  if (gv_kind(s->node) == GV_STAR) {
    PyObject *a = accessor_of(table, NULL, 0);
    if (!a || PyList_Append(out, a) < 0) Py_CLEAR(out);
    Py_XDECREF(a);
    goto done;
  }
  const gv_node *push = gv_num_leaves(s->node) ? s->node : NULL;
  for (;;) {
    if (push) {
      if (nfr == cap) {
        size_t nc = cap ? cap * 2 : 32;
        aframe *nf = PyMem_Realloc(fr, nc * sizeof *nf);
        PyObject **np = nf ? PyMem_Realloc(path, nc * sizeof *np) : NULL;
        if (nf) fr = nf;
        if (!np) {
          PyErr_NoMemory();
          goto fail;
        }
        path = np;
        cap = nc;
      }
      path[nfr] = NULL;
      if (frame_init(st, s, table, &fr[nfr], push) < 0) {
        frame_clear(&fr[nfr]);
        goto fail;
      }
      nfr++;
      push = NULL;
    }
    if (!nfr) break;
    aframe *f = &fr[nfr - 1];
    if (f->i == f->arity) {
      Py_CLEAR(path[nfr - 1]);
      frame_clear(f);
      nfr--;
      continue;
    }
    size_t r = f->i++, ix = f->perm ? f->perm[r] : r;
    const gv_node *ch = f->kids[ix];
    if (!gv_num_leaves(ch)) continue;
    PyObject *ent;
    if (f->keys) {
      ent = PyTuple_GET_ITEM(f->keys, (Py_ssize_t)(f->dict ? ix : r));
      Py_INCREF(ent);
    } else if (!(ent = PyLong_FromSize_t(r))) {
      goto fail;
    }
    PyObject *e = make_entry(table, f, ent); /* (may run code: f's references are owned) */
    Py_DECREF(ent);
    if (!e) goto fail;
    f = &fr[nfr - 1];
    Py_XSETREF(path[nfr - 1], e);
    if (gv_kind(ch) == GV_STAR) { /* a leaf: its accessor */
      PyObject *a = accessor_of(table, path, nfr);
      if (!a || PyList_Append(out, a) < 0) {
        Py_XDECREF(a);
        goto fail;
      }
      Py_DECREF(a);
    } else {
      push = ch;
    }
  }
  goto done;
fail:
  Py_CLEAR(out);
  while (nfr) {
    nfr--;
    Py_XDECREF(path[nfr]);
    frame_clear(&fr[nfr]);
  }
done:
  PyMem_Free(fr);
  PyMem_Free(path);
  Py_DECREF(table);
  Py_DECREF(s);
  return out;
}
