/* SPDX-License-Identifier: MIT */
/* lex.c -- the reader's tokens: positions and error messages, whitespace and
 * comments, identifiers, str/bytes literals, digits, and the fast paths for
 * the common scalars (with the short-str cache). Values, containers and
 * gv_parse are read.c's (the general number literal too, beside p_value). */
#include "read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void line_col(const P *p, size_t off, size_t *line, size_t *col) {
  size_t l = 1, ls = 0;
  for (size_t i = 0; i < off && i < p->len; i++)
    if (p->t[i] == '\n') {
      l++;
      ls = i + 1;
    }
  *line = l;
  *col = off - ls + 1;
}

gv_status gv__read_fail(P *p, size_t off, gv_status s, const char *fmt, ...) {
  if (!p->err) return s;
  char m[sizeof p->err->msg];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  size_t line, col;
  line_col(p, off, &line, &col);
  gv__err(p->err, s, "line %zu, column %zu: %s", line, col, m);
  if (n >= (int)sizeof m) gv__err_cut(p->err);
  p->err->line = line;
  p->err->column = col;
  p->err->offset = off;
  return s;
}

static const char *frame_what(const pframe *f) {
  switch (f->type) {
  case FR_LIST:
    return "list";
  case FR_TUPLE:
    return "tuple";
  case FR_DICT:
    return "dict";
  case FR_ODICT:
    return "OrderedDict(...)";
  case FR_DDICT:
    return "defaultdict(...)";
  case FR_DEQUE:
    return "deque(...)";
  default:
    return "call";
  }
}

/* "expected WHAT" at the current position (end of input and NUL bytes named). */
gv_status gv__read_expect(P *p, const char *what) {
  if (p->pos < p->len && p->t[p->pos] == 0)
    return gv__read_fail(p, p->pos, GV_EPARSE, "NUL byte in input");
  if (p->pos >= p->len && p->frames.len) {
    const pframe *f = &GV__VEC_AT(&p->frames, pframe, p->frames.len - 1);
    size_t l, c;
    line_col(p, f->off, &l, &c);
    return gv__read_fail(
        p, p->pos, GV_EPARSE,
        "expected %s, got end of input (unterminated %s opened at line %zu, column %zu)", what,
        frame_what(f), l, c);
  }
  if (p->pos >= p->len)
    return gv__read_fail(p, p->pos, GV_EPARSE, "expected %s, got end of input", what);
  return gv__read_fail(p, p->pos, GV_EPARSE, "expected %s", what);
}

void gv__read_skip_ws_slow(P *p) {
  const unsigned char *t = p->t;
  size_t i = p->pos, n = p->len;
  while (i < n) {
    unsigned char c = t[i];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f') {
      i++;
    } else if (c == '#') {
      while (i < n && t[i] != '\n' && t[i] != 0)
        i++;
    } else {
      break;
    }
  }
  p->pos = i;
}

static int ident_char(int c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}

/* Scans an identifier at pos (the caller checked ident_start); returns its length. */
size_t gv__read_scan_ident(P *p) {
  size_t i = p->pos;
  while (i < p->len && ident_char(p->t[i]))
    i++;
  size_t n = i - p->pos;
  p->pos = i;
  return n;
}

int gv__read_word_is(const unsigned char *s, size_t n, const char *w) {
  return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  if (c < 0x80) return 1;
  if (c < 0xc2 || c > 0xf4) return 0;
  if (c < 0xe0) return (n >= 2 && (s[1] & 0xc0) == 0x80) ? 2 : 0;
  if (c < 0xf0) {
    if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && s[1] < 0xa0) return 0;
    if (c == 0xed && s[1] > 0x9f) return 0;
    return 3;
  }
  if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80) return 0;
  if (c == 0xf0 && s[1] < 0x90) return 0;
  if (c == 0xf4 && s[1] > 0x8f) return 0;
  return 4;
}

gv_status gv__read_sb_put(P *p, const void *d, size_t n) {
  if (n == 0) return GV_OK;
  if (gv__vec_reserve(p->a, &p->sb, n) != GV_OK) return gv__oom(p->a, p->err);
  memcpy((char *)p->sb.p + p->sb.len, d, n);
  p->sb.len += n;
  return GV_OK;
}

