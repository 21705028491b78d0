/* SPDX-License-Identifier: MIT */
/* print.c -- the repr (literal notation) and JSON printers.
 *
 * Iterative: the printers keep an explicit stack of (node, next child) frames;
 * nothing follows the tree depth on the C stack. The text of leaves and keys
 * and the output sink are repr.c's; the reader is read.c. */
#include "repr.h"

#include <inttypes.h>
#include <stdio.h>

/* ===========================================================================
 * Printers
 * =========================================================================== */

typedef struct pfr {
  const gv_node *n;
  size_t i;
} pfr;

static const gv_node *explicit_meta(const gv_node *n) {
  const gv_node *ct = GV__CONT(n)->meta;
  return ct ? GV__CONT(ct)->kids[2] : NULL;
}

static void put_blob_raw(tout *o, const gv_node *s) {
  if (s && (gv__kind(s) == GV_STR || gv__kind(s) == GV_BYTES))
    o_put(o, GV__BLOB(s)->data, GV__BLOB(s)->len);
}

static void put_type_name(tout *o, const gv_node *n) {
  size_t len = 0;
  const char *s = gv_type_name(n, &len);
  if (s) o_put(o, s, len);
}

static void repr_open(tout *o, const gv_node *n) {
  switch (gv__kind(n)) {
  case GV_LIST:
    o_putc(o, '[');
    break;
  case GV_TUPLE:
    o_putc(o, '(');
    break;
  case GV_DICT:
    o_putc(o, '{');
    break;
  case GV_ODICT:
    o_puts(o, gv__arity(n) ? "OrderedDict({" : "OrderedDict(");
    break;
  case GV_DDICT:
    o_puts(o, "defaultdict(");
    put_blob_raw(o, GV__CONT(n)->aux);
    o_put(o, ", {", 3);
    break;
  case GV_NAMEDTUPLE:
    put_type_name(o, n);
    o_putc(o, '(');
    break;
  case GV_DEQUE:
    o_puts(o, "deque([");
    break;
  case GV_CUSTOM:
    put_type_name(o, n);
    o_put(o, gv_custom_keyed(n) ? "({" : "([", 2);
    break;
  default:
    break;
  }
}

/* Closing text; for custom nodes only the final ')'. */
static void repr_close(tout *o, const gv_node *n) {
  char b[40];
  int k;
  switch (gv__kind(n)) {
  case GV_LIST:
    o_putc(o, ']');
    break;
  case GV_TUPLE:
    if (gv__arity(n) == 1)
      o_put(o, ",)", 2);
    else
      o_putc(o, ')');
    break;
  case GV_DICT:
    o_putc(o, '}');
    break;
  case GV_ODICT:
    o_puts(o, gv__arity(n) ? "})" : ")");
    break;
  case GV_DDICT:
    o_put(o, "})", 2);
    break;
  case GV_NAMEDTUPLE:
    o_putc(o, ')');
    break;
  case GV_DEQUE:
    o_putc(o, ']');
    if (gv_deque_maxlen(n) >= 0) {
      k = snprintf(b, sizeof b, ", maxlen=%" PRId64, gv_deque_maxlen(n));
      o_put(o, b, (size_t)(k > 0 ? k : 0));
    }
    o_putc(o, ')');
    break;
  case GV_CUSTOM:
    o_putc(o, ')');
    break;
  default:
    break;
  }
}

static int keyed_kind(const gv_node *n) {
  return gv__is_dict_kind(gv__kind(n)) || (gv__kind(n) == GV_CUSTOM && gv_custom_keyed(n));
}

/* Path of the child being visited, from the printer's frames. */
static void frames_path(gv__sbuf *b, const void *ctx) {
  const gv__vec *fr = ctx;
  gv__sbuf_put(b, "(", 1);
  for (size_t d = 0; d < fr->len && !b->truncated; d++) {
    const pfr *f = &GV__VEC_AT(fr, pfr, d);
    size_t idx = f->i ? f->i - 1 : 0;
    if (d) gv__sbuf_put(b, ", ", 2);
    if (keyed_kind(f->n) && idx < gv__arity(f->n)) {
      gv__sbuf_repr_key(b, gv_key(f->n, idx));
    } else {
      char t[32];
      int k = snprintf(t, sizeof t, "%zu", idx);
      gv__sbuf_put(b, t, (size_t)(k > 0 ? k : 0));
    }
  }
  if (fr->len == 1) gv__sbuf_put(b, ",", 1);
  gv__sbuf_put(b, ")", 1);
}

