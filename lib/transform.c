/* SPDX-License-Identifier: MIT */
/* transform.c -- traverse, map, map_up_to, map_shape, lists_to_tuples, order. */
#include "match.h"

/* ---------------------------------------------------------------------------
 * Shared helpers
 * ------------------------------------------------------------------------- */

/* Frames of the walk that lead to the node n being visited (pre) or closed
 * (post: n's own frame, if pushed, is excluded). */
static size_t walk_depth(gv__walk *w, const gv_node *n) {
  size_t k = w->frames.len;
  if (k && GV__VEC_AT(&w->frames, gv__frame, k - 1).node == n) k--;
  return k;
}

static gv_status callback_fail(gv_error *err, gv_status s, const gv__frame *frames, size_t n) {
  char buf[96];
  gv__sbuf b = {buf, sizeof buf, 0, 0};
  buf[0] = '\0';
  gv__sbuf_printf(&b, "callback failed with status %d (%s)", (int)s, gv_status_name(s));
  return gv__match_fail(err, s, frames, n, buf);
}

static gv_status bad_result(gv_error *err, const gv__frame *frames, size_t n) {
  return gv__match_fail(err, GV_EINVAL, frames, n, "callback returned no value node");
}

/* ---------------------------------------------------------------------------
 * traverse
 * ------------------------------------------------------------------------- */

typedef struct trav_ctx {
  gv_traverse_fn fn;
  void *ctx;
} trav_ctx;

/* Calls the callback on node and turns its decision into *res; *keep tells
 * whether it said KEEP. */
static gv_status trav_call(gv__walk *w, const gv_node *node, const gv_node *at, int *keep,
                           const gv_node **res) {
  trav_ctx *c = w->ctx;
  gv_visit act = GV_VISIT_KEEP;
  const gv_node *repl = NULL;
  gv_status s = c->fn(c->ctx, w->a, node, &act, &repl);
  size_t d = walk_depth(w, at);
  if (s != GV_OK) return callback_fail(w->err, s, w->frames.p, d);
  *keep = 0;
  switch (act) {
  case GV_VISIT_KEEP:
    *keep = 1;
    *res = node;
    return GV_OK;
  case GV_VISIT_NONE:
    if ((s = gv_none(w->a, res, NULL)) != GV_OK) return gv__oom(w->a, w->err);
    return GV_OK;
  case GV_VISIT_REPLACE:
    if (!gv__is_value(repl)) return bad_result(w->err, w->frames.p, d);
    *res = repl;
    return GV_OK;
  default:
    return gv__match_fail(w->err, GV_EINVAL, w->frames.p, d, "callback gave an unknown action");
  }
}

static gv_status td_pre(gv__walk *w, const gv_node *n, int *descend, const gv_node **res) {
  int keep;
  gv_status s = trav_call(w, n, n, &keep, res);
  if (s != GV_OK) return s;
  *descend = keep && gv__is_container(n);
  return GV_OK;
}

static gv_status bu_pre(gv__walk *w, const gv_node *n, int *descend, const gv_node **res) {
  if (gv__is_container(n)) {
    *descend = 1;
    return GV_OK;
  }
  int keep;
  *descend = 0;
  return trav_call(w, n, n, &keep, res);
}

static gv_status bu_post(gv__walk *w, const gv_node *n, const gv_node *rebuilt,
                         const gv_node **res) {
  int keep;
  return trav_call(w, rebuilt, n, &keep, res);
}

gv_status gv_traverse(gv_arena *a, const gv_node *t, bool top_down, gv_traverse_fn fn, void *ctx,
                      const gv_node **out, gv_error *err) {
  gv_status s0 = gv__tree_arg(a, t, err);
  if (s0 != GV_OK) return s0;
  GV__WRITABLE(a);
  if (!fn || !out) return gv__err(err, GV_EINVAL, "NULL argument");
  if ((s0 = gv__check_output(a, gv__esize(t), err)) != GV_OK) return s0;
  static const gv__walk_ops td = {td_pre, NULL, 0};
  static const gv__walk_ops bu = {bu_pre, bu_post, 0};
  trav_ctx c = {fn, ctx};
  gv_mark m = gv_arena_mark(a);
  const gv_node *r = NULL;
  gv_status s = gv__walk_run(a, t, top_down ? &td : &bu, &c, &r, err);
  if (s != GV_OK) {
    gv__rollback(a, &m);
    return s;
  }
  *out = r;
  return GV_OK;
}

