/* SPDX-License-Identifier: MIT */
/* mutate_tree.c -- the mutator's structure: containers taken apart and built again (of their
 * own kind or another), random places in a tree and the rebuild of the containers above one,
 * and the structural mutations (insert, delete, duplicate, swap, move, change a container's
 * kind, reorder, rename and collide keys, deepen, flatten). */
#include "mutate.h"

/* ---------------------------------------------------------------------------
 * Containers taken apart
 * ------------------------------------------------------------------------- */

static int seq_kind(unsigned k) {
  return k == GV_LIST || k == GV_TUPLE || k == GV_DEQUE;
}
static int dict_kind(unsigned k) {
  return k == GV_DICT || k == GV_ODICT || k == GV_DDICT;
}
/* Kept whole under GV_MUTATE_KEEP_TYPES. */
static int locked(const gv__mut *m, const gv_node *n) {
  unsigned k = gv_kind(n);
  return (m->o.flags & GV_MUTATE_KEEP_TYPES) && (k == GV_NAMEDTUPLE || k == GV_CUSTOM);
}
/* Whether a container of kind k made from tmpl has keys (or field names). */
static int keyed(unsigned k, const gv_node *tmpl) {
  if (dict_kind(k) || k == GV_NAMEDTUPLE) return 1;
  if (k == GV_CUSTOM) return gv_kind(tmpl) == GV_CUSTOM && gv_custom_keyed(tmpl);
  return 0;
}

gv_status gv__parts_of(gv__mut *m, const gv_node *c, size_t extra, gv__parts *p) {
  memset(p, 0, sizeof *p);
  size_t n = gv_arity(c);
  if (n > (SIZE_MAX / sizeof(gv_node *) - extra) / 2) return gv__oom(m->a, m->err);
  p->kind = gv_kind(c);
  p->tmpl = c;
  p->n = n;
  p->cap = n + extra;
  p->keys = gv__mut_alloc(m, 2 * p->cap * sizeof *p->keys);
  if (!p->keys) return gv__oom(m->a, m->err);
  p->vals = p->keys + p->cap;
  for (size_t i = 0; i < n; i++) {
    p->vals[i] = gv_child(c, i);
    p->keys[i] = p->kind == GV_NAMEDTUPLE ? gv_field_name(c, i) : gv_key(c, i);
  }
  return GV_OK;
}

void gv__parts_free(gv__mut *m, gv__parts *p) {
  gv__mut_free(m, p->keys, 2 * p->cap * sizeof *p->keys);
  p->keys = p->vals = NULL;
}

void gv__parts_remove(gv__parts *p, size_t i) {
  memmove(p->keys + i, p->keys + i + 1, (p->n - i - 1) * sizeof *p->keys);
  memmove(p->vals + i, p->vals + i + 1, (p->n - i - 1) * sizeof *p->vals);
  p->n--;
}

/* A new key or field name for a container of p's kind. */
static gv_status new_key(gv__mut *m, const gv__parts *p, const gv_node **out) {
  if (p->kind == GV_NAMEDTUPLE) return gv__mut_ident(m, "f", gv__rng_below(&m->rng, 1000), out);
  return gv__mut_fresh_key(m, out);
}

gv_status gv__parts_insert(gv__mut *m, gv__parts *p, size_t i, const gv_node *key,
                           const gv_node *val) {
  if (!key && keyed(p->kind, p->tmpl)) {
    gv_status s = new_key(m, p, &key);
    if (s != GV_OK) return s;
  }
  memmove(p->keys + i + 1, p->keys + i, (p->n - i) * sizeof *p->keys);
  memmove(p->vals + i + 1, p->vals + i, (p->n - i) * sizeof *p->vals);
  p->keys[i] = key;
  p->vals[i] = val;
  p->n++;
  return GV_OK;
}

/* Keys (or names) where p has none: "k0", "k1", ... (ints 0, 1, ... one time in three
 * outside JSON), "f0", "f1", ... for namedtuples. */