static gv_status print_fail_cut(gv_error *err, const gv__vec *fr, gv_status s, const char *what,
                                int cut) {
  return gv__err_at(err, s, fr->len ? frames_path : NULL, fr, what, cut);
}

static gv_status print_fail(gv_error *err, const gv__vec *fr, gv_status s, const char *what) {
  return print_fail_cut(err, fr, s, what, 0);
}

static gv_status write_fail(gv_error *err, gv_status s) {
  return gv__err(err, s, "output callback failed (%s)", gv_status_name(s));
}

static gv_status print_repr(gv__mem mem, const gv_node *root, tout *o, gv_error *err) {
  pfr fbuf[32];
  gv__vec fr;
  gv__vec_init_buf(&fr, sizeof(pfr), fbuf, 32);
  gv_status s = GV_OK;
  const gv_node *v = root;
  for (;;) {
    /* visit v */
    if (v) {
      if (gv__is_leaf(v)) {
        put_scalar(o, v);
      } else if (gv__is_container(v)) {
        pfr f = {v, 0};
        if (gv__mvec_push(mem, &fr, &f) != GV_OK) {
          s = gv__oom_mem(mem, err);
          break;
        }
        repr_open(o, v);
      } else {
        s = print_fail(err, &fr, GV_EINVAL, "cannot print a metadata node");
        break;
      }
      v = NULL;
    }
    if (o->st != GV_OK) break;
    if (fr.len == 0) break;
    pfr *f = &GV__VEC_AT(&fr, pfr, fr.len - 1);
    const gv_node *n = f->n;
    size_t ar = gv__arity(n);
    if (f->i < ar) {
      size_t idx = f->i++;
      if (idx) o_put(o, ", ", 2);
      if (keyed_kind(n)) {
        gv__put_key(o, gv_key(n, idx));
        o_put(o, ": ", 2);
      } else if (gv__kind(n) == GV_NAMEDTUPLE) {
        put_blob_raw(o, gv_field_name(n, idx));
        o_putc(o, '=');
      }
      v = GV__CONT(n)->kids[idx];
      if (!v) {
        s = print_fail(err, &fr, GV_EINVAL, "NULL child");
        break;
      }
      continue;
    }
    if (gv__kind(n) == GV_CUSTOM && f->i == ar) {
      f->i++;
      o_putc(o, gv_custom_keyed(n) ? '}' : ']');
      const gv_node *m = explicit_meta(n);
      if (m) {
        o_put(o, ", meta=", 7);
        v = m;
      }
      continue;
    }
    repr_close(o, n);
    fr.len--;
  }
  gv__mvec_free(mem, &fr);
  if (s == GV_OK) o_flush(o);
  if (s == GV_OK && o->st != GV_OK) s = write_fail(err, o->st);
  return s;
}

static gv_status print_json(gv__mem mem, const gv_node *root, tout *o, gv_error *err) {
  pfr fbuf[32];
  gv__vec fr;
  gv__vec_init_buf(&fr, sizeof(pfr), fbuf, 32);
  gv_status s = GV_OK;
  const gv_node *v = root;
  char b[48];
  for (;;) {
    if (v) {
      switch (gv__kind(v)) {
      case GV_NONE:
      case GV_BOOL:
      case GV_INT:
      case GV_FLOAT:
      case GV_STR:
      case GV_BYTES:
      case GV_HANDLE:
      case GV_STAR: {
        if (gv__put_leaf(o, v, 1)) break;
        char w[128];
        if (gv__kind(v) == GV_FLOAT) {
          gv__fmt_float(b, gv__fval(v));
          snprintf(w, sizeof w, "float %s is not representable in JSON", b);
        } else {
          snprintf(w, sizeof w, "%s is not representable in JSON",
                   gv__kind(v) == GV_BYTES    ? "bytes"
                   : gv__kind(v) == GV_HANDLE ? "a handle"
                                              : "*");
        }
        s = print_fail(err, &fr, GV_EINVAL, w);
        goto done;
      }
      default:
        if (!gv__is_container(v)) {
          s = print_fail(err, &fr, GV_EINVAL, "cannot print a metadata node");
          goto done;
        }
        if (keyed_kind(v)) {
          for (size_t i = 0; i < gv__arity(v); i++) {
            const gv_node *key = gv_key(v, i);
            if (!key || gv__kind(key) != GV_STR) {
              char w[200];
              gv__sbuf kb = {w, sizeof w, 0, 0};
              w[0] = '\0';
              gv__sbuf_puts(&kb, "key ");
              gv__sbuf_repr_key(&kb, key);
              gv__sbuf_puts(&kb, " is not a str: not representable in JSON");
              s = print_fail_cut(err, &fr, GV_EINVAL, w, kb.truncated);
              goto done;
            }
          }
        }
        pfr f = {v, 0};
        if (gv__mvec_push(mem, &fr, &f) != GV_OK) {
          s = gv__oom_mem(mem, err);
          goto done;
        }
        o_putc(o, keyed_kind(v) ? '{' : '[');
        break;
      }
      v = NULL;
    }
    if (o->st != GV_OK) break;
    if (fr.len == 0) break;
    pfr *f = &GV__VEC_AT(&fr, pfr, fr.len - 1);
    const gv_node *n = f->n;
    if (f->i < gv__arity(n)) {
      size_t idx = f->i++;
      if (idx) o_put(o, ", ", 2);
      if (keyed_kind(n)) {
        const gv_node *key = gv_key(n, idx);
        gv__put_jstr(o, GV__BLOB(key)->data, GV__BLOB(key)->len);
        o_put(o, ": ", 2);
      }
      v = GV__CONT(n)->kids[idx];
      if (!v) {
        s = print_fail(err, &fr, GV_EINVAL, "NULL child");
        break;
      }
      continue;
    }
    o_putc(o, keyed_kind(n) ? '}' : ']');
    fr.len--;
  }
done:
  gv__mvec_free(mem, &fr);
  if (s == GV_OK) o_flush(o);
  if (s == GV_OK && o->st != GV_OK) s = write_fail(err, o->st);
  return s;
}