/* ---------------------------------------------------------------------------
 * One-tree map and map_shape (the rebuild walk)
 * ------------------------------------------------------------------------- */

typedef struct map1_ctx {
  gv_map_fn f;
  void *ctx;
  int none_is_leaf;
  int shape;
} map1_ctx;

static gv_status map1_pre(gv__walk *w, const gv_node *n, int *descend, const gv_node **res) {
  map1_ctx *c = w->ctx;
  int call;
  if (c->shape)
    call = gv__is_leaf(n) || (gv__flags(n) & GV_F_SHAPE);
  else
    call = gv__is_leaf(n) && (c->none_is_leaf || gv__kind(n) != GV_NONE);
  if (!call) {
    /* a subtree without leaves has no callback to run (map) */
    *descend = gv__is_container(n) && (c->shape || GV__CONT(n)->num_leaves > 0);
    *res = n; /* None with none_is_leaf = false stays None */
    return GV_OK;
  }
  *descend = 0;
  const gv_node *r = NULL;
  gv_status s = c->f(c->ctx, w->a, &n, 1, &r);
  if (s != GV_OK) return callback_fail(w->err, s, w->frames.p, w->frames.len);
  if (!gv__is_value(r)) return bad_result(w->err, w->frames.p, w->frames.len);
  *res = r;
  return GV_OK;
}

static gv_status map1_run(gv_arena *a, map1_ctx *c, const gv_node *t, const gv_node **out,
                          gv_error *err) {
  static const gv__walk_ops ops = {map1_pre, NULL, 0};
  return gv__walk_run(a, t, &ops, c, out, err);
}

gv_status gv_map_shape(gv_arena *a, gv_map_fn f, void *ctx, const gv_node *t, const gv_node **out,
                       gv_error *err) {
  gv_status s = gv__tree_arg(a, t, err);
  if (s != GV_OK) return s;
  GV__WRITABLE(a);
  if (!f || !out) return gv__err(err, GV_EINVAL, "NULL argument");
  if ((s = gv__check_output(a, gv__esize(t), err)) != GV_OK) return s;
  map1_ctx c = {f, ctx, 1, 1};
  return map1_run(a, &c, t, out, err);
}

/* ---------------------------------------------------------------------------
 * The parallel walk of several trees (map with n > 1, map_up_to).
 * cur[0] is the reference (the first tree, or shallow); cur[1..m) the others.
 * ------------------------------------------------------------------------- */

typedef struct pwalk {
  gv_arena *a;
  gv_error *err;
  gv_map_fn f;
  void *ctx;
  size_t m;         /* trees walked, the reference included */
  size_t off;       /* f gets cur[off..m) */
  int up_to;        /* map_up_to: no leaf rule; any leaf of the reference is a slot */
  int none_is_leaf; /* map only */
} pwalk;