static gv_status fill_keys(gv__mut *m, gv__parts *p) {
  int ints =
      p->kind != GV_NAMEDTUPLE && !(m->o.flags & GV_MUTATE_JSON) && gv__rng_one_in(&m->rng, 3);
  for (size_t i = 0; i < p->n; i++) {
    const gv_node *k = p->keys[i];
    if (k && (p->kind != GV_NAMEDTUPLE || gv_kind(k) == GV_STR)) continue;
    gv_status s = ints                       ? gv_int(m->a, (int64_t)i, &p->keys[i], m->err)
                  : p->kind == GV_NAMEDTUPLE ? gv__mut_ident(m, "f", i, &p->keys[i])
                                             : gv__mut_ident(m, "k", i, &p->keys[i]);
    if (s != GV_OK) return s;
  }
  return GV_OK;
}

static const gv_node *type_name_of(const gv_node *t) {
  if (gv_kind(t) != GV_NAMEDTUPLE && gv_kind(t) != GV_CUSTOM) return NULL;
  return GV__CONT(gv_meta(t))->kids[0];
}

gv_status gv__parts_build(gv__mut *m, gv__parts *p, const gv_node **out) {
  gv_arena *a = m->a;
  const gv_node *t = p->tmpl, *name = NULL;
  gv_status s;
  if (keyed(p->kind, t)) {
    s = fill_keys(m, p);
    if (s != GV_OK) return s;
  }
  switch (p->kind) {
  case GV_LIST:
    return gv_list(a, p->vals, p->n, out, m->err);
  case GV_TUPLE:
    return gv_tuple(a, p->vals, p->n, out, m->err);
  case GV_DEQUE:
    return gv_deque(a, p->vals, p->n, gv_deque_maxlen(t), out, m->err);
  case GV_DICT:
  case GV_ODICT:
  case GV_DDICT: {
    const gv_node *factory = gv_ddict_factory(t);
    if (p->kind == GV_DDICT && !factory) {
      s = gv_str(a, "list", 4, &factory, m->err);
      if (s != GV_OK) return s;
    }
    if (!gv_keyset_host_ordered(gv_meta(t)) || !dict_kind(gv_kind(t))) {
      if (p->kind == GV_DICT) return gv_dict(a, p->keys, p->vals, p->n, out, m->err);
      if (p->kind == GV_ODICT) return gv_odict(a, p->keys, p->vals, p->n, out, m->err);
      return gv_ddict(a, factory, p->keys, p->vals, p->n, out, m->err);
    }
    /* a host-ordered keyset stays host-ordered: traversal in insertion order */
    if (p->n > UINT32_MAX) return gv__err(m->err, GV_ERANGE, "too many keys");
    uint32_t *order = gv__mut_alloc(m, p->n * sizeof *order);
    if (!order) return gv__oom(m->a, m->err);
    for (size_t i = 0; i < p->n; i++)
      order[i] = (uint32_t)i;
    const gv_node *ks = NULL;
    s = gv_keyset_ordered(a, p->keys, p->n, order, &ks, m->err);
    gv__mut_free(m, order, p->n * sizeof *order);
    if (s != GV_OK) return s;
    return gv_dict_with_keyset(a, (gv_node_kind)p->kind, ks, p->kind == GV_DDICT ? factory : NULL,
                               p->vals, p->n, out, m->err);
  }
  case GV_NAMEDTUPLE:
    name = type_name_of(t);
    if (!name || gv_kind(t) != GV_NAMEDTUPLE) {
      s = gv_str(a, "T", 1, &name, m->err);
      if (s != GV_OK) return s;
    }
    return gv_namedtuple(a, name, p->keys, p->vals, p->n, out, m->err);
  case GV_CUSTOM: {
    name = type_name_of(t);
    const gv_node *meta = NULL;
    if (gv_kind(t) == GV_CUSTOM) {
      meta = GV__CONT(gv_meta(t))->kids[2]; /* explicit metadata only */
    } else {
      s = gv_str(a, "Node", 4, &name, m->err);
      if (s != GV_OK) return s;
    }
    return gv_custom(a, name, keyed(p->kind, t) ? p->keys : NULL, p->vals, p->n, meta, out, m->err);
  }
  default:
    return gv__err(m->err, GV_EINVAL, "not a container kind");
  }
}

/* ---------------------------------------------------------------------------
 * Places
 * ------------------------------------------------------------------------- */

void gv__place_free(gv__mut *m, gv__place *p) {
  gv__mut_free(m, p->steps, p->cap * sizeof *p->steps);
  memset(p, 0, sizeof *p);
}

