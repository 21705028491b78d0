/* SPDX-License-Identifier: MIT */
/* copy.c -- gv_copy: a tree of one arena rebuilt in another.
 *
 * An iterative post-order walk over the source DAG with an explicit stack; a
 * pointer map (source node -> copy) makes every distinct node cost one
 * rebuild, so a DAG is copied in O(distinct nodes). Every copy goes through
 * the destination's intern table: what the destination already holds is
 * shared, not duplicated. Immediate leaves are valid in every arena and are
 * their own copies. The whole copy runs under one mark of the destination.
 * A node the destination or one of its frozen parents already holds (a lookup
 * by identity) is used as it is and not walked.
 *
 * The map and the stacks are scratch of the call: they come from the
 * destination's allocator hook and are not counted in its budget (as a
 * reader's scratch), so a copy needs room in the budget for what it adds and
 * nothing more. Keysets are copied in their source's order (the sorted twin
 * first): no sort, no scratch of the constructors.
 *
 * gv_arena_compact copies a set of roots into a fresh arena with one copy map,
 * so what the roots share is copied once. It counts the nodes it will add
 * first and sizes the fresh arena's table for them, so that the table never
 * grows during the copy and the chunks take what is left of the budget: a
 * compaction succeeds whenever its result fits max_bytes. */
#include "internal.h"

typedef struct cp_ent {
  const gv_node *src, *dst;
} cp_ent;

typedef struct cp_frame {
  const gv_node *node;
  size_t next; /* next ref to copy */
  size_t base; /* first of its refs' copies on the value stack */
} cp_frame;

typedef struct cp {
  gv_arena *a;
  uint64_t (*map)(void *, uint64_t); /* handle remapping (gv__copy_map) or NULL */
  void *map_ctx;
  gv__mem mem; /* scratch: a's hook, not counted */
  size_t failed;
  cp_ent *tab;
  size_t cap, len;
  gv__vec stack, vals, order;
} cp;

static size_t cp_slot(const gv_node *n, size_t mask) {
  return (size_t)((gv__word(n) * UINT64_C(0x9E3779B97F4A7C15)) >> 29) & mask;
}

static const gv_node *cp_find(const cp *c, const gv_node *n) {
  if (!c->cap) return NULL;
  size_t mask = c->cap - 1;
  for (size_t i = cp_slot(n, mask);; i = (i + 1) & mask) {
    if (!c->tab[i].src) return NULL;
    if (c->tab[i].src == n) return c->tab[i].dst;
  }
}

static gv_status cp_put(cp *c, const gv_node *src, const gv_node *dst) {
  if (2 * (c->len + 1) > c->cap) {
    size_t ncap = c->cap ? 2 * c->cap : 64;
    if (ncap > SIZE_MAX / sizeof(cp_ent)) return GV_ENOMEM;
    cp_ent *nt = gv__mem_realloc(c->mem, NULL, 0, ncap * sizeof *nt);
    if (!nt) return GV_ENOMEM;
    memset(nt, 0, ncap * sizeof *nt);
    for (size_t i = 0; i < c->cap; i++) {
      if (!c->tab[i].src) continue;
      size_t j = cp_slot(c->tab[i].src, ncap - 1);
      while (nt[j].src)
        j = (j + 1) & (ncap - 1);
      nt[j] = c->tab[i];
    }
    if (c->tab) gv__mem_realloc(c->mem, c->tab, c->cap * sizeof *c->tab, 0);
    c->tab = nt;
    c->cap = ncap;
  }
  size_t mask = c->cap - 1, i = cp_slot(src, mask);
  while (c->tab[i].src)
    i = (i + 1) & mask;
  c->tab[i].src = src;
  c->tab[i].dst = dst;
  c->len++;
  return GV_OK;
}

/* Refs of an allocated non-leaf node: a keyset's keys, then its sorted twin
 * (NULL when it is its own); otherwise meta, aux, then the children (NULL
 * refs stay NULL). A tuple's meta, its canonical twin, reads as NULL: the
 * tuple constructor makes the twin itself. */
