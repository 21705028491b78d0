/* SPDX-License-Identifier: MIT */
/* test_hostile.c -- hostile input: extreme nesting and width, malformed
 * numbers and text, invalid UTF-8, NUL bytes, repeated keys, absurd arity
 * claims in binary input, depth limits. Every case asserts the exact status
 * (and a fragment of the message): it works, or it fails cleanly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

/* Sanitizer builds (tests/CMakeLists.txt defines DEEP) nest 100,000 levels:
 * under ASan the deep tests of 1,000,000 levels took 594 s of the 600 s ctest
 * timeout on a loaded 2-core machine (deep_custom alone 84 s, deep_ddict 96 s).
 * 100,000 levels check the same results; that nothing recurses is deepstack's
 * proof (its 64 KiB stack). */
#ifndef DEEP
#define DEEP 1000000
#endif

/* ---------------------------------------------------------------------------
 * 1,000,000-deep nesting in every container kind
 * ------------------------------------------------------------------------- */

/* How one level of each kind is written (printed form: print(parse(s)) == s). */
typedef struct kind_text {
  const char *name;
  const char *open, *close;
} kind_text;

static const kind_text KINDS[] = {
    {"list", "[", "]"},
    {"tuple", "(", ",)"},
    {"dict", "{0: ", "}"},
    {"odict", "OrderedDict({0: ", "})"},
    {"ddict", "defaultdict(list, {0: ", "})"},
    {"deque", "deque([", "])"},
    {"namedtuple", "P(x=", ")"},
    {"custom", "C([", "])"},
};

static char *deep_text(const kind_text *k, size_t depth, const char *leaf, size_t *len) {
  size_t lo = strlen(k->open), lc = strlen(k->close), ll = strlen(leaf);
  size_t n = depth * (lo + lc) + ll;
  char *s = malloc(n + 1), *w = s;
  cr_assert_not_null(s);
  for (size_t i = 0; i < depth; i++, w += lo)
    memcpy(w, k->open, lo);
  memcpy(w, leaf, ll);
  w += ll;
  for (size_t i = 0; i < depth; i++, w += lc)
    memcpy(w, k->close, lc);
  *w = 0;
  *len = n;
  return s;
}

/* One level of kind ki around child, through the C API. */
static gv_status wrap(gv_arena *a, size_t ki, const gv_node *child, const gv_node **out,
                      gv_error *e) {
  static const gv_node *zero, *p, *x, *c, *lst;
  static gv_arena *cached;
  if (cached != a) {
    cr_assert_eq(gv_int(a, 0, &zero, NULL), GV_OK);
    cr_assert_eq(gv_str(a, "P", 1, &p, NULL), GV_OK);
    cr_assert_eq(gv_str(a, "x", 1, &x, NULL), GV_OK);
    cr_assert_eq(gv_str(a, "C", 1, &c, NULL), GV_OK);
    cr_assert_eq(gv_str(a, "list", 4, &lst, NULL), GV_OK);
    cached = a;
  }
  switch (ki) {
  case 0:
    return gv_list(a, &child, 1, out, e);
  case 1:
    return gv_tuple(a, &child, 1, out, e);
  case 2:
    return gv_dict(a, &zero, &child, 1, out, e);
  case 3:
    return gv_odict(a, &zero, &child, 1, out, e);
  case 4:
    return gv_ddict(a, lst, &zero, &child, 1, out, e);
  case 5:
    return gv_deque(a, &child, 1, -1, out, e);
  case 6:
    return gv_namedtuple(a, p, &x, &child, 1, out, e);
  default:
    return gv_custom(a, c, NULL, &child, 1, NULL, out, e);
  }
}

