/* SPDX-License-Identifier: MIT */
/* walk.c -- the iterative rebuild walk shared by the single-tree passes. */
#include "walk.h"

#if defined(__GNUC__) || defined(__clang__)
#define GV__INLINE static inline __attribute__((always_inline))
#else
#define GV__INLINE static inline
#endif

/* A chain of rebuilds (a list in a list in a list ..., each rebuilt because
 * the one inside it was) interns one new node after another, each lookup a
 * cache miss in a big table that cannot start before the one below it is
 * done. But a node's hash is known from its children's hashes alone: so when
 * such a chain starts, the hashes of the next GV__AHEAD rebuilt lists and
 * tuples above (while each is its parent's last child, with its other
 * children done) are computed ahead and their slots prefetched, and the
 * lookups overlap. A guess that turns out wrong (a callback gives another
 * node) only costs a prefetch. */
#define GV__AHEAD 16
#define GV__AHEAD_ARITY 8

/* Prefetches the slots of frames top, top - 1, ... whose rebuilt hashes
 * follow from h, the hash of the result of frame top's last child; returns
 * the lowest frame index done (top + 1: none). */
static size_t gv__walk_ahead(gv__walk *w, size_t top, uint64_t h) {
  uint64_t buf[GV__AHEAD_ARITY + 3];
  size_t low = top + 1;
  for (size_t k = 0; k < GV__AHEAD && low > 0; k++) {
    const gv__frame *f = &GV__VEC_AT(&w->frames, gv__frame, low - 1);
    const gv_node *p = f->node;
    size_t n = p->arity;
    if ((p->kind != GV_LIST && p->kind != GV_TUPLE) || n > GV__AHEAD_ARITY || f->next != n) break;
    const gv_node *const *vals = &GV__VEC_AT(&w->vals, const gv_node *, f->base);
    for (size_t i = 0; i + 1 < n; i++)
      buf[3 + i] = gv__hash(vals[i]);
    buf[3 + n - 1] = h;
    h = gv__hash_seq(p->kind, buf, n);
    gv__intern_prefetch(w->a, h);
    low--;
  }
  return low;
}

/* The walk, made twice: with use_memo a constant, the passes that cannot
 * memoize (their callbacks see every occurrence) pay nothing for it. */
GV__INLINE gv_status gv__walk_impl(gv_arena *a, const gv_node *root, const gv__walk_ops *ops,
                                   void *ctx, const gv_node **out, gv_error *err,
                                   const int use_memo) {
  gv__walk w;
  w.a = a;
  w.err = err;
  w.ctx = ctx;
  gv__vec_init(&w.frames, sizeof(gv__frame));
  gv__vec_init(&w.vals, sizeof(const gv_node *));
  gv__vec_init(&w.kids, sizeof(const gv_node *));
  gv__memo memo;
  gv__memo_init(&memo, gv__mem_writer(a), a);
  gv_status s = GV_OK;
  gv_mark mark = gv_arena_mark(a);
  const gv_node *node = root;
  size_t ahead_low = SIZE_MAX; /* frames from here up are prefetched (gv__walk_ahead) */
  for (;;) {
    /* visit node */
    int descend = 1, big = 0;
    const gv_node *res = node;
    if (use_memo && !gv__is_imm(node) && node->kind >= GV_LIST) {
      gv__memo_step(&memo, node->arity);
      if (gv__memo_big(&memo, node)) {
        const gv__memo_ent *me = gv__memo_get(&memo, node, node);
        if (me) { /* a shared subtree already done */
          res = (const gv_node *)me->v;
          descend = 0;
          goto visited;
        }
        big = 1;
      }
    }
    s = ops->pre(&w, node, &descend, &res);
    if (s != GV_OK) goto done;
    if (big && !descend && (s = gv__memo_put(&memo, node, node, (uintptr_t)res)) != GV_OK) goto oom;
  visited:
    if (descend && gv__is_container(node) && node->arity > 0) {
      gv__frame f = {node, 0, w.vals.len, 0};
      if ((s = gv__vec_push(a, &w.frames, &f)) != GV_OK) goto oom;
      ahead_low = SIZE_MAX;
    } else {
      if (descend && gv__is_container(node) && ops->post) {
        s = ops->post(&w, node, node, &res);
        if (s != GV_OK) goto done;
      }
      if ((s = gv__vec_push(a, &w.vals, &res)) != GV_OK) goto oom;
    }
    /* advance: next child of the innermost frame, closing finished frames */
    for (;;) {
      if (w.frames.len == 0) {
        *out = GV__VEC_AT(&w.vals, const gv_node *, 0);
        goto done;
      }
      gv__frame *f = &GV__VEC_AT(&w.frames, gv__frame, w.frames.len - 1);
      const gv_node *p = f->node;
      if (f->next < p->arity) {
        node = gv__trav_child(p, f->next);
        f->next++;
        break;
      }
      /* all children done: rebuild if any result differs */
      const gv_node **vals = &GV__VEC_AT(&w.vals, const gv_node *, f->base);
      size_t n = p->arity, i;
      for (i = 0; i < n; i++)
        if (vals[i] != gv__trav_child(p, i)) break;
      const gv_node *rebuilt = p;
      if (i < n && w.frames.len - 1 < ahead_low && w.frames.len >= 2 &&
          (p->kind == GV_LIST || p->kind == GV_TUPLE) && n <= GV__AHEAD_ARITY) {
        /* a rebuild: start the lookups of this one and of those above it */
        uint64_t hb[GV__AHEAD_ARITY + 3];
        for (size_t k = 0; k < n; k++)
          hb[3 + k] = gv__hash(vals[k]);
        uint64_t hp = gv__hash_seq(p->kind, hb, n);
        gv__intern_prefetch(a, hp);
        ahead_low = gv__walk_ahead(&w, w.frames.len - 2, hp);
      }
      if (i < n) {
        w.kids.len = 0;
        if ((s = gv__vec_reserve(a, &w.kids, n)) != GV_OK) goto oom;
        const gv_node **kids = w.kids.p;
        for (i = 0; i < n; i++)
          kids[gv__trav_index(p, i)] = vals[i];
        /* under the walk's mark: no mark of its own (gv_rebuild's) */
        if ((s = gv__make_node(a, p->kind, GV__CONT(p)->meta, GV__CONT(p)->aux, kids, n, &rebuilt,
                               err)) != GV_OK)
          goto done;
      }
      const gv_node *r = rebuilt;
      if (ops->post) {
        if ((s = ops->post(&w, p, rebuilt, &r)) != GV_OK) goto done;
      }
      if (use_memo && gv__memo_big(&memo, p) &&
          (s = gv__memo_put(&memo, p, p, (uintptr_t)r)) != GV_OK)
        goto oom;
      w.vals.len = f->base;
      w.frames.len--;
      GV__VEC_AT(&w.vals, const gv_node *, w.vals.len) = r; /* room: base < old len */
      w.vals.len++;
    }
  }
oom:
  s = gv__oom(a, err);
done:
  gv__vec_free(a, &w.frames);
  gv__vec_free(a, &w.vals);
  gv__vec_free(a, &w.kids);
  gv__memo_free(&memo);
  if (s != GV_OK) gv__rollback(a, &mark);
  return s;
}

gv_status gv__walk_run(gv_arena *a, const gv_node *root, const gv__walk_ops *ops, void *ctx,
                       const gv_node **out, gv_error *err) {
  return ops->memo ? gv__walk_impl(a, root, ops, ctx, out, err, 1)
                   : gv__walk_impl(a, root, ops, ctx, out, err, 0);
}
