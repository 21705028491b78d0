/* SPDX-License-Identifier: MIT */
/* spec_compare.c -- equality and hash of structures that hold handles.
 *
 * A handle is an object a structure holds by identity (a dict key or custom
 * metadata that is no grove value: handles.c). Two structures made of equal
 * but distinct such objects are different nodes, yet equal TreeSpecs, as in
 * optree, which compares keys and metadata with ==. So == of TreeSpecs that
 * may hold handles walks both canonical nodes side by side (nodes_equal):
 * values compared by kind and value, handles by == on their objects (a
 * handle never equals a value), each pair of nodes once; and hash() of such
 * a TreeSpec is a hash in which every handle counts the same (blind_hash),
 * equal to gv_hash for a node that holds none, so equal TreeSpecs hash
 * equal whichever way each was hashed. Metadata is never hashed. */
#include "treespec.h"

/* ---- a stack of nodes; a set of node pairs (each pair compared once) ---- */

typedef struct nstack {
  const gv_node **v;
  size_t n, cap;
} nstack;

static int ns_push(nstack *s, const gv_node *x) {
  if (s->n == s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 64;
    const gv_node **nv = PyMem_Realloc((void *)s->v, nc * sizeof *nv);
    if (!nv) return -1;
    s->v = nv;
    s->cap = nc;
  }
  s->v[s->n++] = x;
  return 0;
}

typedef struct pairset {
  const gv_node **t; /* 2 per slot */
  size_t cap, len;
} pairset;

static size_t pair_slot(const gv_node *a, const gv_node *b, size_t mask) {
  uint64_t x = (uint64_t)(uintptr_t)a * UINT64_C(0x9E3779B97F4A7C15) ^
               (uint64_t)(uintptr_t)b * UINT64_C(0xC2B2AE3D27D4EB4F);
  return (size_t)(x >> 32) & mask;
}

/* 1 added, 0 there, -1 no memory */
static int pair_add(pairset *s, const gv_node *a, const gv_node *b) {
  if (2 * (s->len + 1) > s->cap) {
    size_t nc = s->cap ? s->cap * 2 : 64;
    const gv_node **nt = PyMem_Calloc(2 * nc, sizeof *nt);
    if (!nt) return -1;
    for (size_t i = 0; i < s->cap; i++) {
      if (!s->t[2 * i]) continue;
      size_t j = pair_slot(s->t[2 * i], s->t[2 * i + 1], nc - 1);
      while (nt[2 * j])
        j = (j + 1) & (nc - 1);
      nt[2 * j] = s->t[2 * i];
      nt[2 * j + 1] = s->t[2 * i + 1];
    }
    PyMem_Free((void *)s->t);
    s->t = nt;
    s->cap = nc;
  }
  size_t mask = s->cap - 1, i = pair_slot(a, b, mask);
  while (s->t[2 * i]) {
    if (s->t[2 * i] == a && s->t[2 * i + 1] == b) return 0;
    i = (i + 1) & mask;
  }
  s->t[2 * i] = a;
  s->t[2 * i + 1] = b;
  s->len++;
  return 1;
}

/* Two scalar (leaf-kind) nodes of the same kind, no handles: equal values. */
static int scalar_equal(const gv_node *a, const gv_node *b) {
  size_t la = 0, lb = 0;
  switch (gv_kind(a)) {
  case GV_NONE:
  case GV_STAR:
    return 1;
  case GV_BOOL:
    return gv_get_bool(a) == gv_get_bool(b);
  case GV_INT:
    return gv_get_int(a) == gv_get_int(b);
  case GV_FLOAT: {
    double x = gv_get_float(a), y = gv_get_float(b);
    return memcmp(&x, &y, sizeof x) == 0; /* (-0.0 is not 0.0; NaN is one node) */
  }
  case GV_STR: {
    const char *x = gv_get_str(a, &la), *y = gv_get_str(b, &lb);
    return la == lb && memcmp(x, y, la) == 0;
  }
  case GV_BYTES: {
    const char *x = gv_get_bytes(a, &la), *y = gv_get_bytes(b, &lb);
    return la == lb && memcmp(x, y, la) == 0;
  }
  default:
    return 0;
  }
}

/* The parts of a node other than a value: its children, then its meta and
 * aux nodes (NULL where it has none). */
static size_t node_parts(const gv_node *x, const gv_node **meta, const gv_node **aux) {
  const gv__cont *c = GV__CONT(x);
  *meta = c->meta;
  *aux = c->aux;
  /* a tuple's meta is its canonical twin (not part of its identity) */
  if (gv_kind(x) == GV_TUPLE || gv_kind(x) == GV_LIST) *meta = NULL;
  if (gv_kind(x) == GV_KEYSET) *meta = *aux = NULL; /* the sorted twin; host order data */
  return x->arity;
}

