/* SPDX-License-Identifier: MIT */
/* test_text.c -- the literal notation reader, the repr and JSON printers. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

/* Parses text, checks it prints as expect, and that expect parses back to the
 * very same node. */
static void rt(gv_arena *a, const char *text, const char *expect) {
  const gv_node *n = t_parse(a, text);
  const char *s = t_repr(a, n);
  cr_assert_str_eq(s, expect, "parse+print of %s", text);
  const gv_node *m = t_parse(a, s);
  cr_assert_eq(m, n, "reparse of %s gave another node", s);
}

static const char *json_of(gv_arena *a, const gv_node *n) {
  const char *s = NULL;
  size_t len = 0;
  gv_error e;
  cr_assert_eq(gv_print_str(a, n, true, &s, &len, &e), GV_OK, "json: %s", e.msg);
  cr_assert_eq(strlen(s), len);
  return s;
}

/* Parse text expecting status st at line:column; returns the message. */
static void bad(gv_arena *a, const char *text, size_t tlen, gv_status st, size_t line, size_t col,
                const char *msg_part) {
  t_snapshot before = t_snap(a);
  const gv_node *n = NULL;
  gv_error e;
  memset(&e, 0, sizeof e);
  gv_status s = gv_parse(a, text, tlen, &n, &e);
  cr_assert_eq(s, st, "%s: got %s (%s)", text, gv_status_name(s), e.msg);
  cr_assert_eq(e.status, st);
  cr_assert_eq(e.line, line, "%s: line %zu (%s)", text, e.line, e.msg);
  cr_assert_eq(e.column, col, "%s: column %zu (%s)", text, e.column, e.msg);
  char lc[64];
  snprintf(lc, sizeof lc, "line %zu, column %zu: ", line, col);
  cr_assert(strncmp(e.msg, lc, strlen(lc)) == 0, "%s: message %s", text, e.msg);
  if (msg_part) cr_assert(strstr(e.msg, msg_part) != NULL, "%s: message %s", text, e.msg);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after), "%s: failed parse changed the arena", text);
}

static void bads(gv_arena *a, const char *text, gv_status st, size_t line, size_t col,
                 const char *msg_part) {
  bad(a, text, strlen(text), st, line, col, msg_part);
}

Test(text, leaves) {
  gv_arena *a = t_arena();
  rt(a, "None", "None");
  rt(a, "null", "None");
  rt(a, "True", "True");
  rt(a, "true", "True");
  rt(a, "False", "False");
  rt(a, "false", "False");
  rt(a, "0", "0");
  rt(a, "-17", "-17");
  rt(a, "+5", "5");
  rt(a, "9223372036854775807", "9223372036854775807");
  rt(a, "-9223372036854775808", "-9223372036854775808");
  rt(a, "&17", "&17");
  rt(a, "&18446744073709551615", "&18446744073709551615");
  rt(a, "*", "*");
  rt(a, "1.5", "1.5");
  rt(a, "-2e-3", "-0.002");
  rt(a, "inf", "inf");
  rt(a, "-inf", "-inf");
  rt(a, "nan", "nan");
  rt(a, "Infinity", "inf");
  rt(a, "-Infinity", "-inf");
  rt(a, "NaN", "nan");
  const gv_node *t = t_parse(a, "True"), *i1 = t_parse(a, "1");
  cr_assert_eq(gv_kind(t), GV_BOOL);
  cr_assert_eq(gv_kind(i1), GV_INT);
  cr_assert_neq(t, i1);
  cr_assert_eq(gv_get_int(t_parse(a, "-9223372036854775808")), INT64_MIN);
  cr_assert_eq(gv_get_handle(t_parse(a, "&18446744073709551615")), UINT64_MAX);
  gv_arena_free(a);
}

Test(text, float_repr) {
  gv_arena *a = t_arena();
  static const struct {
    double v;
    const char *s;
  } table[] = {
      {0.1, "0.1"},
      {1e16, "1e+16"},
      {1e-5, "1e-05"},
      {123.456, "123.456"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {-0.0, "-0.0"},
      {0.0, "0.0"},
      {2.0, "2.0"},
      {1e15, "1000000000000000.0"},
      {0.0001, "0.0001"},
      {1.0 / 3.0, "0.3333333333333333"},
      {0.1 + 0.2, "0.30000000000000004"},
      {-1.5e300, "-1.5e+300"},
      {1e22, "1e+22"},
      {123456789012345678.0, "1.2345678901234568e+17"},
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
  };
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    const gv_node *f;
    cr_assert_eq(gv_float(a, table[i].v, &f, NULL), GV_OK);
    cr_assert_str_eq(t_repr(a, f), table[i].s);
    /* and it round-trips to the same node (-0.0 stays -0.0) */
    cr_assert_eq(t_parse(a, table[i].s), f, "%s", table[i].s);
  }
  const gv_node *nz = t_parse(a, "-0.0");
  cr_assert(signbit(gv_get_float(nz)));
  cr_assert_neq(nz, t_parse(a, "0.0"));
  gv_arena_free(a);
}

