/* compare.c -- same_structure, same_paths, is_prefix and the match relation. */
#include "internal.h"
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
static void put_missing(gv__sbuf *b, const gv_node *x, const gv_node *y) {
  const gv__cont *ks = GV__CONT(GV__CONT(x)->meta);
  int first = 1;
  gv__sbuf_put(b, "[", 1);
  for (size_t i = 0; i < gv__arity(x) && !b->truncated; i++) {
    const gv_node *k = ks->kids[gv__trav_index(x, i)];
    if (gv_get(y, k)) continue;
    if (!first) gv__sbuf_put(b, ", ", 2);
    first = 0;
    gv__sbuf_repr_key(b, k);
  }
  gv__sbuf_put(b, "]", 1);
}

static int same_keys(const gv_node *a, const gv_node *b) {
  const gv_node *ka = GV__CONT(a)->meta, *kb = GV__CONT(b)->meta;
  if (ka == kb || gv_keyset_twin(ka) == gv_keyset_twin(kb)) return 1;
  if (gv__arity(a) != gv__arity(b)) return 0;
  for (size_t i = 0; i < gv__arity(a); i++)
    if (!gv_get(b, GV__CONT(ka)->kids[i])) return 0;
  return 1;
}

int gv__match_node(const gv_node *a, const gv_node *b, gv__sbuf *msg) {
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
  case GV_NAMEDTUPLE:
    if (gv__kind(b) != k) return kind_mismatch(a, b, msg);
    if (gv__arity(b) != gv__arity(a)) return arity_mismatch("namedtuple", a, b, msg);
    if (GV__CONT(a)->meta != GV__CONT(b)->meta) {
      gv__sbuf_puts(msg, "namedtuple type mismatch: expected ");
      put_schema(msg, a);
      gv__sbuf_puts(msg, ", got ");
      put_schema(msg, b);
      return 0;
    }
    return 1;
  case GV_DICT:
  case GV_ODICT:
  case GV_DDICT:
    if (!gv__is_dict_kind(gv__kind(b))) return kind_mismatch(a, b, msg);
    if (!same_keys(a, b)) {
      gv__sbuf_puts(msg, "dictionary key mismatch: missing key(s) ");
      put_missing(msg, a, b);
      gv__sbuf_puts(msg, ", extra key(s) ");
      put_missing(msg, b, a);
      return 0;
    }
    return 1;
  case GV_CUSTOM: {
    if (gv__kind(b) != k) return kind_mismatch(a, b, msg);
    const gv__cont *ca = GV__CONT(GV__CONT(a)->meta), *cb = GV__CONT(GV__CONT(b)->meta);
    if (ca->kids[0] != cb->kids[0]) {
      gv__sbuf_puts(msg, "custom node type mismatch: expected ");
      put_name(msg, a);
      gv__sbuf_puts(msg, ", got ");
      put_name(msg, b);
      return 0;
    }
    if (ca != cb) {
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

const gv_node *gv__match_child(const gv_node *a, const gv_node *b, size_t i) {
  if (a == b) return gv__trav_child(a, i);
  if (gv__is_dict_kind(gv__kind(a))) {
    const gv__cont *ka = GV__CONT(GV__CONT(a)->meta), *kb = GV__CONT(GV__CONT(b)->meta);
    size_t ix = gv__trav_index(a, i);
    if (ka == kb) return GV__CONT(b)->kids[ix];
    if (gv__kind(a) != GV_ODICT && gv_keyset_twin(&ka->h) == gv_keyset_twin(&kb->h))
      return GV__CONT(b)->kids[kb->perm ? kb->perm[i] : i];
    return gv_get(b, ka->kids[ix]);
  }
  return GV__CONT(b)->kids[i];
}

/* ---------------------------------------------------------------------------
 * The pair walk: does y match x (prefix: only down to x's leaves)?
 * ------------------------------------------------------------------------- */

/* GV_OK and *ok; with ok == 0 the message is in err (GV_EMISMATCH status
 * returned only through *ok). */
static gv_status match_walk(gv_arena *ar, const gv_node *x, const gv_node *y, int prefix, int *ok,
                            gv_error *err) {
  gv__vec frames;
  gv__vec_init(&frames, sizeof(gv__frame));
  gv_status s = GV_OK;
  char buf[sizeof(((gv_error *)0)->msg)];
  gv__sbuf msg = {buf, sizeof buf, 0, 0};
  buf[0] = '\0';
  *ok = 1;
  const gv_node *a = x, *b = y;
  for (;;) {
    if (a != b && !(prefix && gv__is_leaf(a))) {
      if (!gv__match_node(a, b, &msg)) {
        *ok = 0;
        gv__match_fail_cut(err, GV_EMISMATCH, frames.p, frames.len, buf, msg.truncated);
        goto done;
      }
      if (gv__is_container(a) && gv__arity(a) > 0) {
        gv__frame f = {a, 0, 0, (uintptr_t)(const void *)b};
        if ((s = gv__vec_push(ar, &frames, &f)) != GV_OK) {
          s = gv__oom(err);
          goto done;
        }
      }
    }
    for (;;) {
      if (frames.len == 0) goto done;
      gv__frame *f = &GV__VEC_AT(&frames, gv__frame, frames.len - 1);
      if (f->next < f->node->arity) {
        size_t i = f->next++;
        a = gv__trav_child(f->node, i);
        b = gv__match_child(f->node, (const gv_node *)(const void *)f->user, i);
        break;
      }
      frames.len--;
    }
  }
done:
  gv__vec_free(ar, &frames);
  return s;
}

gv_status gv_same_structure(gv_arena *a, const gv_node *x, const gv_node *y, gv_error *err) {
  if (!a || !x || !y) return gv__err(err, GV_EINVAL, "NULL argument");
  if (x == y) return GV_OK;
  gv_mark m = gv_arena_mark(a);
  int ok;
  gv_status s = match_walk(a, x, y, 0, &ok, err);
  gv_arena_rollback(a, &m);
  if (s != GV_OK) return s;
  return ok ? GV_OK : GV_EMISMATCH;
}

gv_status gv_is_prefix(gv_arena *a, const gv_node *shallow, const gv_node *t, bool *result,
                       gv_error *err) {
  if (!a || !shallow || !t || !result) return gv__err(err, GV_EINVAL, "NULL argument");
  if (shallow == t) {
    *result = true;
    return GV_OK;
  }
  gv_mark m = gv_arena_mark(a);
  int ok;
  gv_status s = match_walk(a, shallow, t, 1, &ok, NULL);
  gv_arena_rollback(a, &m);
  if (s != GV_OK) return gv__oom(err);
  *result = ok != 0;
  return GV_OK;
}

/* ---------------------------------------------------------------------------
 * same_paths: the path sets as interned tuples, compared as pointer sets.
 * ------------------------------------------------------------------------- */

typedef struct paths_ctx {
  gv_arena *a;
  gv__vec v; /* const gv_node *: path tuples in flatten order */
} paths_ctx;

static gv_status collect_path(void *ctx, const gv_node *const *path, size_t depth,
                              const gv_node *leaf) {
  (void)leaf;
  paths_ctx *c = ctx;
  const gv_node *p;
  gv_status s = gv_tuple(c->a, path, depth, &p, NULL);
  if (s != GV_OK) return s;
  return gv__vec_push(c->a, &c->v, &p);
}

static int ptr_cmp(const void *x, const void *y) {
  uintptr_t p = (uintptr_t) * (const gv_node *const *)x,
            q = (uintptr_t) * (const gv_node *const *)y;
  return p < q ? -1 : p > q;
}

static int has_ptr(const gv__vec *sorted, const gv_node *p) {
  return bsearch(&p, sorted->p, sorted->len, sizeof p, ptr_cmp) != NULL;
}

/* Appends the paths of in (flatten order) that are absent from other_sorted. */
static void put_absent(gv__sbuf *b, const gv__vec *in, const gv__vec *other_sorted) {
  int first = 1;
  gv__sbuf_put(b, "[", 1);
  for (size_t i = 0; i < in->len && !b->truncated; i++) {
    const gv_node *p = GV__VEC_AT(in, const gv_node *, i);
    if (has_ptr(other_sorted, p)) continue;
    if (!first) gv__sbuf_put(b, ", ", 2);
    first = 0;
    gv__sbuf_repr_key(b, p);
  }
  gv__sbuf_put(b, "]", 1);
}

static gv_status sorted_copy(gv_arena *a, const gv__vec *in, gv__vec *out) {
  gv_status s = gv__vec_reserve(a, out, in->len);
  if (s != GV_OK) return s;
  if (in->len) memcpy(out->p, in->p, in->len * sizeof(const gv_node *));
  out->len = in->len;
  if (out->len > 1) qsort(out->p, out->len, sizeof(const gv_node *), ptr_cmp);
  return GV_OK;
}

gv_status gv_same_paths(gv_arena *a, const gv_node *x, const gv_node *y, gv_error *err) {
  if (!a || !x || !y) return gv__err(err, GV_EINVAL, "NULL argument");
  if (x == y) return GV_OK;
  gv_mark m = gv_arena_mark(a);
  paths_ctx cx = {a, {0}}, cy = {a, {0}};
  gv__vec sx, sy;
  gv__vec_init(&cx.v, sizeof(const gv_node *));
  gv__vec_init(&cy.v, sizeof(const gv_node *));
  gv__vec_init(&sx, sizeof(const gv_node *));
  gv__vec_init(&sy, sizeof(const gv_node *));
  gv_status s = gv_walk_paths(a, x, collect_path, &cx, NULL);
  if (s == GV_OK) s = gv_walk_paths(a, y, collect_path, &cy, NULL);
  if (s == GV_OK) s = sorted_copy(a, &cx.v, &sx);
  if (s == GV_OK) s = sorted_copy(a, &cy.v, &sy);
  if (s != GV_OK) {
    s = s == GV_EDEPTH ? gv__err(err, s, "path too deep") : gv__oom(err);
  } else {
    int same = sx.len == sy.len;
    for (size_t i = 0; same && i < sx.len; i++)
      if (GV__VEC_AT(&sx, const gv_node *, i) != GV__VEC_AT(&sy, const gv_node *, i)) same = 0;
    if (!same) {
      s = GV_EMISMATCH;
      if (err) {
        gv__sbuf b = {err->msg, sizeof err->msg, 0, 0};
        err->msg[0] = '\0';
        gv__sbuf_puts(&b, "don't have the same paths: paths in a missing in b: ");
        put_absent(&b, &cx.v, &sy);
        gv__sbuf_puts(&b, "; paths in b missing in a: ");
        put_absent(&b, &cy.v, &sx);
        if (b.truncated) memcpy(err->msg + sizeof err->msg - 4, "...", 4);
        err->status = s;
        err->line = err->column = err->offset = 0;
      }
    }
  }
  gv__vec_free(a, &cx.v);
  gv__vec_free(a, &cy.v);
  gv__vec_free(a, &sx);
  gv__vec_free(a, &sy);
  gv_arena_rollback(a, &m);
  return s;
}
