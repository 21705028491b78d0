/* SPDX-License-Identifier: MIT */
/* mutate_leaf.c -- the mutator's leaves: a leaf changed within its kind (ints and floats at
 * and around their boundaries, strs edited by whole code points, bytes, bools, handles), a
 * leaf turned into another kind, new leaves and keys, and the equal-but-different twin of a
 * key. Every leaf is made by the public constructors. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "mutate.h"

/* ---------------------------------------------------------------------------
 * Numbers
 * ------------------------------------------------------------------------- */

static const int64_t INT_EDGES[] = {
    0,
    1,
    -1,
    2,
    7,
    8,
    15,
    16,
    31,
    32,
    63,
    64,
    127,
    128,
    -128,
    -129,
    255,
    256,
    1000,
    1024,
    4096,
    32767,
    32768,
    -32768,
    65535,
    65536,
    INT32_MAX,
    (int64_t)INT32_MAX + 1,
    INT32_MIN,
    (int64_t)INT32_MIN - 1,
    (int64_t)UINT32_MAX,
    (int64_t)UINT32_MAX + 1,
    (int64_t)1 << 53,
    ((int64_t)1 << 53) + 1,
    -((int64_t)1 << 53) - 1,
    ((int64_t)1 << 55) - 1, /* the largest immediate int */
    (int64_t)1 << 55,
    -((int64_t)1 << 55),
    -((int64_t)1 << 55) - 1,
    INT64_MAX,
    INT64_MAX - 1,
    INT64_MIN,
    INT64_MIN + 1,
    1000000000000000000,
};
#define NELEM(x) (sizeof(x) / sizeof *(x))

static int64_t add_wrap(int64_t v, int64_t d) {
  return (int64_t)((uint64_t)v + (uint64_t)d);
}

static int64_t int_edge(gv__mut *m) {
  return INT_EDGES[gv__rng_idx(&m->rng, NELEM(INT_EDGES))];
}

static int64_t mut_int_value(gv__mut *m, int64_t v) {
  switch (gv__rng_below(&m->rng, 7)) {
  case 0:
  case 1:
    return int_edge(m);
  case 2: /* near a boundary */
    return add_wrap(int_edge(m), (int64_t)gv__rng_below(&m->rng, 5) - 2);
  case 3: /* a little up or down */
    return add_wrap(v, (int64_t)gv__rng_below(&m->rng, 33) - 16);
  case 4:
    return (int64_t)((uint64_t)v ^ ((uint64_t)1 << gv__rng_below(&m->rng, 64)));
  case 5:
    return (int64_t)(0 - (uint64_t)v);
  default: { /* a power of ten, either sign */
    int64_t p = 1;
    for (uint64_t k = gv__rng_below(&m->rng, 19); k > 0; k--)
      p *= 10;
    return gv__rng_one_in(&m->rng, 2) ? -p : p;
  }
  }
}

static double float_edge(gv__mut *m, int finite) {
  static const double E[] = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             0.5,
                             0.1,
                             1.0 / 3.0,
                             DBL_MAX,
                             -DBL_MAX,
                             DBL_MIN,
                             -DBL_MIN,
                             DBL_EPSILON,
                             4.9406564584124654e-324, /* the smallest subnormal */
                             2.2250738585072009e-308, /* the largest subnormal */
                             -4.9406564584124654e-324,
                             9007199254740992.0, /* 2^53 */
                             9007199254740994.0,
                             9223372036854775808.0, /* 2^63 */
                             -9223372036854775808.0,
                             18446744073709551616.0, /* 2^64 */
                             1e16,
                             1e22,
                             1e23,
                             1e308,
                             1e-308,
                             123456.789,
                             INFINITY,
                             -INFINITY,
                             NAN};
  size_t n = NELEM(E) - (finite ? 3 : 0);
  return E[gv__rng_idx(&m->rng, n)];
}

