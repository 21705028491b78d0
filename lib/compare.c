/* SPDX-License-Identifier: MIT */
/* compare.c -- same_structure, same_paths, is_prefix and the match relation.
 *
 * The three comparisons are readers: they never write the arena they are
 * given (scratch comes from its allocator hook, small walks from the stack),
 * and they memoize the pairs of large subtrees already matched, so that their
 * work is linear in the distinct nodes of two DAGs, not in their size written
 * out. Nodes of two arenas compare by value (names, metadata and keys). */
#include "match.h"

#include <stdio.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------------
 * Text helpers
 * ------------------------------------------------------------------------- */

void gv__sbuf_printf(gv__sbuf *b, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t len = (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1;
  gv__sbuf_put(b, tmp, len);
}

void gv__frames_path(gv__sbuf *b, const gv__frame *frames, size_t n) {
  gv__sbuf_put(b, "(", 1);
  for (size_t i = 0; i < n && !b->truncated; i++) {
    const gv_node *node = frames[i].node;
    size_t ix = gv__trav_index(node, frames[i].next - 1);
    if (i) gv__sbuf_put(b, ", ", 2);
    const gv_node *k = gv_key(node, ix);
    if (k)
      gv__sbuf_repr_key(b, k);
    else
      gv__sbuf_printf(b, "%zu", ix);
  }
  if (n == 1) gv__sbuf_put(b, ",", 1);
  gv__sbuf_put(b, ")", 1);
}

typedef struct frames_ref {
  const gv__frame *frames;
  size_t n;
} frames_ref;

static void frames_writer(gv__sbuf *b, const void *ctx) {
  const frames_ref *r = ctx;
  gv__frames_path(b, r->frames, r->n);
}

gv_status gv__match_fail_cut(gv_error *err, gv_status s, const gv__frame *frames, size_t n,
                             const char *msg, int msg_cut) {
  frames_ref r = {frames, n};
  return gv__err_at(err, s, n ? frames_writer : NULL, &r, msg, msg_cut);
}

gv_status gv__match_fail(gv_error *err, gv_status s, const gv__frame *frames, size_t n,
                         const char *msg) {
  return gv__match_fail_cut(err, s, frames, n, msg, 0);
}

/* "list of 2 items", "int", "Point of 2 items" */
static void put_desc(gv__sbuf *b, const gv_node *n) {
  size_t len;
  const char *tn = gv_type_name(n, &len);
  gv__sbuf_put(b, tn, len);
  if (gv__is_container(n)) gv__sbuf_printf(b, " of %u items", (unsigned)gv__arity(n));
}

static void put_name(gv__sbuf *b, const gv_node *n) {
  size_t len;
  const char *tn = gv_type_name(n, &len);
  gv__sbuf_put(b, tn, len);
}

static int kind_mismatch(const gv_node *a, const gv_node *b, gv__sbuf *msg) {
  gv__sbuf_puts(msg, "expected ");
  put_desc(msg, a);
  gv__sbuf_puts(msg, ", got ");
  put_desc(msg, b);
  return 0;
}

static int arity_mismatch(const char *what, const gv_node *a, const gv_node *b, gv__sbuf *msg) {
  gv__sbuf_printf(msg, "%s arity mismatch: expected %u items, got %u", what, (unsigned)gv__arity(a),
                  (unsigned)gv__arity(b));
  return 0;
}

/* "Point(x, y)" */
static void put_schema(gv__sbuf *b, const gv_node *nt) {
  const gv__cont *sc = GV__CONT(GV__CONT(nt)->meta);
  const gv__blob *nm = GV__BLOB(sc->kids[0]);
  gv__sbuf_put(b, nm->data, nm->len);
  gv__sbuf_put(b, "(", 1);
  for (size_t i = 1; i < sc->h.arity && !b->truncated; i++) {
    const gv__blob *f = GV__BLOB(sc->kids[i]);
    if (i > 1) gv__sbuf_put(b, ", ", 2);
    gv__sbuf_put(b, f->data, f->len);
  }
  gv__sbuf_put(b, ")", 1);
}

/* Lists the keys of x (in traversal order) absent from y. */
static void put_missing(gv__cmp *kc, gv__sbuf *b, const gv_node *x, const gv_node *y) {
  const gv__cont *ks = GV__CONT(GV__CONT(x)->meta);
  int first = 1;
  gv__sbuf_put(b, "[", 1);
  for (size_t i = 0; i < gv__arity(x) && !b->truncated; i++) {
    const gv_node *k = ks->kids[gv__trav_index(x, i)];
    if (gv__get(kc, y, k) || kc->oom) continue;
    if (!first) gv__sbuf_put(b, ", ", 2);
    first = 0;
    gv__sbuf_repr_key(b, k);
  }
  gv__sbuf_put(b, "]", 1);
}

static int same_keys(gv__cmp *kc, const gv_node *a, const gv_node *b) {
  const gv_node *ka = GV__CONT(a)->meta, *kb = GV__CONT(b)->meta;
  if (ka == kb || gv_keyset_twin(ka) == gv_keyset_twin(kb)) return 1;
  if (gv__arity(a) != gv__arity(b)) return 0;
  for (size_t i = 0; i < gv__arity(a); i++)
    if (!gv__get(kc, b, GV__CONT(ka)->kids[i])) return 0;
  return 1;
}

#define GV__MEMO_MATCH 1u /* the pair matches (same_structure / is_prefix) */

static gv_status memo_or(gv__memo *m, const void *x, const void *y, uintptr_t bits) {
  gv__memo_ent *e = gv__memo_get(m, x, y);
  if (e) {
    e->v |= bits;
    return GV_OK;
  }
  return gv__memo_put(m, x, y, bits);
}

/* ---------------------------------------------------------------------------
 * The match relation, one node at a time
 * ------------------------------------------------------------------------- */

static int match_node(gv__cmp *kc, const gv_node *a, const gv_node *b, gv__sbuf *msg) {
  if (a == b) return 1;
  unsigned k = gv__kind(a);
  if (gv__is_leaf_kind(k)) {
    if (gv__is_leaf(b)) return 1;
    gv__sbuf_puts(msg, "don't have the same nested structure: expected a leaf, got ");
    put_desc(msg, b);
    return 0;
  }
  switch (k) {
  case GV_LIST:
  case GV_TUPLE:
  case GV_DEQUE:
    if (gv__kind(b) != k) return kind_mismatch(a, b, msg);
    if (gv__arity(b) != gv__arity(a)) return arity_mismatch(gv_type_name(a, NULL), a, b, msg);
    return 1;
  case GV_NAMEDTUPLE: {
    if (gv__kind(b) != k) return kind_mismatch(a, b, msg);
    if (gv__arity(b) != gv__arity(a)) return arity_mismatch("namedtuple", a, b, msg);
    int same = gv__same_value(kc, GV__CONT(a)->meta, GV__CONT(b)->meta);
    if (same < 0) return -1;
    if (!same) {
      gv__sbuf_puts(msg, "namedtuple type mismatch: expected ");
      put_schema(msg, a);
      gv__sbuf_puts(msg, ", got ");
      put_schema(msg, b);
      return 0;
    }
    return 1;
  }
  case GV_DICT:
  case GV_ODICT:
  case GV_DDICT:
    if (!gv__is_dict_kind(gv__kind(b))) return kind_mismatch(a, b, msg);
    if (!same_keys(kc, a, b)) {
      gv__sbuf_puts(msg, "dictionary key mismatch: missing key(s) ");
      put_missing(kc, msg, a, b);
      gv__sbuf_puts(msg, ", extra key(s) ");
      put_missing(kc, msg, b, a);
      return 0;
    }
    return 1;
  case GV_CUSTOM: {
    if (gv__kind(b) != k) return kind_mismatch(a, b, msg);
    const gv__cont *ca = GV__CONT(GV__CONT(a)->meta), *cb = GV__CONT(GV__CONT(b)->meta);
    int same = gv__same_value(kc, ca->kids[0], cb->kids[0]);
    if (same < 0) return -1;
    if (!same) {
      gv__sbuf_puts(msg, "custom node type mismatch: expected ");
      put_name(msg, a);
      gv__sbuf_puts(msg, ", got ");
      put_name(msg, b);
      return 0;
    }
    same = gv__same_value(kc, &ca->h, &cb->h);
    if (same < 0) return -1;
    if (!same) {
      const gv_node *ma = gv_custom_meta(a), *mb = gv_custom_meta(b);
      gv__sbuf_puts(msg, "custom node data mismatch: expected ");
      if (ma)
        gv__sbuf_repr_key(msg, ma);
      else
        gv__sbuf_puts(msg, "None");
      gv__sbuf_puts(msg, ", got ");
      if (mb)
        gv__sbuf_repr_key(msg, mb);
      else
        gv__sbuf_puts(msg, "None");
      return 0;
    }
    if (gv__arity(b) != gv__arity(a)) return arity_mismatch("custom node", a, b, msg);
    return 1;
  }
  default:
    return kind_mismatch(a, b, msg);
  }
}

int gv__match_node(gv__cmp *kc, const gv_node *a, const gv_node *b, gv__sbuf *msg) {
  int r = match_node(kc, a, b, msg);
  return kc->oom ? -1 : r;
}

const gv_node *gv__match_child(gv__cmp *kc, const gv_node *a, const gv_node *b, size_t i) {
  if (a == b) return gv__trav_child(a, i);
  if (gv__is_dict_kind(gv__kind(a))) {
    const gv__cont *ka = GV__CONT(GV__CONT(a)->meta), *kb = GV__CONT(GV__CONT(b)->meta);
    size_t ix = gv__trav_index(a, i);
    if (ka == kb) return GV__CONT(b)->kids[ix];
    if (gv__kind(a) != GV_ODICT && gv_keyset_twin(&ka->h) == gv_keyset_twin(&kb->h))
      return GV__CONT(b)->kids[kb->perm ? kb->perm[i] : i];
    return gv__get(kc, b, ka->kids[ix]);
  }
  return GV__CONT(b)->kids[i];
}

/* ---------------------------------------------------------------------------
 * The pair walk: does y match x (prefix: only down to x's leaves)?
 * ------------------------------------------------------------------------- */

/* GV_OK and *ok; with ok == 0 the message is in err. Pairs of large subtrees
 * that matched are remembered, so a shared pair is walked once. */
static gv_status match_walk(gv__memo *memo, gv__cmp *kc, const gv_node *x, const gv_node *y,
                            int prefix, int *ok, gv_error *err) {
  gv__frame fbuf[32];
  gv__vec frames;
  gv__vec_init_buf(&frames, sizeof(gv__frame), fbuf, 32);
  gv_status s = GV_OK;
  char buf[sizeof(((gv_error *)0)->msg)];
  gv__sbuf msg = {buf, sizeof buf, 0, 0};
  buf[0] = '\0';
  *ok = 1;
  const gv_node *a = x, *b = y;
  for (;;) {
    if (a != b && !(prefix && gv__is_leaf(a))) {
      int big = 0;
      if (gv__is_container(a)) {
        gv__memo_step(memo, gv__arity(a));
        big = gv__memo_big(memo, a);
      }
      gv__memo_ent *me = big ? gv__memo_get(memo, a, b) : NULL;
      if (!me || !(me->v & GV__MEMO_MATCH)) {
        int r = gv__match_node(kc, a, b, &msg);
        if (r < 0) goto oom;
        if (!r) {
          *ok = 0;
          gv__match_fail_cut(err, GV_EMISMATCH, frames.p, frames.len, buf, msg.truncated);
          goto done;
        }
        if (gv__is_container(a) && gv__arity(a) > 0) {
          gv__frame f = {a, 0, (size_t)big, (uintptr_t)(const void *)b};
          if (gv__mvec_push(memo->mem, &frames, &f) != GV_OK) goto oom;
        }
      }
    }
    for (;;) {
      if (frames.len == 0) goto done;
      gv__frame *f = &GV__VEC_AT(&frames, gv__frame, frames.len - 1);
      if (f->next < f->node->arity) {
        size_t i = f->next++;
        a = gv__trav_child(f->node, i);
        b = gv__match_child(kc, f->node, (const gv_node *)(const void *)f->user, i);
        if (kc->oom) goto oom;
        break;
      }
      if (f->base && memo_or(memo, f->node, (const void *)f->user, GV__MEMO_MATCH) != GV_OK)
        goto oom;
      frames.len--;
    }
  }
oom:
  s = gv__oom_mem(memo->mem, err);
done:
  gv__mvec_free(memo->mem, &frames);
  return s;
}

/* GV_EINVAL unless n is a value node (not NULL, not metadata). */
static gv_status check_value(const gv_node *n, const char *what, gv_error *err) {
  if (gv__is_value(n)) return GV_OK;
  if (!n) return gv__err(err, GV_EINVAL, "NULL %s", what);
  return gv__err(err, GV_EINVAL, "%s is not a value node (a %s)", what, gv_type_name(n, NULL));
}

/* The arguments of a comparison: an arena, then x (named xwhat in the
 * messages) and y (the "tree"), each a value node. */
static gv_status check_pair(const gv_arena *a, const gv_node *x, const char *xwhat,
                            const gv_node *y, gv_error *err) {
  if (!a) return gv__err(err, GV_EINVAL, "NULL arena");
  gv_status s = check_value(x, xwhat, err);
  return s != GV_OK ? s : check_value(y, "tree", err);
}

gv_status gv_same_structure(const gv_arena *a, const gv_node *x, const gv_node *y, gv_error *err) {
  gv_status s;
  if ((s = check_pair(a, x, "tree", y, err)) != GV_OK) return s;
  if (x == y) return GV_OK;
  size_t failed = 0;
  gv__mem mem = gv__mem_reader(a, &failed);
  gv__memo memo;
  gv__memo_init(&memo, mem, a);
  gv__cmp kc;
  gv__cmp_init(&kc, mem, a, 1);
  int ok;
  s = match_walk(&memo, &kc, x, y, 0, &ok, err);
  gv__cmp_free(&kc);
  gv__memo_free(&memo);
  if (s != GV_OK) return s;
  return ok ? GV_OK : GV_EMISMATCH;
}

gv_status gv_is_prefix(const gv_arena *a, const gv_node *shallow, const gv_node *t, bool *result,
                       gv_error *err) {
  gv_status s;
  if ((s = check_pair(a, shallow, "shallow tree", t, err)) != GV_OK) return s;
  if (!result) return gv__err(err, GV_EINVAL, "NULL result");
  if (shallow == t) {
    *result = true;
    return GV_OK;
  }
  size_t failed = 0;
  gv__mem mem = gv__mem_reader(a, &failed);
  gv__memo memo;
  gv__memo_init(&memo, mem, a);
  gv__cmp kc;
  gv__cmp_init(&kc, mem, a, 1);
  int ok;
  s = match_walk(&memo, &kc, shallow, t, 1, &ok, NULL);
  gv__cmp_free(&kc);
  gv__memo_free(&memo);
  if (s != GV_OK) return gv__oom_mem(mem, err);
  *result = ok != 0;
  return GV_OK;
}

/* ---------------------------------------------------------------------------
 * same_paths: the path sets compared as shared prefixes. The paths of a
 * container are its children's paths behind their entries, so two path sets
 * are equal when the entries of the children that hold leaves are the same
 * (by identity: 0, 0.0 and False are different entries) and, entry by entry,
 * their children's path sets are. A pair walk computes, for a pair (p, q),
 * whether p has a path q lacks (SP_P) and the converse (SP_Q), memoized.
 * ------------------------------------------------------------------------- */

#define SP_P 1u
#define SP_Q 2u

/* The child of q under the same path entry as p's child at insertion index
 * ix, or NULL. */
static const gv_node *sp_counterpart(gv__cmp *kc, const gv_node *p, size_t ix, const gv_node *q) {
  const gv_node *key = gv_key(p, ix);
  const gv_node *qks = gv__keys_of(q);
  if (key) {
    if (!qks) { /* a position: the key must be that int */
      if (gv__kind(key) != GV_INT) return NULL;
      int64_t v = gv__ival(key);
      return v >= 0 && (uint64_t)v < gv__arity(q) ? GV__CONT(q)->kids[v] : NULL;
    }
    size_t j = gv__keyset_find(kc, qks, key);
    if (j == SIZE_MAX || !gv__key_same(kc, GV__CONT(qks)->kids[j], key)) return NULL;
    return GV__CONT(q)->kids[j];
  }
  if (!qks) return ix < gv__arity(q) ? GV__CONT(q)->kids[ix] : NULL;
  /* position ix among keys: the int key ix */
  const gv__cont *ks = GV__CONT(qks);
  const gv_node *k = gv__imm(GV_INT, (uint64_t)ix);
  if (k) {
    size_t j = gv__keyset_find(kc, qks, k);
    if (j == SIZE_MAX || gv__kind(ks->kids[j]) != GV_INT) return NULL;
    return GV__CONT(q)->kids[j];
  }
  for (size_t j = 0; j < ks->h.arity; j++) /* no immediates: scan */
    if (gv__kind(ks->kids[j]) == GV_INT && gv__ival(ks->kids[j]) == (int64_t)ix)
      return GV__CONT(q)->kids[j];
  return NULL;
}

/* The bits of a child pair (pc holds leaves) that need no walk, or -1 when
 * both are containers with leaves. */
static int sp_trivial(const gv_node *pc, const gv_node *qc) {
  if (!qc || gv__num_leaves(qc) == 0) return SP_P;
  if (pc == qc) return 0;
  int pl = gv__is_leaf(pc), ql = gv__is_leaf(qc);
  if (pl && ql) return 0;
  if (pl || ql) return SP_P | SP_Q;
  return -1;
}

typedef struct sp_frame {
  const gv_node *p, *q;
  size_t i;       /* next child (insertion index) of p, then of q */
  unsigned phase; /* 0: p's children, 1: q's children */
  unsigned bits;
} sp_frame;

static int sp_big(const gv__memo *memo, const gv_node *p, const gv_node *q) {
  return gv__memo_big(memo, p) || gv__memo_big(memo, q);
}

/* SP_P / SP_Q of two containers that both hold leaves. */
static gv_status sp_bits(gv__memo *memo, gv__cmp *kc, const gv_node *p0, const gv_node *q0,
                         unsigned *out) {
  gv__memo_ent *me = gv__memo_get(memo, p0, q0);
  if (me) {
    *out = (unsigned)me->v;
    return GV_OK;
  }
  sp_frame buf[32];
  gv__vec st;
  gv__vec_init_buf(&st, sizeof(sp_frame), buf, 32);
  gv_status s = GV_OK;
  sp_frame f0 = {p0, q0, 0, 0, 0};
  if ((s = gv__mvec_push(memo->mem, &st, &f0)) != GV_OK) return s;
  unsigned last = 0;
  while (st.len) {
    sp_frame *f = &GV__VEC_AT(&st, sp_frame, st.len - 1);
    if (f->phase == 0 && f->bits != (SP_P | SP_Q) && f->i < f->p->arity) {
      size_t ix = f->i++;
      gv__memo_step(memo, 1);
      const gv_node *pc = GV__CONT(f->p)->kids[ix];
      if (gv__num_leaves(pc) == 0) continue;
      const gv_node *qc = sp_counterpart(kc, f->p, ix, f->q);
      if (kc->oom) {
        s = GV_ENOMEM;
        break;
      }
      int t = sp_trivial(pc, qc);
      if (t >= 0) {
        f->bits |= (unsigned)t;
        continue;
      }
      me = gv__memo_get(memo, pc, qc);
      if (me) {
        f->bits |= (unsigned)me->v;
        continue;
      }
      sp_frame nf = {pc, qc, 0, 0, 0};
      if ((s = gv__mvec_push(memo->mem, &st, &nf)) != GV_OK) break;
      continue;
    }
    if (f->phase == 0) {
      f->phase = 1;
      f->i = 0;
    }
    if (!(f->bits & SP_Q) && f->i < f->q->arity) {
      size_t ix = f->i++;
      const gv_node *qc = GV__CONT(f->q)->kids[ix];
      if (gv__num_leaves(qc) == 0) continue;
      const gv_node *pc = sp_counterpart(kc, f->q, ix, f->p);
      if (kc->oom) {
        s = GV_ENOMEM;
        break;
      }
      if (!pc || gv__num_leaves(pc) == 0) f->bits |= SP_Q;
      continue;
    }
    /* done */
    last = f->bits;
    if (sp_big(memo, f->p, f->q) && (s = gv__memo_put(memo, f->p, f->q, last)) != GV_OK) break;
    st.len--;
    if (st.len) GV__VEC_AT(&st, sp_frame, st.len - 1).bits |= last;
  }
  gv__mvec_free(memo->mem, &st);
  *out = last;
  return s;
}

/* Appends the paths of x that y lacks, in x's traversal order, until b is
 * full. A frame walks node p (user: q, its counterpart in y, or NULL when
 * every path under p is listed); the frames name the path being listed. */
static gv_status sp_list(gv__memo *memo, gv__cmp *kc, gv__sbuf *b, const gv_node *x,
                         const gv_node *y, int *first) {
  gv__frame fbuf[32];
  gv__vec st;
  gv__vec_init_buf(&st, sizeof(gv__frame), fbuf, 32);
  gv_status s = GV_OK;
#define SP_EMIT()                                                                                  \
  do {                                                                                             \
    if (!*first) gv__sbuf_put(b, ", ", 2);                                                         \
    *first = 0;                                                                                    \
    gv__frames_path(b, (const gv__frame *)st.p, st.len);                                           \
  } while (0)
  if (gv__num_leaves(x) == 0) goto done;
  if (gv__is_leaf(x)) { /* the empty path: y lacks it unless it is a leaf */
    if (!gv__is_leaf(y)) SP_EMIT();
    goto done;
  }
  const gv_node *q0 = gv__is_leaf(y) || gv__num_leaves(y) == 0 ? NULL : y;
  gv__frame f0 = {x, 0, 0, (uintptr_t)q0};
  if ((s = gv__mvec_push(memo->mem, &st, &f0)) != GV_OK) goto done;
  while (st.len && !b->truncated) {
    gv__frame *f = &GV__VEC_AT(&st, gv__frame, st.len - 1);
    const gv_node *p = f->node, *q = (const gv_node *)f->user;
    if (f->next == p->arity) {
      st.len--;
      continue;
    }
    size_t ix = gv__trav_index(p, f->next++);
    const gv_node *pc = GV__CONT(p)->kids[ix];
    if (gv__num_leaves(pc) == 0) continue;
    const gv_node *qc = q ? sp_counterpart(kc, p, ix, q) : NULL;
    if (kc->oom) {
      s = GV_ENOMEM;
      break;
    }
    int all = !qc || gv__num_leaves(qc) == 0 || gv__is_leaf(qc);
    if (gv__is_leaf(pc)) { /* missing unless q has a leaf there too */
      if (!qc || !gv__is_leaf(qc)) SP_EMIT();
      continue;
    }
    if (!all && pc != qc) {
      unsigned bits;
      if ((s = sp_bits(memo, kc, pc, qc, &bits)) != GV_OK) break;
      if (!(bits & SP_P)) continue;
    } else if (!all) {
      continue;
    }
    gv__frame nf = {pc, 0, 0, (uintptr_t)(all ? NULL : qc)};
    if ((s = gv__mvec_push(memo->mem, &st, &nf)) != GV_OK) break;
  }
#undef SP_EMIT
done:
  gv__mvec_free(memo->mem, &st);
  return s;
}

/* Bits of the root pair. */
static gv_status sp_root(gv__memo *memo, gv__cmp *kc, const gv_node *x, const gv_node *y,
                         unsigned *bits) {
  uint64_t lx = gv__num_leaves(x), ly = gv__num_leaves(y);
  if (lx == 0 || ly == 0) {
    *bits = (lx ? SP_P : 0u) | (ly ? SP_Q : 0u);
    return GV_OK;
  }
  int t = sp_trivial(x, y);
  if (t >= 0) {
    *bits = (unsigned)t;
    return GV_OK;
  }
  return sp_bits(memo, kc, x, y, bits);
}

gv_status gv_same_paths(const gv_arena *a, const gv_node *x, const gv_node *y, gv_error *err) {
  gv_status s;
  if ((s = check_pair(a, x, "tree", y, err)) != GV_OK) return s;
  if (x == y) return GV_OK;
  size_t failed = 0;
  gv__mem mem = gv__mem_reader(a, &failed);
  gv__memo memo;
  gv__memo_init(&memo, mem, a);
  gv__cmp kc;
  gv__cmp_init(&kc, mem, a, 1);
  unsigned bits = 0;
  s = sp_root(&memo, &kc, x, y, &bits);
  if (s == GV_OK && bits) {
    s = GV_EMISMATCH;
    if (err) {
      gv__sbuf b = {err->msg, sizeof err->msg, 0, 0};
      err->msg[0] = '\0';
      gv__sbuf_puts(&b, "don't have the same paths: paths in a missing in b: [");
      int first = 1;
      gv_status ls = sp_list(&memo, &kc, &b, x, y, &first);
      gv__sbuf_puts(&b, "]; paths in b missing in a: [");
      first = 1;
      if (ls == GV_OK) ls = sp_list(&memo, &kc, &b, y, x, &first);
      gv__sbuf_puts(&b, "]");
      if (ls != GV_OK) s = ls;
      err->status = s;
      err->line = err->column = err->offset = 0;
      if (b.truncated) gv__err_cut(err);
    }
  }
  gv__cmp_free(&kc);
  gv__memo_free(&memo);
  if (s == GV_ENOMEM) return gv__oom_mem(mem, err);
  return s;
}