int nodes_equal(GenObject *ga, const gv_node *a, GenObject *gb, const gv_node *b) {
  nstack s = {NULL, 0, 0}; /* pairs: x then y */
  pairset seen = {NULL, 0, 0};
  int rc = 1;
#define PUSH2(x, y)                                                                                \
  do {                                                                                             \
    if (ns_push(&s, (x)) < 0 || ns_push(&s, (y)) < 0) goto oom;                                    \
  } while (0)
  PUSH2(a, b);
  while (s.n && rc == 1) {
    const gv_node *y = s.v[--s.n], *x = s.v[--s.n];
    if (!x || !y) {
      if (x != y) rc = 0;
      continue;
    }
    if (ga == gb && x == y) continue;
    unsigned kx = gv_kind(x);
    if (kx != gv_kind(y)) {
      rc = 0;
      continue;
    }
    if (kx == GV_HANDLE) {
      PyObject *ox = handle_obj(ga, gv_get_handle(x));
      PyObject *oy = ox ? handle_obj(gb, gv_get_handle(y)) : NULL;
      if (!oy) goto fail;
      if (ox == oy) continue;
      Py_INCREF(ox);
      Py_INCREF(oy);
      int eq = PyObject_RichCompareBool(ox, oy, Py_EQ); /* code: ga, gb are held */
      Py_DECREF(ox);
      Py_DECREF(oy);
      if (eq < 0) goto fail;
      if (!eq) rc = 0;
      continue;
    }
    if (gv_arity(x) != gv_arity(y)) {
      rc = 0;
      continue;
    }
    if (kx <= GV_STAR) { /* a value: the same in one arena is the same node (x != y here) */
      rc = ga == gb ? 0 : scalar_equal(x, y);
      continue;
    }
    if (kx == GV_DEQUE && gv_deque_maxlen(x) != gv_deque_maxlen(y)) {
      rc = 0;
      continue;
    }
    int fresh = pair_add(&seen, x, y);
    if (fresh < 0) goto oom;
    if (!fresh) continue;
    const gv_node *mx, *ax, *my, *ay;
    size_t k = node_parts(x, &mx, &ax);
    node_parts(y, &my, &ay);
    if (kx == GV_DEQUE) ax = ay = NULL; /* (compared above) */
    PUSH2(mx, my);
    PUSH2(ax, ay);
    for (size_t i = k; i-- > 0;)
      PUSH2(GV__CONT(x)->kids[i], GV__CONT(y)->kids[i]);
  }
  goto done;
oom:
  PyErr_NoMemory();
fail:
  rc = -1;
done:
#undef PUSH2
  PyMem_Free((void *)s.v);
  PyMem_Free((void *)seen.t);
  return rc;
}

/* ---- the handle-blind hash ---- */

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + UINT64_C(0x9E3779B97F4A7C15) + (h << 6) + (h >> 2);
  h *= UINT64_C(0xBF58476D1CE4E5B9);
  return h ^ (h >> 31);
}

#define HANDLE_HASH UINT64_C(0x48414E444C45) /* every handle's part */
#define NULL_HASH UINT64_C(0x6E756C6C)

/* The hash of x once its parts' are in memo (h, handles). */
static void blind_one(nmemo *memo, const gv_node *x, uint64_t *h, int *handles) {
  const gv_node *meta, *aux;
  size_t k = node_parts(x, &meta, &aux);
  if (gv_kind(x) == GV_DEQUE) aux = NULL;
  const gv_node *parts[2] = {meta, aux};
  uint64_t acc = mix((uint64_t)gv_kind(x), (uint64_t)k);
  int any = 0;
  for (size_t i = 0; i < k + 2; i++) {
    const gv_node *p = i < k ? GV__CONT(x)->kids[i] : parts[i - k];
    uint64_t ph;
    if (!p) {
      ph = NULL_HASH;
    } else if (gv__is_imm(p) || gv_kind(p) <= GV_STAR) {
      int hd = gv_kind(p) == GV_HANDLE;
      ph = hd ? HANDLE_HASH : gv_hash(p);
      any |= hd;
    } else {
      const nm_ent *e = nm_get(memo, p); /* (present: done before x) */
      ph = e ? e->v : 0;
      any |= e ? e->flag : 0;
    }
    acc = mix(acc, ph);
  }
  if (gv_kind(x) == GV_DEQUE) acc = mix(acc, (uint64_t)gv_deque_maxlen(x));
  *handles = any;
  *h = any ? acc : gv_hash(x);
}

int blind_hash(const gv_node *root, uint64_t *out) {
  if (gv__is_imm(root) || gv_kind(root) <= GV_STAR) {
    *out = gv_kind(root) == GV_HANDLE ? HANDLE_HASH : gv_hash(root);
    return 0;
  }
  nmemo memo = {NULL, 0, 0}; /* node -> its hash (v) and whether it holds a handle (flag) */
  nstack s = {NULL, 0, 0};   /* a node to enter, or (bit 2 set) to finish */
  int rc = 0;
  if (ns_push(&s, root) < 0) goto oom;
  while (s.n) {
    const gv_node *x = s.v[--s.n];
    int exiting = ((uintptr_t)x & 2u) != 0; /* (allocated nodes are 8-byte aligned) */
    x = (const gv_node *)((uintptr_t)x & ~(uintptr_t)2u);
    int fresh;
    nm_ent *e = nm_put(&memo, x, &fresh);
    if (!e) goto oom;
    if (exiting) {
      blind_one(&memo, x, &e->v, &e->flag); /* (reads the memo, adds nothing) */
      continue;
    }
    if (!fresh) continue;
    if (ns_push(&s, (const gv_node *)((uintptr_t)x | 2u)) < 0) goto oom;
    const gv_node *meta, *aux;
    size_t k = node_parts(x, &meta, &aux);
    const gv_node *parts[2] = {meta, aux};
    for (size_t i = 0; i < k + 2; i++) {
      const gv_node *p = i < k ? GV__CONT(x)->kids[i] : parts[i - k];
      if (p && !gv__is_imm(p) && gv_kind(p) > GV_STAR && ns_push(&s, p) < 0) goto oom;
    }
  }
  *out = nm_get(&memo, root)->v;
  goto done;
oom:
  PyErr_NoMemory();
  rc = -1;
done:
  PyMem_Free((void *)s.v);
  nm_free(&memo);
  return rc;
}