static gv_status place_push(gv__mut *m, gv__place *p, const gv_node *c, size_t i) {
  if (p->depth == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 16;
    gv__step *s =
        gv__mem_realloc(gv__mem_writer(m->a), p->steps, p->cap * sizeof *s, cap * sizeof *s);
    if (!s) return gv__oom(m->a, m->err);
    p->steps = s;
    p->cap = cap;
  }
  p->steps[p->depth].c = c;
  p->steps[p->depth++].i = i;
  return GV_OK;
}

#define WEIGHT_CAP ((uint64_t)1 << 31)

gv_status gv__place_pick(gv__mut *m, const gv_node *t, gv__place *p) {
  p->depth = 0;
  /* half the time each place of the tree written out about as likely as any other (a subtree
   * by its written-out size); otherwise a walk that stops one time in four */
  int sized = gv__rng_one_in(&m->rng, 2);
  const gv_node *v = t;
  for (;;) {
    size_t n = gv_arity(v);
    if (!n) break;
    size_t pick;
    if (sized) {
      uint64_t total = 1;
      for (size_t i = 0; i < n; i++) {
        uint64_t w = gv_expanded_size(gv_child(v, i));
        total += w < WEIGHT_CAP ? w : WEIGHT_CAP;
      }
      uint64_t r = gv__rng_below(&m->rng, total);
      if (r == 0) break;
      r--;
      for (pick = 0; pick < n; pick++) {
        uint64_t w = gv_expanded_size(gv_child(v, pick));
        w = w < WEIGHT_CAP ? w : WEIGHT_CAP;
        if (r < w) break;
        r -= w;
      }
      if (pick == n) pick = n - 1;
    } else {
      if (gv__rng_one_in(&m->rng, 4)) break;
      pick = gv__rng_idx(&m->rng, n);
    }
    gv_status s = place_push(m, p, v, pick);
    if (s != GV_OK) return s;
    v = gv_child(v, pick);
  }
  p->node = v;
  return GV_OK;
}

gv_status gv__place_set(gv__mut *m, const gv__place *p, size_t depth, const gv_node *node,
                        const gv_node **out) {
  size_t widest = 0;
  for (size_t j = 0; j < depth; j++)
    if (gv_arity(p->steps[j].c) > widest) widest = gv_arity(p->steps[j].c);
  if (widest > SIZE_MAX / sizeof(gv_node *)) return gv__oom(m->a, m->err);
  const gv_node **kids = NULL;
  if (depth) {
    kids = gv__mut_alloc(m, widest * sizeof *kids);
    if (!kids) return gv__oom(m->a, m->err);
  }
  gv_status s = GV_OK;
  for (size_t j = depth; j-- > 0 && s == GV_OK;) {
    const gv_node *c = p->steps[j].c;
    for (size_t i = 0; i < gv_arity(c); i++)
      kids[i] = gv_child(c, i);
    kids[p->steps[j].i] = node;
    s = gv_rebuild(m->a, c, kids, &node, m->err);
  }
  gv__mut_free(m, kids, widest * sizeof *kids);
  if (s == GV_OK) *out = node;
  return s;
}

/* ---------------------------------------------------------------------------
 * The structural mutations
 * ------------------------------------------------------------------------- */

static gv_status not_here(gv__mut *m) {
  return gv__err(m->err, GV_EINVAL, "the mutation does not apply here");
}

/* A key (of a keyed container) at a random place of the root, or NULL. */
static const gv_node *key_elsewhere(const gv__place *q) {
  for (size_t j = q->depth; j-- > 0;) {
    const gv_node *k = gv_key(q->steps[j].c, q->steps[j].i);
    if (k) return k;
  }
  return NULL;
}

/* A value to insert: a new leaf, an empty container, a copy of a subtree of the root, or a
 * dictionary entry. */
static gv_status new_child(gv__mut *m, const gv_node **out) {
  switch (gv__rng_below(&m->rng, 6)) {
  case 0: {
    gv__place q = {0};
    gv_status s = gv__place_pick(m, m->root, &q);
    if (s == GV_OK) *out = q.node;
    gv__place_free(m, &q);
    return s;
  }
  case 1:
    if (gv__rng_one_in(&m->rng, 2)) return gv_list(m->a, NULL, 0, out, m->err);
    return gv_dict(m->a, NULL, NULL, 0, out, m->err);
  case 2:
    if (m->o.ndict) return gv_copy(m->a, m->o.dict[gv__rng_idx(&m->rng, m->o.ndict)], out, m->err);
    /* fall through */
  default:
    return gv__mut_fresh_leaf(m, out);
  }
}

