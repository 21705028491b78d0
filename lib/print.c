/* SPDX-License-Identifier: MIT */
/* print.c -- the repr (literal notation) and JSON printers.
 *
 * Iterative: the printers keep an explicit stack of (node, next child) frames;
 * nothing follows the tree depth on the C stack. The reader is read.c. */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ===========================================================================
 * Output: a small buffered sink that writes either through a gv_write_fn (in
 * pieces of up to TOUT_CAP bytes) or into a fixed gv__sbuf.
 * =========================================================================== */

#define TOUT_CAP 4096

typedef struct tout {
  char *buf;
  size_t cap, len;
  gv_write_fn w;
  void *ctx;
  gv_status st; /* sticky: the first failing write */
  gv__sbuf *sb; /* when set, text goes here instead */
} tout;

static void o_flush(tout *o) {
  if (o->sb || o->st != GV_OK || o->len == 0) return;
  o->st = o->w(o->ctx, o->buf, o->len);
  o->len = 0;
}

static void o_put(tout *o, const char *s, size_t n) {
  if (o->sb) {
    gv__sbuf_put(o->sb, s, n);
    return;
  }
  if (o->st != GV_OK || n == 0) return;
  if (n > o->cap - o->len) {
    o_flush(o);
    if (o->st != GV_OK) return;
    if (n > o->cap) {
      o->st = o->w(o->ctx, s, n);
      return;
    }
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
}

static void o_puts(tout *o, const char *s) {
  o_put(o, s, strlen(s));
}

static void o_putc(tout *o, char c) {
  if (!o->sb && o->st == GV_OK && o->len < o->cap) {
    o->buf[o->len++] = c;
    return;
  }
  o_put(o, &c, 1);
}

static const char hexdig[] = "0123456789abcdef";

/* ===========================================================================
 * Scalars (shared by gv_print, gv_print_json and gv__sbuf_repr_key)
 * =========================================================================== */

/* Shortest text that round-trips through strtod, laid out like Python's repr.
 * out must hold 40 bytes; returns the length. */
static size_t fmt_float(char *out, double v) {
  if (isnan(v)) {
    memcpy(out, "nan", 4);
    return 3;
  }
  if (isinf(v)) {
    if (v > 0) {
      memcpy(out, "inf", 4);
      return 3;
    }
    memcpy(out, "-inf", 5);
    return 4;
  }
  char tmp[48];
  int p;
  for (p = 1; p <= 17; p++) {
    snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
    if (strtod(tmp, NULL) == v) break;
  }
  if (p > 17) snprintf(tmp, sizeof tmp, "%.16e", v);
  char dig[24];
  size_t nd = 0;
  const char *s = tmp;
  int neg = 0;
  if (*s == '-') {
    neg = 1;
    s++;
  }
  for (; *s && *s != 'e'; s++)
    if (*s >= '0' && *s <= '9' && nd < sizeof dig) dig[nd++] = *s;
  int e = (*s == 'e') ? atoi(s + 1) : 0;
  while (nd > 1 && dig[nd - 1] == '0')
    nd--;
  size_t k = 0;
  if (neg) out[k++] = '-';
  if (e >= -4 && e < 16) {
    if (e >= 0) {
      size_t ip = (size_t)e + 1;
      for (size_t i = 0; i < ip; i++)
        out[k++] = i < nd ? dig[i] : '0';
      out[k++] = '.';
      if (nd > ip) {
        for (size_t i = ip; i < nd; i++)
          out[k++] = dig[i];
      } else {
        out[k++] = '0';
      }
    } else {
      out[k++] = '0';
      out[k++] = '.';
      for (int i = 0; i < -e - 1; i++)
        out[k++] = '0';
      for (size_t i = 0; i < nd; i++)
        out[k++] = dig[i];
    }
  } else {
    out[k++] = dig[0];
    if (nd > 1) {
      out[k++] = '.';
      for (size_t i = 1; i < nd; i++)
        out[k++] = dig[i];
    }
    out[k++] = 'e';
    out[k++] = e < 0 ? '-' : '+';
    int ae = e < 0 ? -e : e;
    int w = snprintf(out + k, 8, "%02d", ae);
    k += (size_t)(w > 0 ? w : 0);
  }
  out[k] = '\0';
  return k;
}

/* Python repr of a str (bytes when is_bytes). */
static void put_pystr(tout *o, const char *s, size_t n, int is_bytes) {
  int has_sq = n && memchr(s, '\'', n) != NULL;
  int has_dq = n && memchr(s, '"', n) != NULL;
  char q = (has_sq && !has_dq) ? '"' : '\'';
  if (is_bytes) o_putc(o, 'b');
  o_putc(o, q);
  size_t run = 0, i = 0;
  while (i < n) {
    unsigned char c = (unsigned char)s[i];
    char esc[4];
    size_t el = 2, skip = 1;
    esc[0] = '\\';
    if (c == '\\' || c == (unsigned char)q) {
      esc[1] = (char)c;
    } else if (c == '\n') {
      esc[1] = 'n';
    } else if (c == '\r') {
      esc[1] = 'r';
    } else if (c == '\t') {
      esc[1] = 't';
    } else if (c < 0x20 || c == 0x7f || (is_bytes && c >= 0x80)) {
      esc[1] = 'x';
      esc[2] = hexdig[c >> 4];
      esc[3] = hexdig[c & 15];
      el = 4;
    } else if (!is_bytes && c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
               (unsigned char)s[i + 1] <= 0x9f) {
      unsigned char d = (unsigned char)s[i + 1]; /* C1 control U+0080..U+009F */
      esc[1] = 'x';
      esc[2] = hexdig[d >> 4];
      esc[3] = hexdig[d & 15];
      el = 4;
      skip = 2;
    } else {
      i++;
      continue;
    }
    o_put(o, s + run, i - run);
    o_put(o, esc, el);
    i += skip;
    run = i;
  }
  o_put(o, s + run, n - run);
  o_putc(o, q);
}

/* JSON string. */
static void put_jstr(tout *o, const char *s, size_t n) {
  o_putc(o, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[6];
    size_t el = 2;
    esc[0] = '\\';
    if (c == '"' || c == '\\') {
      esc[1] = (char)c;
    } else if (c == '\n') {
      esc[1] = 'n';
    } else if (c == '\r') {
      esc[1] = 'r';
    } else if (c == '\t') {
      esc[1] = 't';
    } else if (c == '\b') {
      esc[1] = 'b';
    } else if (c == '\f') {
      esc[1] = 'f';
    } else if (c < 0x20) {
      memcpy(esc + 1, "u00", 3);
      esc[4] = hexdig[c >> 4];
      esc[5] = hexdig[c & 15];
      el = 6;
    } else {
      continue;
    }
    o_put(o, s + run, i - run);
    o_put(o, esc, el);
    run = i + 1;
  }
  o_put(o, s + run, n - run);
  o_putc(o, '"');
}

/* Decimal digits of u at the end of a 20-byte buffer; returns the first. */
static char *fmt_u64(char *end, uint64_t u) {
  char *p = end;
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  return p;
}

/* An int in decimal (what printf's PRId64 gives), written to o. */
static void put_i64(tout *o, int64_t v) {
  char b[24], *end = b + sizeof b;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  char *p = fmt_u64(end, u);
  if (v < 0) *--p = '-';
  o_put(o, p, (size_t)(end - p));
}

/* A leaf in repr spelling, or with json in JSON's. Returns 0, having written
 * nothing, for a leaf that has no JSON form (bytes, handle, *, nan, inf). */
static int put_leaf(tout *o, const gv_node *n, int json) {
  char b[48];
  int k;
  switch (gv__kind(n)) {
  case GV_NONE:
    o_puts(o, json ? "null" : "None");
    break;
  case GV_BOOL:
    if (gv__ival(n))
      o_puts(o, json ? "true" : "True");
    else
      o_puts(o, json ? "false" : "False");
    break;
  case GV_INT:
    put_i64(o, gv__ival(n));
    break;
  case GV_FLOAT:
    if (json && !isfinite(gv__fval(n))) return 0;
    o_put(o, b, fmt_float(b, gv__fval(n)));
    break;
  case GV_STR:
    if (json)
      put_jstr(o, GV__BLOB(n)->data, GV__BLOB(n)->len);
    else
      put_pystr(o, GV__BLOB(n)->data, GV__BLOB(n)->len, 0);
    break;
  case GV_BYTES:
    if (json) return 0;
    put_pystr(o, GV__BLOB(n)->data, GV__BLOB(n)->len, 1);
    break;
  case GV_HANDLE:
    if (json) return 0;
    k = snprintf(b, sizeof b, "&%" PRIu64, gv__sval(n));
    o_put(o, b, (size_t)(k > 0 ? k : 0));
    break;
  case GV_STAR:
    if (json) return 0;
    o_putc(o, '*');
    break;
  default:
    o_puts(o, "<?>");
    break;
  }
  return 1;
}

/* Python repr of a leaf. */
static void put_scalar(tout *o, const gv_node *n) {
  (void)put_leaf(o, n, 0);
}

/* Repr of a key: a leaf or a tuple of keys (at most GV_MAX_KEY_DEPTH deep;
 * deeper tuples print as (...)). Iterative over a small fixed stack. */
static void put_key(tout *o, const gv_node *k) {
  struct {
    const gv_node *t;
    size_t i;
  } st[GV_MAX_KEY_DEPTH + 1];
  size_t d = 0;
  const gv_node *cur = k;
  for (;;) {
    if (o->sb && o->sb->truncated) return; /* an error message is full: stop */
    if (!cur) {
      o_puts(o, "<NULL>");
    } else if (gv__kind(cur) == GV_TUPLE) {
      if (d == GV_MAX_KEY_DEPTH + 1) {
        o_puts(o, "(...)");
      } else {
        o_putc(o, '(');
        st[d].t = cur;
        st[d].i = 0;
        d++;
      }
    } else if (gv__is_leaf(cur)) {
      put_scalar(o, cur);
    } else {
      size_t len;
      const char *tn = gv_type_name(cur, &len);
      o_putc(o, '<');
      if (tn) o_put(o, tn, len);
      o_putc(o, '>');
    }
    for (;;) {
      if (d == 0) return;
      const gv_node *t = st[d - 1].t;
      if (st[d - 1].i < gv__arity(t)) {
        if (st[d - 1].i) o_put(o, ", ", 2);
        cur = GV__CONT(t)->kids[st[d - 1].i++];
        break;
      }
      if (gv__arity(t) == 1)
        o_put(o, ",)", 2);
      else
        o_putc(o, ')');
      d--;
    }
  }
}

void gv__sbuf_repr_key(gv__sbuf *b, const gv_node *k) {
  tout o;
  memset(&o, 0, sizeof o);
  o.sb = b;
  put_key(&o, k);
}

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
  if (s == GV_ENOMEM) return gv__oom(err);
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
          s = gv__oom(err);
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
        put_key(o, gv_key(n, idx));
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
        if (put_leaf(o, v, 1)) break;
        char w[128];
        if (gv__kind(v) == GV_FLOAT) {
          fmt_float(b, gv__fval(v));
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
          s = gv__oom(err);
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
        put_jstr(o, GV__BLOB(key)->data, GV__BLOB(key)->len);
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
  gv__mem mem = gv__mem_reader(a);
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
} vecw;

static gv_status vec_write(void *ctx, const char *data, size_t len) {
  vecw *vw = ctx;
  if (len == 0) return GV_OK;
  if (gv__vec_reserve(vw->a, &vw->v, len) != GV_OK) return GV_ENOMEM;
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
  gv__vec_init(&vw.v, 1);
  gv_status s = print_any(a, n, json, vec_write, &vw, err);
  char *p = NULL;
  if (s == GV_OK) {
    p = gv__alloc(a, vw.v.len + 1);
    if (!p) {
      s = gv__oom(err);
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