Test(text, strings_and_escapes) {
  gv_arena *a = t_arena();
  rt(a, "'abc'", "'abc'");
  rt(a, "\"abc\"", "'abc'");
  rt(a, "''", "''");
  rt(a, "\"it's\"", "\"it's\"");
  rt(a, "'it\\'s'", "\"it's\"");
  rt(a, "'a\"b\\'c'", "'a\"b\\'c'");
  rt(a, "'say \"hi\"'", "'say \"hi\"'");
  rt(a, "'\\n\\t\\r\\\\'", "'\\n\\t\\r\\\\'");
  rt(a, "'\\b\\f\\v\\a'", "'\\x08\\x0c\\x0b\\x07'");
  rt(a, "'\\0\\101\\x41\\/'", "'\\x00AA/'");
  rt(a, "'\\x7f\\x80\\x9f\\xa0'", "'\\x7f\\x80\\x9f\xc2\xa0'");
  rt(a, "'\\u00e9\\u20ac'", "'\xc3\xa9\xe2\x82\xac'");
  rt(a, "'\\U0001F600'", "'\xf0\x9f\x98\x80'");
  rt(a, "'\\ud83d\\ude00'", "'\xf0\x9f\x98\x80'");
  rt(a, "'\xc3\xa9t\xc3\xa9'", "'\xc3\xa9t\xc3\xa9'");
  rt(a, "'a\\\nb'", "'ab'"); /* line continuation */
  size_t len;
  const char *s = gv_get_str(t_parse(a, "'x\\0y'"), &len);
  cr_assert_eq(len, 3);
  cr_assert_eq(memcmp(s, "x\0y", 3), 0);
  /* bytes */
  rt(a, "b'abc'", "b'abc'");
  rt(a, "b\"it's\"", "b\"it's\"");
  rt(a, "b''", "b''");
  rt(a, "b'\\x00\\xff\\n\\t\\\\\\''", "b\"\\x00\\xff\\n\\t\\\\'\"");
  rt(a, "b'\\x00\\'\"'", "b'\\x00\\'\"'");
  rt(a, "b'\\101\\x7f'", "b'A\\x7f'");
  const void *bp = gv_get_bytes(t_parse(a, "b'\\xff\\x00'"), &len);
  cr_assert_eq(len, 2);
  cr_assert_eq(memcmp(bp, "\xff\0", 2), 0);
  cr_assert_eq(gv_kind(t_parse(a, "b'x'")), GV_BYTES);
  cr_assert_neq(t_parse(a, "b'x'"), t_parse(a, "'x'"));
  gv_arena_free(a);
}