/* The container p's node (or its parent, up = 1) changed through its parts; the tree rebuilt. */
typedef struct edit {
  gv__parts parts;
  size_t depth; /* of the container */
} edit;

static gv_status edit_begin(gv__mut *m, gv__place *p, size_t depth, size_t extra, edit *e) {
  e->depth = depth;
  const gv_node *c = depth == p->depth ? p->node : p->steps[depth].c;
  return gv__parts_of(m, c, extra, &e->parts);
}
static gv_status edit_end(gv__mut *m, gv__place *p, edit *e, gv_status s, const gv_node **out) {
  const gv_node *c = NULL;
  if (s == GV_OK) s = gv__parts_build(m, &e->parts, &c);
  gv__parts_free(m, &e->parts);
  if (s == GV_OK) s = gv__place_set(m, p, e->depth, c, out);
  return s;
}

static gv_status m_insert(gv__mut *m, gv__place *p, const gv_node *val, const gv_node *key,
                          const gv_node **out) {
  edit e;
  gv_status s = edit_begin(m, p, p->depth, 1, &e);
  if (s != GV_OK) return s;
  if (!val) s = new_child(m, &val);
  if (s == GV_OK) s = gv__parts_insert(m, &e.parts, gv__rng_idx(&m->rng, e.parts.n + 1), key, val);
  return edit_end(m, p, &e, s, out);
}

static gv_status m_delete_dup(gv__mut *m, gv__place *p, int dup, const gv_node **out) {
  edit e;
  size_t i = p->steps[p->depth - 1].i;
  gv_status s = edit_begin(m, p, p->depth - 1, 1, &e);
  if (s != GV_OK) return s;
  if (dup)
    s = gv__parts_insert(m, &e.parts, i + 1, NULL, e.parts.vals[i]);
  else
    gv__parts_remove(&e.parts, i);
  return edit_end(m, p, &e, s, out);
}

static gv_status m_swap(gv__mut *m, gv__place *p, const gv_node **out) {
  const gv_node *c = p->node;
  size_t n = gv_arity(c), i = gv__rng_idx(&m->rng, n), j = i;
  for (int k = 0; k < 4 && (j == i || gv_child(c, i) == gv_child(c, j)); k++)
    j = gv__rng_idx(&m->rng, n);
  if (gv_child(c, i) == gv_child(c, j)) return not_here(m);
  edit e;
  gv_status s = edit_begin(m, p, p->depth, 0, &e);
  if (s != GV_OK) return s;
  const gv_node *t = e.parts.vals[i];
  e.parts.vals[i] = e.parts.vals[j];
  e.parts.vals[j] = t;
  return edit_end(m, p, &e, s, out);
}

static gv_status m_move(gv__mut *m, gv__place *p, const gv_node **out, size_t *depth) {
  const gv_node *sub = p->node, *t1 = NULL;
  const gv__step *up = &p->steps[p->depth - 1];
  const gv_node *key = gv_kind(up->c) == GV_NAMEDTUPLE ? NULL : gv_key(up->c, up->i);
  gv_status s = m_delete_dup(m, p, 0, &t1);
  if (s != GV_OK) return s;
  gv__place q = {0};
  for (int k = 0; k < 8 && s == GV_OK; k++) {
    s = gv__place_pick(m, t1, &q);
    if (s != GV_OK) break;
    if (!gv_is_nested(q.node) && q.depth) { /* a leaf: its container */
      q.node = q.steps[--q.depth].c;
    }
    if (gv_is_nested(q.node) && !locked(m, q.node)) {
      /* keys stay with dicts: a key taken from a dict goes to a dict kind only */
      const gv_node *k2 = dict_kind(gv_kind(q.node)) ? key : NULL;
      s = m_insert(m, &q, sub, k2, out);
      *depth = q.depth;
      gv__place_free(m, &q);
      return s;
    }
  }
  gv__place_free(m, &q);
  return s != GV_OK ? s : not_here(m);
}

