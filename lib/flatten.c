/* SPDX-License-Identifier: MIT */
/* flatten.c -- flatten, structure, paths, pack_sequence_as. */
#include "walk.h"

#include <stdio.h>

/* Leaves go to the front of out, the pending subtrees are kept at its back:
 * every pending subtree holds at least one leaf not yet written, so the two
 * ends never meet and no other memory is needed, however deep the tree. */
gv_status gv_flatten(const gv_node *t, const gv_node **out, size_t cap, size_t *n_out,
                     gv_error *err) {
  if (!t) return gv__err(err, GV_EINVAL, "NULL tree");
  if (n_out) *n_out = 0;
  if (!gv__is_value(t)) return gv__err(err, GV_EINVAL, "not a value node");
  uint64_t total = gv_num_leaves(t);
  if (n_out) *n_out = (size_t)total;
  if (total > cap)
    return gv__err(err, GV_ERANGE, "output holds %zu leaves, the tree has %llu", cap,
                   (unsigned long long)total);
  if (total == 0) return GV_OK;
  if (!out) return gv__err(err, GV_EINVAL, "NULL output");
  size_t N = (size_t)total, pos = 0, sp = N;
  out[--sp] = t;
  while (sp < N) {
    const gv_node *n = out[sp++];
    if (gv__is_leaf(n)) {
      out[pos++] = n;
      continue;
    }
    const gv__cont *c = GV__CONT(n);
    size_t k = n->arity;
    if (c->depth == 1) { /* children are all leaves */
      if ((n->kind == GV_DICT || n->kind == GV_DDICT) && GV__CONT(c->meta)->perm) {
        const uint32_t *perm = GV__CONT(c->meta)->perm;
        for (size_t i = 0; i < k; i++)
          out[pos + i] = c->kids[perm[i]];
      } else {
        memcpy((void *)(out + pos), c->kids, k * sizeof *out);
      }
      pos += k;
      continue;
    }
    for (size_t i = k; i-- > 0;) {
      const gv_node *ch = gv__trav_child(n, i);
      if (gv__num_leaves(ch)) out[--sp] = ch;
    }
  }
  return GV_OK;
}

/* --- structure --- */

static gv_status gv__structure_pre(gv__walk *w, const gv_node *n, int *descend,
                                   const gv_node **res) {
  if (gv__flags(n) & GV_F_STRUCTURE) {
    *descend = 0;
    *res = n;
    return GV_OK;
  }
  if (gv__is_leaf(n)) {
    *descend = 0;
    return gv_star(w->a, res, w->err);
  }
  return GV_OK;
}

gv_status gv_structure(gv_arena *a, const gv_node *t, const gv_node **out, gv_error *err) {
  gv_status s = gv__tree_arg(a, t, err);
  if (s != GV_OK) return s;
  GV__WRITABLE(a);
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  if (gv__flags(t) & GV_F_STRUCTURE) {
    *out = t;
    return GV_OK;
  }
  static const gv__walk_ops ops = {gv__structure_pre, NULL, 1};
  return gv__walk_run(a, t, &ops, NULL, out, err);
}

/* --- pack_sequence_as --- */

typedef struct gv__pack {
  const gv_node *const *leaves;
  size_t next;
} gv__pack;

static gv_status gv__pack_pre(gv__walk *w, const gv_node *n, int *descend, const gv_node **res) {
  gv__pack *p = w->ctx;
  if (gv__is_leaf(n)) {
    *descend = 0;
    *res = p->leaves[p->next++];
    return GV_OK;
  }
  if (GV__CONT(n)->num_leaves == 0) { /* nothing to fill: the same node */
    *descend = 0;
    *res = n;
  }
  return GV_OK;
}