Test(text, containers) {
  gv_arena *a = t_arena();
  rt(a, "[]", "[]");
  rt(a, "[1, 'a', None]", "[1, 'a', None]");
  rt(a, "()", "()");
  rt(a, "(1,)", "(1,)");
  rt(a, "(1, 2)", "(1, 2)");
  rt(a, "((1,),)", "((1,),)");
  rt(a, "(1)", "1"); /* parentheses group */
  rt(a, "{}", "{}");
  rt(a, "{'b': 1, 'a': 2}", "{'b': 1, 'a': 2}");
  rt(a, "{(1, (2, 'x')): [1], 2.5: None, None: 0, b'k': 1}",
     "{(1, (2, 'x')): [1], 2.5: None, None: 0, b'k': 1}");
  rt(a, "OrderedDict({'b': 1, 'a': 2})", "OrderedDict({'b': 1, 'a': 2})");
  rt(a, "OrderedDict([('b', 1), ('a', 2)])", "OrderedDict({'b': 1, 'a': 2})");
  rt(a, "OrderedDict()", "OrderedDict()");
  rt(a, "OrderedDict({})", "OrderedDict()");
  rt(a, "OrderedDict([])", "OrderedDict()");
  rt(a, "defaultdict(list, {'a': 1})", "defaultdict(list, {'a': 1})");
  rt(a, "defaultdict(dv, {})", "defaultdict(dv, {})");
  rt(a, "deque([1, 2], maxlen=3)", "deque([1, 2], maxlen=3)");
  rt(a, "deque([1, 2])", "deque([1, 2])");
  rt(a, "deque([1], maxlen=None)", "deque([1])");
  rt(a, "deque([])", "deque([])");
  rt(a, "deque()", "deque([])");
  rt(a, "deque([], maxlen=0)", "deque([], maxlen=0)");
  rt(a, "Point(x=1, y=2)", "Point(x=1, y=2)");
  rt(a, "Point(x=[1], y=Inner(z=*))", "Point(x=[1], y=Inner(z=*))");
  rt(a, "Empty()", "Empty()");
  rt(a, "Name([1, 2])", "Name([1, 2])");
  rt(a, "Name([])", "Name([])");
  rt(a, "Name({'k': 1, 'j': 2})", "Name({'k': 1, 'j': 2})");
  rt(a, "Name({})", "Name({})");
  rt(a, "Name([1], meta=(1, 'x'))", "Name([1], meta=(1, 'x'))");
  rt(a, "Name({'a': 1}, meta=[None])", "Name({'a': 1}, meta=[None])");
  rt(a, "Name([1], meta=Other([2], meta=3))", "Name([1], meta=Other([2], meta=3))");
  /* the implicit metadata of a keyed custom node is its key tuple: not printed */
  rt(a, "Name({'a': 1}, meta=('a',))", "Name({'a': 1})");
  rt(a, "Name({'a': 1}, meta=None)", "Name({'a': 1}, meta=None)");

  const gv_node *n = t_parse(a, "OrderedDict({'b': 1})");
  cr_assert_eq(gv_kind(n), GV_ODICT);
  cr_assert_eq(gv_kind(t_parse(a, "defaultdict(list, {})")), GV_DDICT);
  cr_assert_eq(gv_deque_maxlen(t_parse(a, "deque([], maxlen=7)")), 7);
  cr_assert_eq(gv_kind(t_parse(a, "Empty()")), GV_NAMEDTUPLE);
  cr_assert_eq(gv_kind(t_parse(a, "Name([])")), GV_CUSTOM);
  cr_assert(gv_custom_keyed(t_parse(a, "Name({'a': 1})")));
  cr_assert_not(gv_custom_keyed(t_parse(a, "Name([1])")));
  cr_assert_neq(t_parse(a, "{'a': 1}"), t_parse(a, "OrderedDict({'a': 1})"));
  cr_assert_neq(t_parse(a, "[1]"), t_parse(a, "(1,)"));
  cr_assert_neq(t_parse(a, "[1]"), t_parse(a, "deque([1])"));

  /* built with the constructors, printed, reparsed to the same pointer */
  const gv_node *k[2], *v[2], *d, *nm;
  cr_assert_eq(gv_str(a, "x", 1, &k[0], NULL), GV_OK);
  cr_assert_eq(gv_int(a, 1, &k[1], NULL), GV_OK);
  cr_assert_eq(gv_float(a, 0.5, &v[0], NULL), GV_OK);
  cr_assert_eq(gv_none(a, &v[1], NULL), GV_OK);
  cr_assert_eq(gv_dict(a, k, v, 2, &d, NULL), GV_OK);
  cr_assert_str_eq(t_repr(a, d), "{'x': 0.5, 1: None}");
  cr_assert_eq(t_parse(a, t_repr(a, d)), d);
  cr_assert_eq(gv_str(a, "T", 1, &nm, NULL), GV_OK);
  const gv_node *c;
  cr_assert_eq(gv_custom(a, nm, k, v, 2, NULL, &c, NULL), GV_OK);
  cr_assert_str_eq(t_repr(a, c), "T({'x': 0.5, 1: None})");
  cr_assert_eq(t_parse(a, t_repr(a, c)), c);
  gv_arena_free(a);
}

Test(text, comments_whitespace_trailing_commas) {
  gv_arena *a = t_arena();
  const gv_node *n =
      t_parse(a, "  # leading comment\n"
                 "[ 1 , # one\n"
                 "  {'a' : 2 , } ,\r\n"
                 "\t(3 , ) , Point( x = 1 , ) , deque( [ 1 , ] , maxlen = 2 , ) ,\n"
                 "  OrderedDict( [ ( 'k' , 1 ) , ] , ) , Name( [ 1 , ] , meta = 2 , ),\n"
                 "] # trailing\n");
  cr_assert_str_eq(t_repr(a, n), "[1, {'a': 2}, (3,), Point(x=1), deque([1], maxlen=2), "
                                 "OrderedDict({'k': 1}), Name([1], meta=2)]");
  cr_assert_eq(t_parse(a, "[1, 2,]"), t_parse(a, "[1, 2]"));
  cr_assert_eq(t_parse(a, "(1, 2,)"), t_parse(a, "(1, 2)"));
  cr_assert_eq(t_parse(a, "{'a': 1,}"), t_parse(a, "{'a': 1}"));
  cr_assert_eq(t_parse(a, "defaultdict(list, {'a': 1},)"),
               t_parse(a, "defaultdict(list, {'a': 1})"));
  gv_arena_free(a);
}