static gv_status print_any(const gv_arena *a, const gv_node *n, bool json, gv_write_fn w, void *ctx,
                           gv_error *err) {
  if (!a) return gv__err(err, GV_EINVAL, "NULL arena");
  if (!n) return gv__err(err, GV_EINVAL, "NULL node");
  if (gv__is_imm(n) && !gv__imm_valid(n)) return gv__err(err, GV_EINVAL, "not a node");
  if (!w) return gv__err(err, GV_EINVAL, "NULL writer");
  if (gv__is_value(n)) { /* metadata nodes are refused below, with their path */
    gv_status s = gv__check_output(a, gv__esize(n), err);
    if (s != GV_OK) return s;
  }
  char buf[TOUT_CAP];
  tout o;
  memset(&o, 0, sizeof o);
  o.buf = buf;
  o.cap = sizeof buf;
  o.w = w;
  o.ctx = ctx;
  size_t failed = 0;
  gv__mem mem = gv__mem_reader(a, &failed);
  return json ? print_json(mem, n, &o, err) : print_repr(mem, n, &o, err);
}

gv_status gv_print(const gv_arena *a, const gv_node *n, gv_write_fn w, void *ctx, gv_error *err) {
  return print_any(a, n, false, w, ctx, err);
}

gv_status gv_print_json(const gv_arena *a, const gv_node *n, gv_write_fn w, void *ctx,
                        gv_error *err) {
  return print_any(a, n, true, w, ctx, err);
}

typedef struct vecw {
  gv_arena *a;
  gv__vec v;
  int failed; /* the text outgrew a's budget or memory */
} vecw;

static gv_status vec_write(void *ctx, const char *data, size_t len) {
  vecw *vw = ctx;
  if (len == 0) return GV_OK;
  if (gv__vec_reserve(vw->a, &vw->v, len) != GV_OK) {
    vw->failed = 1;
    return GV_ENOMEM;
  }
  memcpy((char *)vw->v.p + vw->v.len, data, len);
  vw->v.len += len;
  return GV_OK;
}

gv_status gv_print_str(gv_arena *a, const gv_node *n, bool json, const char **out, size_t *len,
                       gv_error *err) {
  if (!a) return gv__err(err, GV_EINVAL, "NULL arena");
  GV__WRITABLE(a);
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  gv_mark m = gv_arena_mark(a);
  vecw vw;
  vw.a = a;
  vw.failed = 0;
  gv__vec_init(&vw.v, 1);
  gv_status s = print_any(a, n, json, vec_write, &vw, err);
  if (vw.failed) s = gv__oom(a, err);
  char *p = NULL;
  if (s == GV_OK) {
    p = gv__alloc(a, vw.v.len + 1);
    if (!p) {
      s = gv__oom(a, err);
    } else {
      if (vw.v.len) memcpy(p, vw.v.p, vw.v.len);
      p[vw.v.len] = '\0';
    }
  }
  size_t total = vw.v.len;
  gv__vec_free(a, &vw.v);
  if (s != GV_OK) {
    gv__rollback(a, &m);
    return s;
  }
  *out = p;
  if (len) *len = total;
  return GV_OK;
}