static gv_status m_container_kind(gv__mut *m, gv__place *p, const gv_node **out) {
  const gv_node *c = p->node;
  unsigned from = gv_kind(c);
  int json = (m->o.flags & GV_MUTATE_JSON) != 0;
  if (from == GV_DEQUE && gv__rng_one_in(&m->rng, 3)) { /* another maxlen */
    int64_t n = (int64_t)gv_arity(c), ml[] = {-1, 0, n, n + 1, n > 0 ? n - 1 : 1, INT64_MAX};
    int64_t want = ml[gv__rng_idx(&m->rng, 6)];
    if (want == gv_deque_maxlen(c)) want = want == -1 ? n : -1;
    edit e;
    gv_status s = edit_begin(m, p, p->depth, 0, &e);
    if (s != GV_OK) return s;
    const gv_node **v = e.parts.vals;
    const gv_node *d = NULL;
    s = gv_deque(m->a, v, e.parts.n, want, &d, m->err);
    gv__parts_free(m, &e.parts);
    if (s == GV_OK) s = gv__place_set(m, p, p->depth, d, out);
    return s;
  }
  static const unsigned ALL[] = {GV_LIST,  GV_TUPLE, GV_DEQUE,      GV_DICT,
                                 GV_ODICT, GV_DDICT, GV_NAMEDTUPLE, GV_CUSTOM};
  size_t nk = json ? 0 : (m->o.flags & GV_MUTATE_KEEP_TYPES) ? 6 : 8;
  unsigned to = from;
  while (to == from)
    to = json ? (dict_kind(from) ? GV_LIST : GV_DICT) : ALL[gv__rng_idx(&m->rng, nk)];
  edit e;
  gv_status s = edit_begin(m, p, p->depth, 0, &e);
  if (s != GV_OK) return s;
  /* keys carry over (a sequence drops them, a dict of a sequence gets new ones); a custom node
   * made from another kind is positional, its template not being a custom node */
  e.parts.kind = to;
  return edit_end(m, p, &e, s, out);
}

static gv_status m_key_order(gv__mut *m, gv__place *p, const gv_node **out) {
  edit e;
  gv_status s = edit_begin(m, p, p->depth, 0, &e);
  if (s != GV_OK) return s;
  size_t n = e.parts.n;
  const gv_node **k = e.parts.keys, **v = e.parts.vals, *t;
  switch (gv__rng_below(&m->rng, 3)) {
  case 0: /* reversed */
    for (size_t i = 0; i < n / 2; i++) {
      t = k[i], k[i] = k[n - 1 - i], k[n - 1 - i] = t;
      t = v[i], v[i] = v[n - 1 - i], v[n - 1 - i] = t;
    }
    break;
  case 1: { /* two keys exchanged */
    size_t i = gv__rng_idx(&m->rng, n), j = (i + 1 + gv__rng_idx(&m->rng, n - 1)) % n;
    t = k[i], k[i] = k[j], k[j] = t;
    t = v[i], v[i] = v[j], v[j] = t;
    break;
  }
  default: /* shuffled */
    for (size_t i = n - 1; i > 0; i--) {
      size_t j = gv__rng_idx(&m->rng, i + 1);
      t = k[i], k[i] = k[j], k[j] = t;
      t = v[i], v[i] = v[j], v[j] = t;
    }
    break;
  }
  return edit_end(m, p, &e, s, out);
}

static gv_status m_key_rename(gv__mut *m, gv__place *p, int collide, const gv_node **out) {
  edit e;
  gv_status s = edit_begin(m, p, p->depth, 0, &e);
  if (s != GV_OK) return s;
  size_t n = e.parts.n, i = gv__rng_idx(&m->rng, n);
  const gv_node *key = NULL;
  int json = (m->o.flags & GV_MUTATE_JSON) != 0;
  if (collide) { /* the first key from i on that has a twin */
    for (size_t j = 0; j < n && s == GV_OK && !key; j++) {
      i = (i + (j ? 1 : 0)) % n;
      s = gv__mut_key_twin(m, e.parts.keys[i], &key);
    }
    if (s == GV_OK && !key) s = not_here(m);
  } else if (e.parts.kind == GV_NAMEDTUPLE) {
    s = gv__mut_ident(m, "f", gv__rng_below(&m->rng, 1000), &key);
  } else {
    const gv_node *old = e.parts.keys[i];
    switch (gv__rng_below(&m->rng, 4)) {
    case 0: /* the key itself edited */
      if (gv_is_leaf(old) && gv_kind(old) != GV_NONE) {
        s = gv__mut_leaf(m, old, &key);
        break;
      }
      /* fall through */
    case 1: { /* a key found elsewhere in the tree */
      gv__place q = {0};
      s = gv__place_pick(m, m->root, &q);
      if (s == GV_OK) key = key_elsewhere(&q);
      gv__place_free(m, &q);
      if (key || s != GV_OK) break;
    }
      /* fall through */
    case 2: /* a dictionary entry that is a key */
      if (m->o.ndict) {
        const gv_node *d = m->o.dict[gv__rng_idx(&m->rng, m->o.ndict)];
        if (gv_is_key(d) && (!json || gv_kind(d) == GV_STR)) {
          s = gv_copy(m->a, d, &key, m->err);
          break;
        }
      }
      /* fall through */
    default:
      s = gv__mut_fresh_key(m, &key);
      break;
    }
  }
  if (s == GV_OK) e.parts.keys[i] = key;
  return edit_end(m, p, &e, s, out);
}