gv_status gv_pack_sequence_as(gv_arena *a, const gv_node *structure, const gv_node *const *leaves,
                              size_t n, const gv_node **out, gv_error *err) {
  gv_status s = gv__tree_arg(a, structure, err);
  if (s != GV_OK) return s;
  GV__WRITABLE(a);
  if (!out || (n && !leaves)) return gv__err(err, GV_EINVAL, "NULL argument");
  uint64_t holds = gv_num_leaves(structure);
  if (holds != n)
    return gv__err(err, GV_ECOUNT, "too %s leaves: structure holds %llu, got %zu",
                   n < holds ? "few" : "many", (unsigned long long)holds, n);
  for (size_t i = 0; i < n; i++) {
    if (!gv__is_value(leaves[i])) return gv__err(err, GV_EINVAL, "leaf %zu is not a value node", i);
  }
  if ((s = gv__check_output(a, gv__esize(structure), err)) != GV_OK) return s;
  static const gv__walk_ops ops = {gv__pack_pre, NULL, 0};
  gv__pack p = {leaves, 0};
  return gv__walk_run(a, structure, &ops, &p, out, err);
}

/* --- paths --- */

typedef struct gv__pframe {
  const gv_node *node;
  size_t next;
} gv__pframe;

typedef struct gv__path_ref {
  const gv_node *const *path;
  size_t depth;
} gv__path_ref;

static void gv__put_path_ref(gv__sbuf *b, const void *ctx) {
  const gv__path_ref *r = ctx;
  gv__sbuf_path(b, r->path, r->depth);
}

/* A callback's failure: its status, returned as given, with the path of the
 * leaf in err. */
static gv_status gv__path_fn_fail(gv_error *err, gv_status s, const gv_node *const *path,
                                  size_t depth) {
  char m[96];
  snprintf(m, sizeof m, "callback failed with status %d (%s)", (int)s, gv_status_name(s));
  gv__path_ref r = {path, depth};
  return gv__err_at(err, s, depth ? gv__put_path_ref : NULL, &r, m, 0);
}

static gv_status gv__walk_paths(gv_arena *a, const gv_node *t, gv_path_fn fn, void *ctx,
                                gv_error *err) {
  if (gv__is_leaf(t)) {
    gv_status s = fn(ctx, NULL, 0, t);
    return s == GV_OK ? s : gv__path_fn_fail(err, s, NULL, 0);
  }
  gv__pframe fbuf[32];
  const gv_node *pbuf[32];
  gv__vec frames, path;
  gv__vec_init_buf(&frames, sizeof(gv__pframe), fbuf, 32);
  gv__vec_init_buf(&path, sizeof(const gv_node *), pbuf, 32);
  gv_status s = GV_OK;
  gv__pframe root = {t, 0};
  if ((s = gv__vec_push(a, &frames, &root)) != GV_OK) goto oom;
  while (frames.len) {
    gv__pframe *f = &GV__VEC_AT(&frames, gv__pframe, frames.len - 1);
    if (f->next == f->node->arity) {
      frames.len--;
      if (path.len) path.len--;
      continue;
    }
    size_t ix = gv__trav_index(f->node, f->next++);
    const gv_node *ch = GV__CONT(f->node)->kids[ix];
    if (gv__num_leaves(ch) == 0) continue;
    const gv_node *entry;
    if ((s = gv__path_entry(a, f->node, ix, &entry)) != GV_OK) goto oom;
    if ((s = gv__vec_push(a, &path, &entry)) != GV_OK) goto oom;
    if (gv__is_leaf(ch)) {
      s = fn(ctx, path.p, path.len, ch);
      if (s != GV_OK) {
        gv__path_fn_fail(err, s, path.p, path.len);
        goto done;
      }
      path.len--;
    } else {
      gv__pframe nf = {ch, 0};
      if ((s = gv__vec_push(a, &frames, &nf)) != GV_OK) goto oom;
    }
  }
  goto done;
oom:
  s = gv__oom(a, err);
done:
  gv__vec_free(a, &frames);
  gv__vec_free(a, &path);
  return s;
}