Test(text, json_input) {
  gv_arena *a = t_arena();
  const char *doc = "{\n"
                    "  \"name\": \"caf\\u00e9 \\ud83d\\ude00\",\n"
                    "  \"tags\": [\"a\", \"b\\n\\\"q\\\"\\/\", \"\\\\\"],\n"
                    "  \"nested\": {\"x\": [1, -2.5e3, 0.25, true, false, null], \"y\": {}},\n"
                    "  \"empty\": [],\n"
                    "  \"num\": 12345678901234\n"
                    "}";
  const gv_node *n = t_parse(a, doc);
  cr_assert_eq(gv_kind(n), GV_DICT);
  cr_assert_str_eq(t_repr(a, n),
                   "{'name': 'caf\xc3\xa9 \xf0\x9f\x98\x80', 'tags': ['a', 'b\\n\"q\"/', '\\\\'], "
                   "'nested': {'x': [1, -2500.0, 0.25, True, False, None], 'y': {}}, "
                   "'empty': [], 'num': 12345678901234}");
  cr_assert_str_eq(json_of(a, n),
                   "{\"name\": \"caf\xc3\xa9 \xf0\x9f\x98\x80\", \"tags\": [\"a\", "
                   "\"b\\n\\\"q\\\"/\", \"\\\\\"], \"nested\": {\"x\": [1, -2500.0, 0.25, true, "
                   "false, null], \"y\": {}}, \"empty\": [], \"num\": 12345678901234}");
  /* the JSON output parses back to the same node */
  cr_assert_eq(t_parse(a, json_of(a, n)), n);
  gv_arena_free(a);
}

Test(text, json_output) {
  gv_arena *a = t_arena();
  static const char *const cases[][2] = {
      {"None", "null"},
      {"True", "true"},
      {"[1, 2.5, 'x', False]", "[1, 2.5, \"x\", false]"},
      {"(1,)", "[1]"},
      {"deque([1, 2], maxlen=3)", "[1, 2]"},
      {"Point(x=1, y=2)", "[1, 2]"},
      {"Name([1, 2])", "[1, 2]"},
      {"Name({'a': 1})", "{\"a\": 1}"},
      {"{'b': 1, 'a': [{}]}", "{\"b\": 1, \"a\": [{}]}"},
      {"OrderedDict({'z': 1})", "{\"z\": 1}"},
      {"defaultdict(list, {'k': ()})", "{\"k\": []}"},
      {"'\\x01\\b\\f\\n\\r\\t\"\\\\\\x7f\xc3\xa9'",
       "\"\\u0001\\b\\f\\n\\r\\t\\\"\\\\\x7f\xc3\xa9\""},
      {"1e16", "1e+16"},
      {"-0.0", "-0.0"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    cr_assert_str_eq(json_of(a, t_parse(a, cases[i][0])), cases[i][1], "%s", cases[i][0]);

  static const char *const errs[][2] = {
      {"b'x'", "bytes"},   {"&1", "handle"},          {"*", "*"},
      {"nan", "nan"},      {"[1, inf]", "at (1,): "}, {"{'a': [-inf]}", "at ('a', 0): "},
      {"{1: 2}", "key 1"}, {"Name({1: 2})", "key 1"}, {"[{(1, 'a'): 2}]", "at (0,): key (1, 'a')"},
  };
  for (size_t i = 0; i < sizeof errs / sizeof *errs; i++) {
    const gv_node *n = t_parse(a, errs[i][0]);
    t_snapshot before = t_snap(a);
    const char *s = NULL;
    size_t len = 0;
    gv_error e;
    cr_assert_eq(gv_print_str(a, n, true, &s, &len, &e), GV_EINVAL, "%s", errs[i][0]);
    cr_assert(strstr(e.msg, "not representable in JSON") != NULL, "%s: %s", errs[i][0], e.msg);
    cr_assert(strstr(e.msg, errs[i][1]) != NULL, "%s: %s", errs[i][0], e.msg);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after));
  }
  gv_arena_free(a);
}