static gv_status pwalk_run(pwalk *p, const gv_node *const *roots, const gv_node **out) {
  gv_arena *a = p->a;
  gv_error *err = p->err;
  size_t m = p->m, no = m - 1;
  gv__vec frames, others, vals, cur, kids;
  gv__vec_init(&frames, sizeof(gv__frame));
  gv__vec_init(&others, sizeof(const gv_node *));
  gv__vec_init(&vals, sizeof(const gv_node *));
  gv__vec_init(&cur, sizeof(const gv_node *));
  gv__vec_init(&kids, sizeof(const gv_node *));
  gv__cmp kc;
  gv__cmp_init(&kc, gv__mem_writer(a), a, 1);
  gv_status s = GV_OK;
  char buf[sizeof(((gv_error *)0)->msg)];
  gv__sbuf msg = {buf, sizeof buf, 0, 0};
  buf[0] = '\0';
  if ((s = gv__vec_reserve(a, &cur, m)) != GV_OK) goto oom;
  const gv_node **c = cur.p;
  memcpy(c, roots, m * sizeof *c);
  for (;;) {
    /* visit c[0..m) */
    const gv_node *r = c[0], *res = r;
    int slot;
    if (p->up_to)
      slot = gv__is_leaf(r);
    else
      slot = gv__is_leaf(r) && (p->none_is_leaf || gv__kind(r) != GV_NONE);
    if (slot) {
      if (!p->up_to) {
        for (size_t j = 1; j < m; j++) {
          if (!p->none_is_leaf && gv__kind(c[j]) == GV_NONE) {
            /* None is an empty node here, not the leaf the first tree has */
            gv__sbuf_puts(&msg, "expected a leaf, got None");
            s = gv__match_fail_cut(err, GV_EMISMATCH, frames.p, frames.len, buf, msg.truncated);
            goto done;
          }
          int mr = gv__match_node(&kc, r, c[j], &msg);
          if (mr < 0) goto oom;
          if (!mr) {
            s = gv__match_fail_cut(err, GV_EMISMATCH, frames.p, frames.len, buf, msg.truncated);
            goto done;
          }
        }
      }
      s = p->f(p->ctx, a, c + p->off, m - p->off, &res);
      if (s != GV_OK) {
        callback_fail(err, s, frames.p, frames.len);
        goto done;
      }
      if (!gv__is_value(res)) {
        s = bad_result(err, frames.p, frames.len);
        goto done;
      }
      if ((s = gv__vec_push(a, &vals, &res)) != GV_OK) goto oom;
    } else if (gv__kind(r) == GV_NONE) {
      /* map, none_is_leaf = false: None is an empty node */
      for (size_t j = 1; j < m; j++) {
        if (gv__kind(c[j]) != GV_NONE) {
          gv__sbuf_puts(&msg, "expected None, got ");
          if (gv__is_leaf(c[j])) {
            gv__sbuf_repr_key(&msg, c[j]);
          } else {
            size_t len;
            const char *tn = gv_type_name(c[j], &len);
            gv__sbuf_put(&msg, tn, len);
          }
          s = gv__match_fail_cut(err, GV_EMISMATCH, frames.p, frames.len, buf, msg.truncated);
          goto done;
        }
      }
      if ((s = gv__vec_push(a, &vals, &res)) != GV_OK) goto oom;
    } else {
      for (size_t j = 1; j < m; j++) {
        int mr = gv__match_node(&kc, r, c[j], &msg);
        if (mr < 0) goto oom;
        if (!mr) {
          s = gv__match_fail_cut(err, GV_EMISMATCH, frames.p, frames.len, buf, msg.truncated);
          goto done;
        }
      }
      if (gv__arity(r) == 0) {
        if ((s = gv__vec_push(a, &vals, &res)) != GV_OK) goto oom;
      } else {
        gv__frame f = {r, 0, vals.len, 0};
        if ((s = gv__vec_push(a, &frames, &f)) != GV_OK) goto oom;
        if (no) {
          if ((s = gv__vec_reserve(a, &others, no)) != GV_OK) goto oom;
          memcpy((const gv_node **)others.p + others.len, c + 1, no * sizeof *c);
          others.len += no;
        }
      }
    }
    /* advance */
    for (;;) {
      if (frames.len == 0) {
        *out = GV__VEC_AT(&vals, const gv_node *, 0);
        goto done;
      }
      gv__frame *f = &GV__VEC_AT(&frames, gv__frame, frames.len - 1);
      const gv_node *pn = f->node;
      if (f->next < pn->arity) {
        size_t i = f->next++;
        const gv_node **oth = no ? (const gv_node **)others.p + (frames.len - 1) * no : NULL;
        c[0] = gv__trav_child(pn, i);
        for (size_t j = 1; j < m; j++)
          c[j] = gv__match_child(&kc, pn, oth[j - 1], i);
        if (kc.oom) goto oom;
        break;
      }
      const gv_node **v = &GV__VEC_AT(&vals, const gv_node *, f->base);
      size_t n = pn->arity, i;
      for (i = 0; i < n; i++)
        if (v[i] != gv__trav_child(pn, i)) break;
      const gv_node *rebuilt = pn;
      if (i < n) {
        kids.len = 0;
        if ((s = gv__vec_reserve(a, &kids, n)) != GV_OK) goto oom;
        const gv_node **k = kids.p;
        for (i = 0; i < n; i++)
          k[gv__trav_index(pn, i)] = v[i];
        if ((s = gv_rebuild(a, pn, k, &rebuilt, err)) != GV_OK) goto done;
      }
      vals.len = f->base;
      frames.len--;
      others.len -= no;
      GV__VEC_AT(&vals, const gv_node *, vals.len) = rebuilt;
      vals.len++;
    }
  }
oom:
  s = gv__oom(a, err);
done:
  gv__vec_free(a, &frames);
  gv__vec_free(a, &others);
  gv__vec_free(a, &vals);
  gv__vec_free(a, &cur);
  gv__vec_free(a, &kids);
  gv__cmp_free(&kc);
  return s;
}