static size_t cp_nrefs(const gv_node *n) {
  return (size_t)n->arity + (n->kind == GV_KEYSET ? 1u : 2u);
}
static const gv_node *cp_ref(const gv_node *n, size_t i) {
  const gv__cont *c = GV__CONT(n);
  if (n->kind == GV_KEYSET) return i < n->arity ? c->kids[i] : c->meta;
  if (i == 0) return n->kind == GV_TUPLE ? NULL : c->meta;
  return i == 1 ? c->aux : c->kids[i - 2];
}

/* A leaf's copy (immediates are their own; handles go through the map). */
static gv_status cp_leaf(const cp *c, const gv_node *n, const gv_node **out, gv_error *err) {
  gv_arena *a = c->a;
  if (c->map && gv__kind(n) == GV_HANDLE)
    return gv_handle(a, c->map(c->map_ctx, gv__sval(n)), out, err);
  if (gv__is_imm(n)) {
    *out = n;
    return GV_OK;
  }
  switch (n->kind) {
  case GV_NONE:
    return gv_none(a, out, err);
  case GV_STAR:
    return gv_star(a, out, err);
  case GV_BOOL:
    return gv_bool(a, GV__SCALAR(n)->v.u != 0, out, err);
  case GV_INT:
    return gv_int(a, GV__SCALAR(n)->v.i, out, err);
  case GV_FLOAT:
    return gv_float(a, GV__SCALAR(n)->v.f, out, err);
  case GV_HANDLE:
    return gv_handle(a, GV__SCALAR(n)->v.u, out, err);
  default: /* str, bytes: already checked when first built */
    return gv__blob_in(a, n->kind, GV__BLOB(n)->data, GV__BLOB(n)->len, out, err);
  }
}

static gv_status cp_rebuild(cp *c, const gv_node *n, const gv_node *const *r, const gv_node **out,
                            gv_error *err) {
  gv_arena *a = c->a;
  if (n->kind != GV_KEYSET) return gv__make_node(a, n->kind, r[0], r[1], r + 2, n->arity, out, err);
  if (!(n->aux16 & GV__KS_HOST)) return gv__keyset_like(a, r, n->arity, n, r[n->arity], out, err);
  if (!c->map) return gv__keyset_host_like(a, r, n->arity, n, r[n->arity], out, err);
  /* handles mapped anew may meet: checked again (GV_EKEY), in the source's order */
  const uint32_t *perm = GV__CONT(n)->perm;
  if (!perm) { /* a host twin: the identity order */
    c->order.len = 0;
    if (gv__mvec_reserve(c->mem, &c->order, n->arity) != GV_OK)
      return gv__oom_bytes(err, c->failed);
    for (uint32_t i = 0; i < n->arity; i++)
      GV__VEC_AT(&c->order, uint32_t, i) = i;
    perm = (const uint32_t *)c->order.p;
  }
  return gv__keyset_host(a, r, n->arity, perm, out, err);
}