static void deep_kind(size_t ki) {
  const kind_text *k = &KINDS[ki];
  gv_arena *a = t_arena();
  gv_error e;
  size_t len = 0;
  char *text = deep_text(k, DEEP, "1", &len);

  /* the parser */
  const gv_node *t = NULL;
  cr_assert_eq(gv_parse(a, text, len, &t, &e), GV_OK, "%s: parse: %s", k->name, e.msg);
  cr_assert_eq(gv_depth(t), (size_t)DEEP, "%s: depth %zu", k->name, gv_depth(t));
  cr_assert_eq(gv_num_leaves(t), 1);

  /* flatten */
  const gv_node *leaf = NULL;
  size_t n = 0;
  cr_assert_eq(gv_flatten(t, &leaf, 1, &n, &e), GV_OK, "%s: flatten: %s", k->name, e.msg);
  cr_assert_eq(n, 1);
  cr_assert_eq(gv_kind(leaf), GV_INT);
  cr_assert_eq(gv_get_int(leaf), 1);

  /* print: the very same text */
  const char *out = NULL;
  size_t olen = 0;
  cr_assert_eq(gv_print_str(a, t, false, &out, &olen, &e), GV_OK, "%s: print: %s", k->name, e.msg);
  cr_assert_eq(olen, len, "%s: printed %zu bytes, parsed %zu", k->name, olen, len);
  cr_assert(memcmp(out, text, len) == 0, "%s: printed text differs", k->name);

  /* structure: the same text with * for the leaf, idempotent */
  const gv_node *s = NULL, *s2 = NULL;
  cr_assert_eq(gv_structure(a, t, &s, &e), GV_OK, "%s: structure: %s", k->name, e.msg);
  cr_assert_eq(gv_depth(s), (size_t)DEEP);
  cr_assert(gv_flags(s) & GV_F_STRUCTURE);
  cr_assert_eq(gv_structure(a, s, &s2, &e), GV_OK);
  cr_assert_eq(s2, s);
  char *stext = deep_text(k, DEEP, "*", &len);
  const gv_node *sp = NULL;
  cr_assert_eq(gv_parse(a, stext, len, &sp, &e), GV_OK, "%s: %s", k->name, e.msg);
  cr_assert_eq(sp, s, "%s: structure differs from the parsed skeleton", k->name);
  free(stext);

  /* order: every dict has one key, so nothing changes */
  const gv_node *o = NULL;
  bool ch = true;
  cr_assert_eq(gv_order(a, t, &o, &ch, &e), GV_OK, "%s: order: %s", k->name, e.msg);
  cr_assert_eq(o, t);
  cr_assert_eq(ch, false);

  /* the C API builds the very same node */
  const gv_node *c = NULL, *one = NULL;
  cr_assert_eq(gv_int(a, 1, &one, NULL), GV_OK);
  c = one;
  for (size_t i = 0; i < DEEP; i++)
    cr_assert_eq(wrap(a, ki, c, &c, &e), GV_OK, "%s: level %zu: %s", k->name, i, e.msg);
  cr_assert_eq(c, t, "%s: the C API and the parser disagree", k->name);

  free(text);
  gv_arena_free(a);
}

Test(hostile, deep_list) {
  deep_kind(0);
}
Test(hostile, deep_tuple) {
  deep_kind(1);
}
Test(hostile, deep_dict) {
  deep_kind(2);
}
Test(hostile, deep_odict) {
  deep_kind(3);
}
Test(hostile, deep_ddict) {
  deep_kind(4);
}
Test(hostile, deep_deque) {
  deep_kind(5);
}
Test(hostile, deep_namedtuple) {
  deep_kind(6);
}
Test(hostile, deep_custom) {
  deep_kind(7);
}

