/* SPDX-License-Identifier: MIT */
/* grove_py.h -- the grove._grove extension: shared declarations.
 *
 * Layout of the extension:
 *   module.c    module init
 *   args.c      module state lookup, argument parsing, errors
 *   registry.c  the registry's C side: classification, custom nodes' classes
 *   handles.c   handles: objects numbered once per process (dict keys, metadata)
 *   typenames.c type names: the process-unique names of classes and factories
 *   generations.c  generations (arenas, memory limit, recycling), spec_new,
 *               memory_stats / set_memory_limit
 *   maps.c      the pointer map and the keyset cache (plain C tables)
 *   keys.c      dict keys <-> keysets (the keyset cache), key tuples, dict templates
 *   flatten.c   Python objects -> leaves + structure (flatten, leaves, structure)
 *   unflatten.c structure + leaves -> Python objects (unflatten)
 *   flatten_up_to.c  the subtrees of a tree at a structure's leaves
 *   tree_map.c  tree_map
 *   canonicalize.c  canonicalize
 *   treespec.c  the TreeSpec type
 *   spec_wire.c a TreeSpec to and from the wire encoding (to_bytes / from_bytes)
 *   keras.c     grove.keras: keras.tree's functions (traverse, map_structure, ...),
 *               in keras_walk.c, keras_traverse.c, keras_assert.c, keras_tape.c,
 *               keras_flat.c (keras_walk.h)
 *
 * A structure is a grove node: containers as in grove, `*` for a leaf; None
 * (when not a leaf), namedtuples, PyStructSequences and registered classes are
 * custom nodes whose type name names the Python class (see type names in
 * module.c). Every function here runs with the GIL held; nothing is global:
 * all state is in the module state or in a walk. */
#ifndef GROVE_PY_H
#define GROVE_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "grove.h"
#include "internal.h"

/* ---- maps.c ---- */
typedef struct pm_ent {
  const void *k;
  PyObject *v; /* owned */
} pm_ent;
typedef struct ptrmap {
  pm_ent *t;
  size_t cap, len;
} ptrmap;
PyObject *pm_get(const ptrmap *m, const void *k);  /* borrowed or NULL */
int pm_put(ptrmap *m, const void *k, PyObject *v); /* v is INCREF'd; -1 no memory */
void pm_clear(ptrmap *m);

typedef struct kc_ent {
  uint64_t h;
  Py_ssize_t n;
  PyObject **keys; /* owned refs, n of them */
  const gv_node *ks;
} kc_ent;
typedef struct keycache {
  kc_ent *t;
  size_t cap, len, nkeys;
  uint64_t hits, misses, clears;
} keycache;
uint64_t kc_hash(PyObject *const *keys, Py_ssize_t n, int odict);
const gv_node *kc_get(const keycache *c, uint64_t h, PyObject *const *keys, Py_ssize_t n);
int kc_put(keycache *c, uint64_t h, PyObject *const *keys, Py_ssize_t n, const gv_node *ks);
void kc_clear(keycache *c);

/* A set of pointers (the walk path, for cycles). */
typedef struct pset {
  const void **t;
  size_t cap, len;
} pset;
int ps_add(pset *s, const void *p); /* 1 added, 0 present, -1 no memory */
void ps_del(pset *s, const void *p);
void ps_free(pset *s);

/* ---- generations (generations.c) ---- */
/* A direct-mapped memo of small sequence nodes: interning a list or tuple of
 * at most two children is one probe here instead of hashing and the intern
 * table (chains of singletons, pairs of leaves). Entries point into the
 * generation's own arena, which never frees a node while it lives. */