gv_status gv_walk_paths(gv_arena *a, const gv_node *t, gv_path_fn fn, void *ctx, gv_error *err) {
  gv_status s = gv__tree_arg(a, t, err);
  if (s != GV_OK) return s;
  GV__WRITABLE(a);
  if (!fn) return gv__err(err, GV_EINVAL, "NULL callback");
  if ((s = gv__check_output(a, gv__esize(t), err)) != GV_OK) return s;
  gv_mark m = gv_arena_mark(a);
  s = gv__walk_paths(a, t, fn, ctx, err);
  if (s != GV_OK) gv__rollback(a, &m);
  return s;
}

/* The entries of the paths of every leaf of t, summed (saturating): the
 * memory flatten_with_path needs besides one tuple pair per leaf. A post-
 * order walk, memoized, so O(distinct nodes). */
static gv_status gv__path_entries(gv_arena *a, const gv_node *t, uint64_t *out) {
  typedef struct {
    const gv_node *n;
    size_t next;
    uint64_t sum;
  } fr;
  gv__memo memo;
  gv__memo_init(&memo, gv__mem_writer(a), a);
  memo.on = 1; /* only run when the tree may be huge */
  gv__vec st;
  gv__vec_init(&st, sizeof(fr));
  gv_status s = GV_OK;
  uint64_t res = 0;
  if (gv__is_leaf(t)) goto done;
  fr f0 = {t, 0, 0};
  if ((s = gv__vec_push(a, &st, &f0)) != GV_OK) goto done;
  while (st.len) {
    fr *f = &GV__VEC_AT(&st, fr, st.len - 1);
    if (f->next < f->n->arity) {
      const gv_node *c = GV__CONT(f->n)->kids[f->next++];
      uint64_t l = gv__num_leaves(c);
      if (l == 0) continue;
      f->sum = gv__sat_add(f->sum, l); /* this entry, in each path under it */
      if (gv__is_leaf(c)) continue;
      gv__memo_ent *me = gv__memo_get(&memo, c, c);
      if (me) {
        f->sum = gv__sat_add(f->sum, (uint64_t)me->v);
        continue;
      }
      fr nf = {c, 0, 0};
      if ((s = gv__vec_push(a, &st, &nf)) != GV_OK) goto done;
      continue;
    }
    fr done_f = *f;
    st.len--;
    if (gv__memo_big(&memo, done_f.n) &&
        (s = gv__memo_put(&memo, done_f.n, done_f.n, (uintptr_t)done_f.sum)) != GV_OK)
      goto done;
    if (st.len)
      GV__VEC_AT(&st, fr, st.len - 1).sum =
          gv__sat_add(GV__VEC_AT(&st, fr, st.len - 1).sum, done_f.sum);
    else
      res = done_f.sum;
  }
done:
  gv__vec_free(a, &st);
  gv__memo_free(&memo);
  *out = res;
  return s;
}

/* flatten_with_path builds two tuples per leaf, (path, leaf) and its path,
 * each interned: a lookup in the arena's table, which is the cost that
 * matters on big trees. So the leaves of one container are done in batches:
 * first every tuple's hash (from the hashes of the path's entries, kept on a
 * stack with the entries, so a prefix is hashed once, not once per leaf),
 * then a prefetch of the table slot of each, then the lookups. */
#define GV__FWP_BATCH 64

typedef struct gv__fwp {
  gv_arena *a;
  gv__vec ent;      /* const gv_node *: the path's entries, one slot spare */
  gv__vec words;    /* uint64_t: 3 header words, then the entries' hashes, one spare */
  gv__vec pairs;    /* const gv_node *: the output */
  gv__vec phash;    /* uint64_t: 3 header words, then the pairs' hashes */
  gv__kids_info li; /* what the list learns from the pairs, gathered as they come */
  int li_over;      /* its leaves overflowed: the list's own scan says so */
  size_t nb;        /* the batch: leaves of the current container */
  const gv_node *bent[GV__FWP_BATCH], *bleaf[GV__FWP_BATCH], *bpath[GV__FWP_BATCH];
  uint64_t bh[GV__FWP_BATCH];
  unsigned char bnew[GV__FWP_BATCH]; /* whether bpath[j] was made by this batch */
} gv__fwp;