/* Wrapped in a new container; one time in four in 2 to 2048 at once, as deep as max_depth lets
 * (nesting limits are a classic bug of parsers). */
static gv_status m_deepen(gv__mut *m, gv__place *p, const gv_node **out) {
  static const unsigned W[] = {GV_LIST,  GV_DICT,  GV_TUPLE,      GV_DEQUE,
                               GV_ODICT, GV_DDICT, GV_NAMEDTUPLE, GV_CUSTOM};
  size_t nk = (m->o.flags & GV_MUTATE_JSON) ? 2 : (m->o.flags & GV_MUTATE_KEEP_TYPES) ? 6 : 8;
  size_t levels = 1;
  if (gv__rng_one_in(&m->rng, 4)) {
    levels = (size_t)1 << (1 + gv__rng_below(&m->rng, 11));
    size_t used = p->depth + gv_depth(p->node);
    size_t room = m->o.max_depth > used ? m->o.max_depth - used : 1;
    if (m->o.max_depth && levels > room) levels = room;
  }
  gv__parts w = {0};
  const gv_node *keys[1], *vals[1] = {p->node};
  w.kind = W[gv__rng_idx(&m->rng, nk)];
  w.keys = keys;
  w.vals = vals;
  w.n = w.cap = 1;
  gv_status s = GV_OK;
  for (size_t i = 0; i < levels && s == GV_OK; i++) {
    keys[0] = NULL;
    s = gv__parts_build(m, &w, &vals[0]);
  }
  if (s == GV_OK) s = gv__place_set(m, p, p->depth, vals[0], out);
  return s;
}

static gv_status m_flatten(gv__mut *m, gv__place *p, const gv_node **out) {
  const gv_node *c = p->node;
  size_t n = gv_arity(c), i = gv__rng_idx(&m->rng, n);
  unsigned k = gv_kind(c);
  if (!locked(m, c) && (seq_kind(k) || dict_kind(k)) && gv__rng_one_in(&m->rng, 2)) {
    for (size_t j = 0; j < n; j++) { /* a child of the same family, spliced in */
      size_t ix = (i + j) % n;
      unsigned ck = gv_kind(gv_child(c, ix));
      if (!(seq_kind(k) ? seq_kind(ck) : dict_kind(ck))) continue;
      const gv_node *ch = gv_child(c, ix);
      edit e;
      gv_status s = edit_begin(m, p, p->depth, gv_arity(ch), &e);
      if (s != GV_OK) return s;
      gv__parts_remove(&e.parts, ix);
      for (size_t q = 0; q < gv_arity(ch) && s == GV_OK; q++)
        s = gv__parts_insert(m, &e.parts, ix + q, gv_key(ch, q), gv_child(ch, q));
      return edit_end(m, p, &e, s, out);
    }
  }
  return gv__place_set(m, p, p->depth, gv_child(c, i), out); /* a child lifted */
}

/* Crossover: a subtree of the second tree (copied into the arena) in place of p's node, or
 * added to it (under its own key when it came from a dict kind and goes into one). */
