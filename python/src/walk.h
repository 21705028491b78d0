/* SPDX-License-Identifier: MIT */
/* walk.h -- the flatten walk's state, shared by flatten.c (the walk) and
 * keys.c (the keysets the walk makes of dict keys as it goes); nothing else
 * includes it. */
#ifndef GROVE_PY_WALK_H
#define GROVE_PY_WALK_H

#include "walks.h"

#define INL_FR 24
#define INL_N 96

typedef struct frame {
  PyObject *obj;     /* owned */
  PyObject *seq;     /* owned: children tuple (deque, custom) or NULL */
  PyObject *entries; /* owned: custom path entries or NULL */
  PyObject *reg;     /* owned: a custom node's registration, or NULL */
  Py_ssize_t n, i;
  int kind, in_path, pinned; /* pinned: the dict values on w->vals are owned */
  const gv_node *ks;
  const uint32_t *perm;
  Py_ssize_t vbase, nbase;
  const gv_node *tname, *meta;
  int64_t maxlen;
} frame;

typedef struct walk {
  gstate *st;
  GenObject *g;
  gv_arena *a;
  const flat_args *fa;
  int spec, oom;
  int handles;      /* a handle may be in the structure (host-ordered keysets, metadata) */
  Py_ssize_t ncust; /* custom nodes on the path (user code per level: MAX_CUSTOM_DEPTH) */
  PyObject **regs;  /* the registrations met (owned; the spec keeps them) */
  Py_ssize_t nregs, cregs;
  int pinned;       /* dict values are held (owned) from now on: user code may run */
  int nocode;       /* run no Python code: a key other than a built-in scalar is refused */
  int refused;      /* ... and was */
  int found_custom; /* a registered class was met: the spec keeps the namespace (as optree) */
  int dict_ins;     /* dicts and defaultdicts keep their insertion order (dict_insertion_ordered) */
  frame *fr;
  Py_ssize_t nfr, cfr;
  PyObject **lv;
  Py_ssize_t nlv, clv;
  const gv_node **nodes;
  Py_ssize_t nnodes, cnodes;
  PyObject **vals;
  Py_ssize_t nvals, cvals;
  const gv_node **tmp;
  Py_ssize_t ctmp;
  pset path;
  /* the class classified last, while no code has run (!pinned): its kind and
   * registration (borrowed from the cache, which only code changes) */
  PyTypeObject *last_tp;
  int last_kind;
  PyObject *last_reg;
  /* the custom type node (GV_CTYPE) of the last namedtuple/custom node made: its
   * name and metadata nodes, and itself (nodes of this walk's arena) */
  const gv_node *ct_name, *ct_meta, *ct;
  frame fr_inl[INL_FR];
  PyObject *lv_inl[INL_N];
  const gv_node *nodes_inl[INL_N];
} walk;

/* How keyset_cached and keyset_for order a dict's keys: grove's key order (or
 * the host's for keys it holds as handles), insertion order for an
 * OrderedDict, insertion order for a dict under dict_insertion_ordered. */
enum { KS_SORTED = 0, KS_ODICT = 1, KS_INSERTION = 2 };

/* The cached keyset of a dict whose keys (insertion order) are keys[0..n), or
 * NULL (no error) on a miss. */
static inline const gv_node *keyset_cached(walk *w, PyObject *const *keys, Py_ssize_t n,
                                           int order_by, uint64_t *h) {
  GenObject *g = w->g;
  *h = kc_hash(keys, n, order_by);
  const gv_node *ks = kc_get(&g->kc, *h, keys, n);
  if (ks) g->kc.hits++;
  return ks;
}

/* The keyset of keys[0..n) made (a cache miss). Key conversion may run user
 * code (__hash__, __eq__, __lt__): the caller has pinned, and keys[] are
 * held here while it runs. */
const gv_node *keyset_for(walk *w, PyObject *const *keys, Py_ssize_t n, int order_by, uint64_t h);

#endif