/* Adds child k to what a scan of the children before it said (ki), as
 * gv__scan_kids would (the checked builds compare): k is a value node of the
 * arena. 0 when the leaves overflow (the general constructor reports it). */
static int gv__ki_child(gv__kids_info *ki, const gv_node *k) {
  if (gv__is_imm(k)) {
    if ((gv__word(k) & 0xFFu) == ((GV_INT << 1) | 1u)) { /* an int */
      ki->all &= GV_F_CANONICAL | GV__F_KEY;
    } else {
      unsigned kk = gv__imm_kind(k), f = gv__flags_full(k);
      ki->all &= k == gv__imm(GV_STAR, 0) ? GV_F_CANONICAL | GV_F_STRUCTURE : f;
      ki->any |= f & (GV_F_HAS_NONE | GV__F_NCKEY);
      if ((0x190u >> kk) & 1u) ki->shape = 0; /* float, handle, * */
    }
    if (ki->leaves == UINT64_MAX) return 0;
    ki->leaves++;
    ki->esum = gv__sat_add(ki->esum, 1);
    return 1;
  }
  unsigned kk = k->kind;
  ki->all &= k->flags;
  ki->any |= k->flags & (GV_F_HAS_LIST | GV_F_HAS_NONE | GV__F_NCKEY);
  ki->esum = gv__sat_add(ki->esum, gv__esize(k));
  if (kk != GV_INT && kk != GV_BOOL && kk != GV_NONE) ki->shape = 0;
  uint64_t nl = gv__num_leaves(k);
  if (nl > UINT64_MAX - ki->leaves) return 0;
  ki->leaves += nl;
  if (!gv__is_leaf_kind(kk) && GV__CONT(k)->depth + (size_t)1 > ki->depth)
    ki->depth = GV__CONT(k)->depth + (size_t)1;
  return 1;
}

/* Notes pair p (a tuple) for the list: what gv__scan_kids would learn from
 * it, and its hash, so the list is made without reading a million cold
 * nodes back. */
static void gv__fwp_note(gv__fwp *c, const gv_node *p) {
  if (!gv__ki_child(&c->li, p)) c->li_over = 1;
  GV__VEC_AT(&c->phash, uint64_t, c->phash.len++) = p->hash;
}

/* Builds the batch's tuples under the path c->ent[0..depth). */
static gv_status gv__fwp_flush(gv__fwp *c) {
  size_t nb = c->nb, d = c->ent.len;
  if (!nb) return GV_OK;
  c->nb = 0;
  gv_arena *a = c->a;
  const gv_node **kids = c->ent.p; /* the prefix, then the entry at [d] */
  uint64_t *w = c->words.p;
  gv_status s;
  if ((s = gv__vec_reserve(a, &c->pairs, nb)) != GV_OK) return s;
  if ((s = gv__vec_reserve(a, &c->phash, nb)) != GV_OK) return s;
  for (size_t j = 0; j < nb; j++) {
    w[3 + d] = gv__hash(c->bent[j]);
    c->bh[j] = gv__hash_seq(GV_TUPLE, w, d + 1);
    gv__intern_prefetch(a, c->bh[j]);
  }
  gv__kids_info pre, ki;
  if ((s = gv__scan_kids(a, GV_TUPLE, kids, d, &pre, NULL)) != GV_OK) return s;
  gv__kids_info empty;
  if ((s = gv__scan_kids(a, GV_TUPLE, NULL, 0, &empty, NULL)) != GV_OK) return s;
  for (size_t j = 0; j < nb; j++) {
    kids[d] = c->bent[j];
    size_t before = a->nentries;
    ki = pre;
    s = gv__ki_child(&ki, kids[d])
            ? gv__tuple_known(a, kids, d + 1, c->bh[j], &ki, 0, &c->bpath[j], NULL)
            : gv__seq_hashed(a, GV_TUPLE, kids, d + 1, c->bh[j], &c->bpath[j], NULL);
    if (s != GV_OK) return s;
    c->bnew[j] = a->nentries != before;
  }
  uint64_t w2[5];
  for (size_t j = 0; j < nb; j++) {
    w2[3] = c->bh[j];
    w2[4] = gv__hash(c->bleaf[j]);
    c->bh[j] = gv__hash_seq(GV_TUPLE, w2, 2);
    gv__intern_prefetch(a, c->bh[j]);
  }
  const gv_node **out = (const gv_node **)c->pairs.p + c->pairs.len;
  for (size_t j = 0; j < nb; j++) {
    const gv_node *two[2] = {c->bpath[j], c->bleaf[j]};
    ki = empty;
    /* a pair whose path was made just now cannot be here already */
    s = gv__ki_child(&ki, two[0]) && gv__ki_child(&ki, two[1])
            ? gv__tuple_known(a, two, 2, c->bh[j], &ki, c->bnew[j], &out[j], NULL)
            : gv__seq_hashed(a, GV_TUPLE, two, 2, c->bh[j], &out[j], NULL);
    if (s != GV_OK) return s;
    gv__fwp_note(c, out[j]);
  }
  c->pairs.len += nb;
  return GV_OK;
}

