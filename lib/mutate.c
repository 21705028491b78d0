/* SPDX-License-Identifier: MIT */
/* mutate.c -- gv_mutate: the bounds, the draw (a place, then a kind that applies there), the
 * leaf mutations put in place (by kind, another kind, the dictionary, the host's callback),
 * the tries rolled back, and the shrink of a tree over the bounds. */
#include <stdio.h>

#include "mutate.h"

static const char *const NAMES[GV_MUT_COUNT] = {
    "none",           "int",       "float",         "str",         "bytes",
    "bool",           "handle",    "leaf-kind",     "dictionary",  "host-leaf",
    "insert",         "delete",    "duplicate",     "swap",        "move",
    "container-kind", "key-order", "key-rename",    "key-collide", "deepen",
    "flatten",        "shrink",    "cross-replace", "cross-insert"};

const char *gv_mutation_name(gv_mutation_kind k) {
  return (unsigned)k < GV_MUT_COUNT ? NAMES[k] : "?";
}

/* ---------------------------------------------------------------------------
 * Bounds
 * ------------------------------------------------------------------------- */

typedef struct wcount {
  size_t n, max;
  int over;
} wcount;

static gv_status w_count(void *ctx, const char *d, size_t len) {
  wcount *w = ctx;
  (void)d;
  w->n += len;
  if (w->n <= w->max) return GV_OK;
  w->over = 1;
  return GV_ERANGE;
}

static gv_status fits(const gv_arena *a, const gv_node *t, const gv_mutate_options *o,
                      gv_error *err) {
  if (o->max_size && gv_expanded_size(t) > o->max_size)
    return gv__err(err, GV_ERANGE, "expanded size %llu is over max_size %llu",
                   (unsigned long long)gv_expanded_size(t), (unsigned long long)o->max_size);
  if (o->max_leaves && gv_num_leaves(t) > o->max_leaves)
    return gv__err(err, GV_ERANGE, "%llu leaves are over max_leaves %llu",
                   (unsigned long long)gv_num_leaves(t), (unsigned long long)o->max_leaves);
  if (o->max_depth && gv_depth(t) > o->max_depth)
    return gv__err(err, GV_ERANGE, "depth %zu is over max_depth %zu", gv_depth(t), o->max_depth);
  if (o->max_wire) {
    wcount w = {0, o->max_wire, 0};
    gv_status s = gv_encode(a, t, w_count, &w, err);
    if (w.over)
      return gv__err(err, GV_ERANGE, "the encoding is over max_wire %zu bytes", o->max_wire);
    return s;
  }
  return GV_OK;
}

gv_status gv_mutate_fits(const gv_arena *a, const gv_node *t, const gv_mutate_options *opt,
                         gv_error *err) {
  gv_status s = gv__tree_arg(a, t, err);
  if (s != GV_OK || !opt) return s;
  return fits(a, t, opt, err);
}

/* ---------------------------------------------------------------------------
 * Leaves put in place
 * ------------------------------------------------------------------------- */

static gv_status host_leaf(gv__mut *m, const gv_node *leaf, const gv_node **out) {
  const gv_node *r = NULL;
  gv_status s = m->o.leaf_fn(m->o.leaf_ctx, m->a, leaf, gv__rng_next(&m->rng), &r);
  if (s != GV_OK) {
    m->cb_status = s;
    return gv__err(m->err, s, "leaf callback failed with status %d (%s)", (int)s,
                   gv_status_name(s));
  }
  if (r && !gv__is_value(r)) {
    m->cb_status = GV_EINVAL;
    return gv__err(m->err, GV_EINVAL, "the leaf callback's result is not a value node");
  }
  if (!r || r == leaf) return gv__err(m->err, GV_EINVAL, "the leaf callback declined");
  *out = r;
  return GV_OK;
}

static gv_status apply(gv__mut *m, gv_mutation_kind k, gv__place *p, const gv_node **out,
                       size_t *depth) {
  const gv_node *n = NULL;
  gv_status s;
  *depth = p->depth;
  switch (k) {
  case GV_MUT_INT:
  case GV_MUT_FLOAT:
  case GV_MUT_STR:
  case GV_MUT_BYTES:
  case GV_MUT_BOOL:
  case GV_MUT_HANDLE:
    s = gv__mut_leaf(m, p->node, &n);
    break;
  case GV_MUT_LEAF_KIND:
    s = gv__mut_leaf_kind(m, p->node, &n);
    break;
  case GV_MUT_DICTIONARY:
    s = gv_copy(m->a, m->o.dict[gv__rng_idx(&m->rng, m->o.ndict)], &n, m->err);
    break;
  case GV_MUT_HOST_LEAF:
    s = host_leaf(m, p->node, &n);
    break;
  default:
    return gv__mut_structure(m, k, p, out, depth);
  }
  if (s != GV_OK) return s;
  return gv__place_set(m, p, p->depth, n, out);
}

/* ---------------------------------------------------------------------------
 * The draw
 * ------------------------------------------------------------------------- */

/* How often a kind is drawn among those that apply at a place: a leaf's own mutation and the
 * host's callback most, the dictionary and crossover more than the rest. */
