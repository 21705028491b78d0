/* SPDX-License-Identifier: MIT */
/* state.h -- the floor of grove._grove: the module state and what every
 * operation stands on (the layers: module.c). On tables.h. Bottom first:
 *
 *   args.c         a module's or type's state, argument parsing, grove
 *                  statuses and paths as Python errors
 *   handles.c      handles: objects a generation holds by identity (dict keys,
 *                  custom metadata that are no grove values); values <->
 *                  nodes; _handle_object
 *   typenames.c    type names: the names, unique while in use, of classes and
 *                  defaultdict factories; _object_named, _name_for
 *   generations.c  generations (the arenas structures live in: memory limit,
 *                  recycling; freeing one frees its handles and names),
 *                  spec_new; memory_stats, set_memory_limit
 *   registry.c     the registry's C side: classification, the class and
 *                  registration a custom node names; _setup, _registry_changed,
 *                  _is_leaf
 *
 * A structure is a grove node: containers as in grove, `*` for a leaf; None
 * (when not a leaf), namedtuples, PyStructSequences and registered classes are
 * custom nodes whose type name names the Python class (see typenames.c).
 * Every function here runs with the GIL held; nothing is global: all state is
 * in the module state or in a walk. The rule every file keeps (docs/python.md):
 * any Python allocation may run arbitrary code (the cycle collector's
 * finalizers), so nothing borrowed is used across a call that can allocate or
 * run code, and an operation holds the generation it works in. */
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
/* ... and of small records (dicts, namedtuples, custom nodes of at most
 * CMEMO_KIDS children) by the identities of their keyset or type node, aux
 * and children: a structure's repeated records skip hashing and the intern
 * table. Entries are checked against the node itself (kind, arity, aux and
 * children); the same lifetime as above. */
#define CMEMO_SLOTS 1024 /* 4-way buckets */
#define CMEMO_KIDS 8
typedef struct cmemo {
  const gv_node *meta, *node;
  uint64_t h; /* 0: empty slot */
} cmemo;
typedef struct GenObject {
  PyObject_HEAD gv_arena *a;
  uint64_t serial;
  ptrmap rev;          /* keyset -> tuple of key objects; type-name node -> object */
  ptrmap tmpl;         /* keyset -> dict of its keys (values None): unflatten copies it */
  keycache kc;         /* key objects (by identity) -> keyset */
  PyObject *tnodes;    /* dict: id(object) -> int(node): type names, factories */
  idmap tnid;          /* the same by identity, read without allocating (name_node_known) */
  PyObject **hobj;     /* handles: handle h -> hobj[h - 1] (owned) */
  size_t nh, ch;       /* ... their count and capacity */
  idmap hmap;          /* object (by identity) -> its handle */
  struct smemo *memo;  /* lists and tuples of up to 2 children -> their node (flatten.c) */
  struct cmemo *cmemo; /* small records -> their node (flatten.c) */
  const gv_node *none_node;
  size_t max_op_growth;          /* the most one operation added to the arena */
  struct GenObject *prev, *next; /* the live generations (module state's list) */
  struct gstate *st;
} GenObject;

/* ---- nodememo.c ---- */
/* The list or tuple node (kind) of kids[0..n) in g's arena, through g's
 * small-sequence memo (depth: the walk's, from 1). */
gv_status memo_seq(GenObject *g, size_t depth, unsigned kind, const gv_node *const *kids, size_t n,
                   const gv_node **out, gv_error *e);
/* The record node (a dict kind or custom: kind, meta, aux) of kids[0..n)
 * (insertion order) in g's arena, through g's record memo. */
gv_status memo_record(GenObject *g, unsigned kind, const gv_node *meta, const gv_node *aux,
                      const gv_node *const *kids, size_t n, const gv_node **out, gv_error *e);

/* ---- module state ---- */
/* A generation's memory limit until set_memory_limit: a budget, not memory
 * taken (an arena grows as it is used); a 1,000,000-deep list (72 bytes a
 * level) fits. */