#define SMEMO_SLOTS 2048  /* 4-way buckets */
#define SMEMO_DEPTHS 1024 /* then one slot per walk depth */
typedef struct smemo {
  const gv_node *k0, *k1, *node;
  uintptr_t tag; /* kind * 4 + number of children; 0: empty slot */
} smemo;
typedef struct GenObject {
  PyObject_HEAD gv_arena *a;
  uint64_t serial;
  ptrmap rev;         /* keyset -> tuple of key objects; type-name node -> object */
  ptrmap tmpl;        /* keyset -> dict of its keys (values None): unflatten copies it */
  keycache kc;        /* key objects (by identity) -> keyset */
  PyObject *tnodes;   /* dict: id(object) -> int(node): type names, factories */
  struct smemo *memo; /* lists and tuples of up to 2 children -> their node (walk.c) */
  const gv_node *none_node;
  size_t max_op_growth;          /* the most one operation added to the arena */
  struct GenObject *prev, *next; /* the live generations (module state's list) */
  struct gstate *st;
} GenObject;

/* ---- module state ---- */
#define DEFAULT_LIMIT ((size_t)64 << 20) /* a generation's memory limit until set_memory_limit */
#define RECYCLE_MIN ((size_t)32 << 10)   /* recycling (op_gen): see below */
#define RECYCLE_FACTOR 64
typedef struct gstate {
  PyTypeObject *spec_type, *gen_type;
  GenObject *cur;
  GenObject *gens; /* every live generation (the current one and those still held) */
  Py_ssize_t live_gens;
  size_t limit;
  uint64_t serial;
  uint64_t generations_made;
  /* recycling (op_gen): a generation that nothing but the module holds, that
   * grew in the last operations one after another and holds more than
   * max(recycle_min, RECYCLE_FACTOR x its largest single operation), is
   * dropped */
  size_t recycle_min;
  size_t op_used;       /* the current generation's bytes_used when the last operation began */
  uint64_t op_serial;   /* ... and that generation's serial */
  unsigned grow_streak; /* operations in a row that added to the arena */
  uint64_t recycled;
  PyObject *nsreg;      /* dict: namespace -> dict: class -> (cls, flatten, unflatten, entry) */
  PyObject *typecache;  /* dict: type -> int kind (global namespace) or registration */
  PyObject *names;      /* dict: name -> object */
  PyObject *objnames;   /* dict: id(object) -> name */
  PyObject *handles;    /* list: handle - 1 -> object */
  PyObject *handle_of;  /* dict: object -> handle (hashable objects) */
  PyObject *unhashable; /* list of handles whose objects are unhashable */
  PyTypeObject *odict_t, *ddict_t, *deque_t;
  PyObject *key_order; /* callable(keys list) -> list of indices (the package sets it) */
  PyObject *mangle;    /* callable(object) -> base name */
  PyObject *s_fields, *s_default_factory, *s_maxlen, *s_n_sequence_fields, *s_empty;
  PyObject *s_make, *s_asdict, *s_n_fields, *s_n_unnamed_fields;
  PyObject *empty_ns;   /* '' */
  struct kstate *keras; /* keras.c's own state */
  void *frcache;        /* walk.c: a walk's grown frame stack, kept for the next walk */
  Py_ssize_t frcache_cap;
} gstate;

gstate *state_of_module(PyObject *m);
gstate *state_of_type(PyTypeObject *t);

/* The kinds of Python nodes. */
enum {
  K_LEAF = 0,
  K_NONE,
  K_LIST,
  K_TUPLE,
  K_DICT,
  K_ODICT,
  K_DDICT,
  K_DEQUE,
  K_NT,
  K_SS,
  K_CUSTOM
};

/* A custom node's type name and metadata (a handle node, or NULL). */
static inline const gv_node *ctype_name(const gv_node *n) {
  return GV__CONT(GV__CONT(n)->meta)->kids[0];
}
static inline const gv_node *ctype_meta(const gv_node *n) {
  return GV__CONT(GV__CONT(n)->meta)->kids[2];
}

/* The current generation (made on first use). NULL with an exception set. */
GenObject *cur_gen(gstate *st);
/* The same at the start of an operation (a walk): first recycles a generation
 * that only grows with structures nobody keeps (see gstate). */