static gv_status sb_cp(P *p, uint32_t cp) {
  unsigned char b[4];
  size_t n;
  if (cp < 0x80) {
    b[0] = (unsigned char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (unsigned char)(0xc0 | (cp >> 6));
    b[1] = (unsigned char)(0x80 | (cp & 0x3f));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = (unsigned char)(0xe0 | (cp >> 12));
    b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    b[2] = (unsigned char)(0x80 | (cp & 0x3f));
    n = 3;
  } else {
    b[0] = (unsigned char)(0xf0 | (cp >> 18));
    b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    b[3] = (unsigned char)(0x80 | (cp & 0x3f));
    n = 4;
  }
  return gv__read_sb_put(p, b, n);
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads nd hex digits at i; -1 if any is missing. */
static long read_hex(const P *p, size_t i, int nd) {
  long v = 0;
  for (int k = 0; k < nd; k++) {
    if (i + (size_t)k >= p->len) return -1;
    int h = hexval(p->t[i + (size_t)k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/* A str or bytes literal; pos is at the opening quote. */
gv_status gv__read_string(P *p, int is_bytes, const gv_node **r) {
  const unsigned char *t = p->t;
  size_t start = p->pos - (is_bytes ? 1 : 0);
  unsigned char q = t[p->pos];
  size_t i = p->pos + 1, run = i, n = p->len;
  int copied = 0;
  gv_status s;
  p->sb.len = 0;
  for (;;) {
    while (i < n) {
      unsigned char c = t[i];
      if (c == q || c == '\\' || c == '\n' || c == 0 || c >= 0x80) break;
      i++;
    }
    if (i >= n || t[i] == '\n')
      return gv__read_fail(p, start, GV_EPARSE, "unterminated %s", is_bytes ? "bytes" : "string");
    unsigned char c = t[i];
    if (c == q) break;
    if (c == 0) return gv__read_fail(p, i, GV_EPARSE, "NUL byte in input");
    if (c >= 0x80) {
      if (is_bytes) return gv__read_fail(p, i, GV_EPARSE, "non-ASCII character in bytes literal");
      size_t k = utf8_seq(t + i, n - i);
      if (!k) return gv__read_fail(p, i, GV_EPARSE, "invalid UTF-8");
      i += k;
      continue;
    }
    /* an escape: flush the run before it */
    if ((s = gv__read_sb_put(p, t + run, i - run)) != GV_OK) return s;
    copied = 1;
    size_t bs = i;
    if (i + 1 >= n)
      return gv__read_fail(p, start, GV_EPARSE, "unterminated %s", is_bytes ? "bytes" : "string");
    unsigned char e = t[i + 1];
    i += 2;
    unsigned char ch = 0;
    int simple = 1;
    switch (e) {
    case 'n':
      ch = '\n';
      break;
    case 't':
      ch = '\t';
      break;
    case 'r':
      ch = '\r';
      break;
    case 'b':
      ch = '\b';
      break;
    case 'f':
      ch = '\f';
      break;
    case 'v':
      ch = '\v';
      break;
    case 'a':
      ch = '\a';
      break;
    case '\\':
    case '\'':
    case '"':
    case '/':
      ch = e;
      break;
    case '\n':
      simple = 2;
      break; /* line continuation */
    default:
      simple = 0;
      break;
    }
    if (simple == 1) {
      if ((s = gv__read_sb_put(p, &ch, 1)) != GV_OK) return s;
    } else if (simple == 0) {
      uint32_t cp;
      if (e >= '0' && e <= '7') {
        cp = (uint32_t)(e - '0');
        for (int k = 0; k < 2 && i < n && t[i] >= '0' && t[i] <= '7'; k++, i++)
          cp = cp * 8 + (uint32_t)(t[i] - '0');
      } else if (e == 'x') {
        long h = read_hex(p, i, 2);
        if (h < 0) return gv__read_fail(p, bs, GV_EPARSE, "bad \\x escape: two hex digits needed");
        cp = (uint32_t)h;
        i += 2;
      } else if ((e == 'u' || e == 'U') && !is_bytes) {
        int nd = e == 'u' ? 4 : 8;
        long h = read_hex(p, i, nd);
        if (h < 0)
          return gv__read_fail(p, bs, GV_EPARSE, "bad \\%c escape: %d hex digits needed", e, nd);
        i += (size_t)nd;
        cp = (uint32_t)h;
        if (cp > 0x10ffff) return gv__read_fail(p, bs, GV_EPARSE, "code point out of range");
        if (cp >= 0xdc00 && cp <= 0xdfff) return gv__read_fail(p, bs, GV_EPARSE, "lone surrogate");
        if (cp >= 0xd800 && cp <= 0xdbff) {
          long lo = -1;
          if (e == 'u' && i + 1 < n && t[i] == '\\' && t[i + 1] == 'u') lo = read_hex(p, i + 2, 4);
          if (lo < 0xdc00 || lo > 0xdfff) return gv__read_fail(p, bs, GV_EPARSE, "lone surrogate");
          cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
          i += 6;
        }
      } else {
        if (e == 0) return gv__read_fail(p, i - 1, GV_EPARSE, "NUL byte in input");
        if (e >= 0x20 && e < 0x7f)
          return gv__read_fail(p, bs, GV_EPARSE, "invalid escape '\\%c'", e);
        return gv__read_fail(p, bs, GV_EPARSE, "invalid escape");
      }
      if (is_bytes) {
        if (cp > 0xff) return gv__read_fail(p, bs, GV_EPARSE, "octal escape out of range in bytes");
        unsigned char by = (unsigned char)cp;
        s = gv__read_sb_put(p, &by, 1);
      } else {
        s = sb_cp(p, cp);
      }
      if (s != GV_OK) return s;
    }
    run = i;
  }
  /* i at the closing quote */
  const char *data;
  size_t dlen;
  if (copied) {
    if ((s = gv__read_sb_put(p, t + run, i - run)) != GV_OK) return s;
    data = p->sb.p ? (const char *)p->sb.p : "";
    dlen = p->sb.len;
  } else {
    data = (const char *)t + run;
    dlen = i - run;
  }
  p->pos = i + 1;
  gv_error sub;
  s = is_bytes ? gv_bytes(p->a, data, dlen, r, &sub) : gv_str(p->a, data, dlen, r, &sub);
  return p_cons(p, s, &sub, start);
}

/* A decimal uint64 at pos (at least one digit); ERANGE on overflow. */
gv_status gv__read_u64(P *p, size_t start, uint64_t limit, uint64_t *v) {
  uint64_t m = 0;
  size_t i = p->pos;
  if (i >= p->len || !is_digit(p->t[i])) return gv__read_expect(p, "a digit");
  for (; i < p->len && is_digit(p->t[i]); i++) {
    uint64_t d = (uint64_t)(p->t[i] - '0');
    if (m > (limit - d) / 10) {
      while (i < p->len && is_digit(p->t[i]))
        i++;
      p->pos = i;
      return gv__read_fail(p, start, GV_ERANGE, "integer out of range");
    }
    m = m * 10 + d;
  }
  p->pos = i;
  *v = m;
  return GV_OK;
}

/* --- fast paths for the common scalars; *ok = 0 (pos kept) sends the value
 * to the general path, which also reports every error --- */

/* The m <= 8 bytes at d as a little-endian word, zero-padded; room: bytes
 * readable from d (at least m). Whole-word loads where the text allows. */
static inline uint64_t kc_word(const unsigned char *d, size_t m, size_t room) {
  uint64_t w = 0;
  if (m == 0) return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (room >= 8) {
    memcpy(&w, d, 8);
    return m == 8 ? w : w & ((UINT64_C(1) << (8 * m)) - 1);
  }
#else
  (void)room;
#endif
  for (size_t i = m; i-- > 0;)
    w = (w << 8) | d[i];
  return w;
}

static const gv_node *kc_find(P *p, const unsigned char *d, size_t n, kc_ent **slot) {
  if (!p->kc_ready) {
    for (size_t i = 0; i < KC_N; i++)
      p->kc[i].len = SIZE_MAX;
    p->kc_ready = 1;
  }
  size_t room = (size_t)(p->t + p->len - d);
  uint64_t w0 = kc_word(d, n < 8 ? n : 8, room);
  uint64_t w1 = n > 8 ? kc_word(d + 8, n - 8, room - 8) : 0;
  uint64_t h = (w0 * UINT64_C(0x9E3779B97F4A7C15)) ^ (w1 * UINT64_C(0xC2B2AE3D27D4EB4F)) ^ n;
  size_t i = (size_t)((h * UINT64_C(0xFF51AFD7ED558CCD)) >> (64 - KC_BITS)), mask = KC_N - 1;
  for (;;) { /* linear probing; entries are never removed */
    kc_ent *e = &p->kc[i];
    if (e->len == n && e->w0 == w0 && e->w1 == w1) return e->node;
    if (e->len == SIZE_MAX) {
      *slot = NULL;
      if (p->kc_used >= KC_N * 3 / 4) return NULL; /* full enough: not cached */
      e->w0 = w0;
      e->w1 = w1;
      *slot = e; /* len and node set by the caller once the node exists */
      return NULL;
    }
    i = (i + 1) & mask;
  }
}

/* Bytes that end the fast scan of a str: NUL, newline, quotes, backslash,
 * non-ASCII. */
static const unsigned char str_stop[256] = {
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* A str without escapes or non-ASCII bytes at pos (a quote). */
static gv_status p_fast_str(P *p, const gv_node **r, int *ok) {
  const unsigned char *t = p->t;
  size_t i = p->pos + 1, n = p->len;
  unsigned char q = t[p->pos];
  *ok = 0;
  for (;;) {
    while (i < n && !str_stop[t[i]])
      i++;
    if (i >= n) return GV_OK; /* unterminated: the general path says so */
    if (t[i] == q) break;
    if (t[i] != '"' && t[i] != '\'') return GV_OK; /* an escape, non-ASCII, ... */
    i++;                                           /* the other quote: part of the str */
  }
  const unsigned char *d = t + p->pos + 1;
  size_t len = i - p->pos - 1;
  kc_ent *e = NULL;
  const gv_node *k = len <= 16 ? kc_find(p, d, len, &e) : NULL;
  if (!k) {
    gv_status s = gv__blob_in(p->a, GV_STR, d, len, &k, p->err);
    if (s != GV_OK) return s;
    if (e) {
      e->len = len;
      e->node = k;
      p->kc_used++;
    }
  }
  *r = k;
  p->pos = i + 1;
  *ok = 1;
  return GV_OK;
}

/* A decimal int of at most 18 digits at pos, not followed by '.', 'e', 'E'
 * or another digit. */
static gv_status p_fast_int(P *p, const gv_node **r, int *ok) {
  const unsigned char *t = p->t;
  size_t i = p->pos, n = p->len;
  int neg = t[i] == '-';
  *ok = 0;
  i += (size_t)neg;
  size_t ds = i;
  uint64_t v = 0;
  unsigned d;
  while (i < n && (d = (unsigned)t[i] - '0') <= 9) { /* wraps past 19 digits: refused below */
    v = v * 10 + d;
    i++;
  }
  size_t nd = i - ds;
  if (nd == 0 || nd > 18 || (nd > 1 && t[ds] == '0')) return GV_OK;
  if (i < n && (t[i] == '.' || t[i] == 'e' || t[i] == 'E')) return GV_OK;
  int64_t x = neg ? -(int64_t)v : (int64_t)v;
  gv_status s = gv_int(p->a, x, r, p->err); /* an immediate unless beyond 2^55 */
  if (s != GV_OK) return s;
  p->pos = i;
  *ok = 1;
  return GV_OK;
}

gv_status gv__read_fast_scalar(P *p, int c, const gv_node **r, int *ok) {
  if (c == '"' || c == '\'') return p_fast_str(p, r, ok);
  if ((c >= '0' && c <= '9') || c == '-') return p_fast_int(p, r, ok);
  *ok = 0;
  return GV_OK;
}
