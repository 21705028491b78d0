/* SPDX-License-Identifier: MIT */
/* repr.c -- the text of nodes that messages and printers share: type names,
 * leaves in repr and JSON spelling, keys and paths, and small text buffers.
 * The floor of the library: it reads nodes through internal.h's inline
 * helpers and calls no other file of lib/ (errors.c and every file above it
 * use it for messages; print.c for its output). */
#include "repr.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char hexdig[] = "0123456789abcdef";

/* ===========================================================================
 * Leaves and keys (for gv_print, gv_print_json and gv__sbuf_repr_key)
 * =========================================================================== */

/* Shortest text that round-trips through strtod, laid out like Python's repr.
 * out must hold 40 bytes; returns the length. */
size_t gv__fmt_float(char *out, double v) {
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
void gv__put_jstr(tout *o, const char *s, size_t n) {
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
int gv__put_leaf(tout *o, const gv_node *n, int json) {
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
    o_put(o, b, gv__fmt_float(b, gv__fval(n)));
    break;
  case GV_STR:
    if (json)
      gv__put_jstr(o, GV__BLOB(n)->data, GV__BLOB(n)->len);
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

/* Repr of a key: a leaf or a tuple of keys (at most GV_MAX_KEY_DEPTH deep;
 * deeper tuples print as (...)). Iterative over a small fixed stack. */
void gv__put_key(tout *o, const gv_node *k) {
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

/* ===========================================================================
 * Text buffers (error messages): keys and paths
 * =========================================================================== */

void gv__sbuf_put(gv__sbuf *b, const char *s, size_t n) {
  if (b->cap == 0) {
    if (n) b->truncated = 1;
    return;
  }
  size_t room = b->cap - 1 - b->len;
  if (n > room) {
    n = room;
    b->truncated = 1;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

void gv__sbuf_puts(gv__sbuf *b, const char *s) {
  gv__sbuf_put(b, s, strlen(s));
}

void gv__sbuf_repr_key(gv__sbuf *b, const gv_node *k) {
  tout o;
  memset(&o, 0, sizeof o);
  o.sb = b;
  gv__put_key(&o, k);
}

void gv__sbuf_path(gv__sbuf *b, const gv_node *const *path, size_t depth) {
  gv__sbuf_put(b, "(", 1);
  for (size_t i = 0; i < depth && !b->truncated; i++) {
    if (i) gv__sbuf_put(b, ", ", 2);
    gv__sbuf_repr_key(b, path[i]);
  }
  if (depth == 1) gv__sbuf_put(b, ",", 1);
  gv__sbuf_put(b, ")", 1);
}

/* ===========================================================================
 * Type names
 * =========================================================================== */

const char *gv_type_name(const gv_node *n, size_t *len) {
  static const char *const names[] = {
      "NULL",       "NoneType", "bool",   "int",    "float",  "str",         "bytes",
      "handle",     "star",     "list",   "tuple",  "dict",   "OrderedDict", "defaultdict",
      "namedtuple", "deque",    "custom", "keyset", "schema", "ctype"};
  const char *s;
  if (n && gv__kind(n) == GV_NAMEDTUPLE) {
    s = GV__BLOB(GV__CONT(GV__CONT(n)->meta)->kids[0])->data;
    if (len) *len = GV__BLOB(GV__CONT(GV__CONT(n)->meta)->kids[0])->len;
    return s;
  }
  if (n && gv__kind(n) == GV_CUSTOM) {
    const gv_node *nm = GV__CONT(GV__CONT(n)->meta)->kids[0];
    if (len) *len = GV__BLOB(nm)->len;
    return GV__BLOB(nm)->data;
  }
  s = names[n && gv__kind(n) <= GV_CTYPE ? gv__kind(n) : 0];
  if (len) *len = strlen(s);
  return s;
}
