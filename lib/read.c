/* SPDX-License-Identifier: MIT */
/* read.c -- the literal notation reader (a superset of JSON): values (and the
 * general number literal), containers, calls and gv_parse. Its other tokens
 * and literals are lex.c's.
 *
 * Iterative: an explicit stack of frames (one per open container) plus two
 * value stacks (keys and values); nothing follows the tree depth on the C
 * stack. The printers are print.c. */
#include "read.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

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

static pframe *top(P *p) {
  return &GV__VEC_AT(&p->frames, pframe, p->frames.len - 1);
}

static gv_status push_frame(P *p, uint8_t type, uint8_t st, uint8_t fl, size_t off) {
  if (!(fl & FL_RAW)) {
    if (p->depth >= p->max_depth)
      return gv__read_fail(p, off, GV_EDEPTH, "nesting deeper than max_depth (%zu)", p->max_depth);
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
  if (gv__vec_push(p->a, &p->frames, &f) != GV_OK) return gv__oom(p->a, p->err);
  return GV_OK;
}

static inline gv_status push_node(P *p, gv__vec *v, const gv_node *n) {
  if (v->len == v->cap && gv__vec_reserve(p->a, v, 1) != GV_OK) return gv__oom(p->a, p->err);
  ((const gv_node **)v->p)[v->len++] = n;
  return GV_OK;
}

/* The general number literal (beside its one caller, p_value, which inlines it). */
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
    size_t k = gv__read_scan_ident(p);
    const unsigned char *w = t + i;
    double v;
    if (gv__read_word_is(w, k, "inf") || gv__read_word_is(w, k, "Infinity"))
      v = neg ? -INFINITY : INFINITY;
    else if (gv__read_word_is(w, k, "nan") || gv__read_word_is(w, k, "NaN"))
      v = NAN;
    else
      return gv__read_fail(p, st, GV_EPARSE, "invalid number");
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
    return gv__read_expect(p, "a value");
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (t[j] == '+' || t[j] == '-')) j++;
    if (j >= n || !is_digit(t[j]))
      return gv__read_fail(p, st, GV_EPARSE, "invalid number: bad exponent");
    while (j < n && is_digit(t[j]))
      j++;
    i = j;
    isf = 1;
  }
  if (!isf) {
    if (nint > 1 && t[ds] == '0')
      return gv__read_fail(p, st, GV_EPARSE, "leading zeros in an integer");
    p->pos = ds;
    uint64_t m;
    if ((s = gv__read_u64(p, st, neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX, &m)) !=
        GV_OK)
      return s;
    int64_t v = neg ? (m == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    return p_cons(p, gv_int(p->a, v, r, &sub), &sub, st);
  }
  size_t tl = i - st;
  char buf[128];
  char *b = buf;
  if (tl >= sizeof buf) {
    p->sb.len = 0;
    if ((s = gv__read_sb_put(p, t + st, tl)) != GV_OK) return s;
    if ((s = gv__read_sb_put(p, "", 1)) != GV_OK) return s;
    b = p->sb.p;
  } else {
    memcpy(buf, t + st, tl);
    buf[tl] = '\0';
  }
  double v = strtod(b, NULL);
  p->pos = i;
  return p_cons(p, gv_float(p->a, v, r, &sub), &sub, st);
}