GenObject *op_gen(gstate *st);
/* Start a new current generation (after GV_ENOMEM). 0 or -1 with an exception. */
int new_gen(gstate *st);
PyObject *py_memory_stats(PyObject *m, PyObject *unused);
PyObject *py_set_memory_limit(PyObject *m, PyObject *arg);
/* A handle (>= 1) for obj (equal objects share one); 0 with an exception. */
uint64_t handle_for(gstate *st, PyObject *obj);
PyObject *handle_obj(gstate *st, uint64_t h); /* borrowed or NULL */
PyObject *py_handle_object(PyObject *m, PyObject *arg);
PyObject *py_handle_for(PyObject *m, PyObject *arg);
/* The str node naming obj (a class or a defaultdict factory) in g; its name is
 * unique in the process. NULL with an exception set (oom: *oom = 1). */
const gv_node *name_node(gstate *st, GenObject *g, PyObject *obj, int *oom);
/* The object named by a type-name/factory node of g, or NULL (exception set). */
PyObject *named_obj(gstate *st, GenObject *g, const gv_node *name);
PyObject *py_object_named(PyObject *m, PyObject *arg);
PyObject *py_name_for(PyObject *m, PyObject *arg);
/* Registration of type t for namespace ns (borrowed tuple) or NULL (no error). */
PyObject *registration(gstate *st, PyObject *ns, PyTypeObject *t);
/* The kind of a non-exact-builtin object; *reg gets the registration for K_CUSTOM. */
int classify_slow(gstate *st, PyObject *nsdict, PyTypeObject *t, PyObject **reg);
/* Registration / kind of a custom node: 1 NoneType, K_NT, K_SS or K_CUSTOM; *cls borrowed */
int custom_info(gstate *st, GenObject *g, const gv_node *n, PyObject *ns, PyObject **cls,
                PyObject **reg);
PyObject *py_setup(PyObject *m, PyObject *args);
PyObject *py_registry_changed(PyObject *m, PyObject *unused);

/* ---- the TreeSpec object (treespec.c) ---- */
typedef struct SpecObject {
  PyObject_HEAD GenObject *gen;
  const gv_node *node;  /* the structure, dicts in insertion order */
  GenObject *cgen;      /* generation of canon (NULL until computed) */
  const gv_node *canon; /* node with every dict in its traversal order */
  PyObject *ns;         /* namespace str */
  int none_is_leaf;
  int has_fp;
  Py_ssize_t num_nodes; /* -1 until computed */
  Py_hash_t hash;       /* -1 until computed */
  uint8_t fp[16];
} SpecObject;
/* A TreeSpec of node in g (generations.c). */
PyObject *spec_new(gstate *st, GenObject *g, const gv_node *node, int none_is_leaf, PyObject *ns);
extern PyType_Spec spec_type_spec;
extern PyType_Spec gen_type_spec;

/* ---- keys.c ---- */
const gv_node *canon_keyset(gstate *st, PyObject *keys, PyObject *const *karr, Py_ssize_t n,
                            int *oom);
const gv_node *keyset_nocode(gstate *st, GenObject *g, PyObject *const *keys, Py_ssize_t n,
                             int *refused);
/* The Python object for a dict-kind keyset's keys (tuple, borrowed). */
PyObject *keys_of(gstate *st, GenObject *g, const gv_node *ks);
/* Python object for a native key node (new ref). */
PyObject *key_to_py(gstate *st, const gv_node *k);
/* The template dict of keyset node tn (keys in tn's order, values None), borrowed. */
PyObject *dict_template(gstate *st, GenObject *g, const gv_node *ksn, const gv_node *tn,
                        const uint32_t *perm, size_t arity);

/* ---- flatten.c ---- */
typedef struct flat_args {
  PyObject *tree, *is_leaf, *ns;
  int none_is_leaf;
} flat_args;
/* Leaves as a list; with spec non-NULL also the structure (a TreeSpec). */
int do_flatten(gstate *st, const flat_args *fa, PyObject **leaves, PyObject **spec);
PyObject *py_tree_flatten(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);
PyObject *py_tree_leaves(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);
PyObject *py_tree_structure(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);