/* Pushes entry e on the path (room for one more stays). */
static gv_status gv__fwp_push(gv__fwp *c, const gv_node *e) {
  gv_status s;
  if ((s = gv__vec_reserve(c->a, &c->ent, 2)) != GV_OK) return s;
  if ((s = gv__vec_reserve(c->a, &c->words, 2)) != GV_OK) return s;
  GV__VEC_AT(&c->words, uint64_t, c->ent.len + 3) = gv__hash(e);
  GV__VEC_AT(&c->ent, const gv_node *, c->ent.len) = e;
  c->ent.len++;
  c->words.len = c->ent.len + 3;
  return GV_OK;
}

static gv_status gv__fwp_run(gv__fwp *c, const gv_node *t) {
  gv_arena *a = c->a;
  gv__pframe fbuf[32];
  gv__vec frames;
  gv__vec_init_buf(&frames, sizeof(gv__pframe), fbuf, 32);
  gv_status s;
  c->ent.len = 0;
  if ((s = gv__vec_reserve(a, &c->ent, 1)) != GV_OK) goto done;
  if ((s = gv__vec_reserve(a, &c->words, 4)) != GV_OK) goto done;
  c->words.len = 3;
  if (gv__is_leaf(t)) { /* ((), t) */
    const gv_node *p;
    if ((s = gv__seq(a, GV_TUPLE, NULL, 0, NULL, &p, NULL)) != GV_OK) goto done;
    const gv_node *two[2] = {p, t};
    if ((s = gv__vec_reserve(a, &c->pairs, 1)) != GV_OK) goto done;
    if ((s = gv__vec_reserve(a, &c->phash, 1)) != GV_OK) goto done;
    s = gv__seq(a, GV_TUPLE, two, 2, NULL, &GV__VEC_AT(&c->pairs, const gv_node *, 0), NULL);
    if (s == GV_OK) {
      c->pairs.len = 1;
      gv__fwp_note(c, GV__VEC_AT(&c->pairs, const gv_node *, 0));
    }
    goto done;
  }
  gv__pframe root = {t, 0};
  if ((s = gv__vec_push(a, &frames, &root)) != GV_OK) goto done;
  while (frames.len) {
    gv__pframe *f = &GV__VEC_AT(&frames, gv__pframe, frames.len - 1);
    const gv_node *n = f->node;
    if (f->next == n->arity) {
      if ((s = gv__fwp_flush(c)) != GV_OK) goto done;
      frames.len--;
      if (c->ent.len) c->ent.len--;
      c->words.len = c->ent.len + 3;
      continue;
    }
    size_t ix = gv__trav_index(n, f->next++);
    const gv_node *ch = GV__CONT(n)->kids[ix];
    if (gv__num_leaves(ch) == 0) continue;
    const gv_node *entry;
    if ((s = gv__path_entry(a, n, ix, &entry)) != GV_OK) goto done;
    if (gv__is_leaf(ch)) {
      c->bent[c->nb] = entry;
      c->bleaf[c->nb] = ch;
      if (++c->nb == GV__FWP_BATCH && (s = gv__fwp_flush(c)) != GV_OK) goto done;
      continue;
    }
    if ((s = gv__fwp_flush(c)) != GV_OK) goto done; /* the leaves before it first */
    if ((s = gv__fwp_push(c, entry)) != GV_OK) goto done;
    gv__pframe nf = {ch, 0};
    if ((s = gv__vec_push(a, &frames, &nf)) != GV_OK) goto done;
  }
done:
  gv__vec_free(a, &frames);
  return s;
}

