/* SPDX-License-Identifier: MIT */
/* keras_walk.h -- grove.keras's walk, shared by its files: the keras state,
 * the owned-reference stacks, the frames of a walk over one tree (or two, for
 * assert_same_structure) and the rebuilding of a node (keras_walk.c); the
 * keras_* module functions (keras.c binds them). */
#ifndef GROVE_PY_KERAS_WALK_H
#define GROVE_PY_KERAS_WALK_H

#include "keras.h"

typedef struct kstate {
  PyObject *ns;          /* 'keras' */
  PyObject *s_name;      /* '__name__' */
  PyObject *s_map_none;  /* 'MAP_TO_NONE' */
  PyObject *s_paths;     /* 'paths' */
  PyObject *s_none_leaf; /* 'none_is_leaf' */
  PyObject *s_top_down;  /* 'top_down' */
} kstate;

static inline kstate *ks_of(gstate *st) {
  return st->keras;
}

/* The kind of o in keras's namespace (K_LEAF for a leaf), -1 with an
 * exception; *reg gets a custom node's registration (borrowed from the
 * cache: hold it before code runs). May run code for a class not seen yet
 * (classify): the caller holds o. */
static inline int kkind(gstate *st, PyObject *o, int none_is_leaf, PyObject **reg) {
  PyTypeObject *tp = Py_TYPE(o);
  if (tp == &PyList_Type) return K_LIST;
  if (tp == &PyTuple_Type) return K_TUPLE;
  if (tp == &PyDict_Type) return K_DICT;
  if ((tp == &PyLong_Type || tp == &PyFloat_Type || tp == &PyUnicode_Type || tp == &PyBool_Type) &&
      fast_leaves(st))
    return K_LEAF;
  if (o == Py_None) return none_is_leaf ? K_LEAF : K_NONE;
  return classify(st, st->keras->ns, tp, reg);
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

static inline int grow_to(void **p, Py_ssize_t *cap, Py_ssize_t need, size_t elem) {
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

/* The items from position i on (NULL for a stack never grown: nothing there). */
static inline PyObject **os_at(const ostack *s, Py_ssize_t i) {
  return s->v ? s->v + i : NULL;
}

static inline void os_pop_to(ostack *s, Py_ssize_t base) {
  while (s->n > base) {
    s->n--;
    Py_DECREF(s->v[s->n]);
  }
}

static inline void os_free(ostack *s) {
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
  GenObject *g;     /* held: the generation dict orders come from (made on first use) */
  Py_ssize_t ncust; /* custom nodes on the path (K_MAX_CUSTOM_DEPTH) */
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

/* keras_walk.c (each is described where it is defined) */
PyObject *kw_path(const kwalk *w, Py_ssize_t depth);
int kw_err(kwalk *w, PyObject *exc, const char *fmt, ...);
void fr_release(kwalk *w, kframe *f);
void kw_free(kwalk *w);
int custom_flatten(kwalk *w, PyObject *reg, PyObject *o, PyObject **kids, PyObject **meta,
                   PyObject **entries);
int push_items(kwalk *w, PyObject *const *items, Py_ssize_t n);
int kw_push_frame(kwalk *w, PyObject *o, int kind, PyObject *reg);

/* What rebuilding a node takes. */
typedef struct knode {
  int kind;
  Py_ssize_t n;
  PyObject *obj, *aux, *reg; /* borrowed */
  PyObject *const *keys;     /* dict kinds: the keys in insertion order */
  const uint32_t *perm;      /* dict kinds: traversal -> insertion, or NULL */
} knode;

PyObject *rebuild(kwalk *w, const knode *k, PyObject **vals, int as_tuple);

/* The module functions, by file (keras.c binds them). */
/* keras_traverse.c */
PyObject *py_traverse(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);
PyObject *py_lists_to_tuples(PyObject *m, PyObject *tree);
/* keras_assert.c */
PyObject *py_assert_same_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kw);
/* keras_tape.c; tape_map: map_structure over one structure (shapes: map_shape_structure) */
PyObject *tape_map(gstate *st, PyObject *func, PyObject *tree, int none_is_leaf, int shapes);
PyObject *py_pack_sequence_as(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);
PyObject *py_map_shape_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kw);
/* keras_flat.c */
PyObject *py_is_nested(PyObject *m, PyObject *o);
PyObject *py_flatten(PyObject *m, PyObject *o);
PyObject *py_flatten_with_path(PyObject *m, PyObject *o);
PyObject *py_map_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *py_map_structure_up_to(PyObject *m, PyObject *const *args, Py_ssize_t nargs);
/* keras_torch.c */
PyObject *py_torch_plain(PyObject *m, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_torch_is_nested(PyObject *m, PyObject *const *args, Py_ssize_t nargs);

#endif