/* The next value: a scalar (*have = 1, *r set) or an opened container frame. */
static gv_status p_value(P *p, const gv_node **r, int *have) {
  skip_ws(p);
  *have = 0;
  if (p->pos >= p->len) return gv__read_expect(p, "a value");
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
    return gv__read_string(p, 0, r);
  case '*':
    p->pos++;
    *have = 1;
    return p_cons(p, gv_star(p->a, r, &sub), &sub, st);
  case '&': {
    p->pos++;
    uint64_t h;
    if ((s = gv__read_u64(p, st, UINT64_MAX, &h)) != GV_OK) return s;
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
    return gv__read_string(p, 1, r);
  }
  if (!ident_start(c)) return gv__read_expect(p, "a value");
  size_t k = gv__read_scan_ident(p);
  const unsigned char *w = t + st;
  if (gv__read_word_is(w, k, "None") || gv__read_word_is(w, k, "null")) {
    *have = 1;
    return p_cons(p, gv_none(p->a, r, &sub), &sub, st);
  }
  if (gv__read_word_is(w, k, "True") || gv__read_word_is(w, k, "true") ||
      gv__read_word_is(w, k, "False") || gv__read_word_is(w, k, "false")) {
    *have = 1;
    return p_cons(p, gv_bool(p->a, w[0] == 'T' || w[0] == 't', r, &sub), &sub, st);
  }
  if (gv__read_word_is(w, k, "inf") || gv__read_word_is(w, k, "Infinity") ||
      gv__read_word_is(w, k, "nan") || gv__read_word_is(w, k, "NaN")) {
    *have = 1;
    return p_cons(p, gv_float(p->a, w[0] == 'n' || w[0] == 'N' ? NAN : INFINITY, r, &sub), &sub,
                  st);
  }
  skip_ws(p);
  if (peek(p) != '(') {
    p->pos = st;
    /* a long name is cut at 64 bytes (back to a character's first byte) and says so */
    size_t shown = k;
    if (k > 64)
      for (shown = 64; shown > 0 && (w[shown] & 0xC0) == 0x80;)
        shown--;
    return gv__read_fail(p, st, GV_EPARSE, "unknown name '%.*s%s'", (int)shown, (const char *)w,
                         shown < k ? "..." : "");
  }
  p->pos++;
  if (gv__read_word_is(w, k, "OrderedDict")) return push_frame(p, FR_ODICT, S_ARG, 0, st);
  if (gv__read_word_is(w, k, "defaultdict")) return push_frame(p, FR_DDICT, S_ARG, 0, st);
  if (gv__read_word_is(w, k, "deque")) return push_frame(p, FR_DEQUE, S_ARG, 0, st);
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
  size_t k = gv__read_scan_ident(p);
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
  size_t k = gv__read_scan_ident(p);
  skip_ws(p);
  if (gv__read_word_is(p->t + st, k, word) && peek(p) == '=') {
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
      if ((s = gv__vec_reserve(p->a, &p->keys, nv)) != GV_OK) return gv__oom(p->a, p->err);
      K = (const gv_node **)p->keys.p + f.kbase;
      for (size_t i = 0; i < nv; i++) {
        const gv_node *pr = V[i];
        if (gv__kind(pr) != GV_TUPLE || gv__arity(pr) != 2)
          return gv__read_fail(
              p, f.off, GV_EPARSE,
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
        if ((s = gv__read_fast_scalar(p, c, &v, &ok)) != GV_OK) return s;
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
      return gv__read_expect(p, exp);
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
        if ((s = gv__read_fast_scalar(p, c, &k, &ok)) != GV_OK) return s;
        if (!ok) return p_value(p, r, have);
        if ((s = push_node(p, &p->keys, k)) != GV_OK) return s;
        skip_ws(p);
        c = peek(p);
      }
      if (f->st == S_COLON) {
        if (c != ':') return gv__read_expect(p, "':'");
        p->pos++;
        f->st = S_AFTER;
        skip_ws(p);
        const gv_node *v;
        if ((s = gv__read_fast_scalar(p, peek(p), &v, &ok)) != GV_OK) return s;
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
      return gv__read_expect(p, "',' or '}'");
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
    if (!ok) return gv__read_expect(p, "field=value, '[', '{' or ')'");
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
      return gv__read_expect(p, "',' or ')'");
    }
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    if ((s = p_field(p, &ok)) != GV_OK) return s;
    if (!ok) return gv__read_expect(p, "field=value or ')'");
    top(p)->st = S_AFTER;
    return p_value(p, r, have);
  default:
    break;
  }
  /* OrderedDict, defaultdict, deque, custom */
  switch (f->st) {
  case S_ARG:
    if (f->type == FR_DDICT) {
      if (!ident_start(c)) return gv__read_expect(p, "a factory name");
      size_t st = p->pos, k = gv__read_scan_ident(p);
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
      return gv__read_expect(p, "'{', '[' or ')'");
    }
    if (c == '[') return open_raw(p, f, S_ARGDONE); /* deque */
    return gv__read_expect(p, "'[' or ')'");
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
    return gv__read_expect(p, "',' or ')'");
  case S_DICTARG:
    if (c == '{') return open_raw(p, f, S_TAIL);
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    return gv__read_expect(p, "'{' or ')'");
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
    return gv__read_expect(p, "',' or ')'");
  case S_KWARG:
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    if (f->type == FR_DEQUE) {
      if (!p_kw(p, "maxlen")) return gv__read_expect(p, "maxlen= or ')'");
      skip_ws(p);
      size_t st = p->pos;
      if (ident_start(peek(p))) {
        size_t k = gv__read_scan_ident(p);
        if (!gv__read_word_is(p->t + st, k, "None")) {
          p->pos = st;
          return gv__read_expect(p, "an integer or None");
        }
        f->maxlen = -1;
      } else {
        uint64_t m;
        if (!is_digit(peek(p))) return gv__read_expect(p, "an integer or None");
        if ((s = gv__read_u64(p, st, (uint64_t)INT64_MAX, &m)) != GV_OK) return s;
        f->maxlen = (int64_t)m;
      }
      f->st = S_TAIL;
      return GV_OK;
    }
    if (!p_kw(p, "meta")) return gv__read_expect(p, "meta= or ')'");
    f->fl |= FL_META;
    f->st = S_TAIL;
    return p_value(p, r, have);
  case S_CLOSE:
    if (c == ')') {
      p->pos++;
      return close_frame(p, r, have);
    }
    return gv__read_expect(p, "')'");
  default:
    return gv__read_expect(p, "a value");
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
          if (p->t[p->pos] == 0) return gv__read_fail(p, p->pos, GV_EPARSE, "NUL byte in input");
          return gv__read_fail(p, p->pos, GV_EPARSE, "unexpected text after the value");
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