Test(text, parse_errors) {
  gv_arena *a = t_arena();
  t_parse(a, "[1, 2, {'a': (3,)}]"); /* something already in the arena */
  bads(a, "'unterminated", GV_EPARSE, 1, 1, "unterminated string");
  bads(a, "[1, 'ab\ncd']", GV_EPARSE, 1, 5, "unterminated string");
  bads(a, "b'abc", GV_EPARSE, 1, 1, "unterminated bytes");
  bads(a, "[1, 2", GV_EPARSE, 1, 6, "unterminated list");
  bads(a, "[1,\n [2,\n  3", GV_EPARSE, 3, 4, "opened at line 2, column 2");
  bads(a, "{'a': 1", GV_EPARSE, 1, 8, "unterminated dict");
  bads(a, "{'a'", GV_EPARSE, 1, 5, "expected ':'");
  bads(a, "{'a' 1}", GV_EPARSE, 1, 6, "expected ':'");
  bads(a, "[1 2]", GV_EPARSE, 1, 4, "expected ',' or ']'");
  bads(a, "[\n  1,\n  2 3]", GV_EPARSE, 3, 5, "expected ',' or ']'");
  bads(a, "'\\q'", GV_EPARSE, 1, 2, "invalid escape");
  bads(a, "'ab\\x4'", GV_EPARSE, 1, 4, "\\x");
  bads(a, "'\\u12'", GV_EPARSE, 1, 2, "hex digits");
  bads(a, "'\\ud83d'", GV_EPARSE, 1, 2, "lone surrogate");
  bads(a, "'\\ud83dx'", GV_EPARSE, 1, 2, "lone surrogate");
  bads(a, "'\\ude00'", GV_EPARSE, 1, 2, "lone surrogate");
  bads(a, "'\\ud83d\\u0041'", GV_EPARSE, 1, 2, "lone surrogate");
  bads(a, "'\\U00110000'", GV_EPARSE, 1, 2, "out of range");
  bads(a, "b'\\u0041'", GV_EPARSE, 1, 3, "invalid escape");
  bads(a, "b'\\777'", GV_EPARSE, 1, 3, "out of range");
  bads(a, "b'\xc3\xa9'", GV_EPARSE, 1, 3, "non-ASCII");
  bads(a, "'ok\xff'", GV_EPARSE, 1, 4, "invalid UTF-8");
  bads(a, "'\xc3'", GV_EPARSE, 1, 2, "invalid UTF-8");
  bads(a, "'\xed\xa0\x80'", GV_EPARSE, 1, 2, "invalid UTF-8"); /* encoded surrogate */
  bads(a, "'\xc0\x80'", GV_EPARSE, 1, 2, "invalid UTF-8");     /* overlong */
  bad(a, "[1,\0 2]", 7, GV_EPARSE, 1, 4, "NUL byte");
  bad(a, "'a\0b'", 5, GV_EPARSE, 1, 3, "NUL byte");
  bad(a, "1\0", 2, GV_EPARSE, 1, 2, "NUL byte");
  bad(a, "[1, # c\0\n 2]", 12, GV_EPARSE, 1, 8, "NUL byte");
  bads(a, "99999999999999999999", GV_ERANGE, 1, 1, "out of range");
  bads(a, "9223372036854775808", GV_ERANGE, 1, 1, "out of range");
  bads(a, "[0, -9223372036854775809]", GV_ERANGE, 1, 5, "out of range");
  bads(a, "&18446744073709551616", GV_ERANGE, 1, 1, "out of range");
  bads(a, "{'a': 1, 'a': 2}", GV_EKEY, 1, 1, "'a'");
  bads(a, "[{1: 1, 1.0: 2}]", GV_EKEY, 1, 2, NULL);
  bads(a, "OrderedDict([('a', 1), ('a', 2)])", GV_EKEY, 1, 1, NULL);
  bads(a, "Name({'a': 1, 'a': 2})", GV_EKEY, 1, 1, NULL);
  bads(a, "Point(x=1, x=2)", GV_EKEY, 1, 1, "'x'");
  bads(a, "{[1]: 2}", GV_EINVAL, 1, 1, "hashable");
  bads(a, "[1] 2", GV_EPARSE, 1, 5, "after the value");
  bads(a, "[1]]", GV_EPARSE, 1, 4, "after the value");
  bads(a, "[1,, 2]", GV_EPARSE, 1, 4, "expected a value");
  bads(a, "[,]", GV_EPARSE, 1, 2, "expected a value");
  bads(a, "", GV_EPARSE, 1, 1, "expected a value");
  bads(a, "   # only a comment", GV_EPARSE, 1, 20, "expected a value");
  bads(a, "foo", GV_EPARSE, 1, 1, "unknown name 'foo'");
  /* a name longer than 64 bytes is cut, and says so; one of 64 is whole */
  char name[100], want[100];
  memset(name, 'n', 70);
  name[70] = '\0';
  snprintf(want, sizeof want, "unknown name '%.64s...'", name);
  bads(a, name, GV_EPARSE, 1, 1, want);
  name[64] = '\0';
  snprintf(want, sizeof want, "unknown name '%s'", name);
  bads(a, name, GV_EPARSE, 1, 1, want);
  /* cut before a character, not inside it: 63 bytes, then U+00E9 (2 bytes) */
  memset(name, 'n', 63);
  memcpy(name + 63, "\xc3\xa9xyz", 6);
  snprintf(want, sizeof want, "unknown name '%.63s...'", name);
  bads(a, name, GV_EPARSE, 1, 1, want);
  bads(a, "Foo(1)", GV_EPARSE, 1, 5, "field=value");
  bads(a, "Foo([1], 2)", GV_EPARSE, 1, 10, "meta=");
  bads(a, "Foo([1], meta=1, 2)", GV_EPARSE, 1, 18, "')'");
  bads(a, "Point(x=1, 2)", GV_EPARSE, 1, 12, "field=value");
  bads(a, "OrderedDict(1)", GV_EPARSE, 1, 13, NULL);
  bads(a, "OrderedDict([1])", GV_EPARSE, 1, 1, "pairs");
  bads(a, "OrderedDict([('a', 1, 2)])", GV_EPARSE, 1, 1, "pairs");
  bads(a, "defaultdict({})", GV_EPARSE, 1, 13, "factory");
  bads(a, "defaultdict(list, [])", GV_EPARSE, 1, 19, NULL);
  bads(a, "deque((1,))", GV_EPARSE, 1, 7, NULL);
  bads(a, "deque([1], maxlen=-1)", GV_EPARSE, 1, 19, NULL);
  bads(a, "deque([1], size=1)", GV_EPARSE, 1, 12, "maxlen");
  bads(a, "deque([1], maxlen=99999999999999999999)", GV_ERANGE, 1, 19, NULL);
  bads(a, "007", GV_EPARSE, 1, 1, "leading zeros");
  bads(a, "1e", GV_EPARSE, 1, 1, "exponent");
  bads(a, "-", GV_EPARSE, 1, 1, "expected a value");
  bads(a, "-foo", GV_EPARSE, 1, 1, "invalid number");
  bads(a, "(1, 2", GV_EPARSE, 1, 6, "unterminated tuple");
  bads(a, "Point(x=1", GV_EPARSE, 1, 10, "unterminated");
  /* NULL with len 0 is an empty text */
  const gv_node *n;
  cr_assert_eq(gv_parse(a, NULL, 0, &n, NULL), GV_EPARSE);
  cr_assert_eq(gv_parse(a, NULL, 3, &n, NULL), GV_EINVAL);
  gv_arena_free(a);
}