static unsigned weight(gv_mutation_kind k) {
  if (k <= GV_MUT_HANDLE || k == GV_MUT_HOST_LEAF) return 4;
  if (k == GV_MUT_DICTIONARY || k >= GV_MUT_CROSS_REPLACE) return 2;
  return 1;
}

/* One mutation drawn: *out and info, or *out = NULL when the draw does not apply. */
static gv_status draw_one(gv__mut *m, gv__place *p, const gv_node **out, gv_mutation *info) {
  *out = NULL;
  gv_status s = gv__place_pick(m, m->root, p);
  if (s != GV_OK) return s;
  unsigned total = 0, w[GV_MUT_COUNT];
  for (;;) { /* where no enabled kind applies, the container above is tried */
    memset(w, 0, sizeof w);
    for (unsigned k = GV_MUT_INT; k < GV_MUT_COUNT; k++) {
      if (k == GV_MUT_SHRINK || !(m->o.kinds & GV_MUT_BIT(k))) continue;
      if (!gv__mut_applies(m, (gv_mutation_kind)k, p)) continue;
      w[k] = weight((gv_mutation_kind)k);
      total += w[k];
    }
    if (total) break;
    if (!p->depth) return GV_OK;
    p->node = p->steps[--p->depth].c;
  }
  unsigned r = (unsigned)gv__rng_below(&m->rng, total), k = GV_MUT_INT;
  while (r >= w[k])
    r -= w[k++];
  info->kind = (gv_mutation_kind)k;
  return apply(m, (gv_mutation_kind)k, p, out, &info->depth);
}

static gv_status draw(gv__mut *m, const gv_node **out, gv_mutation *info) {
  unsigned tries = m->o.max_tries ? m->o.max_tries : 16;
  for (unsigned t = 1; t <= tries; t++) {
    gv_mark mk = gv_arena_mark(m->a);
    gv__place p = {0};
    const gv_node *r = NULL;
    gv_status s = draw_one(m, &p, &r, info);
    gv__place_free(m, &p);
    if (s == GV_OK && r && r != m->root) s = fits(m->a, r, &m->o, m->err);
    if (s == GV_OK && r && r != m->root) {
      info->tries = t;
      *out = r;
      if (m->err) m->err->msg[0] = '\0';
      return GV_OK;
    }
    /* out of memory and the host's failures end the call; anything else is one more try */
    if (s == GV_ENOMEM || m->cb_status != GV_OK) return s;
    gv__rollback(m->a, &mk);
  }
  info->kind = GV_MUT_NONE;
  info->depth = 0;
  info->tries = tries;
  *out = m->root;
  if (m->err) m->err->msg[0] = '\0';
  return GV_OK;
}

/* The tree is over the bounds: the first subtree within them on a random way down (None when
 * the way ends at a leaf that is over them too). */
static gv_status shrink(gv__mut *m, const gv_node **out, gv_mutation *info) {
  const gv_node *v = m->root;
  info->kind = GV_MUT_SHRINK;
  info->depth = 0;
  info->tries = 1;
  for (;;) {
    gv_status s = fits(m->a, v, &m->o, m->err);
    if (s == GV_OK) {
      *out = v;
      return GV_OK;
    }
    if (s != GV_ERANGE) return s;
    if (gv_is_nested(v) && gv_arity(v)) {
      v = gv_child(v, gv__rng_idx(&m->rng, gv_arity(v)));
      info->depth++;
      continue;
    }
    const gv_node *none = NULL;
    s = gv_none(m->a, &none, m->err);
    if (s != GV_OK) return s;
    if (v == none) return gv__err(m->err, GV_ERANGE, "the bounds admit no tree, not even None");
    v = none;
  }
}

gv_status gv_mutate(gv_arena *a, const gv_node *t, uint64_t seed, const gv_mutate_options *opt,
                    const gv_node **out, gv_mutation *info, gv_error *err) {
  if (!a) return gv__err(err, GV_EINVAL, "NULL arena");
  GV__WRITABLE(a);
  gv_status s = gv__tree_arg(a, t, err);
  if (s != GV_OK) return s;
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  gv__mut m;
  memset(&m, 0, sizeof m);
  if (opt) m.o = *opt;
  if (m.o.other && !gv__is_value(m.o.other))
    return gv__err(err, GV_EINVAL, "options.other is not a value node");
  if (m.o.ndict && !m.o.dict) return gv__err(err, GV_EINVAL, "options.dict is NULL");
  for (size_t i = 0; i < m.o.ndict; i++)
    if (!gv__is_value(m.o.dict[i]))
      return gv__err(err, GV_EINVAL, "options.dict[%zu] is not a value node", i);
  if (!m.o.kinds) m.o.kinds = ~(uint64_t)0;
  m.a = a;
  m.rng.s = seed;
  m.root = t;
  m.err = err;
  gv_mutation inf = {GV_MUT_NONE, 0, 0};
  const gv_node *r = t;
  gv_mark m0 = gv_arena_mark(a);
  s = fits(a, t, &m.o, err);
  if (s == GV_ERANGE)
    s = shrink(&m, &r, &inf);
  else if (s == GV_OK)
    s = draw(&m, &r, &inf);
  if (s != GV_OK) {
    gv__rollback(a, &m0);
    return s;
  }
  *out = r;
  if (info) *info = inf;
  return GV_OK;
}