static double mut_float_value(gv__mut *m, double v, int finite) {
  double r;
  switch (gv__rng_below(&m->rng, 8)) {
  case 0:
  case 1:
    return float_edge(m, finite);
  case 2:
    r = nextafter(v, INFINITY);
    break;
  case 3:
    r = nextafter(v, -INFINITY);
    break;
  case 4: { /* a bit of the mantissa or the exponent */
    uint64_t u;
    memcpy(&u, &v, 8);
    u ^= (uint64_t)1 << gv__rng_below(&m->rng, 64);
    memcpy(&r, &u, 8);
    break;
  }
  case 5:
    r = gv__rng_one_in(&m->rng, 2) ? v * 2 : v / 2;
    break;
  case 6:
    r = -v;
    break;
  default:
    r = v + (double)((int64_t)gv__rng_below(&m->rng, 21) - 10);
    break;
  }
  if (finite && !isfinite(r)) r = float_edge(m, 1);
  return r;
}

static uint64_t mut_handle_value(gv__mut *m, uint64_t v) {
  static const uint64_t E[] = {0,
                               1,
                               2,
                               255,
                               65535,
                               ((uint64_t)1 << 56) - 1,
                               (uint64_t)1 << 56,
                               ((uint64_t)1 << 56) + 1,
                               (uint64_t)INT64_MAX,
                               UINT64_MAX};
  switch (gv__rng_below(&m->rng, 3)) {
  case 0:
    return E[gv__rng_idx(&m->rng, NELEM(E))];
  case 1:
    return gv__rng_one_in(&m->rng, 2) ? v + 1 : v - 1;
  default:
    return v ^ ((uint64_t)1 << gv__rng_below(&m->rng, 64));
  }
}

/* ---------------------------------------------------------------------------
 * Strs and bytes: edits of a buffer. A str is edited at code point boundaries
 * and gets whole characters, so it stays valid UTF-8.
 * ------------------------------------------------------------------------- */

static const uint32_t CODE_POINTS[] = {
    'a',    'Z',    '0',    ' ',    '"',    '\'',    '\\',    '/',     '\n',   '\r',   '\t',
    '{',    '}',    '[',    ']',    ':',    ',',     'u',     'e',     '-',    '.',    0x0,
    0x1,    0x1f,   0x7f,   0x80,   0xa0,   0xe9,    0x7ff,   0x800,   0x2028, 0x2029, 0xd7ff,
    0xe000, 0xfeff, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x1f600, 0x10ffff};

static const char *const WHOLE_STRS[] = {"",        "0",        "-0",   "1e400",
                                         "NaN",     "true",     "null", "None",
                                         "\\u0000", "\xc3\xa9", "a\0b", "__proto__"};
static const size_t WHOLE_LENS[] = {0, 1, 2, 5, 3, 4, 4, 4, 6, 2, 3, 9};