static gv_status cp_run(cp *c, const gv_node *root, const gv_node **out, gv_error *err) {
  gv_arena *a = c->a;
  if (gv__intern_has(a, root)) { /* already dst's (or its parents'): nothing to copy */
    *out = root;
    return GV_OK;
  }
  if (gv__is_leaf(root)) return cp_leaf(c, root, out, err);
  {
    const gv_node *done = cp_find(c, root); /* copied before, by an earlier root */
    if (done) {
      *out = done;
      return GV_OK;
    }
  }
  cp_frame f0 = {root, 0, 0};
  if (gv__mvec_push(c->mem, &c->stack, &f0) != GV_OK) return gv__oom_bytes(err, c->failed);
  while (c->stack.len) {
    cp_frame *f = &GV__VEC_AT(&c->stack, cp_frame, c->stack.len - 1);
    const gv_node *x = f->node;
    if (f->next < cp_nrefs(x)) {
      const gv_node *r = cp_ref(x, f->next++), *done = NULL;
      if (r) {
        done = cp_find(c, r);
        if (!done && !gv__is_imm(r) && gv__intern_has(a, r)) done = r; /* shared as it is */
        if (!done) {
          if (!gv__is_leaf(r)) {
            if (c->stack.len > a->max_depth)
              return gv__err(err, GV_EDEPTH, "nesting deeper than max_depth (%zu)", a->max_depth);
            cp_frame nf = {r, 0, c->vals.len};
            if (gv__mvec_push(c->mem, &c->stack, &nf) != GV_OK)
              return gv__oom_bytes(err, c->failed);
            continue;
          }
          gv_status s = cp_leaf(c, r, &done, err);
          if (s != GV_OK) return s;
          if (!gv__is_imm(r) && cp_put(c, r, done) != GV_OK) return gv__oom_bytes(err, c->failed);
        }
      }
      if (gv__mvec_push(c->mem, &c->vals, &done) != GV_OK) return gv__oom_bytes(err, c->failed);
      continue;
    }
    size_t base = f->base;
    const gv_node *res;
    gv_status s = cp_rebuild(c, x, &GV__VEC_AT(&c->vals, const gv_node *, base), &res, err);
    if (s != GV_OK) return s;
    c->vals.len = base;
    c->stack.len--;
    if (cp_put(c, x, res) != GV_OK) return gv__oom_bytes(err, c->failed);
    if (!c->stack.len) {
      *out = res;
      return GV_OK;
    }
    if (gv__mvec_push(c->mem, &c->vals, &res) != GV_OK) return gv__oom_bytes(err, c->failed);
  }
  return gv__err(err, GV_EINVAL, "empty walk"); /* not reached */
}

static void cp_init(cp *c, gv_arena *dst, uint64_t (*map)(void *, uint64_t), void *ctx) {
  memset(c, 0, sizeof *c);
  c->a = dst;
  c->map = map;
  c->map_ctx = ctx;
  c->mem = gv__mem_reader(dst, &c->failed);
  gv__vec_init(&c->stack, sizeof(cp_frame));
  gv__vec_init(&c->vals, sizeof(const gv_node *));
  gv__vec_init(&c->order, sizeof(uint32_t));
}

static void cp_fini(cp *c) {
  gv__mvec_free(c->mem, &c->stack);
  gv__mvec_free(c->mem, &c->vals);
  gv__mvec_free(c->mem, &c->order);
  if (c->tab) gv__mem_realloc(c->mem, c->tab, c->cap * sizeof *c->tab, 0);
}

/* What a copy of roots[0..n) will add to c->a: the allocated nodes they
 * reach (through children, metadata and twins) that c->a and its parents do
 * not hold, and the secondary slots of those that have one. The map marks
 * the nodes seen and is emptied after (its size stays, as the copy needs
 * it). */
static gv_status cp_count(cp *c, const gv_node *const *roots, size_t n, size_t *nodes,
                          size_t *slots) {
  gv_arena *a = c->a;
  gv_status s = GV_OK;
  size_t count = 0, sec = 0;
  for (size_t i = 0; i < n && s == GV_OK; i++) {
    const gv_node *r = roots[i];
    if (gv__is_imm(r) || cp_find(c, r) || gv__intern_has(a, r)) continue;
    if ((s = cp_put(c, r, r)) != GV_OK) break;
    if ((s = gv__mvec_push(c->mem, &c->vals, &r)) != GV_OK) break;
    while (c->vals.len && s == GV_OK) {
      const gv_node *x = GV__VEC_AT(&c->vals, const gv_node *, --c->vals.len);
      uint64_t h2;
      count++;
      sec += (size_t)gv__secondary(x, &h2);
      if (gv__is_leaf(x)) continue;
      const gv__cont *k = GV__CONT(x);
      for (size_t j = 0; j < (size_t)x->arity + 2 && s == GV_OK; j++) {
        const gv_node *y = j < x->arity ? k->kids[j] : j == x->arity ? k->meta : k->aux;
        if (!y || gv__is_imm(y) || cp_find(c, y) || gv__intern_has(a, y)) continue;
        if ((s = cp_put(c, y, y)) == GV_OK) s = gv__mvec_push(c->mem, &c->vals, &y);
      }
    }
  }
  c->vals.len = 0;
  if (c->tab) memset(c->tab, 0, c->cap * sizeof *c->tab);
  c->len = 0;
  *nodes = count;
  *slots = sec;
  return s;
}

