/* SPDX-License-Identifier: MIT */
/* read.c -- the literal notation reader (a superset of JSON).
 *
 * Iterative: an explicit stack of frames (one per open container) plus two
 * value stacks (keys and values); nothing follows the tree depth on the C
 * stack. The printers are print.c. */
#include "internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* ===========================================================================
 * Reader
 * =========================================================================== */

enum { FR_LIST, FR_TUPLE, FR_DICT, FR_CALL, FR_ODICT, FR_DDICT, FR_DEQUE, FR_NT, FR_CUSTOM };

enum {
  S_START,    /* list/tuple/dict just opened or after ',': closer or an item */
  S_AFTER,    /* after an item: ',' or the closer */
  S_COLON,    /* dict: key read, ':' next */
  S_ARG,      /* call: its first argument */
  S_FACT_SEP, /* defaultdict: after the factory: ',' or ')' */
  S_DICTARG,  /* defaultdict: after ',': '{' or ')' */
  S_ARGDONE,  /* deque/custom: after the list or dict: ',' or ')' */
  S_KWARG,    /* deque/custom: after ',': ')' or maxlen= / meta= */
  S_TAIL,     /* after the last argument: ',' or ')' */
  S_CLOSE,    /* ')' only */
  S_FIELD     /* namedtuple: after ',': ')' or field= */
};

#define FL_RAW 1u     /* list/dict left on the stacks for the enclosing call */
#define FL_COMMA 2u   /* tuple: a comma was seen */
#define FL_RAWLIST 4u /* call: its argument was a list */
#define FL_RAWDICT 8u /* call: its argument was a dict */
#define FL_META 16u   /* custom: meta= given (last value on the value stack) */

typedef struct pframe {
  uint8_t type, st, fl;
  size_t off;          /* offset of the opening token */
  size_t kbase, vbase; /* first entries of this frame on the stacks */
  const gv_node *name; /* defaultdict factory, namedtuple/custom type name */
  int64_t maxlen;      /* deque */
} pframe;

/* The str cache: short strs (at most 16 bytes, no escapes) already made in
 * this parse, by their bytes. Dict keys repeat; this spares them the UTF-8
 * check, the hash and the intern probe. */
#define KC_BITS 8
#define KC_N (1u << KC_BITS)
typedef struct kc_ent {
  uint64_t w0, w1; /* the bytes, zero-padded */
  size_t len;      /* SIZE_MAX: empty entry */
  const gv_node *node;
} kc_ent;

typedef struct P {
  gv_arena *a;
  const unsigned char *t;
  size_t len, pos;
  gv_error *err;
  gv__vec frames, keys, vals, sb;
  size_t depth, max_depth;
  size_t kc_used;
  int kc_ready; /* kc is set up on first use (small parses never touch it) */
  kc_ent kc[KC_N];
} P;

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