static gv_status m_cross(gv__mut *m, gv__place *p, int insert, const gv_node **out) {
  gv__place q = {0};
  const gv_node *sub = NULL, *key = NULL;
  gv_status s = gv__place_pick(m, m->o.other, &q);
  if (s == GV_OK) s = gv_copy(m->a, q.node, &sub, m->err);
  if (s == GV_OK && insert && q.depth && dict_kind(gv_kind(p->node))) {
    const gv_node *k = gv_key(q.steps[q.depth - 1].c, q.steps[q.depth - 1].i);
    if (k && dict_kind(gv_kind(q.steps[q.depth - 1].c))) s = gv_copy(m->a, k, &key, m->err);
  }
  gv__place_free(m, &q);
  if (s != GV_OK) return s;
  return insert ? m_insert(m, p, sub, key, out) : gv__place_set(m, p, p->depth, sub, out);
}

int gv__mut_applies(const gv__mut *m, gv_mutation_kind k, const gv__place *p) {
  const gv_node *n = p->node;
  unsigned nk = gv_kind(n);
  int cont = gv_is_nested(n), lk = cont && locked(m, n),
      host = (m->o.flags & GV_MUTATE_HOST_LEAVES) != 0;
  size_t ar = gv_arity(n);
  int parent_ok = p->depth > 0 && !locked(m, p->steps[p->depth - 1].c);
  int has_keys = cont && !lk && (dict_kind(nk) || nk == GV_NAMEDTUPLE || gv_custom_keyed(n));
  switch (k) {
  case GV_MUT_INT:
    return nk == GV_INT;
  case GV_MUT_FLOAT:
    return nk == GV_FLOAT;
  case GV_MUT_STR:
    return nk == GV_STR;
  case GV_MUT_BYTES:
    return nk == GV_BYTES;
  case GV_MUT_BOOL:
    return nk == GV_BOOL;
  case GV_MUT_HANDLE:
    return nk == GV_HANDLE && !host;
  case GV_MUT_LEAF_KIND:
    return !cont && !(host && (nk == GV_HANDLE || nk == GV_STAR));
  case GV_MUT_DICTIONARY:
    return m->o.ndict > 0;
  case GV_MUT_HOST_LEAF:
    return m->o.leaf_fn && !cont;
  case GV_MUT_INSERT:
  case GV_MUT_CONTAINER_KIND:
    return cont && !lk;
  case GV_MUT_DELETE:
  case GV_MUT_DUPLICATE:
  case GV_MUT_MOVE:
    return parent_ok;
  case GV_MUT_SWAP:
    return cont && ar >= 2;
  case GV_MUT_KEY_ORDER:
    return has_keys && ar >= 2;
  case GV_MUT_KEY_RENAME:
    return has_keys && ar >= 1;
  case GV_MUT_KEY_COLLIDE:
    return has_keys && nk != GV_NAMEDTUPLE && ar >= 1 && !(m->o.flags & GV_MUTATE_JSON);
  case GV_MUT_DEEPEN:
    return 1;
  case GV_MUT_FLATTEN:
    return cont && ar >= 1;
  case GV_MUT_CROSS_REPLACE:
    return m->o.other != NULL;
  case GV_MUT_CROSS_INSERT:
    return m->o.other != NULL && cont && !lk;
  default:
    return 0;
  }
}

gv_status gv__mut_structure(gv__mut *m, gv_mutation_kind k, gv__place *p, const gv_node **out,
                            size_t *depth) {
  *depth = p->depth;
  switch (k) {
  case GV_MUT_INSERT:
    return m_insert(m, p, NULL, NULL, out);
  case GV_MUT_DELETE:
  case GV_MUT_DUPLICATE:
    *depth = p->depth - 1;
    return m_delete_dup(m, p, k == GV_MUT_DUPLICATE, out);
  case GV_MUT_SWAP:
    return m_swap(m, p, out);
  case GV_MUT_MOVE:
    return m_move(m, p, out, depth);
  case GV_MUT_CONTAINER_KIND:
    return m_container_kind(m, p, out);
  case GV_MUT_KEY_ORDER:
    return m_key_order(m, p, out);
  case GV_MUT_KEY_RENAME:
  case GV_MUT_KEY_COLLIDE:
    return m_key_rename(m, p, k == GV_MUT_KEY_COLLIDE, out);
  case GV_MUT_DEEPEN:
    return m_deepen(m, p, out);
  case GV_MUT_FLATTEN:
    return m_flatten(m, p, out);
  case GV_MUT_CROSS_REPLACE:
  case GV_MUT_CROSS_INSERT:
    return m_cross(m, p, k == GV_MUT_CROSS_INSERT, out);
  default:
    return not_here(m);
  }
}