#define DEFAULT_LIMIT ((size_t)128 << 20)
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
  PyObject *nsreg;    /* the package's dict: namespace -> dict: class -> registration */
  ptrmap regs;        /* its snapshot: class (by identity) -> dict: namespace -> registration */
  int leaf_regs;      /* some namespace registers int, float, str or bool */
  typemap typecache;  /* class (by identity) -> kind and registrations */
  PyObject *names;    /* dict: name -> object (typenames.c) */
  PyObject *objnames; /* dict: id(object) -> name */
  PyObject *namerefs; /* dict: name -> the number of generations naming it */
  Py_ssize_t names_unused;
  PyTypeObject *odict_t, *ddict_t, *deque_t;
  PyObject *key_order;   /* callable(keys list) -> list of indices (the package sets it) */
  PyObject *ins_ordered; /* set of namespaces ('' global) whose dicts keep insertion order */
  PyObject *mangle;      /* callable(object) -> base name */
  PyObject *s_fields, *s_default_factory, *s_maxlen, *s_n_sequence_fields, *s_empty;
  PyObject *s_make, *s_asdict, *s_n_fields, *s_n_unnamed_fields;
  PyObject *empty_ns;   /* '' */
  struct kstate *keras; /* grove.keras's own state (keras.c) */
  void *frcache;        /* flatten.c: a walk's grown frame stack, kept for the next walk */
  Py_ssize_t frcache_cap;
  PyObject *s_new;     /* '__new__' */
  PyObject *tuple_new; /* tuple.__new__: what collections.namedtuple's __new__ calls */
  struct ntplain {     /* nt_plain's answers: classes borrowed, valid while their version tag is */
    const PyTypeObject *t;
    unsigned int tag;
    int plain;
    Py_ssize_t n;
  } ntplain[8];
  struct pathmemo {   /* spec_output.c: paths() of small structures met last (tuples shared) */
    uint64_t serial;  /* the structure's generation's serial */
    const gv_node *n; /* the structure (compared, never read) */
    PyObject *paths;  /* owned: a tuple of its path tuples, or NULL */
  } pathmemo[16];
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
  PyObject *regs;       /* tuple of the registrations its custom nodes were made with, or NULL */
  int none_is_leaf;
  int has_fp;
  int handles;          /* it may hold handles (then == and hash() look at them) */
  Py_ssize_t num_nodes; /* -1 until computed */
  Py_hash_t hash;       /* -1 until computed */
  uint8_t fp[16];
} SpecObject;

/* The flatten options (flat_opts). ns is an exact str ('' for the global
 * namespace), so that looking it up runs no code. */
typedef struct flat_args {
  PyObject *tree, *is_leaf, *ns;
  PyObject *own; /* ns when flat_opts made it (an exact copy of a str subclass), or NULL */
  int none_is_leaf;
} flat_args;

/* A custom node's type name and metadata (the pair custom_meta_node makes,
 * or NULL: a namedtuple, PyStructSequence or None). */
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

/* A new list or tuple whose empty slots are filled while code may run (a key's __hash__ or
 * __repr__, or a finalizer the collector runs at an allocation) is kept out of the
 * collector's sight until it is full: that code cannot reach it through gc.get_objects()
 * and read an empty slot. gc_hide(o) (o may be NULL) after making it, gc_show(o) once full
 * (an empty tuple, CPython's shared singleton, stays as it is). */
static inline PyObject *gc_hide(PyObject *o) {
  if (o) PyObject_GC_UnTrack(o);
  return o;
}
static inline void gc_show(PyObject *o) {
  if (Py_SIZE(o) && !PyObject_GC_IsTracked(o)) PyObject_GC_Track(o);
}

/* ---- args.c ---- */
gstate *state_of_module(PyObject *m);
gstate *state_of_type(PyTypeObject *t);
/* Argument parsing for METH_FASTCALL | METH_KEYWORDS: names[0..npos)
 * may be given by position, the first nreq are required. */
int parse_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *fname,
               const char *const *names, int npos, int nreq, PyObject **out);