Test(text, failed_parse_leaves_arena_unchanged) {
  gv_arena *a = t_arena();
  const gv_node *keep = t_parse(a, "{'x': [1, 2], 'y': Point(a=1)}");
  t_snapshot before = t_snap(a);
  const char *texts[] = {
      "[1, 2, 3, 'new', {'z': (4, 5, 6)}, Other(q=7), 1,, 2]",
      "{'p': [10, 20, 30], 'q': OrderedDict({'r': 40}), 'p': 5}",
      "[Name([1, 2, 3], meta=(9, 8)), deque([77]), 'x\\ud800']",
      "[[[[[[[[[[ 'deep', 100, 200, 300",
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    const gv_node *n = NULL;
    gv_error e;
    cr_assert_neq(gv_parse(a, texts[i], strlen(texts[i]), &n, &e), GV_OK, "%s", texts[i]);
    t_snapshot after = t_snap(a);
    cr_assert(t_snap_eq(&before, &after), "%s", texts[i]);
  }
  cr_assert_str_eq(t_repr(a, keep), "{'x': [1, 2], 'y': Point(a=1)}");
  gv_arena_free(a);
}

Test(text, tiny_budget) {
  gv_arena_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_bytes = 64 * 1024;
  gv_arena *a = NULL;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *small = t_parse(a, "[1, 'two', 3.0]");
  /* a document far larger than the budget */
  size_t n = 20000, cap = n * 16 + 16, len = 0;
  char *text = malloc(cap);
  cr_assert_not_null(text);
  text[len++] = '[';
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(text + len, cap - len, "'s%zu', ", i);
  text[len++] = ']';
  t_snapshot before = t_snap(a);
  const gv_node *out = NULL;
  gv_error e;
  cr_assert_eq(gv_parse(a, text, len, &out, &e), GV_ENOMEM, "%s", e.msg);
  cr_assert(strstr(e.msg, "out of memory budget") != NULL, "%s", e.msg);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  /* printing a tree under a budget too small for its text also fails cleanly */
  const char *s;
  size_t sl;
  cr_assert_eq(gv_print_str(a, small, false, &s, &sl, &e), GV_OK);
  cr_assert_str_eq(s, "[1, 'two', 3.0]");
  free(text);
  gv_arena_free(a);
}