static gv_status check_trees(const gv_node *const *trees, size_t n, gv_error *err) {
  if (n && !trees) return gv__err(err, GV_EINVAL, "NULL trees");
  for (size_t i = 0; i < n; i++)
    if (!gv__is_value(trees[i])) return gv__err(err, GV_EINVAL, "tree %zu is not a value node", i);
  return GV_OK;
}

gv_status gv_map(gv_arena *a, gv_map_fn f, void *ctx, const gv_node *const *trees, size_t ntrees,
                 bool none_is_leaf, const gv_node **out, gv_error *err) {
  if (!a || !f || !out) return gv__err(err, GV_EINVAL, "NULL argument");
  GV__WRITABLE(a);
  if (ntrees == 0) return gv__err(err, GV_EINVAL, "must provide at least one structure");
  gv_status s = check_trees(trees, ntrees, err);
  if (s != GV_OK) return s;
  if ((s = gv__check_output(a, gv__esize(trees[0]), err)) != GV_OK) return s;
  if (ntrees == 1) {
    map1_ctx c = {f, ctx, none_is_leaf, 0};
    return map1_run(a, &c, trees[0], out, err);
  }
  pwalk p = {a, err, f, ctx, ntrees, 0, 0, none_is_leaf};
  gv_mark m = gv_arena_mark(a);
  const gv_node *r = NULL;
  s = pwalk_run(&p, trees, &r);
  if (s != GV_OK) {
    gv__rollback(a, &m);
    return s;
  }
  *out = r;
  return GV_OK;
}

gv_status gv_map_up_to(gv_arena *a, const gv_node *shallow, gv_map_fn f, void *ctx,
                       const gv_node *const *trees, size_t ntrees, const gv_node **out,
                       gv_error *err) {
  if (!a || !f || !out || !gv__is_value(shallow)) return gv__err(err, GV_EINVAL, "NULL argument");
  GV__WRITABLE(a);
  if (ntrees == 0) return gv__err(err, GV_EINVAL, "must provide at least one structure");
  if (ntrees == SIZE_MAX) return gv__err(err, GV_ERANGE, "too many trees");
  gv_status s = check_trees(trees, ntrees, err);
  if (s != GV_OK) return s;
  if ((s = gv__check_output(a, gv__esize(shallow), err)) != GV_OK) return s;
  gv_mark m = gv_arena_mark(a);
  const gv_node **roots = gv__raw_alloc(a, (ntrees + 1) * sizeof *roots);
  if (!roots) return gv__oom(a, err);
  roots[0] = shallow;
  if (ntrees) memcpy(roots + 1, trees, ntrees * sizeof *roots);
  pwalk p = {a, err, f, ctx, ntrees + 1, 1, 1, 1};
  const gv_node *r = NULL;
  s = pwalk_run(&p, roots, &r);
  gv__raw_free(a, roots, (ntrees + 1) * sizeof *roots);
  if (s != GV_OK) {
    gv__rollback(a, &m);
    return s;
  }
  *out = r;
  return GV_OK;
}