int flat_opts(gstate *st, PyObject *is_leaf, PyObject *nil, PyObject *ns, flat_args *fa);
static inline void flat_done(flat_args *fa) { /* after flat_opts (either result) */
  Py_CLEAR(fa->own);
}
/* Python-level errors for grove statuses. */
PyObject *raise_gv(gv_status s, const gv_error *e);
/* Raise exc with message fmt, prefixed "at PATH: " when path is a non-empty tuple. */
PyObject *err_at(PyObject *exc, PyObject *path, const char *fmt, ...);
/* A path tuple for a message: its entries' reprs (each cut to a few dozen
 * characters; an Ellipsis entry shown as ...), as a tuple prints. A path
 * made for a message keeps PATH_ENDS entries at each end around an Ellipsis. */
#define PATH_ENDS 16
PyObject *path_repr(PyObject *path);
/* tuple(o) (new reference), safe for a list that finalizers may change while
 * the tuple is allocated (PySequence_Tuple is not). */
PyObject *seq_tuple(PyObject *o);

/* ---- handles.c ---- */
/* The handle (>= 1) of obj in g, by identity (g holds obj from then on); 0
 * with an exception (no memory). Runs no code. */
uint64_t handle_for(GenObject *g, PyObject *obj);
/* The object of handle h in g (borrowed: g holds it), or NULL with a ValueError. */
PyObject *handle_obj(GenObject *g, uint64_t h);
void handles_free(GenObject *g); /* (gen_dealloc) */
/* Values: the objects grove holds as themselves, by type and value, rather
 * than as handles -- exact None, bool, int within int64, float but NaN, str
 * without surrogates, bytes (scalars) -- and exact tuples of at most
 * VALUE_TUPLE_MAX scalars, as dict keys (keys.c) and custom metadata and
 * entries (custom_meta_node); from_bytes refuses a handle of such an object
 * (spec_wire.c). Neither predicate runs code or allocates. */
#define VALUE_TUPLE_MAX 64
int is_scalar_value(PyObject *o);
int is_value(PyObject *o);
/* k as a grove scalar node of a: 0 with *s the status, or 1 when k is no
 * scalar value (nothing made). Runs no code. */
int scalar_node(gv_arena *a, PyObject *k, const gv_node **out, gv_status *s, gv_error *e);
/* A value node of g (a scalar, a tuple of scalars, a handle) as an object
 * (new reference; a handle's own object). NULL with an exception. */
PyObject *value_obj(GenObject *g, const gv_node *k);
/* A custom node's metadata and path entries (entries: NULL or a tuple) as
 * its ctype's meta node in g: a tuple node (M, E), each a value node when
 * the object is a value (or a tuple of values), else a handle (*handles =
 * 1). 0, or -1 with an exception (*oom = 1: g is full). Runs no code. */
int custom_meta_node(GenObject *g, PyObject *md, PyObject *entries, const gv_node **out,
                     int *handles, int *oom);
/* The objects of custom node n's meta node (new references; *entries NULL
 * for none), or -1 with an exception: SystemError when it is not the pair
 * custom_meta_node makes with entries None or one per child. */
int custom_md(GenObject *g, const gv_node *n, PyObject **md, PyObject **entries);
PyObject *py_handle_object(PyObject *m, PyObject *args);

/* ---- typenames.c ---- */
/* The str node naming obj (a class or a defaultdict factory) in g; its name is
 * unique in the process. NULL with an exception set (oom: *oom = 1). May run
 * code (the package's mangle function) the first time g names obj. */
const gv_node *name_node(gstate *st, GenObject *g, PyObject *obj, int *oom);
/* The name node of obj when g has named it already, else NULL: no
 * allocation, no code, no exception (g's reverse map holds obj). */
static inline const gv_node *name_node_known(const GenObject *g, const PyObject *obj) {
  return (const gv_node *)(uintptr_t)im_get(&g->tnid, obj);
}
/* The object named by a type-name/factory node of g (borrowed: g holds it),
 * or NULL (exception set). Runs no code. */
PyObject *named_obj(gstate *st, GenObject *g, const gv_node *name);
void gen_names_free(GenObject *g); /* (gen_dealloc) */
PyObject *py_object_named(PyObject *m, PyObject *arg);
PyObject *py_name_for(PyObject *m, PyObject *arg);

/* ---- generations.c ---- */
extern PyType_Spec gen_type_spec;
/* The current generation (made on first use), borrowed. NULL with an
 * exception set. */