static size_t put_cp(char *p, uint32_t c) {
  if (c < 0x80) {
    p[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    p[0] = (char)(0xc0 | (c >> 6));
    p[1] = (char)(0x80 | (c & 0x3f));
    return 2;
  }
  if (c < 0x10000) {
    p[0] = (char)(0xe0 | (c >> 12));
    p[1] = (char)(0x80 | ((c >> 6) & 0x3f));
    p[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  p[0] = (char)(0xf0 | (c >> 18));
  p[1] = (char)(0x80 | ((c >> 12) & 0x3f));
  p[2] = (char)(0x80 | ((c >> 6) & 0x3f));
  p[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}

/* A random boundary in [0, len] (a str: the start of a character, or len). */
static size_t boundary(gv__mut *m, const char *p, size_t len, int str) {
  size_t i = gv__rng_idx(&m->rng, len + 1);
  if (str)
    while (i > 0 && i < len && ((unsigned char)p[i] & 0xc0) == 0x80)
      i--;
  return i;
}
/* The end of the character starting at i (i < len). */
static size_t char_end(const char *p, size_t len, size_t i, int str) {
  i++;
  if (str)
    while (i < len && ((unsigned char)p[i] & 0xc0) == 0x80)
      i++;
  return i;
}

/* New content for a str (a character) or bytes (a byte) into u; its length. */
static size_t new_unit(gv__mut *m, char *u, int str) {
  if (str) return put_cp(u, CODE_POINTS[gv__rng_idx(&m->rng, NELEM(CODE_POINTS))]);
  static const unsigned char B[] = {0x00, 0xff, 0x7f, 0x80, 'A', '"', '\\', 0x01, 0xfe, 0xc0};
  u[0] = gv__rng_one_in(&m->rng, 2) ? (char)B[gv__rng_idx(&m->rng, NELEM(B))]
                                    : (char)(unsigned char)gv__rng_below(&m->rng, 256);
  return 1;
}

/* The edit of data[0..len) into buf (cap bytes); its new length. */
static size_t edit_blob(gv__mut *m, const char *d, size_t len, int str, char *buf) {
  char u[4];
  size_t i, j, k, ul;
  switch (gv__rng_below(&m->rng, str ? 9 : 8)) {
  case 0: /* insert a unit */
  case 1:
    i = boundary(m, d, len, str);
    ul = new_unit(m, u, str);
    memcpy(buf, d, i);
    memcpy(buf + i, u, ul);
    memcpy(buf + i + ul, d + i, len - i);
    return len + ul;
  case 2: /* delete a unit */
    if (!len) return 0;
    i = boundary(m, d, len - 1, str);
    j = char_end(d, len, i, str);
    memcpy(buf, d, i);
    memcpy(buf + i, d + j, len - j);
    return len - (j - i);
  case 3: /* replace a unit */
    if (!len) return 0;
    i = boundary(m, d, len - 1, str);
    j = char_end(d, len, i, str);
    ul = new_unit(m, u, str);
    memcpy(buf, d, i);
    memcpy(buf + i, u, ul);
    memcpy(buf + i + ul, d + j, len - j);
    return len - (j - i) + ul;
  case 4: { /* repeat a run (at most 64 bytes) one to four times */
    if (!len) return 0;
    i = boundary(m, d, len - 1, str);
    j = i;
    size_t want = 1 + gv__rng_idx(&m->rng, 64);
    while (j < len && j - i < want)
      j = char_end(d, len, j, str);
    size_t times = 1 + gv__rng_idx(&m->rng, 4), o = 0;
    memcpy(buf, d, j);
    o = j;
    for (k = 0; k < times; k++, o += j - i)
      memcpy(buf + o, d + i, j - i);
    memcpy(buf + o, d + j, len - j);
    return o + len - j;
  }
  case 5: /* cut */
    i = boundary(m, d, len, str);
    memcpy(buf, d, i);
    return i;
  case 6: /* swap two neighbouring units, or flip a bit of a byte */
    if (!len) return 0;
    if (!str) {
      memcpy(buf, d, len);
      buf[gv__rng_idx(&m->rng, len)] ^= (char)(1u << gv__rng_below(&m->rng, 8));
      return len;
    }
    i = boundary(m, d, len - 1, str);
    j = char_end(d, len, i, str);
    if (j >= len) {
      memcpy(buf, d, len);
      return len;
    }
    k = char_end(d, len, j, str);
    memcpy(buf, d, i);
    memcpy(buf + i, d + j, k - j);
    memcpy(buf + i + (k - j), d + i, j - i);
    memcpy(buf + k, d + k, len - k);
    return len;
  case 7: { /* a whole new value */
    size_t w = gv__rng_idx(&m->rng, NELEM(WHOLE_STRS));
    memcpy(buf, WHOLE_STRS[w], WHOLE_LENS[w]);
    return WHOLE_LENS[w];
  }
  default: /* str: an ASCII character stepped to its neighbour */
    memcpy(buf, d, len);
    for (k = 0; k < 4 && len; k++) {
      i = gv__rng_idx(&m->rng, len);
      unsigned char c = (unsigned char)buf[i];
      if (c < 0x80) {
        buf[i] = (char)((c + (gv__rng_one_in(&m->rng, 2) ? 1u : 127u)) & 0x7f);
        break;
      }
    }
    return len;
  }
}

static gv_status mut_blob(gv__mut *m, const gv_node *leaf, const gv_node **out) {
  int str = gv_kind(leaf) == GV_STR;
  size_t len = 0;
  const char *d = str ? gv_get_str(leaf, &len) : (const char *)gv_get_bytes(leaf, &len);
  if (len > (SIZE_MAX - 16) / 5) return gv__oom(m->a, m->err);
  size_t cap = len + (len < 64 ? len : 64) * 4 + 16;
  char *buf = gv__mut_alloc(m, cap);
  if (!buf) return gv__oom(m->a, m->err);
  size_t n = edit_blob(m, d ? d : "", len, str, buf);
  gv_status s = str ? gv_str(m->a, buf, n, out, m->err) : gv_bytes(m->a, buf, n, out, m->err);
  gv__mut_free(m, buf, cap);
  return s;
}

gv_status gv__mut_leaf(gv__mut *m, const gv_node *leaf, const gv_node **out) {
  int json = (m->o.flags & GV_MUTATE_JSON) != 0;
  switch (gv_kind(leaf)) {
  case GV_INT:
    return gv_int(m->a, mut_int_value(m, gv_get_int(leaf)), out, m->err);
  case GV_FLOAT:
    return gv_float(m->a, mut_float_value(m, gv_get_float(leaf), json), out, m->err);
  case GV_STR:
  case GV_BYTES:
    return mut_blob(m, leaf, out);
  case GV_BOOL:
    return gv_bool(m->a, !gv_get_bool(leaf), out, m->err);
  case GV_HANDLE:
    return gv_handle(m->a, mut_handle_value(m, gv_get_handle(leaf)), out, m->err);
  default:
    return gv__err(m->err, GV_EINVAL, "no mutation within this leaf's kind");
  }
}

/* ---------------------------------------------------------------------------
 * New leaves, other kinds, keys
 * ------------------------------------------------------------------------- */

/* The leaf kinds the mutator may make. */
static size_t made_kinds(const gv__mut *m, unsigned *k) {
  size_t n = 0;
  k[n++] = GV_NONE, k[n++] = GV_BOOL, k[n++] = GV_INT, k[n++] = GV_FLOAT, k[n++] = GV_STR;
  if (m->o.flags & GV_MUTATE_JSON) return n;
  k[n++] = GV_BYTES;
  if (m->o.flags & GV_MUTATE_HOST_LEAVES) return n;
  k[n++] = GV_HANDLE, k[n++] = GV_STAR;
  return n;
}

static gv_status short_str(gv__mut *m, unsigned kind, const gv_node **out) {
  char b[32];
  size_t n;
  if (gv__rng_one_in(&m->rng, 2)) {
    size_t w = gv__rng_idx(&m->rng, NELEM(WHOLE_STRS));
    n = WHOLE_LENS[w];
    memcpy(b, WHOLE_STRS[w], n);
  } else {
    n = (size_t)snprintf(b, sizeof b, "%c%u", "kavx"[gv__rng_below(&m->rng, 4)],
                         (unsigned)gv__rng_below(&m->rng, 100));
  }
  return kind == GV_STR ? gv_str(m->a, b, n, out, m->err) : gv_bytes(m->a, b, n, out, m->err);
}

static gv_status leaf_of_kind(gv__mut *m, unsigned kind, const gv_node **out) {
  int json = (m->o.flags & GV_MUTATE_JSON) != 0;
  switch (kind) {
  case GV_NONE:
    return gv_none(m->a, out, m->err);
  case GV_BOOL:
    return gv_bool(m->a, gv__rng_one_in(&m->rng, 2), out, m->err);
  case GV_INT:
    return gv_int(m->a,
                  gv__rng_one_in(&m->rng, 2) ? int_edge(m) : (int64_t)gv__rng_below(&m->rng, 10),
                  out, m->err);
  case GV_FLOAT:
    return gv_float(m->a, float_edge(m, json), out, m->err);
  case GV_STR:
  case GV_BYTES:
    return short_str(m, kind, out);
  case GV_HANDLE:
    return gv_handle(m->a, mut_handle_value(m, 0), out, m->err);
  default:
    return gv_star(m->a, out, m->err);
  }
}

gv_status gv__mut_fresh_leaf(gv__mut *m, const gv_node **out) {
  unsigned k[8];
  size_t n = made_kinds(m, k);
  return leaf_of_kind(m, k[gv__rng_idx(&m->rng, n)], out);
}

/* leaf's value as text (ints, floats, bools, None, handles), or 0. */
static size_t leaf_text(const gv_node *leaf, char *b, size_t cap) {
  switch (gv_kind(leaf)) {
  case GV_INT:
    return (size_t)snprintf(b, cap, "%lld", (long long)gv_get_int(leaf));
  case GV_FLOAT:
    return (size_t)snprintf(b, cap, "%.17g", gv_get_float(leaf));
  case GV_BOOL:
    return (size_t)snprintf(b, cap, "%s", gv_get_bool(leaf) ? "True" : "False");
  case GV_NONE:
    return (size_t)snprintf(b, cap, "None");
  case GV_HANDLE:
    return (size_t)snprintf(b, cap, "%llu", (unsigned long long)gv_get_handle(leaf));
  default:
    return 0;
  }
}

gv_status gv__mut_leaf_kind(gv__mut *m, const gv_node *leaf, const gv_node **out) {
  unsigned k[8];
  size_t n = made_kinds(m, k);
  unsigned from = gv_kind(leaf), to = from;
  while (to == from)
    to = k[gv__rng_idx(&m->rng, n)];
  size_t len = 0;
  const char *d = NULL;
  if (from == GV_STR) d = gv_get_str(leaf, &len);
  if (from == GV_BYTES) d = gv_get_bytes(leaf, &len);
  char b[64];
  switch (to) {
  case GV_BOOL:
    if (from == GV_INT || from == GV_FLOAT || d)
      return gv_bool(m->a, d ? len > 0 : gv_get_int(leaf) != 0 || gv_get_float(leaf) != 0, out,
                     m->err);
    break;
  case GV_INT:
    if (from == GV_BOOL || from == GV_HANDLE)
      return gv_int(m->a, from == GV_BOOL ? gv_get_int(leaf) : (int64_t)(gv_get_handle(leaf) >> 1),
                    out, m->err);
    if (from == GV_FLOAT) {
      double f = gv_get_float(leaf);
      if (f > -9.2e18 && f < 9.2e18) return gv_int(m->a, (int64_t)f, out, m->err);
    }
    if (d) return gv_int(m->a, (int64_t)len, out, m->err);
    break;
  case GV_FLOAT:
    if (from == GV_INT || from == GV_BOOL)
      return gv_float(m->a, (double)gv_get_int(leaf), out, m->err);
    break;
  case GV_STR:
  case GV_BYTES: {
    if (d && to == GV_BYTES) return gv_bytes(m->a, d, len, out, m->err);
    if (d) { /* bytes to str: its ASCII */
      char *buf = gv__mut_alloc(m, len);
      if (!buf) return gv__oom(m->a, m->err);
      size_t o = 0;
      for (size_t i = 0; i < len; i++)
        if ((unsigned char)d[i] < 0x80) buf[o++] = d[i];
      gv_status s = gv_str(m->a, buf, o, out, m->err);
      gv__mut_free(m, buf, len);
      return s;
    }
    size_t tl = leaf_text(leaf, b, sizeof b);
    if (tl && tl < sizeof b)
      return to == GV_STR ? gv_str(m->a, b, tl, out, m->err) : gv_bytes(m->a, b, tl, out, m->err);
    break;
  }
  case GV_HANDLE:
    if (from == GV_INT || from == GV_BOOL)
      return gv_handle(m->a, (uint64_t)gv_get_int(leaf), out, m->err);
    break;
  default:
    break;
  }
  return leaf_of_kind(m, to, out);
}

gv_status gv__mut_fresh_key(gv__mut *m, const gv_node **out) {
  if ((m->o.flags & GV_MUTATE_JSON) || gv__rng_below(&m->rng, 10) < 6)
    return short_str(m, GV_STR, out);
  switch (gv__rng_below(&m->rng, 6)) {
  case 0:
    return leaf_of_kind(m, GV_INT, out);
  case 1:
    return leaf_of_kind(m, GV_FLOAT, out);
  case 2:
    return gv_none(m->a, out, m->err);
  case 3:
    return leaf_of_kind(m, GV_BOOL, out);
  case 4:
    return short_str(m, GV_BYTES, out);
  default: { /* a tuple of one or two keys */
    const gv_node *k[2];
    size_t n = 1 + gv__rng_idx(&m->rng, 2);
    for (size_t i = 0; i < n; i++) {
      gv_status s =
          gv__rng_one_in(&m->rng, 2) ? leaf_of_kind(m, GV_INT, &k[i]) : short_str(m, GV_STR, &k[i]);
      if (s != GV_OK) return s;
    }
    return gv_tuple(m->a, k, n, out, m->err);
  }
  }
}

/* The twin of a key that is a number or a bool (see gv__mut_key_twin). */
static gv_status scalar_twin(gv__mut *m, const gv_node *key, const gv_node **out) {
  switch (gv_kind(key)) {
  case GV_BOOL:
    return gv__rng_one_in(&m->rng, 2) ? gv_int(m->a, gv_get_int(key), out, m->err)
                                      : gv_float(m->a, (double)gv_get_int(key), out, m->err);
  case GV_INT: {
    int64_t v = gv_get_int(key);
    if ((v == 0 || v == 1) && gv__rng_one_in(&m->rng, 2)) return gv_bool(m->a, v, out, m->err);
    double f = (double)v;
    if (f >= -9.2e18 && f <= 9.2e18 && (int64_t)f == v) return gv_float(m->a, f, out, m->err);
    return GV_OK;
  }
  case GV_FLOAT: {
    double f = gv_get_float(key);
    if (f == 0 && gv__rng_one_in(&m->rng, 3))
      return gv_float(m->a, signbit(f) ? 0.0 : -0.0, out, m->err);
    if ((f == 0 || f == 1) && gv__rng_one_in(&m->rng, 2)) return gv_bool(m->a, f == 1, out, m->err);
    if (f > -9.2e18 && f < 9.2e18 && floor(f) == f) return gv_int(m->a, (int64_t)f, out, m->err);
    return GV_OK;
  }
  default:
    return GV_OK;
  }
}

gv_status gv__mut_key_twin(gv__mut *m, const gv_node *key, const gv_node **out) {
  *out = NULL;
  if (gv_kind(key) != GV_TUPLE) return scalar_twin(m, key, out);
  /* a tuple: its first element that has a twin (tuples within are left alone) */
  size_t n = gv_arity(key);
  for (size_t i = 0; i < n; i++) {
    const gv_node *t = NULL;
    gv_status s = scalar_twin(m, gv_child(key, i), &t);
    if (s != GV_OK) return s;
    if (!t) continue;
    const gv_node **v = gv__mut_alloc(m, n * sizeof *v);
    if (!v) return gv__oom(m->a, m->err);
    for (size_t j = 0; j < n; j++)
      v[j] = j == i ? t : gv_child(key, j);
    s = gv_tuple(m->a, v, n, out, m->err);
    gv__mut_free(m, v, n * sizeof *v);
    return s;
  }
  return GV_OK;
}

gv_status gv__mut_ident(gv__mut *m, const char *prefix, size_t i, const gv_node **out) {
  char b[48];
  int n = snprintf(b, sizeof b, "%s%zu", prefix, i);
  return gv_str(m->a, b, (size_t)n, out, m->err);
}
