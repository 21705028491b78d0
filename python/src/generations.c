/* SPDX-License-Identifier: MIT */
/* generations.c -- generations: the arenas structures live in, their memory
 * limit and the recycling of one that only grows; the TreeSpec object made
 * on a generation (spec_new; its type is treespec.c); memory_stats and
 * set_memory_limit. */
#include "state.h"

#include <string.h>

/* ---------------------------------------------------------------------------
 * Generations
 * ------------------------------------------------------------------------- */

static void gen_dealloc(PyObject *self) {
  GenObject *g = (GenObject *)self;
  PyTypeObject *tp = Py_TYPE(self);
  if (g->st) {
    if (g->prev)
      g->prev->next = g->next;
    else if (g->st->gens == g)
      g->st->gens = g->next;
    if (g->next) g->next->prev = g->prev;
    g->st->live_gens--;
  }
  pm_clear(&g->rev);
  pm_clear(&g->tmpl);
  kc_clear(&g->kc);
  PyMem_Free(g->memo);
  g->memo = NULL;
  PyMem_Free(g->cmemo);
  g->cmemo = NULL;
  gen_names_free(g);
  handles_free(g);
  gv_arena_free(g->a);
  g->a = NULL;
  tp->tp_free(self);
  Py_DECREF(tp);
}

static PyType_Slot gen_slots[] = {{Py_tp_dealloc, (void *)gen_dealloc},
                                  {Py_tp_doc, (void *)"a grove arena generation"},
                                  {0, NULL}};
PyType_Spec gen_type_spec = {"grove._grove._Generation", sizeof(GenObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, gen_slots};

/* Arenas allocate through the C library's malloc (PyMem_Raw*): a generation's
 * chunks are few and big, and a recycled generation's memory goes straight
 * back to the next one. (mimalloc, the library's default, keeps a page per
 * size class: a few hundred KiB more resident for a small generation.) */
static void *raw_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  (void)ctx;
  (void)old_size;
  if (new_size == 0) {
    PyMem_RawFree(ptr);
    return NULL;
  }
  return PyMem_RawRealloc(ptr, new_size);
}
static const gv_allocator raw_alloc = {raw_realloc, NULL};

int new_gen(gstate *st) {
  GenObject *g = PyObject_New(GenObject, st->gen_type);
  if (!g) return -1;
  g->a = NULL;
  memset(&g->rev, 0, sizeof g->rev);
  memset(&g->tmpl, 0, sizeof g->tmpl);
  memset(&g->kc, 0, sizeof g->kc);
  g->memo = NULL;
  g->cmemo = NULL;
  g->hobj = NULL;
  g->nh = g->ch = 0;
  memset(&g->hmap, 0, sizeof g->hmap);
  memset(&g->tnid, 0, sizeof g->tnid);
  g->tnodes = PyDict_New();
  g->serial = ++st->serial;
  g->none_node = NULL;
  g->max_op_growth = 0;
  g->prev = g->next = NULL;
  g->st = NULL;
  gv_arena_config cfg = {.max_bytes = st->limit, .alloc = &raw_alloc};
  if (!g->tnodes || gv_arena_new(&cfg, &g->a) != GV_OK) {
    Py_DECREF(g);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_MemoryError, "grove: cannot make an arena");
    return -1;
  }
  const gv_node *name = NULL;
  if (gv_str(g->a, "NoneType", 8, &name, NULL) != GV_OK ||
      gv_custom(g->a, name, NULL, NULL, 0, NULL, &g->none_node, NULL) != GV_OK) {
    Py_DECREF(g);
    PyErr_SetString(PyExc_MemoryError, "grove: memory limit too small for any structure");
    return -1;
  }
  st->generations_made++;
  g->st = st;
  g->next = st->gens;
  if (st->gens) st->gens->prev = g;
  st->gens = g;
  st->live_gens++;
  Py_XSETREF(st->cur, g);
  return 0;
}

GenObject *cur_gen(gstate *st) {
  if (!st->cur && new_gen(st) < 0) return NULL;
  return st->cur;
}

int gen_renew(gstate *st, GenObject **g) {
  if (new_gen(st) < 0) return -1;
  Py_INCREF(st->cur);
  Py_SETREF(*g, st->cur);
  return 0;
}

static size_t gen_used(const GenObject *g) {
  gv_stats s;
  gv_arena_stats(g->a, &s);
  return s.bytes_used;
}

/* A process that flattens structures it never sees again (each one new, none
 * kept) would fill its generation up to the budget with nodes that nothing
 * reuses, and keep alive the objects they hold (handles, classes). So, at the
 * start of an operation: if the last operations each added to the current
 * generation and it holds more than max(RECYCLE_MIN, RECYCLE_FACTOR x the
 * most any one operation added), the module lets it go and a new one starts:
 * freed at once when no TreeSpec holds it, else when the last one that does
 * is. A loop over the same structures adds nothing after its
 * first round and is never recycled; structures that are used again survive
 * a stream of RECYCLE_FACTOR times their size of one-off ones. */
