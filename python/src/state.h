/* SPDX-License-Identifier: MIT */
/* state.h -- the floor of grove._grove: the module state and what every
 * operation stands on (the layers: module.c). On tables.h. Bottom first:
 *
 *   args.c         a module's or type's state, argument parsing, grove
 *                  statuses and paths as Python errors
 *   generations.c  generations (the arenas structures live in: memory limit,
 *                  recycling), spec_new; memory_stats, set_memory_limit
 *   handles.c      handles: objects numbered once per process (dict keys,
 *                  custom metadata); _handle_object, _handle_for
 *   typenames.c    type names: the process-unique names of classes and
 *                  defaultdict factories; _object_named, _name_for
 *   registry.c     the registry's C side: classification, the class and
 *                  registration a custom node names; _setup, _registry_changed
 *
 * A structure is a grove node: containers as in grove, `*` for a leaf; None
 * (when not a leaf), namedtuples, PyStructSequences and registered classes are
 * custom nodes whose type name names the Python class (see typenames.c).
 * Every function here runs with the GIL held; nothing is global: all state is
 * in the module state or in a walk. */
#ifndef GROVE_PY_STATE_H
#define GROVE_PY_STATE_H

#include "tables.h"

/* ---- a generation ---- */
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
  struct smemo *memo; /* lists and tuples of up to 2 children -> their node (flatten.c) */
  const gv_node *none_node;
  size_t max_op_growth;          /* the most one operation added to the arena */
  struct GenObject *prev, *next; /* the live generations (module state's list) */
  struct gstate *st;
} GenObject;

/* ---- module state ---- */
#define DEFAULT_LIMIT ((size_t)64 << 20) /* a generation's memory limit until set_memory_limit */
#define DEFAULT_OUTPUT_LIMIT UINT64_C(100000000) /* spec_output.c, until set_output_limit */
#define RECYCLE_MIN ((size_t)32 << 10)           /* recycling (op_gen): see below */
#define RECYCLE_FACTOR 64
typedef struct gstate {
  PyTypeObject *spec_type, *gen_type;
  GenObject *cur;
  GenObject *gens; /* every live generation (the current one and those still held) */
  Py_ssize_t live_gens;
  size_t limit;
  uint64_t out_limit; /* repr() and paths() refuse a larger output (0: no limit) */
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
  struct kstate *keras; /* grove.keras's own state (keras.c) */
  void *frcache;        /* flatten.c: a walk's grown frame stack, kept for the next walk */
  Py_ssize_t frcache_cap;
} gstate;

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

/* ---- the TreeSpec object (its type: treespec.c) ---- */
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

/* The flatten options (flat_opts). */
typedef struct flat_args {
  PyObject *tree, *is_leaf, *ns;
  int none_is_leaf;
} flat_args;

/* A custom node's type name and metadata (a handle node, or NULL). */
static inline const gv_node *ctype_name(const gv_node *n) {
  return GV__CONT(GV__CONT(n)->meta)->kids[0];
}
static inline const gv_node *ctype_meta(const gv_node *n) {
  return GV__CONT(GV__CONT(n)->meta)->kids[2];
}

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

/* ---- args.c ---- */
gstate *state_of_module(PyObject *m);
gstate *state_of_type(PyTypeObject *t);
/* Argument parsing for METH_FASTCALL | METH_KEYWORDS: names[0..npos)
 * may be given by position, the first nreq are required. */
int parse_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *fname,
               const char *const *names, int npos, int nreq, PyObject **out);
int flat_opts(gstate *st, PyObject *is_leaf, PyObject *nil, PyObject *ns, flat_args *fa);
/* Python-level errors for grove statuses. */
PyObject *raise_gv(gv_status s, const gv_error *e);
/* Raise exc with message fmt, prefixed "at PATH: " when path is a non-empty tuple. */
PyObject *err_at(PyObject *exc, PyObject *path, const char *fmt, ...);

/* ---- generations.c ---- */
extern PyType_Spec gen_type_spec;
/* The current generation (made on first use). NULL with an exception set. */
GenObject *cur_gen(gstate *st);
/* The same at the start of an operation (a walk): first recycles a generation
 * that only grows with structures nobody keeps (see gstate). */
GenObject *op_gen(gstate *st);
/* Start a new current generation (after GV_ENOMEM). 0 or -1 with an exception. */
int new_gen(gstate *st);
/* A TreeSpec of node in g. */
PyObject *spec_new(gstate *st, GenObject *g, const gv_node *node, int none_is_leaf, PyObject *ns);
PyObject *py_memory_stats(PyObject *m, PyObject *unused);
PyObject *py_set_memory_limit(PyObject *m, PyObject *arg);

/* ---- handles.c ---- */
/* A handle (>= 1) for obj (equal objects share one); 0 with an exception. */
uint64_t handle_for(gstate *st, PyObject *obj);
PyObject *handle_obj(gstate *st, uint64_t h); /* borrowed or NULL */
PyObject *py_handle_object(PyObject *m, PyObject *arg);
PyObject *py_handle_for(PyObject *m, PyObject *arg);

/* ---- typenames.c ---- */
/* The str node naming obj (a class or a defaultdict factory) in g; its name is
 * unique in the process. NULL with an exception set (oom: *oom = 1). */
const gv_node *name_node(gstate *st, GenObject *g, PyObject *obj, int *oom);
/* The object named by a type-name/factory node of g, or NULL (exception set). */
PyObject *named_obj(gstate *st, GenObject *g, const gv_node *name);
PyObject *py_object_named(PyObject *m, PyObject *arg);
PyObject *py_name_for(PyObject *m, PyObject *arg);

/* ---- registry.c ---- */
/* Registration of type t for namespace ns (borrowed tuple) or NULL (no error). */
PyObject *registration(gstate *st, PyObject *ns, PyTypeObject *t);
/* The kind of a non-exact-builtin object; *reg gets the registration for K_CUSTOM. */
int classify_slow(gstate *st, PyObject *nsdict, PyTypeObject *t, PyObject **reg);
/* Registration / kind of a custom node: 1 NoneType, K_NT, K_SS or K_CUSTOM; *cls borrowed */
int custom_info(gstate *st, GenObject *g, const gv_node *n, PyObject *ns, PyObject **cls,
                PyObject **reg);
PyObject *py_setup(PyObject *m, PyObject *args);
PyObject *py_registry_changed(PyObject *m, PyObject *unused);

#endif