/* ---- the builds: unflatten.c, flatten_up_to.c, tree_map.c, canonicalize.c ---- */
/* Grow *p (a PyMem array of *cap elements of elem bytes) to hold need. */
static inline int bgrow(void **p, size_t *cap, size_t need, size_t elem) {
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

/* The Python kind of a structure node. */
static inline int node_kind(gstate *st, GenObject *g, const gv_node *n, PyObject *ns,
                            PyObject **cls, PyObject **reg) {
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

/* The tree of node (in g, namespace ns) with leaves[0..n) (borrowed). */
PyObject *unflatten_node(gstate *st, GenObject *g, const gv_node *node, PyObject *ns,
                         PyObject *const *leaves, Py_ssize_t n);
PyObject *do_unflatten(gstate *st, SpecObject *s, PyObject *leaves);
PyObject *py_tree_unflatten(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);
PyObject *do_flatten_up_to(gstate *st, SpecObject *s, PyObject *tree);
/* rests[0..nrest) each flattened up to s (new references, in a PyMem array), or NULL with
 * an exception set; free_rests releases such an array (NULL-tolerant). */
PyObject **flatten_rests_up_to(gstate *st, SpecObject *s, PyObject *const *rests, Py_ssize_t nrest);
void free_rests(PyObject **lists, Py_ssize_t nrest);
PyObject *py_tree_map(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);
PyObject *py_canonicalize(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);

/* Argument parsing for METH_FASTCALL | METH_KEYWORDS (args.c): names[0..npos)
 * may be given by position, the first nreq are required. */
int parse_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *fname,
               const char *const *names, int npos, int nreq, PyObject **out);
int flat_opts(gstate *st, PyObject *is_leaf, PyObject *nil, PyObject *ns, flat_args *fa);
/* spec_wire.c */
PyObject *py_spec_refs(PyObject *m, PyObject *arg);
PyObject *py_spec_from_wire(PyObject *m, PyObject *args);
PyObject *py_is_leaf(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);

/* A tuple of n borrowed objects (new references taken). */
static inline PyObject *tuple_from(PyObject *const *v, Py_ssize_t n) {
  PyObject *t = PyTuple_New(n);
  if (!t) return NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    Py_INCREF(v[i]);
    PyTuple_SET_ITEM(t, i, v[i]);
  }
  return t;
}

/* ---- keras.c (grove.keras) ---- */
/* Adds the keras_* functions to the module; its state goes in st->keras. */
int keras_init(PyObject *m, gstate *st);
void keras_clear(gstate *st);

/* ---- dictfill.c ---- */
/* d: a dict just made by PyDict_Copy(tm), tm a template whose n keys were
 * inserted in order with the value None. Sets d's values to vals[0..n) and,
 * with perm (a permutation of 0..n), reorders d: the r-th key of tm and
 * vals[r] become d's entry perm[r] (its insertion order). With keys, keys[r]
 * (equal to tm's r-th key) is put in place of that key. 1 done; 0 not done
 * (this CPython's dict layout is not known here, or d is not such a copy),
 * d unchanged. Never fails and runs no Python code. */
int dict_fill(PyObject *d, PyObject *tm, PyObject *const *keys, PyObject *const *vals,
              const uint32_t *perm, Py_ssize_t n);
/* A new dict with orig's keys and the values vals[0..n) (insertion order),
 * when orig is an exact dict whose keys in insertion order are keys[0..n)
 * (by identity) in a compact table; else NULL, with an exception only when
 * memory ran out. Runs no Python code (the table is cloned, nothing hashed
 * or compared). */
PyObject *dict_copy_fill(PyObject *orig, PyObject *const *keys, PyObject *const *vals,
                         Py_ssize_t n);
/* The keys and values of dict d (n = len(d)) in insertion order, borrowed:
 * the count written (at most n). Read straight from its table where this
 * CPython's layout is known here and the table is a combined one, else
 * through PyDict_Next. Runs no Python code. */
Py_ssize_t dict_items(PyObject *d, PyObject **keys, PyObject **vals, Py_ssize_t n);
extern const int dict_fill_works; /* 1 where dict_fill can do its work */

/* Python-level errors for grove statuses (args.c). */
PyObject *raise_gv(gv_status s, const gv_error *e);
/* Raise exc with message fmt, prefixed "at PATH: " when path is a non-empty tuple. */
PyObject *err_at(PyObject *exc, PyObject *path, const char *fmt, ...);

#endif