Test(text, max_depth) {
  gv_arena_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_depth = 3;
  gv_arena *a = NULL;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  cr_assert_eq(gv_depth(t_parse(a, "[[[1]]]")), 3);
  cr_assert_eq(gv_depth(t_parse(a, "[OrderedDict({'a': (1,)})]")), 3);
  bads(a, "[[[[1]]]]", GV_EDEPTH, 1, 4, "max_depth");
  bads(a, "[{'a': Name([[1]])}]", GV_EDEPTH, 1, 14, "max_depth");
  gv_arena_free(a);
}

static gv_status count_write(void *ctx, const char *data, size_t len) {
  size_t *c = ctx;
  (void)data;
  cr_assert_leq(len, 4096 + 64);
  *c += len;
  return GV_OK;
}

Test(text, million_deep) {
  gv_arena *a = t_arena();
  size_t d = 1000000;
  char *text = malloc(2 * d + 1);
  cr_assert_not_null(text);
  memset(text, '[', d);
  memset(text + d, ']', d);
  text[2 * d] = '\0';
  const gv_node *n = NULL;
  gv_error e;
  cr_assert_eq(gv_parse(a, text, 2 * d, &n, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_depth(n), d);
  const char *s;
  size_t len;
  cr_assert_eq(gv_print_str(a, n, false, &s, &len, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(len, 2 * d);
  cr_assert_eq(strlen(s), 2 * d);
  cr_assert_eq(memcmp(s, text, 2 * d), 0);
  cr_assert_eq(gv_print_str(a, n, true, &s, &len, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(len, 2 * d);
  size_t count = 0;
  cr_assert_eq(gv_print(a, n, count_write, &count, &e), GV_OK);
  cr_assert_eq(count, 2 * d);
  free(text);
  gv_arena_free(a);
}

static gv_status fail_write(void *ctx, const char *data, size_t len) {
  (void)ctx;
  (void)data;
  (void)len;
  return (gv_status)(GV_EUSER + 3);
}

Test(text, writer_failure) {
  gv_arena *a = t_arena();
  const gv_node *n = t_parse(a, "[1, 2]");
  t_snapshot before = t_snap(a);
  gv_error e;
  cr_assert_eq(gv_print(a, n, fail_write, NULL, &e), GV_EUSER + 3);
  cr_assert_eq(gv_print_json(a, n, fail_write, NULL, &e), GV_EUSER + 3);
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after));
  cr_assert_eq(gv_print(a, NULL, count_write, NULL, &e), GV_EINVAL);
  gv_arena_free(a);
}

Test(text, sbuf_repr_key) {
  gv_arena *a = t_arena();
  char buf[64];
  gv__sbuf b = {buf, sizeof buf, 0, 0};
  buf[0] = '\0';
  gv__sbuf_repr_key(&b, t_parse(a, "(1, ('a', b'x'), (), (2.5,), None, True)"));
  cr_assert_str_eq(buf, "(1, ('a', b'x'), (), (2.5,), None, True)");
  b.len = 0;
  gv__sbuf_repr_key(&b, t_parse(a, "'it\\'s'"));
  cr_assert_str_eq(buf, "\"it's\"");
  char small[8];
  gv__sbuf sb = {small, sizeof small, 0, 0};
  small[0] = '\0';
  gv__sbuf_repr_key(&sb, t_parse(a, "'a long string'"));
  cr_assert_str_eq(small, "'a long");
  cr_assert(sb.truncated);
  gv_arena_free(a);
}

/* The reader reads common scalars inside lists and dicts on a fast path;
 * whatever path a value takes, it must give the same node and the same
 * errors as the general path. */
Test(text, fast_paths_agree_with_general_path) {
  gv_arena *a = t_arena();
  /* an escape or a non-ASCII byte sends a str to the general path */
  cr_assert_eq(t_parse(a, "{'ab': 1}"), t_parse(a, "{'a\\x62': 1}"));
  cr_assert_eq(t_parse(a, "['caf\xc3\xa9', 'x']"), t_parse(a, "['caf\\u00e9', 'x']"));
  cr_assert_eq(t_parse(a, "[\"it's\", 'say \"hi\"']"),
               t_parse(a, "['it\\'s', \"say \\\"hi\\\"\"]"));
  /* strs longer than the cached ones, and 300 distinct keys (more than the cache holds) */
  cr_assert_eq(t_parse(a, "['a-str-of-more-than-16-bytes', 'a-str-of-more-than-16-bytes']"),
               t_parse(a, "['a-str-of-more-than-16-\\x62ytes', 'a-str-of-more-than-16-bytes']"));
  char big[300 * 16 + 8];
  size_t len = 0;
  big[len++] = '{';
  for (int i = 0; i < 300; i++)
    len +=
        (size_t)snprintf(big + len, sizeof big - len, "%s'k%03d': %d", i ? ", " : "", 299 - i, i);
  big[len++] = '}';
  big[len] = '\0';
  const gv_node *d = t_parse(a, big);
  cr_assert_eq(gv_arity(d), 300);
  for (int i = 0; i < 300; i += 37) {
    char k[8];
    snprintf(k, sizeof k, "k%03d", 299 - i);
    const gv_node *kn;
    cr_assert_eq(gv_str(a, k, 4, &kn, NULL), GV_OK);
    cr_assert_eq(gv_get_int(gv_get(d, kn)), i);
  }
  cr_assert_eq(t_parse(a, big), d);
  /* ints: the fast path stops at 18 digits, and at '.', 'e' and 'E' */
  rt(a, "[123456789012345678, 1234567890123456789, -9223372036854775808, 0, -0]",
     "[123456789012345678, 1234567890123456789, -9223372036854775808, 0, 0]");
  rt(a, "{'a': 36028797018963968, 'b': -36028797018963969}",
     "{'a': 36028797018963968, 'b': -36028797018963969}");
  rt(a, "[1.5, 2e3, 3E-1, -4.0, .5]", "[1.5, 2000.0, 0.3, -4.0, 0.5]");
  rt(a, "(7)", "7");
  rt(a, "(7,)", "(7,)");
  rt(a, "{'a': -1, (1, 'x'): 'y', 2: [3]}", "{'a': -1, (1, 'x'): 'y', 2: [3]}");
  /* errors inside containers, where the fast paths run first */
  bads(a, "[007]", GV_EPARSE, 1, 2, "leading zeros");
  bads(a, "{'a': 01}", GV_EPARSE, 1, 7, "leading zeros");
  bads(a, "[1e]", GV_EPARSE, 1, 2, "exponent");
  bads(a, "[-]", GV_EPARSE, 1, 2, "expected a value");
  bads(a, "{'a': -}", GV_EPARSE, 1, 7, "expected a value");
  bads(a, "[12x]", GV_EPARSE, 1, 4, "expected ',' or ']'");
  bads(a, "{'a': 12 'b'}", GV_EPARSE, 1, 10, "expected ',' or '}'");
  bads(a, "[99999999999999999999]", GV_ERANGE, 1, 2, "out of range");
  bads(a, "{'k': 9223372036854775808}", GV_ERANGE, 1, 7, "out of range");
  bads(a, "{'a\\q': 1}", GV_EPARSE, 1, 4, "invalid escape");
  bads(a, "{'ab", GV_EPARSE, 1, 2, "unterminated string");
  bads(a, "['ab", GV_EPARSE, 1, 2, "unterminated string");
  bads(a, "{'a': 'b\ncd'}", GV_EPARSE, 1, 7, "unterminated string");
  bads(a, "{'a': 'ok\xff'}", GV_EPARSE, 1, 10, "invalid UTF-8");
  bads(a, "{'a' 1}", GV_EPARSE, 1, 6, "expected ':'");
  bads(a, "{'a': 1, 'a': 2}", GV_EKEY, 1, 1, "'a'");
  bad(a, "['a\0']", 6, GV_EPARSE, 1, 4, "NUL byte");
  gv_arena_free(a);
}