static gv_status p_fail(P *p, size_t off, gv_status s, const char *fmt, ...) GV_PRINTF(4, 5);
static gv_status p_fail(P *p, size_t off, gv_status s, const char *fmt, ...) {
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
static gv_status p_expect(P *p, const char *what) {
  if (p->pos < p->len && p->t[p->pos] == 0)
    return p_fail(p, p->pos, GV_EPARSE, "NUL byte in input");
  if (p->pos >= p->len && p->frames.len) {
    const pframe *f = &GV__VEC_AT(&p->frames, pframe, p->frames.len - 1);
    size_t l, c;
    line_col(p, f->off, &l, &c);
    return p_fail(p, p->pos, GV_EPARSE,
                  "expected %s, got end of input (unterminated %s opened at line %zu, column %zu)",
                  what, frame_what(f), l, c);
  }
  if (p->pos >= p->len) return p_fail(p, p->pos, GV_EPARSE, "expected %s, got end of input", what);
  return p_fail(p, p->pos, GV_EPARSE, "expected %s", what);
}

/* A constructor's failure, placed at off. */
static gv_status p_cons(P *p, gv_status s, const gv_error *sub, size_t off) {
  if (s == GV_OK) return s;
  if (s == GV_ENOMEM) return gv__oom(p->err);
  return p_fail(p, off, s, "%s", sub->msg);
}

static void skip_ws_slow(P *p) {
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

static inline void skip_ws(P *p) {
  size_t i = p->pos;
  if (i < p->len) { /* nothing to skip, or the one space after ',' or ':' */
    unsigned char c = p->t[i];
    if (c > ' ' && c != '#') return;
    if (c == ' ' && i + 1 < p->len && p->t[i + 1] > ' ' && p->t[i + 1] != '#') {
      p->pos = i + 1;
      return;
    }
  }
  skip_ws_slow(p);
}

static int peek(const P *p) {
  return p->pos < p->len ? p->t[p->pos] : -1;
}

static int ident_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
static int ident_char(int c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}

/* Scans an identifier at pos (the caller checked ident_start); returns its length. */
static size_t scan_ident(P *p) {
  size_t i = p->pos;
  while (i < p->len && ident_char(p->t[i]))
    i++;
  size_t n = i - p->pos;
  p->pos = i;
  return n;
}

static int word_is(const unsigned char *s, size_t n, const char *w) {
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

static gv_status sb_put(P *p, const void *d, size_t n) {
  if (n == 0) return GV_OK;
  if (gv__vec_reserve(p->a, &p->sb, n) != GV_OK) return gv__oom(p->err);
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
  return sb_put(p, b, n);
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
static gv_status p_string(P *p, int is_bytes, const gv_node **r) {
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
      return p_fail(p, start, GV_EPARSE, "unterminated %s", is_bytes ? "bytes" : "string");
    unsigned char c = t[i];
    if (c == q) break;
    if (c == 0) return p_fail(p, i, GV_EPARSE, "NUL byte in input");
    if (c >= 0x80) {
      if (is_bytes) return p_fail(p, i, GV_EPARSE, "non-ASCII character in bytes literal");
      size_t k = utf8_seq(t + i, n - i);
      if (!k) return p_fail(p, i, GV_EPARSE, "invalid UTF-8");
      i += k;
      continue;
    }
    /* an escape: flush the run before it */
    if ((s = sb_put(p, t + run, i - run)) != GV_OK) return s;
    copied = 1;
    size_t bs = i;
    if (i + 1 >= n)
      return p_fail(p, start, GV_EPARSE, "unterminated %s", is_bytes ? "bytes" : "string");
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
      if ((s = sb_put(p, &ch, 1)) != GV_OK) return s;
    } else if (simple == 0) {
      uint32_t cp;
      if (e >= '0' && e <= '7') {
        cp = (uint32_t)(e - '0');
        for (int k = 0; k < 2 && i < n && t[i] >= '0' && t[i] <= '7'; k++, i++)
          cp = cp * 8 + (uint32_t)(t[i] - '0');
      } else if (e == 'x') {
        long h = read_hex(p, i, 2);
        if (h < 0) return p_fail(p, bs, GV_EPARSE, "bad \\x escape: two hex digits needed");
        cp = (uint32_t)h;
        i += 2;
      } else if ((e == 'u' || e == 'U') && !is_bytes) {
        int nd = e == 'u' ? 4 : 8;
        long h = read_hex(p, i, nd);
        if (h < 0) return p_fail(p, bs, GV_EPARSE, "bad \\%c escape: %d hex digits needed", e, nd);
        i += (size_t)nd;
        cp = (uint32_t)h;
        if (cp > 0x10ffff) return p_fail(p, bs, GV_EPARSE, "code point out of range");
        if (cp >= 0xdc00 && cp <= 0xdfff) return p_fail(p, bs, GV_EPARSE, "lone surrogate");
        if (cp >= 0xd800 && cp <= 0xdbff) {
          long lo = -1;
          if (e == 'u' && i + 1 < n && t[i] == '\\' && t[i + 1] == 'u') lo = read_hex(p, i + 2, 4);
          if (lo < 0xdc00 || lo > 0xdfff) return p_fail(p, bs, GV_EPARSE, "lone surrogate");
          cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
          i += 6;
        }
      } else {
        if (e == 0) return p_fail(p, i - 1, GV_EPARSE, "NUL byte in input");
        if (e >= 0x20 && e < 0x7f) return p_fail(p, bs, GV_EPARSE, "invalid escape '\\%c'", e);
        return p_fail(p, bs, GV_EPARSE, "invalid escape");
      }
      if (is_bytes) {
        if (cp > 0xff) return p_fail(p, bs, GV_EPARSE, "octal escape out of range in bytes");
        unsigned char by = (unsigned char)cp;
        s = sb_put(p, &by, 1);
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
    if ((s = sb_put(p, t + run, i - run)) != GV_OK) return s;
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

static int is_digit(int c) {
  return c >= '0' && c <= '9';
}

/* A decimal uint64 at pos (at least one digit); ERANGE on overflow. */
static gv_status p_u64(P *p, size_t start, uint64_t limit, uint64_t *v) {
  uint64_t m = 0;
  size_t i = p->pos;
  if (i >= p->len || !is_digit(p->t[i])) return p_expect(p, "a digit");
  for (; i < p->len && is_digit(p->t[i]); i++) {
    uint64_t d = (uint64_t)(p->t[i] - '0');
    if (m > (limit - d) / 10) {
      while (i < p->len && is_digit(p->t[i]))
        i++;
      p->pos = i;
      return p_fail(p, start, GV_ERANGE, "integer out of range");
    }
    m = m * 10 + d;
  }
  p->pos = i;
  *v = m;
  return GV_OK;
}

static gv_status p_number(P *p, const gv_node **r) {
  const unsigned char *t = p->t;
  size_t n = p->len, st = p->pos, i = st;
  int neg = 0;
  gv_error sub;
  gv_status s;
  if (t[i] == '+' || t[i] == '-') {
    neg = t[i] == '-';
    i++;
  }
  if (i < n && ident_start(t[i])) {
    p->pos = i;
    size_t k = scan_ident(p);
    const unsigned char *w = t + i;
    double v;
    if (word_is(w, k, "inf") || word_is(w, k, "Infinity"))
      v = neg ? -INFINITY : INFINITY;
    else if (word_is(w, k, "nan") || word_is(w, k, "NaN"))
      v = NAN;
    else
      return p_fail(p, st, GV_EPARSE, "invalid number");
    return p_cons(p, gv_float(p->a, v, r, &sub), &sub, st);
  }
  size_t ds = i;
  while (i < n && is_digit(t[i]))
    i++;
  size_t nint = i - ds, nfrac = 0;
  int isf = 0;
  if (i < n && t[i] == '.') {
    isf = 1;
    i++;
    size_t fs = i;
    while (i < n && is_digit(t[i]))
      i++;
    nfrac = i - fs;
  }
  if (nint == 0 && nfrac == 0) {
    p->pos = st;
    return p_expect(p, "a value");
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (t[j] == '+' || t[j] == '-')) j++;
    if (j >= n || !is_digit(t[j])) return p_fail(p, st, GV_EPARSE, "invalid number: bad exponent");
    while (j < n && is_digit(t[j]))
      j++;
    i = j;
    isf = 1;
  }
  if (!isf) {
    if (nint > 1 && t[ds] == '0') return p_fail(p, st, GV_EPARSE, "leading zeros in an integer");
    p->pos = ds;
    uint64_t m;
    if ((s = p_u64(p, st, neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX, &m)) != GV_OK)
      return s;
    int64_t v = neg ? (m == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    return p_cons(p, gv_int(p->a, v, r, &sub), &sub, st);
  }
  size_t tl = i - st;
  char buf[128];
  char *b = buf;
  if (tl >= sizeof buf) {
    p->sb.len = 0;
    if ((s = sb_put(p, t + st, tl)) != GV_OK) return s;
    if ((s = sb_put(p, "", 1)) != GV_OK) return s;
    b = p->sb.p;
  } else {
    memcpy(buf, t + st, tl);
    buf[tl] = '\0';
  }
  double v = strtod(b, NULL);
  p->pos = i;
  return p_cons(p, gv_float(p->a, v, r, &sub), &sub, st);
}

static pframe *top(P *p) {
  return &GV__VEC_AT(&p->frames, pframe, p->frames.len - 1);
}

static gv_status push_frame(P *p, uint8_t type, uint8_t st, uint8_t fl, size_t off) {
  if (!(fl & FL_RAW)) {
    if (p->depth >= p->max_depth)
      return p_fail(p, off, GV_EDEPTH, "nesting deeper than max_depth (%zu)", p->max_depth);
    p->depth++;
  }
  pframe f;
  memset(&f, 0, sizeof f);
  f.type = type;
  f.st = st;
  f.fl = fl;
  f.off = off;
  f.kbase = p->keys.len;
  f.vbase = p->vals.len;
  f.maxlen = -1;
  if (gv__vec_push(p->a, &p->frames, &f) != GV_OK) return gv__oom(p->err);
  return GV_OK;
}

static inline gv_status push_node(P *p, gv__vec *v, const gv_node *n) {
  if (v->len == v->cap && gv__vec_reserve(p->a, v, 1) != GV_OK) return gv__oom(p->err);
  ((const gv_node **)v->p)[v->len++] = n;
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

static gv_status p_fast_scalar(P *p, int c, const gv_node **r, int *ok) {
  if (c == '"' || c == '\'') return p_fast_str(p, r, ok);
  if ((c >= '0' && c <= '9') || c == '-') return p_fast_int(p, r, ok);
  *ok = 0;
  return GV_OK;
}

/* The next value: a scalar (*have = 1, *r set) or an opened container frame. */
static gv_status p_value(P *p, const gv_node **r, int *have) {
  skip_ws(p);
  *have = 0;
  if (p->pos >= p->len) return p_expect(p, "a value");
  const unsigned char *t = p->t;
  size_t st = p->pos;
  int c = t[st];
  gv_error sub;
  gv_status s;
  switch (c) {
  case '[':
    p->pos++;
    return push_frame(p, FR_LIST, S_START, 0, st);
  case '(':
    p->pos++;
    return push_frame(p, FR_TUPLE, S_START, 0, st);
  case '{':
    p->pos++;
    return push_frame(p, FR_DICT, S_START, 0, st);
  case '\'':
  case '"':
    *have = 1;
    return p_string(p, 0, r);
  case '*':
    p->pos++;
    *have = 1;
    return p_cons(p, gv_star(p->a, r, &sub), &sub, st);
  case '&': {
    p->pos++;
    uint64_t h;
    if ((s = p_u64(p, st, UINT64_MAX, &h)) != GV_OK) return s;
    *have = 1;
    return p_cons(p, gv_handle(p->a, h, r, &sub), &sub, st);
  }
  default:
    break;
  }
  if (c == '-' || c == '+' || c == '.' || is_digit(c)) {
    *have = 1;
    return p_number(p, r);
  }
  if (c == 'b' && st + 1 < p->len && (t[st + 1] == '\'' || t[st + 1] == '"')) {
    p->pos++;
    *have = 1;
    return p_string(p, 1, r);
  }
  if (!ident_start(c)) return p_expect(p, "a value");
  size_t k = scan_ident(p);
  const unsigned char *w = t + st;
  if (word_is(w, k, "None") || word_is(w, k, "null")) {
    *have = 1;
    return p_cons(p, gv_none(p->a, r, &sub), &sub, st);
  }
  if (word_is(w, k, "True") || word_is(w, k, "true") || word_is(w, k, "False") ||
      word_is(w, k, "false")) {
    *have = 1;
    return p_cons(p, gv_bool(p->a, w[0] == 'T' || w[0] == 't', r, &sub), &sub, st);
  }
  if (word_is(w, k, "inf") || word_is(w, k, "Infinity") || word_is(w, k, "nan") ||
      word_is(w, k, "NaN")) {
    *have = 1;
    return p_cons(p, gv_float(p->a, w[0] == 'n' || w[0] == 'N' ? NAN : INFINITY, r, &sub), &sub,
                  st);
  }
  skip_ws(p);
  if (peek(p) != '(') {
    p->pos = st;
    return p_fail(p, st, GV_EPARSE, "unknown name '%.*s'", (int)(k > 64 ? 64 : k), (const char *)w);
  }
  p->pos++;
  if (word_is(w, k, "OrderedDict")) return push_frame(p, FR_ODICT, S_ARG, 0, st);
  if (word_is(w, k, "defaultdict")) return push_frame(p, FR_DDICT, S_ARG, 0, st);
  if (word_is(w, k, "deque")) return push_frame(p, FR_DEQUE, S_ARG, 0, st);
  const gv_node *name;
  if ((s = p_cons(p, gv_str(p->a, (const char *)w, k, &name, &sub), &sub, st)) != GV_OK) return s;
  if ((s = push_frame(p, FR_CALL, S_ARG, 0, st)) != GV_OK) return s;
  top(p)->name = name;
  return GV_OK;
}

/* `field =` at pos for a namedtuple: pushes the field name. *ok = 0 (pos kept)
 * if what follows is not an identifier and '='. */
static gv_status p_field(P *p, int *ok) {
  size_t st = p->pos;
  *ok = 0;
  if (!ident_start(peek(p))) return GV_OK;
  size_t k = scan_ident(p);
  skip_ws(p);
  if (peek(p) != '=') {
    p->pos = st;
    return GV_OK;
  }
  p->pos++;
  gv_error sub;
  const gv_node *f;
  gv_status s = p_cons(p, gv_str(p->a, (const char *)p->t + st, k, &f, &sub), &sub, st);
  if (s != GV_OK) return s;
  *ok = 1;
  return push_node(p, &p->keys, f);
}

/* `word =` at pos: 1 (pos after '=') or 0 (pos kept). */
static int p_kw(P *p, const char *word) {
  size_t st = p->pos;
  if (!ident_start(peek(p))) return 0;
  size_t k = scan_ident(p);
  skip_ws(p);
  if (word_is(p->t + st, k, word) && peek(p) == '=') {
    p->pos++;
    return 1;
  }
  p->pos = st;
  return 0;
}

/* Opens the list or dict argument of a call frame (pos at '[' or '{'). */
static gv_status open_raw(P *p, pframe *f, uint8_t next) {
  f->st = next;
  size_t off = p->pos;
  uint8_t type = p->t[p->pos] == '[' ? FR_LIST : FR_DICT;
  p->pos++;
  return push_frame(p, type, S_START, FL_RAW, off);
}

/* Builds the node of the top frame and pops it; *have = 1 with *r unless the
 * frame was a call's raw argument. */
static gv_status close_frame(P *p, const gv_node **r, int *have) {
  pframe f = *top(p);
  gv_error sub;
  gv_status s = GV_OK;
  const gv_node **K = p->keys.p ? (const gv_node **)p->keys.p + f.kbase : NULL;
  const gv_node **V = p->vals.p ? (const gv_node **)p->vals.p + f.vbase : NULL;
  size_t nk = p->keys.len - f.kbase, nv = p->vals.len - f.vbase;
  *have = 0;
  if (f.fl & FL_RAW) {
    p->frames.len--;
    pframe *par = top(p);
    par->fl = (uint8_t)(par->fl | (f.type == FR_LIST ? FL_RAWLIST : FL_RAWDICT));
    return GV_OK;
  }
  switch (f.type) {
  case FR_LIST:
    s = gv__seq(p->a, GV_LIST, V, nv, NULL, r, &sub);
    break;
  case FR_TUPLE:
    if (nv == 1 && !(f.fl & FL_COMMA)) {
      *r = V[0]; /* (x) is x */
    } else {
      s = gv__seq(p->a, GV_TUPLE, V, nv, NULL, r, &sub);
    }
    break;
  case FR_DICT:
    s = gv__dictlike(p->a, GV_DICT, NULL, K, V, nk, r, &sub);
    break;
  case FR_ODICT:
    if ((f.fl & FL_RAWLIST) && nv) {
      if ((s = gv__vec_reserve(p->a, &p->keys, nv)) != GV_OK) return gv__oom(p->err);
      K = (const gv_node **)p->keys.p + f.kbase;
      for (size_t i = 0; i < nv; i++) {
        const gv_node *pr = V[i];
        if (gv__kind(pr) != GV_TUPLE || gv__arity(pr) != 2)
          return p_fail(p, f.off, GV_EPARSE,
                        "OrderedDict([...]) items must be (key, value) pairs; item %zu is not", i);
        K[i] = GV__CONT(pr)->kids[0];
        V[i] = GV__CONT(pr)->kids[1];
      }
      nk = nv;
    }
    s = gv_odict(p->a, K, V, nk, r, &sub);
    break;
  case FR_DDICT:
    s = gv_ddict(p->a, f.name, K, V, nk, r, &sub);
    break;
  case FR_DEQUE:
    s = gv_deque(p->a, V, nv, f.maxlen, r, &sub);
    break;
  case FR_CALL: /* Name() */
  case FR_NT:
    s = gv_namedtuple(p->a, f.name, K, V, nk, r, &sub);
    break;
  case FR_CUSTOM: {
    const gv_node *meta = NULL;
    if (f.fl & FL_META) meta = V[--nv];
    if (f.fl & FL_RAWDICT) {
      static const gv_node *const no_keys[1] = {NULL}; /* keyed, with no keys */
      s = gv_custom(p->a, f.name, nk ? K : no_keys, V, nk, meta, r, &sub);
    } else
      s = gv_custom(p->a, f.name, NULL, V, nv, meta, r, &sub);
    break;
  }
  default:
    break;
  }
  if (s != GV_OK) return p_cons(p, s, &sub, f.off);
  p->keys.len = f.kbase;
  p->vals.len = f.vbase;
  p->frames.len--;
  p->depth--;
  *have = 1;
  return GV_OK;
}

/* One step of the top frame: consumes a separator, opens the next value,
 * closes the frame, or fails. */
static gv_status step(P *p, const gv_node **r, int *have) {
  pframe *f = top(p);
  skip_ws(p);
  int c = peek(p);
  gv_status s;
  int ok;
  *have = 0;
  switch (f->type) {
  case FR_LIST:
  case FR_TUPLE: { /* loops over the scalar items; a container goes to p_value */
    int closer = f->type == FR_LIST ? ']' : ')';
    const char *exp = f->type == FR_LIST ? "',' or ']'" : "',' or ')'";
    for (;;) {
      if (f->st == S_START) {
        if (c == closer) {
          p->pos++;
          return close_frame(p, r, have);
        }
        f->st = S_AFTER;
        const gv_node *v;
        if ((s = p_fast_scalar(p, c, &v, &ok)) != GV_OK) return s;
        if (!ok) return p_value(p, r, have);
        if ((s = push_node(p, &p->vals, v)) != GV_OK) return s;
        skip_ws(p);
        c = peek(p);
      }
      if (c == ',') {
        p->pos++;
        f->fl |= FL_COMMA;
        f->st = S_START;
        skip_ws(p);
        c = peek(p);
        continue;
      }
      if (c == closer) {
        p->pos++;
        return close_frame(p, r, have);
      }
      return p_expect(p, exp);
    }
  }
  case FR_DICT: /* loops over scalar keys and values; the rest goes to p_value */
    for (;;) {
      if (f->st == S_START) {
        if (c == '}') {
          p->pos++;
          return close_frame(p, r, have);
        }
        f->st = S_COLON;
        const gv_node *k;
        if ((s = p_fast_scalar(p, c, &k, &ok)) != GV_OK) return s;
        if (!ok) return p_value(p, r, have);
        if ((s = push_node(p, &p->keys, k)) != GV_OK) return s;
        skip_ws(p);
        c = peek(p);
      }
      if (f->st == S_COLON) {
        if (c != ':') return p_expect(p, "':'");
        p->pos++;
        f->st = S_AFTER;
        skip_ws(p);
        const gv_node *v;
        if ((s = p_fast_scalar(p, peek(p), &v, &ok)) != GV_OK) return s;
        if (!ok) return p_value(p, r, have);
        if ((s = push_node(p, &p->vals, v)) != GV_OK) return s;
        skip_ws(p);
        c = peek(p);
      }
      if (c == ',') {
        p->pos++;
        f->st = S_START;
        skip_ws(p);
        c = peek(p);
        continue;
      }
      if (c == '}') {
        p->pos++;
        return close_frame(p, r, have);
      }
      return p_expect(p, "',' or '}'");
    }
  case FR_CALL: /* first argument decides: namedtuple or custom */
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    if (c == '[' || c == '{') {
      f->type = FR_CUSTOM;
      return open_raw(p, f, S_ARGDONE);
    }
    if ((s = p_field(p, &ok)) != GV_OK) return s;
    if (!ok) return p_expect(p, "field=value, '[', '{' or ')'");
    f = top(p);
    f->type = FR_NT;
    f->st = S_AFTER;
    return p_value(p, r, have);
  case FR_NT:
    if (f->st == S_AFTER) {
      if (c == ',') {
        p->pos++;
        f->st = S_FIELD;
        return GV_OK;
      }
      if (c == ')') {
        p->pos++;
        return close_frame(p, r, have);
      }
      return p_expect(p, "',' or ')'");
    }
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    if ((s = p_field(p, &ok)) != GV_OK) return s;
    if (!ok) return p_expect(p, "field=value or ')'");
    top(p)->st = S_AFTER;
    return p_value(p, r, have);
  default:
    break;
  }
  /* OrderedDict, defaultdict, deque, custom */
  switch (f->st) {
  case S_ARG:
    if (f->type == FR_DDICT) {
      if (!ident_start(c)) return p_expect(p, "a factory name");
      size_t st = p->pos, k = scan_ident(p);
      gv_error sub;
      const gv_node *nm;
      if ((s = p_cons(p, gv_str(p->a, (const char *)p->t + st, k, &nm, &sub), &sub, st)) != GV_OK)
        return s;
      f = top(p);
      f->name = nm;
      f->st = S_FACT_SEP;
      return GV_OK;
    }
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    if (f->type == FR_ODICT) {
      if (c == '{' || c == '[') return open_raw(p, f, S_TAIL);
      return p_expect(p, "'{', '[' or ')'");
    }
    if (c == '[') return open_raw(p, f, S_ARGDONE); /* deque */
    return p_expect(p, "'[' or ')'");
  case S_FACT_SEP:
    if (c == ',') {
      p->pos++;
      f->st = S_DICTARG;
      return GV_OK;
    }
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    return p_expect(p, "',' or ')'");
  case S_DICTARG:
    if (c == '{') return open_raw(p, f, S_TAIL);
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    return p_expect(p, "'{' or ')'");
  case S_ARGDONE:
  case S_TAIL:
    if (c == ',') {
      p->pos++;
      f->st = f->st == S_ARGDONE ? S_KWARG : S_CLOSE;
      return GV_OK;
    }
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    return p_expect(p, "',' or ')'");
  case S_KWARG:
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    if (f->type == FR_DEQUE) {
      if (!p_kw(p, "maxlen")) return p_expect(p, "maxlen= or ')'");
      skip_ws(p);
      size_t st = p->pos;
      if (ident_start(peek(p))) {
        size_t k = scan_ident(p);
        if (!word_is(p->t + st, k, "None")) {
          p->pos = st;
          return p_expect(p, "an integer or None");
        }
        f->maxlen = -1;
      } else {
        uint64_t m;
        if (!is_digit(peek(p))) return p_expect(p, "an integer or None");
        if ((s = p_u64(p, st, (uint64_t)INT64_MAX, &m)) != GV_OK) return s;
        f->maxlen = (int64_t)m;
      }
      f->st = S_TAIL;
      return GV_OK;
    }
    if (!p_kw(p, "meta")) return p_expect(p, "meta= or ')'");
    f->fl |= FL_META;
    f->st = S_TAIL;
    return p_value(p, r, have);
  case S_CLOSE:
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    return p_expect(p, "')'");
  default:
    return p_expect(p, "a value");
  }
}

static gv_status parse_run(P *p, const gv_node **out) {
  const gv_node *r = NULL;
  int have = 0;
  gv_status s = p_value(p, &r, &have);
  while (s == GV_OK) {
    if (have) {
      have = 0;
      if (p->frames.len == 0) {
        skip_ws(p);
        if (p->pos < p->len) {
          if (p->t[p->pos] == 0) return p_fail(p, p->pos, GV_EPARSE, "NUL byte in input");
          return p_fail(p, p->pos, GV_EPARSE, "unexpected text after the value");
        }
        *out = r;
        return GV_OK;
      }
      pframe *f = top(p);
      s = push_node(p, (f->type == FR_DICT && f->st == S_COLON) ? &p->keys : &p->vals, r);
      if (s != GV_OK) break;
    }
    s = step(p, &r, &have);
  }
  return s;
}

gv_status gv_parse(gv_arena *a, const char *text, size_t len, const gv_node **out, gv_error *err) {
  if (!a) return gv__err(err, GV_EINVAL, "NULL arena");
  GV__WRITABLE(a);
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  if (!text && len) return gv__err(err, GV_EINVAL, "NULL text");
  P p;
  memset(&p, 0, offsetof(P, kc)); /* the cache is set up when first used */
  p.a = a;
  p.t = (const unsigned char *)(text ? text : "");
  p.len = len;
  p.err = err;
  p.max_depth = a->max_depth ? a->max_depth : GV_DEFAULT_MAX_DEPTH;
  gv__vec_init(&p.frames, sizeof(pframe));
  gv__vec_init(&p.keys, sizeof(const gv_node *));
  gv__vec_init(&p.vals, sizeof(const gv_node *));
  gv__vec_init(&p.sb, 1);
  gv_mark m = gv_arena_mark(a);
  const gv_node *r = NULL;
  gv_status s = parse_run(&p, &r);
  gv__vec_free(a, &p.sb);
  gv__vec_free(a, &p.vals);
  gv__vec_free(a, &p.keys);
  gv__vec_free(a, &p.frames);
  if (s != GV_OK) {
    gv__rollback(a, &m);
    return s;
  }
  *out = r;
  return GV_OK;
}