GenObject *cur_gen(gstate *st);
/* The same at the start of an operation (a walk): first recycles a generation
 * that only grows with structures nobody keeps (see gstate). */
GenObject *op_gen(gstate *st);
/* Start a new current generation (after GV_ENOMEM). 0 or -1 with an exception. */
int new_gen(gstate *st);
/* An operation's generation: *g (a reference the operation holds from start
 * to end, whatever code runs meanwhile) replaced by a new current one. 0 or
 * -1 with an exception (*g unchanged). */
int gen_renew(gstate *st, GenObject **g);
/* A TreeSpec of node in g; regs: the registrations it keeps (or NULL);
 * handles: whether the node may hold handles. */
PyObject *spec_new(gstate *st, GenObject *g, const gv_node *node, int none_is_leaf, PyObject *ns,
                   PyObject *regs, int handles);
PyObject *py_memory_stats(PyObject *m, PyObject *unused);
PyObject *py_set_memory_limit(PyObject *m, PyObject *arg);

/* ---- registry.c ---- */
/* The registration of class t in namespace ns ('' or NULL: the global one),
 * borrowed from the registry's snapshot, or NULL. Runs no code. */
PyObject *registration(gstate *st, PyObject *ns, PyTypeObject *t);
/* The kind of an object of class t in namespace ns when t is in the
 * classification cache: 1 with *kind and, for K_CUSTOM, *reg (borrowed from
 * the cache: hold it before code runs); 0 when t is not cached. Runs no code. */
static inline int classify_cached(gstate *st, PyObject *ns, PyTypeObject *t, int *kind,
                                  PyObject **reg) {
  const tm_ent *e = tm_get(&st->typecache, t);
  if (!e) return 0;
  if (e->nsregs && ns && PyUnicode_GET_LENGTH(ns) != 0) {
    PyObject *r = PyDict_GetItem(e->nsregs, ns); /* exact str keys: no code */
    if (r) {
      *kind = K_CUSTOM;
      *reg = r;
      return 1;
    }
  }
  *kind = e->kind;
  *reg = e->reg;
  return 1;
}
/* The same, filling the cache on a miss: then it may run code (the class's
 * attributes are looked up) and release objects (a full cache is emptied),
 * so the caller holds everything it uses. -1 with an exception. */
int classify(gstate *st, PyObject *ns, PyTypeObject *t, PyObject **reg);
/* Whether an exact int, float, str or bool is a leaf without asking the
 * registry (none of these classes is registered anywhere). */
static inline int fast_leaves(const gstate *st) {
  return !st->leaf_regs;
}
/* The registration of cls among a TreeSpec's (regs: a tuple or NULL), or NULL. */
PyObject *spec_registration(PyObject *regs, PyObject *cls);
/* Registration / kind of a custom node: K_NONE, K_NT, K_SS or K_CUSTOM; *cls
 * and *reg borrowed (g and the registry hold them; a spec's own
 * registrations regs first). Runs no code. */
int custom_info(gstate *st, GenObject *g, const gv_node *n, PyObject *ns, PyObject *regs,
                PyObject **cls, PyObject **reg);
/* Whether an instance of namedtuple class t with n fields is made exactly
 * as calling t makes it by t->tp_alloc(t, n) and setting the items: t's
 * metaclass is type, it has no __init__ of its own and its __new__ is the
 * one collections.namedtuple wrote (which calls tuple.__new__), for n
 * fields. Answers are kept by the class's version tag (which CPython
 * changes whenever the class or a base changes). Never fails; may run code
 * (a key's __eq__ in that function's globals): the caller holds what it uses. */
int nt_plain(gstate *st, PyTypeObject *t, Py_ssize_t n);
/* A new instance of namedtuple class t (held by the caller) with the values
 * v[0..n) (an array no code can change): made directly when nt_plain says
 * so, else by calling t. NULL with an exception. */
PyObject *new_namedtuple(gstate *st, PyTypeObject *t, PyObject *const *v, Py_ssize_t n);
PyObject *py_setup(PyObject *m, PyObject *args);
int dict_insertion_ordered(gstate *st, PyObject *ns, int *out);
PyObject *py_registry_changed(PyObject *m, PyObject *unused);
PyObject *py_is_leaf(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw);

#endif