GenObject *op_gen(gstate *st) {
  GenObject *g = st->cur;
  if (g) {
    size_t used = gen_used(g);
    if (st->op_serial == g->serial) {
      size_t grew = used > st->op_used ? used - st->op_used : 0;
      if (grew) {
        st->grow_streak++;
        if (grew > g->max_op_growth) g->max_op_growth = grew;
      } else {
        st->grow_streak = 0;
      }
    }
    size_t soft = g->max_op_growth * RECYCLE_FACTOR;
    if (soft < st->recycle_min) soft = st->recycle_min;
    if (st->grow_streak >= 2 && used > soft) {
      /* nothing else holds it: freed now; else (a TreeSpec kept somewhere)
       * it lives on with what holds it, and new structures go to a new
       * generation: either way what one-off structures (and their handles
       * and classes) hold stays bounded */
      Py_CLEAR(st->cur);
      st->recycled++;
      st->grow_streak = 0;
    }
  }
  g = cur_gen(st);
  if (!g) return NULL;
  st->op_used = gen_used(g);
  st->op_serial = g->serial;
  return g;
}

/* ---------------------------------------------------------------------------
 * TreeSpec objects: a generation and a structure node in its arena
 * ------------------------------------------------------------------------- */

PyObject *spec_new(gstate *st, GenObject *g, const gv_node *node, int none_is_leaf, PyObject *ns,
                   PyObject *regs, int handles) {
  SpecObject *s = PyObject_New(SpecObject, st->spec_type);
  if (!s) return NULL;
  Py_XINCREF(regs);
  s->regs = regs;
  s->handles = handles;
  Py_INCREF(g);
  s->gen = g;
  s->node = node;
  s->cgen = NULL;
  s->canon = NULL;
  Py_INCREF(ns);
  s->ns = ns;
  s->none_is_leaf = none_is_leaf;
  s->has_fp = 0;
  s->num_nodes = -1;
  s->hash = -1;
  if (gv_flags(node) & GV_F_CANONICAL) { /* already in traversal order: its own canon */
    Py_INCREF(g);
    s->cgen = g;
    s->canon = node;
  }
  return (PyObject *)s;
}

/* ---------------------------------------------------------------------------
 * Module functions
 * ------------------------------------------------------------------------- */

PyObject *py_memory_stats(PyObject *m, PyObject *unused) {
  (void)unused;
  gstate *st = state_of_module(m);
  GenObject *g = cur_gen(st);
  if (!g) return NULL;
  size_t used = 0, reserved = 0, nodes = 0, kc_entries = 0, kc_keys = 0, rev = 0, tmpl = 0,
         handles = 0;
  uint64_t hits = 0, misses = 0;
  for (GenObject *x = st->gens; x; x = x->next) {
    gv_stats s;
    gv_arena_stats(x->a, &s);
    used += s.bytes_used;
    reserved += s.bytes_reserved;
    nodes += s.nodes;
    kc_entries += x->kc.len;
    kc_keys += x->kc.nkeys;
    rev += x->rev.len;
    tmpl += x->tmpl.len;
    handles += x->nh;
    hits += x->kc.hits;
    misses += x->kc.misses;
  }
  gv_stats cs;
  gv_arena_stats(g->a, &cs);
  return Py_BuildValue(
      "{s:n,s:K,s:K,s:K,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:K,s:K}",
      "generations", st->live_gens, "generation", (unsigned long long)g->serial, "generations_made",
      (unsigned long long)st->generations_made, "generations_recycled",
      (unsigned long long)st->recycled, "limit", (Py_ssize_t)st->limit, "bytes_used",
      (Py_ssize_t)used, "bytes_reserved", (Py_ssize_t)reserved, "nodes", (Py_ssize_t)nodes,
      "current_bytes_used", (Py_ssize_t)cs.bytes_used, "current_bytes_reserved",
      (Py_ssize_t)cs.bytes_reserved, "current_nodes", (Py_ssize_t)cs.nodes, "keyset_cache_entries",
      (Py_ssize_t)kc_entries, "keyset_cache_keys", (Py_ssize_t)kc_keys, "reverse_map_entries",
      (Py_ssize_t)rev, "dict_templates", (Py_ssize_t)tmpl, "handles", (Py_ssize_t)handles,
      "type_names", PyDict_GET_SIZE(st->names), "keyset_cache_hits", (unsigned long long)hits,
      "keyset_cache_misses", (unsigned long long)misses);
}

PyObject *py_set_memory_limit(PyObject *m, PyObject *arg) {
  gstate *st = state_of_module(m);
  Py_ssize_t v = PyNumber_AsSsize_t(arg, PyExc_OverflowError);
  if (v == -1 && PyErr_Occurred()) return NULL;
  if (v < (1 << 16)) {
    PyErr_SetString(PyExc_ValueError, "set_memory_limit: the limit must be at least 65536 bytes");
    return NULL;
  }
  size_t old = st->limit;
  st->limit = (size_t)v;
  if (new_gen(st) < 0) {
    st->limit = old;
    return NULL;
  }
  return PyLong_FromSize_t(old);
}