gv_status gv_flatten_with_path(gv_arena *a, const gv_node *t, const gv_node **out, gv_error *err) {
  gv_status s = gv__tree_arg(a, t, err);
  if (s != GV_OK) return s;
  GV__WRITABLE(a);
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  uint64_t size = gv__esize(t);
  if (a->max_output) { /* the walk, plus every path's entries */
    uint64_t entries = gv__num_leaves(t), depth = gv_depth(t);
    entries = entries && depth > UINT64_MAX / entries ? UINT64_MAX : entries * depth;
    if (gv__sat_add(size, entries) > a->max_output) {
      s = gv__path_entries(a, t, &entries);
      if (s != GV_OK) return gv__oom(a, err);
    }
    if ((s = gv__check_output(a, gv__sat_add(size, entries), err)) != GV_OK) return s;
  }
  gv__fwp c;
  c.a = a;
  c.nb = 0;
  gv__vec_init(&c.ent, sizeof(const gv_node *));
  gv__vec_init(&c.words, sizeof(uint64_t));
  gv__vec_init(&c.pairs, sizeof(const gv_node *));
  gv__vec_init(&c.phash, sizeof(uint64_t));
  c.li_over = 0;
  gv_mark m = gv_arena_mark(a);
  /* two tuples per leaf and the list: grow the table once for them, not by
   * doubling as they come (a tree too big for that fails later anyway) */
  uint64_t leaves = gv__num_leaves(t);
  s = GV_OK;
  if (leaves < UINT32_MAX && gv__intern_reserve_n(a, (size_t)leaves * 2 + 1) != GV_OK)
    s = GV_ENOMEM;
  size_t hint = leaves < UINT32_MAX ? (size_t)leaves : 0;
  if (s == GV_OK) s = gv__vec_reserve(a, &c.pairs, hint);
  if (s == GV_OK) s = gv__vec_reserve(a, &c.phash, hint + 3);
  if (s == GV_OK) s = gv__scan_kids(a, GV_LIST, NULL, 0, &c.li, NULL); /* no pairs yet */
  if (s == GV_OK) {
    c.phash.len = 3; /* gv__hash_seq's header */
    s = gv__fwp_run(&c, t);
  }
  if (s == GV_OK && !c.li_over) {
    uint64_t h = gv__hash_seq(GV_LIST, c.phash.p, c.pairs.len);
    s = gv__seq_known(a, GV_LIST, c.pairs.p, c.pairs.len, h, &c.li, out, err);
  } else if (s == GV_OK)
    s = gv_list(a, c.pairs.p, c.pairs.len, out, err);
  else if (s == GV_ENOMEM)
    gv__oom(a, err);
  else if (s == GV_EDEPTH)
    gv__err(err, s, "a path is deeper than max_depth (%zu)", a->max_depth);
  else
    gv__err(err, s, "%s", gv_status_name(s));
  gv__vec_free(a, &c.ent);
  gv__vec_free(a, &c.words);
  gv__vec_free(a, &c.pairs);
  gv__vec_free(a, &c.phash);
  if (s != GV_OK) gv__rollback(a, &m);
  return s;
}