gv_status gv__copy_map(gv_arena *dst, const gv_node *n, uint64_t (*map)(void *, uint64_t),
                       void *ctx, const gv_node **out, gv_error *err) {
  if (!dst) return gv__err(err, GV_EINVAL, "NULL arena");
  GV__WRITABLE(dst);
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  if (!gv__is_value(n)) return gv__err(err, GV_EINVAL, "gv_copy needs a value node");
  if (!map && gv__intern_has(dst, n)) { /* dst's own or its parents': O(1) */
    *out = n;
    return GV_OK;
  }
  gv_mark m = gv_arena_mark(dst);
  cp c;
  cp_init(&c, dst, map, ctx);
  const gv_node *res = NULL;
  gv_status s = cp_run(&c, n, &res, err);
  cp_fini(&c);
  if (s != GV_OK) {
    gv__rollback(dst, &m);
    return s;
  }
  *out = res;
  return GV_OK;
}

gv_status gv_copy(gv_arena *dst, const gv_node *n, const gv_node **out, gv_error *err) {
  return gv__copy_map(dst, n, NULL, NULL, out, err);
}

gv_status gv_arena_compact(const gv_arena *a, const gv_node *const *roots, size_t n,
                           gv_arena **fresh, const gv_node **out_roots, gv_error *err) {
  if (fresh) *fresh = NULL;
  if (!a || !fresh || (n && (!roots || !out_roots)))
    return gv__err(err, GV_EINVAL, "NULL argument");
  for (size_t i = 0; i < n; i++)
    if (!gv__is_value(roots[i])) return gv__err(err, GV_EINVAL, "root %zu is not a value node", i);
  gv_arena_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_bytes = a->max_bytes;
  cfg.max_depth = a->max_depth;
  cfg.alloc = &a->alloc;
  cfg.seed = a->seed;
  cfg.max_output = a->max_output;
  cfg.parent = a->parent;
  gv_arena *f = NULL;
  gv_status s = gv_arena_new(&cfg, &f);
  if (s == GV_ENOMEM && cfg.max_bytes && cfg.max_bytes < sizeof *f)
    return gv__err(err, s, "out of memory budget (max_bytes %zu)", cfg.max_bytes);
  if (s == GV_ENOMEM) return gv__oom_bytes(err, sizeof *f);
  if (s != GV_OK) return gv__err(err, s, "cannot make the arena");
  /* the results go to scratch first (out_roots may be roots, and stays as it was on failure);
   * one copy map for all roots, so what they share is copied once */
  cp c;
  cp_init(&c, f, NULL, NULL);
  const gv_node **res = NULL;
  size_t nodes = 0, slots = 0;
  if (n &&
      (n > SIZE_MAX / sizeof *res || !(res = gv__mem_realloc(c.mem, NULL, 0, n * sizeof *res))))
    s = gv__oom_bytes(err, n > SIZE_MAX / sizeof *res ? 0 : n * sizeof *res);
  else if ((s = cp_count(&c, roots, n, &nodes, &slots)) != GV_OK)
    s = gv__oom_bytes(err, c.failed);
  /* the table for them all now, before any chunk: a hint (roots of several arenas may count one
   * value twice), so a failure here leaves the table to grow as the copy goes */
  else if (gv__intern_reserve_n(f, nodes + slots) != GV_OK)
    (void)gv__oom(f, NULL); /* forgets the failure */
  for (size_t i = 0; i < n && s == GV_OK; i++) {
    s = cp_run(&c, roots[i], &res[i], err);
    if (s != GV_OK && err && err->msg[0] && n > 1) {
      char msg[sizeof err->msg];
      memcpy(msg, err->msg, sizeof msg);
      gv__err(err, s, "root %zu: %s", i, msg);
    }
  }
  if (s == GV_OK && n) memcpy((void *)out_roots, res, n * sizeof *res);
  if (res) gv__mem_realloc(c.mem, (void *)res, n * sizeof *res, 0);
  cp_fini(&c);
  if (s != GV_OK) {
    gv_arena_free(f);
    return s;
  }
  *fresh = f;
  return GV_OK;
}