/* ---------------------------------------------------------------------------
 * lists_to_tuples
 * ------------------------------------------------------------------------- */

static gv_status l2t_pre(gv__walk *w, const gv_node *n, int *descend, const gv_node **res) {
  (void)w;
  *descend = (gv__flags(n) & GV_F_HAS_LIST) != 0;
  *res = n;
  return GV_OK;
}

static gv_status l2t_post(gv__walk *w, const gv_node *n, const gv_node *rebuilt,
                          const gv_node **res) {
  (void)n;
  if (gv__kind(rebuilt) != GV_LIST) {
    *res = rebuilt;
    return GV_OK;
  }
  return gv_tuple(w->a, GV__CONT(rebuilt)->kids, rebuilt->arity, res, w->err);
}

gv_status gv_lists_to_tuples(gv_arena *a, const gv_node *t, const gv_node **out, gv_error *err) {
  if (!a || !gv__is_value(t) || !out) return gv__err(err, GV_EINVAL, "NULL argument");
  GV__WRITABLE(a);
  if (!(gv_flags(t) & GV_F_HAS_LIST)) {
    *out = t;
    return GV_OK;
  }
  static const gv__walk_ops ops = {l2t_pre, l2t_post, 1};
  return gv__walk_run(a, t, &ops, NULL, out, err);
}

/* ---------------------------------------------------------------------------
 * order: the ordering pass
 * ------------------------------------------------------------------------- */

static gv_status order_dict(gv__walk *w, const gv_node *rebuilt, const gv_node **res);

static gv_status order_pre(gv__walk *w, const gv_node *n, int *descend, const gv_node **res) {
  *res = n;
  *descend = !(gv__flags(n) & GV_F_CANONICAL);
  if (*descend && (gv__kind(n) == GV_DICT || gv__kind(n) == GV_DDICT)) {
    /* an unsorted dict over canonical children: sorted at once, not walked */
    if (gv__flags(n) & GV__F_KIDS_CANONICAL) {
      *descend = 0;
      return order_dict(w, n, res);
    }
  }
  return GV_OK;
}

static gv_status order_post(gv__walk *w, const gv_node *n, const gv_node *rebuilt,
                            const gv_node **res) {
  (void)n;
  return order_dict(w, rebuilt, res);
}

/* rebuilt, or its sorted twin when it is a dict or defaultdict with unsorted keys. */
static gv_status order_dict(gv__walk *w, const gv_node *rebuilt, const gv_node **res) {
  unsigned k = gv__kind(rebuilt);
  const gv__cont *ks = (k == GV_DICT || k == GV_DDICT) ? gv__keyset_of(rebuilt) : NULL;
  if (!ks || gv_keyset_sorted(&ks->h) || !ks->perm) {
    *res = rebuilt;
    return GV_OK;
  }
  return gv__dict_sorted(w->a, rebuilt, res, w->err);
}

gv_status gv_order(gv_arena *a, const gv_node *t, const gv_node **out, bool *changed,
                   gv_error *err) {
  if (!a || !gv__is_value(t) || !out) return gv__err(err, GV_EINVAL, "NULL argument");
  GV__WRITABLE(a);
  if (gv__flags(t) & GV_F_CANONICAL) {
    *out = t;
    if (changed) *changed = false;
    return GV_OK;
  }
  static const gv__walk_ops ops = {order_pre, order_post, 1};
  gv_mark m = gv_arena_mark(a);
  const gv_node *r = NULL;
  gv_status s = gv__walk_run(a, t, &ops, NULL, &r, err);
  if (s != GV_OK) {
    gv__rollback(a, &m);
    return s;
  }
  *out = r;
  if (changed) *changed = r != t;
  return GV_OK;
}