/* A deep tree in the C API only (no text), then every walker on it. */
Test(hostile, deep_mixed_walkers) {
  gv_arena *a = t_arena();
  gv_error e;
  const gv_node *t = NULL;
  cr_assert_eq(gv_int(a, 5, &t, NULL), GV_OK);
  for (size_t i = 0; i < DEEP; i++)
    cr_assert_eq(wrap(a, i % 8, t, &t, &e), GV_OK, "%s", e.msg);
  const gv_node *r = NULL;
  cr_assert_eq(gv_flatten_with_path(a, t, &r, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_arity(r), 1);
  cr_assert_eq(gv_arity(gv_child(gv_child(r, 0), 0)), (size_t)DEEP);
  cr_assert_eq(gv_lists_to_tuples(a, t, &r, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_flags(r) & GV_F_HAS_LIST, 0u);
  cr_assert_eq(gv_same_structure(a, t, t, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_same_structure(a, t, r, &e), GV_EMISMATCH);
  cr_assert(strstr(e.msg, "expected") != NULL, "%s", e.msg);
  cr_assert_eq(gv_same_paths(a, t, r, &e), GV_OK, "%s", e.msg);
  uint8_t f1[16], f2[16];
  cr_assert_eq(gv_fingerprint(a, t, f1, &e), GV_OK, "%s", e.msg);
  gv_arena *b = t_arena();
  const char *txt = NULL;
  size_t len = 0;
  cr_assert_eq(gv_print_str(a, t, false, &txt, &len, &e), GV_OK, "%s", e.msg);
  const gv_node *t2 = NULL;
  cr_assert_eq(gv_parse(b, txt, len, &t2, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_fingerprint(b, t2, f2, &e), GV_OK, "%s", e.msg);
  cr_assert(memcmp(f1, f2, 16) == 0);
  gv_arena_free(b);
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * max_depth
 * ------------------------------------------------------------------------- */
static gv_arena *depth_arena(size_t max_depth) {
  gv_arena_config cfg = {0, max_depth, NULL, 0, 0, NULL};
  gv_arena *a = NULL;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  return a;
}

Test(hostile, max_depth_parser_every_kind) {
  for (size_t ki = 0; ki < 8; ki++) {
    gv_arena *a = depth_arena(1000);
    gv_error e;
    size_t len;
    char *ok = deep_text(&KINDS[ki], 1000, "1", &len);
    const gv_node *t = NULL;
    cr_assert_eq(gv_parse(a, ok, len, &t, &e), GV_OK, "%s: %s", KINDS[ki].name, e.msg);
    cr_assert_eq(gv_depth(t), 1000);
    free(ok);
    char *bad = deep_text(&KINDS[ki], 1001, "1", &len);
    t_snapshot before = t_snap(a);
    cr_assert_eq(gv_parse(a, bad, len, &t, &e), GV_EDEPTH, "%s", KINDS[ki].name);
    cr_assert(strstr(e.msg, "max_depth (1000)") != NULL, "%s: %s", KINDS[ki].name, e.msg);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after));
    free(bad);
    /* far deeper than the limit: the same error, found early */
    bad = deep_text(&KINDS[ki], DEEP, "1", &len);
    cr_assert_eq(gv_parse(a, bad, len, &t, &e), GV_EDEPTH, "%s", KINDS[ki].name);
    free(bad);
    gv_arena_free(a);
  }
}

Test(hostile, max_depth_c_api_every_kind) {
  for (size_t ki = 0; ki < 8; ki++) {
    gv_arena *a = depth_arena(50);
    gv_error e;
    const gv_node *t = NULL;
    cr_assert_eq(gv_none(a, &t, NULL), GV_OK);
    for (size_t i = 0; i < 50; i++)
      cr_assert_eq(wrap(a, ki, t, &t, &e), GV_OK, "%s", e.msg);
    cr_assert_eq(gv_depth(t), 50);
    const gv_node *u = NULL;
    t_snapshot before = t_snap(a);
    cr_assert_eq(wrap(a, ki, t, &u, &e), GV_EDEPTH, "%s", KINDS[ki].name);
    cr_assert(strstr(e.msg, "max_depth (50)") != NULL, "%s", e.msg);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after));
    gv_arena_free(a);
  }
}

Test(hostile, max_depth_decode) {
  gv_arena *a = t_arena(), *b = depth_arena(10);
  gv_error e;
  const gv_node *t = t_parse(a, "[[[[[[[[[[[1]]]]]]]]]]]"), *u = NULL; /* depth 11 */
  static t_fixed m;
  m.len = 0;
  cr_assert_eq(gv_encode(a, t, t_fixed_sink, &m, &e), GV_OK, "%s", e.msg);
  t_snapshot before = t_snap(b);
  cr_assert_eq(gv_decode(b, m.p, m.len, &u, &e), GV_EDEPTH, "%s", e.msg);
  cr_assert(strstr(e.msg, "max_depth") != NULL, "%s", e.msg);
  t_snapshot after = t_snap(b);
  cr_assert(t_snap_eq(&before, &after));
  /* one level less decodes */
  m.len = 0;
  cr_assert_eq(gv_encode(a, gv_child(t, 0), t_fixed_sink, &m, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_decode(b, m.p, m.len, &u, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_depth(u), 10);
  gv_arena_free(a);
  gv_arena_free(b);
}

/* ---------------------------------------------------------------------------
 * Width
 * ------------------------------------------------------------------------- */
#define WIDE 1000000

Test(hostile, dict_with_a_million_keys) {
  gv_arena *a = t_arena();
  gv_error e;
  char *text = malloc((size_t)WIDE * 20 + 16), *w = text;
  cr_assert_not_null(text);
  *w++ = '{';
  for (long i = WIDE - 1; i >= 0; i--)
    w += sprintf(w, "%ld: %ld, ", i, WIDE - 1 - i);
  *w++ = '}';
  *w = 0;
  const gv_node *t = NULL;
  cr_assert_eq(gv_parse(a, text, (size_t)(w - text), &t, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_arity(t), (size_t)WIDE);
  cr_assert_eq(gv_num_leaves(t), (uint64_t)WIDE);
  /* flatten goes by sorted key: key i holds WIDE-1-i */
  const gv_node **lv = malloc(sizeof *lv * WIDE);
  size_t n = 0;
  cr_assert_eq(gv_flatten(t, lv, WIDE, &n, &e), GV_OK);
  cr_assert_eq(n, (size_t)WIDE);
  for (size_t i = 0; i < n; i++)
    cr_assert_eq(gv_get_int(lv[i]), (int64_t)(WIDE - 1 - i), "leaf %zu", i);
  /* order sorts it, once; idempotent */
  const gv_node *o = NULL, *o2 = NULL;
  bool ch = false;
  cr_assert_eq(gv_order(a, t, &o, &ch, &e), GV_OK, "%s", e.msg);
  cr_assert(ch);
  cr_assert_eq(gv_get_int(gv_key(o, 0)), 0);
  cr_assert_eq(gv_order(a, o, &o2, &ch, &e), GV_OK);
  cr_assert_eq(o2, o);
  cr_assert_eq(ch, false);
  /* the C API gives the same node */
  const gv_node **keys = malloc(sizeof *keys * WIDE);
  for (size_t i = 0; i < WIDE; i++)
    cr_assert_eq(gv_int(a, (int64_t)(WIDE - 1 - i), &keys[i], NULL), GV_OK);
  const gv_node *c = NULL;
  /* values in insertion order: key WIDE-1-i holds i, i.e. the reverse of lv */
  const gv_node **vals = malloc(sizeof *vals * WIDE);
  for (size_t i = 0; i < WIDE; i++)
    vals[i] = lv[WIDE - 1 - i];
  cr_assert_eq(gv_dict(a, keys, vals, WIDE, &c, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(c, t);
  /* a repeated key at the very end */
  keys[WIDE - 1] = keys[0];
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_dict(a, keys, vals, WIDE, &c, &e), GV_EKEY);
  cr_assert(strstr(e.msg, "999999") != NULL, "%s", e.msg);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  /* and in text */
  sprintf(w - 1, "%d: 0}", WIDE - 1);
  cr_assert_eq(gv_parse(a, text, strlen(text), &c, &e), GV_EKEY);
  cr_assert(strstr(e.msg, "repeated key 999999") != NULL, "%s", e.msg);
  /* print, then parse gives it back */
  const char *out = NULL;
  size_t olen = 0;
  cr_assert_eq(gv_print_str(a, t, false, &out, &olen, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_parse(a, out, olen, &c, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(c, t);
  free(keys);
  free(vals);
  free(lv);
  free(text);
  gv_arena_free(a);
}

Test(hostile, arity_claims_in_the_c_api) {
  gv_arena *a = t_arena();
  gv_error e;
  const gv_node *kid = t_parse(a, "1"), *out = NULL;
  const gv_node *kids[1] = {kid};
  size_t huge = (size_t)UINT32_MAX + 1;
  cr_assert_eq(gv_list(a, kids, huge, &out, &e), GV_ERANGE);
  cr_assert(strstr(e.msg, "too many children") != NULL, "%s", e.msg);
  cr_assert_eq(gv_tuple(a, kids, huge, &out, &e), GV_ERANGE);
  cr_assert_eq(gv_deque(a, kids, huge, -1, &out, &e), GV_ERANGE);
  cr_assert_eq(gv_dict(a, kids, kids, huge, &out, &e), GV_ERANGE);
  cr_assert(strstr(e.msg, "too many") != NULL, "%s", e.msg);
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * Numbers
 * ------------------------------------------------------------------------- */
typedef struct pcase {
  const char *text;
  gv_status status;
  const char *frag; /* message fragment, or the repr on success */
} pcase;

static void run_cases(const pcase *cs, size_t n) {
  gv_arena *a = t_arena();
  for (size_t i = 0; i < n; i++) {
    const gv_node *t = NULL;
    gv_error e;
    memset(&e, 0, sizeof e);
    t_snapshot before = t_snap(a);
    gv_status s = gv_parse(a, cs[i].text, strlen(cs[i].text), &t, &e);
    cr_assert_eq(s, cs[i].status, "%s: %s (%s), wanted %s", cs[i].text, gv_status_name(s), e.msg,
                 gv_status_name(cs[i].status));
    if (s == GV_OK) {
      cr_assert_str_eq(t_repr(a, t), cs[i].frag, "%s", cs[i].text);
    } else {
      cr_assert(strstr(e.msg, cs[i].frag) != NULL, "%s: message '%s' lacks '%s'", cs[i].text, e.msg,
                cs[i].frag);
      cr_assert_eq(e.status, s);
      cr_assert_geq(e.line, 1, "%s: no line", cs[i].text);
      cr_assert_geq(e.column, 1, "%s: no column", cs[i].text);
      t_snapshot after = t_snap(a);
      cr_assert(t_snap_eq(&before, &after), "%s: failed parse changed the arena", cs[i].text);
    }
  }
  gv_arena_free(a);
}

Test(hostile, numbers) {
  static const pcase cs[] = {
      {"1e999999", GV_OK, "inf"},
      {"-1e999999", GV_OK, "-inf"},
      {"1e-999999", GV_OK, "0.0"},
      {"99999999999999999999", GV_ERANGE, "integer out of range"},
      {"9223372036854775808", GV_ERANGE, "integer out of range"},
      {"-9223372036854775809", GV_ERANGE, "integer out of range"},
      {"9223372036854775807", GV_OK, "9223372036854775807"},
      {"-9223372036854775808", GV_OK, "-9223372036854775808"},
      {"[99999999999999999999999999999999999999999]", GV_ERANGE, "integer out of range"},
      {"-", GV_EPARSE, "expected a value"},
      {"--1", GV_EPARSE, "expected a value"},
      {"1e", GV_EPARSE, "bad exponent"},
      {"1e+", GV_EPARSE, "bad exponent"},
      {"0x10", GV_EPARSE, "unexpected text after the value"},
      {"1_000", GV_EPARSE, "unexpected text after the value"},
      {"01", GV_EPARSE, "leading zeros"},
      {"[1 2]", GV_EPARSE, "expected ',' or ']'"},
      {"&18446744073709551616", GV_ERANGE, "out of range"},
      {"&18446744073709551615", GV_OK, "&18446744073709551615"},
      {"&-1", GV_EPARSE, "expected a digit"},
  };
  run_cases(cs, sizeof cs / sizeof cs[0]);
}

/* ---------------------------------------------------------------------------
 * Text: UTF-8, surrogates, unterminated everything, NUL bytes, repeated keys
 * ------------------------------------------------------------------------- */
Test(hostile, invalid_utf8_and_surrogates_in_text) {
  static const pcase cs[] = {
      {"'\xff'", GV_EPARSE, "invalid UTF-8"},
      {"'\xc0\x80'", GV_EPARSE, "invalid UTF-8"},         /* overlong NUL */
      {"'\xed\xa0\x80'", GV_EPARSE, "invalid UTF-8"},     /* a surrogate, encoded */
      {"'\xe2\x82'", GV_EPARSE, "invalid UTF-8"},         /* truncated */
      {"'\xf4\x90\x80\x80'", GV_EPARSE, "invalid UTF-8"}, /* above U+10FFFF */
      {"'\\ud800'", GV_EPARSE, "lone surrogate"},
      {"'\\udc00'", GV_EPARSE, "lone surrogate"},
      {"'\\ud800x'", GV_EPARSE, "lone surrogate"},
      {"'\\U00110000'", GV_EPARSE, "code point out of range"},
      {"'\\x4'", GV_EPARSE, "two hex digits"},
      {"'\\u12'", GV_EPARSE, "hex digits needed"},
      {"'\\q'", GV_EPARSE, "invalid escape"},
      {"b'\xc3\xa9'", GV_EPARSE, "non-ASCII character in bytes literal"},
      {"'\\ud83d\\ude00'", GV_OK, "'\xf0\x9f\x98\x80'"}, /* a JSON-style pair */
      {"'\xf0\x9f\x98\x80'", GV_OK, "'\xf0\x9f\x98\x80'"},
  };
  run_cases(cs, sizeof cs / sizeof cs[0]);
}

Test(hostile, invalid_utf8_in_the_c_api) {
  gv_arena *a = t_arena();
  gv_error e;
  const gv_node *s = NULL;
  static const char *bad[] = {"\xff",       "\xc0\x80",         "\xed\xa0\x80",
                              "ab\xe2\x82", "\xf4\x90\x80\x80", "\x80"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    t_snapshot before = t_snap(a);
    cr_assert_eq(gv_str(a, bad[i], strlen(bad[i]), &s, &e), GV_EINVAL, "case %zu", i);
    cr_assert(strstr(e.msg, "invalid UTF-8") != NULL, "%s", e.msg);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after));
  }
  /* a NUL inside a str is data, not an end */
  cr_assert_eq(gv_str(a, "a\0b", 3, &s, &e), GV_OK);
  size_t len = 0;
  cr_assert_eq(memcmp(gv_get_str(s, &len), "a\0b", 4), 0);
  cr_assert_eq(len, 3);
  cr_assert_str_eq(t_repr(a, s), "'a\\x00b'");
  gv_arena_free(a);
}

Test(hostile, unterminated_everything) {
  static const pcase cs[] = {
      {"'abc", GV_EPARSE, "unterminated string"},
      {"\"abc", GV_EPARSE, "unterminated string"},
      {"'", GV_EPARSE, "unterminated string"},
      {"'abc\\", GV_EPARSE, "unterminated string"},
      {"b'", GV_EPARSE, "unterminated bytes"},
      {"b'abc", GV_EPARSE, "unterminated bytes"},
      {"[", GV_EPARSE, "unterminated list"},
      {"[1, [2,", GV_EPARSE, "unterminated list"},
      {"{", GV_EPARSE, "unterminated dict"},
      {"{1:", GV_EPARSE, "unterminated dict"},
      {"(", GV_EPARSE, "unterminated tuple"},
      {"OrderedDict(", GV_EPARSE, "unterminated OrderedDict"},
      {"OrderedDict({1: 2}", GV_EPARSE, "unterminated OrderedDict"},
      {"defaultdict(", GV_EPARSE, "unterminated defaultdict"},
      {"deque(", GV_EPARSE, "unterminated deque"},
      {"deque([1], maxlen=", GV_EPARSE, "end of input"},
      {"P(x=", GV_EPARSE, "unterminated"},
      {"C([", GV_EPARSE, "unterminated"},
      {"", GV_EPARSE, "expected a value, got end of input"},
      {"   # only a comment", GV_EPARSE, "end of input"},
  };
  run_cases(cs, sizeof cs / sizeof cs[0]);
}

Test(hostile, nul_bytes_inside_input) {
  gv_arena *a = t_arena();
  gv_error e;
  const gv_node *t = NULL;
  static const struct {
    const char *p;
    size_t n;
  } cs[] = {{"[1,\0 2]", 7}, {"'a\0b'", 5}, {"b'a\0b'", 6}, {"\0", 1}, {"1\0", 2}, {"{\0}", 3}};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    t_snapshot before = t_snap(a);
    cr_assert_eq(gv_parse(a, cs[i].p, cs[i].n, &t, &e), GV_EPARSE, "case %zu", i);
    cr_assert(strstr(e.msg, "NUL byte in input") != NULL, "case %zu: %s", i, e.msg);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after));
  }
  /* as an escape it is fine */
  cr_assert_eq(gv_parse(a, "'a\\x00b'", 8, &t, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_arity(t), 0);
  size_t len = 0;
  gv_get_str(t, &len);
  cr_assert_eq(len, 3);
  gv_arena_free(a);
}

Test(hostile, repeated_keys) {
  static const pcase cs[] = {
      {"{1: 2, 1: 3}", GV_EKEY, "repeated key 1"},
      {"{1: 2, 1.0: 3}", GV_EKEY, "repeated key 1.0"},
      {"{1: 2, True: 3}", GV_EKEY, "repeated key True"},
      {"{0: 2, False: 3}", GV_EKEY, "repeated key False"},
      {"{'a': 1, 'b': 2, 'a': 3}", GV_EKEY, "repeated key 'a'"},
      {"{(1, 'x'): 1, (1.0, 'x'): 2}", GV_EKEY, "repeated key"},
      {"{nan: 1, nan: 2}", GV_EKEY, "repeated key nan"},
      {"OrderedDict({1: 2, 1: 3})", GV_EKEY, "repeated key 1"},
      {"OrderedDict([(1, 2), (1, 3)])", GV_EKEY, "repeated key 1"},
      {"defaultdict(list, {'k': 1, 'k': 2})", GV_EKEY, "repeated key 'k'"},
      {"C({'a': 1, 'a': 2})", GV_EKEY, "repeated key 'a'"},
      {"P(x=1, x=2)", GV_EKEY, "repeated namedtuple field name 'x'"},
      {"[{'ok': 1}, {'z': 1, 'z': 2}]", GV_EKEY, "repeated key 'z'"},
  };
  run_cases(cs, sizeof cs / sizeof cs[0]);
}

Test(hostile, repeated_keys_in_the_c_api) {
  gv_arena *a = t_arena();
  gv_error e;
  const gv_node *k[3], *v[3], *out = NULL, *name = NULL;
  cr_assert_eq(gv_int(a, 1, &k[0], NULL), GV_OK);
  cr_assert_eq(gv_str(a, "x", 1, &k[1], NULL), GV_OK);
  cr_assert_eq(gv_float(a, 1.0, &k[2], NULL), GV_OK);
  for (int i = 0; i < 3; i++)
    v[i] = k[0];
  cr_assert_eq(gv_str(a, "T", 1, &name, NULL), GV_OK);
  t_snapshot before = t_snap(a);
  cr_assert_eq(gv_dict(a, k, v, 3, &out, &e), GV_EKEY);
  cr_assert(strstr(e.msg, "repeated key") != NULL, "%s", e.msg);
  cr_assert_eq(gv_odict(a, k, v, 3, &out, &e), GV_EKEY);
  cr_assert_eq(gv_ddict(a, name, k, v, 3, &out, &e), GV_EKEY);
  cr_assert_eq(gv_custom(a, name, k, v, 3, NULL, &out, &e), GV_EKEY);
  const gv_node *f[2] = {k[1], k[1]};
  cr_assert_eq(gv_namedtuple(a, name, f, v, 2, &out, &e), GV_EKEY);
  cr_assert(strstr(e.msg, "repeated namedtuple field name 'x'") != NULL, "%s", e.msg);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * Binary input: absurd claims
 * ------------------------------------------------------------------------- */
static size_t put_varint(unsigned char *p, uint64_t v) {
  size_t n = 0;
  do {
    unsigned char b = (unsigned char)(v & 0x7f);
    v >>= 7;
    p[n++] = (unsigned char)(b | (v ? 0x80 : 0));
  } while (v);
  return n;
}

static void wire_case(const unsigned char *p, size_t n, const char *frag) {
  gv_arena *a = t_arena();
  gv_error e;
  memset(&e, 0, sizeof e);
  const gv_node *t = NULL;
  t_snapshot before = t_snap(a);
  gv_status s = gv_decode(a, p, n, &t, &e);
  cr_assert_eq(s, GV_EWIRE, "%s: %s (%s)", frag, gv_status_name(s), e.msg);
  cr_assert(strstr(e.msg, frag) != NULL, "message '%s' lacks '%s'", e.msg, frag);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  gv_arena_free(a);
}

Test(hostile, wire_arity_claims) {
  unsigned char b[64];
  size_t n;
  static const uint8_t tags[] = {0x10, 0x11}; /* list, tuple */
  static const uint64_t claims[] = {(uint64_t)1 << 31, ((uint64_t)1 << 31) + 5, UINT32_MAX,
                                    (uint64_t)UINT32_MAX + 1, (uint64_t)1 << 62};
  for (size_t t = 0; t < 2; t++)
    for (size_t c = 0; c < sizeof claims / sizeof claims[0]; c++) {
      memcpy(b, "GRV\x01", 4);
      n = 4 + put_varint(b + 4, 1);
      b[n++] = tags[t];
      n += put_varint(b + n, claims[c]);
      b[n++] = 0; /* one back-reference's worth of bytes */
      wire_case(b, n, "claimed");
    }
  /* deque: maxlen then the claim */
  memcpy(b, "GRV\x01", 4);
  n = 4 + put_varint(b + 4, 1);
  b[n++] = 0x16;
  b[n++] = 0;
  n += put_varint(b + n, ((uint64_t)1 << 31) + 1);
  wire_case(b, n, "claimed");
  /* 2^40 records claimed in a few bytes */
  memcpy(b, "GRV\x01", 4);
  n = 4 + put_varint(b + 4, (uint64_t)1 << 40);
  b[n++] = 0x01;
  wire_case(b, n, "claimed");
  /* a str claiming 2^31 bytes */
  memcpy(b, "GRV\x01", 4);
  n = 4 + put_varint(b + 4, 1);
  b[n++] = 0x06;
  n += put_varint(b + n, (uint64_t)1 << 31);
  memcpy(b + n, "abc", 3);
  wire_case(b, n + 3, "exceeds");
  /* truncated and garbage headers */
  wire_case((const unsigned char *)"GR", 2, "truncated");
  wire_case((const unsigned char *)"XYZ\x01", 4, "bad magic");
  wire_case((const unsigned char *)"GRV\x02\x01\x01", 6, "unsupported format version");
}

/* ---------------------------------------------------------------------------
 * What an input costs (include/grove.h, MEMORY AND TIME): an arena whose
 * max_bytes is 16 KiB + 96 bytes per byte of text (48 per byte of binary)
 * reads every input of that size. The worst shapes, each 300 KB: deep '['
 * nesting, deep {"a": nesting, a dict of distinct short keys, a list of
 * distinct short strs, a list of distinct one-int lists.
 * ------------------------------------------------------------------------- */

typedef struct growbuf {
  char *p;
  size_t n, cap;
} growbuf;
static void gb_put(growbuf *b, const char *s, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    cr_assert_not_null(b->p);
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
}
static gv_status gb_write(void *ctx, const char *d, size_t n) {
  gb_put(ctx, d, n);
  return GV_OK;
}

static growbuf shape_text(int shape, size_t size) {
  growbuf b = {NULL, 0, 0};
  char t[48];
  size_t n = shape == 0 ? size / 2 : size / 6;
  switch (shape) {
  case 0:
  case 1:
    for (size_t i = 0; i < n; i++)
      gb_put(&b, shape ? "{\"a\":" : "[", shape ? 5 : 1);
    if (shape) gb_put(&b, "1", 1);
    for (size_t i = 0; i < n; i++)
      gb_put(&b, shape ? "}" : "]", 1);
    break;
  default:
    gb_put(&b, shape == 2 ? "{" : "[", 1);
    for (size_t i = 0; b.n < size; i++) {
      int k = shape == 2   ? snprintf(t, sizeof t, "%s\"%zx\":0", i ? "," : "", i)
              : shape == 3 ? snprintf(t, sizeof t, "%s\"%zx\"", i ? "," : "", i)
                           : snprintf(t, sizeof t, "%s[%zu]", i ? "," : "", i);
      gb_put(&b, t, (size_t)k);
    }
    gb_put(&b, shape == 2 ? "}" : "]", 1);
  }
  return b;
}

Test(hostile, per_input_cost_as_documented) {
  for (int shape = 0; shape < 5; shape++) {
    growbuf text = shape_text(shape, 300000), wire = {NULL, 0, 0};
    gv_arena *u = t_arena();
    const gv_node *t = NULL;
    gv_error e;
    cr_assert_eq(gv_parse(u, text.p, text.n, &t, &e), GV_OK, "%s", e.msg);
    cr_assert_eq(gv_encode(u, t, gb_write, &wire, &e), GV_OK, "%s", e.msg);
    for (int w = 0; w < 2; w++) {
      const growbuf *in = w ? &wire : &text;
      gv_arena_config cfg = {16 * 1024 + (w ? 48 : 96) * in->n, 0, NULL, 0, 0, NULL};
      gv_arena *a = NULL;
      cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
      const gv_node *r = NULL;
      gv_status s = w ? gv_decode(a, in->p, in->n, &r, &e) : gv_parse(a, in->p, in->n, &r, &e);
      cr_assert_eq(s, GV_OK, "shape %d, %s, %zu bytes: %s", shape, w ? "wire" : "text", in->n,
                   e.msg);
      cr_assert_eq(gv_hash(r), gv_hash(t));
      gv_arena_free(a);
    }
    gv_arena_free(u);
    free(text.p);
    free(wire.p);
  }
}
