/* SPDX-License-Identifier: MIT */
/* options.c -- the two tables, OPS (the operations) and OPTS (the options), and what comes from
 * them: the help text, the version line, usage errors and applying one option to the cli. The
 * command line (main.c) checks its arguments and "does this option apply to this operation"
 * against the same tables. */
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * The operations
 * ------------------------------------------------------------------------- */

#define ANY SIZE_MAX

const opdef OPS[OP_COUNT] = {
    [OP_FLATTEN] = {"flatten", "T", 1, 1, 1, "each leaf on its own line"},
    [OP_FLATTEN_WITH_PATH] = {"flatten-with-path", "T", 1, 1, 1, "PATH<TAB>LEAF per leaf"},
    [OP_STRUCTURE] = {"structure", "T", 1, 1, 1, "T with * for every leaf"},
    [OP_IS_NESTED] = {"is-nested", "T", 1, 1, 1, "True (exit 0) or False (exit 1)"},
    [OP_PACK_SEQUENCE_AS] = {"pack-sequence-as", "S L", 2, 2, 0,
                             "S rebuilt with the items of the list L"},
    [OP_MAP] = {"map", "FN T...", 2, ANY, 1, "the mapped tree (FN: id, add, type, str, none)"},
    [OP_MAP_UP_TO] = {"map-up-to", "FN S T...", 3, ANY, 0,
                      "FN applied to the subtrees at S's leaves"},
    [OP_MAP_SHAPE] = {"map-shape", "FN T", 2, 2, 1,
                      "like map; lists/tuples of ints or None are leaves"},
    [OP_TRAVERSE] = {"traverse", "T", 1, 1, 1, "rewrite with --replace / --to-none rules"},
    [OP_LISTS_TO_TUPLES] = {"lists-to-tuples", "T", 1, 1, 1, "every list becomes a tuple"},
    [OP_ORDER] = {"order", "T", 1, 1, 1, "dicts in sorted-key order; then 'changed: BOOL'"},
    [OP_ASSERT_SAME_STRUCTURE] = {"assert-same-structure", "A B", 2, 2, 0,
                                  "nothing (exit 0) or the mismatch (exit 1)"},
    [OP_ASSERT_SAME_PATHS] = {"assert-same-paths", "A B", 2, 2, 0,
                              "nothing (exit 0) or the difference (exit 1)"},
    [OP_FINGERPRINT] = {"fingerprint", "T", 1, 1, 1, "32 hex digits"},
    [OP_CONVERT] = {"convert", "T", 1, 1, 1, "T in another format (--to)"},
    [OP_STATS] = {"stats", "T", 1, 1, 1, "nodes, distinct nodes, leaves, depth, arena bytes"},
    [OP_DEMO] = {"demo", "", 0, 0, 0, "a short tour of every operation"},
};

#define ALL_OPS ((1u << OP_COUNT) - 1u)
#define TREE_OPS (ALL_OPS & ~ON(OP_DEMO))

/* ---------------------------------------------------------------------------
 * The options: one line each. `ops` is the set of operations an option applies to; giving
 * it to another one is a usage error.
 * ------------------------------------------------------------------------- */

const optdef OPTS[] = {
    {OPT_HELP, "--help", 'h', NO_VALUE, NULL, ALL_OPS, "this help; after OP, that operation's"},
    {OPT_VERSION, "--version", 'V', NO_VALUE, NULL, ALL_OPS, "grove's version"},
    {OPT_JSON, "--json", 0, NO_VALUE, NULL, TREE_OPS, "print one JSON document"},
    {OPT_MAX_BYTES, "--max-bytes", 0, VALUE, "N", TREE_OPS,
     "bound memory to N bytes (default 1e9; --lines: 5e7 a line; 0: none)"},
    {OPT_MAX_OUTPUT, "--max-output", 0, VALUE, "N", TREE_OPS,
     "refuse output over N nodes+bytes (default 1e8; 0: none)"},
    {OPT_NONE_IS_LEAF, "--none-is-leaf", 0, EQ_VALUE, "BOOL", ON(OP_MAP),
     "=false: None is an empty node (default true)"},
    {OPT_TOP_DOWN, "--top-down", 0, NO_VALUE, NULL, ON(OP_TRAVERSE), "parents first (default)"},
    {OPT_BOTTOM_UP, "--bottom-up", 0, NO_VALUE, NULL, ON(OP_TRAVERSE), "children first"},
    {OPT_REPLACE, "--replace", 0, VALUE, "KIND=VALUE", ON(OP_TRAVERSE),
     "replace subtrees of type KIND by VALUE"},
    {OPT_TO_NONE, "--to-none", 0, VALUE, "KIND", ON(OP_TRAVERSE),
     "map subtrees of type KIND to None"},
    {OPT_TO, "--to", 0, VALUE, "FMT", ON(OP_CONVERT), "output format: literal, json or wire"},
    {OPT_FROM, "--from", 0, VALUE, "FMT", ON(OP_CONVERT),
     "input format: literal or wire (default: by content)"},
    {OPT_OUTPUT, "--output", 'o', VALUE, "FILE", ON(OP_CONVERT),
     "write FILE (once the operation succeeded)"},
    {OPT_LINES, "--lines", 0, NO_VALUE, NULL, TREE_OPS,
     "one tree per line (@FILE... or stdin), one result per line"},
    {OPT_JOBS, "--jobs", 0, VALUE, "N", TREE_OPS, "--lines: N threads, output in input order"},
    {OPT_FAIL_FAST, "--fail-fast", 0, NO_VALUE, NULL, TREE_OPS,
     "--lines: stop at the first bad line"},
};

const size_t NOPTS = sizeof OPTS / sizeof OPTS[0];

/* ---------------------------------------------------------------------------
 * Help
 * ------------------------------------------------------------------------- */

const char USAGE[] = "usage: grove OP [OPTIONS] [ARG...]   (grove --help lists them)\n";

static void opt_label(const optdef *o, char *buf, size_t n) {
  const char *mv = o->metavar ? o->metavar : "";
  const char *sep = o->value == VALUE ? " " : o->value == EQ_VALUE ? "[=" : "";
  const char *end = o->value == EQ_VALUE ? "]" : "";
  if (o->letter)
    snprintf(buf, n, "-%c, %s%s%s%s", o->letter, o->name, sep, mv, end);
  else
    snprintf(buf, n, "%s%s%s%s", o->name, sep, mv, end);
}

/* "(map)", "(traverse)", or "" for an option of every tree operation. */
void opt_scope(const optdef *o, char *buf, size_t n) {
  buf[0] = '\0';
  if ((o->ops & TREE_OPS) == TREE_OPS) return;
  size_t used = 0;
  for (int k = 0; k < OP_COUNT; k++) {
    if (!(o->ops & ON(k))) continue;
    int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", OPS[k].name);
    if (w < 0 || (size_t)w >= n - used) break;
    used += (size_t)w;
  }
}

void print_help(cli *c, const opdef *only) {
  char line[256], label[64], scope[64];
  if (only) {
    op_id id = (op_id)(only - OPS);
    snprintf(line, sizeof line, "usage: grove %s [OPTIONS]%s%s\n\n%s.\n", only->name,
             only->args[0] ? " " : "", only->args, only->help);
    put_s(c, line);
    if (only->stdin_tree)
      put_s(c, "Without its last tree argument, the tree is read from standard input.\n");
    put_s(c, "\noptions:\n");
    for (size_t i = 0; i < NOPTS; i++) {
      if (!(OPTS[i].ops & ON(id))) continue;
      opt_label(&OPTS[i], label, sizeof label);
      snprintf(line, sizeof line, "  %-26s %s\n", label, OPTS[i].help);
      put_s(c, line);
    }
    return;
  }
  put_s(c, "usage: grove OP [OPTIONS] [ARG...]\n"
           "\n"
           "Each ARG is a tree in literal notation; @PATH reads it from a file, - from\n"
           "standard input. An operation on one tree reads standard input when no tree is\n"
           "given. Files and standard input may also hold grove's binary (wire) format.\n"
           "Options may come anywhere; -- ends them.\n"
           "\n"
           "operations:\n");
  for (int k = 0; k < OP_COUNT; k++) {
    snprintf(label, sizeof label, "%s %s", OPS[k].name, OPS[k].args);
    snprintf(line, sizeof line, "  %-26s %s\n", label, OPS[k].help);
    put_s(c, line);
  }
  put_s(c, "\noptions:\n");
  for (size_t i = 0; i < NOPTS; i++) {
    opt_label(&OPTS[i], label, sizeof label);
    opt_scope(&OPTS[i], scope, sizeof scope);
    snprintf(line, sizeof line, "  %-26s %s%s%s%s\n", label, scope[0] ? "(" : "", scope,
             scope[0] ? ") " : "", OPTS[i].help);
    put_s(c, line);
  }
  put_s(c, "\n"
           "exit status: 0 done, 1 the operation's own failure (mismatch, leaf count,\n"
           "is-nested false; under --lines: a line failed), 2 bad usage or bad input\n");
}

void print_version(cli *c) {
  put_s(c, "grove " GV_VERSION_STRING);
  if (strcmp(gv_version(), GV_VERSION_STRING) != 0) {
    put_s(c, " (library ");
    put_s(c, gv_version());
    put_s(c, ")");
  }
  put_s(c, "\n");
}

int usage_error(const char *fmt, const char *detail) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, detail);
  errf(NULL, "grove: error: %s\n", msg);
  fputs(USAGE, stderr);
  return 2;
}

/* ---- applying an option ---- */

/* A whole number in 0..max: decimal digits, optionally times a power of ten written eDIGITS
 * (1e8, 64e6; no sign, no blanks, no fraction); 1 and *out set, or 0. */
static int parse_uint(const char *val, uint64_t max, uint64_t *out) {
  uint64_t v = 0;
  const char *p = val;
  if (*p < '0' || *p > '9') return 0;
  for (; *p >= '0' && *p <= '9'; p++) {
    unsigned d = (unsigned)(*p - '0');
    if (v > (max - d) / 10) return 0;
    v = v * 10 + d;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    unsigned x = 0;
    if (*p < '0' || *p > '9') return 0;
    for (; *p >= '0' && *p <= '9' && x < 100; p++)
      x = x * 10 + (unsigned)(*p - '0');
    for (; x && v; x--) {
      if (v > max / 10) return 0;
      v *= 10;
    }
  }
  if (*p) return 0;
  *out = v;
  return 1;
}

/* Applies option o with value val (NULL if none); returns 0 or the exit code of an error. */
int set_option(cli *c, const optdef *o, const char *val) {
  switch (o->id) {
  case OPT_HELP:
  case OPT_VERSION:
    break; /* acted on once the line is read */
  case OPT_JSON:
    c->json = 1;
    break;
  case OPT_MAX_BYTES: {
    uint64_t v;
    if (!parse_uint(val, SIZE_MAX, &v)) return usage_error("bad --max-bytes value '%s'", val);
    c->max_bytes = (size_t)v;
    c->max_bytes_set = 1;
    break;
  }
  case OPT_MAX_OUTPUT:
    if (!parse_uint(val, UINT64_MAX, &c->max_output))
      return usage_error("bad --max-output value '%s'", val);
    break;
  case OPT_NONE_IS_LEAF:
    if (!val || strcmp(val, "true") == 0)
      c->none_is_leaf = 1;
    else if (strcmp(val, "false") == 0)
      c->none_is_leaf = 0;
    else
      return usage_error("bad --none-is-leaf value '%s' (true or false)", val);
    break;
  case OPT_TOP_DOWN:
    c->top_down = 1;
    break;
  case OPT_BOTTOM_UP:
    c->top_down = 0;
    break;
  case OPT_REPLACE: {
    const char *eq = strchr(val, '=');
    if (!eq || eq == val) return usage_error("--replace needs KIND=VALUE, got '%s'", val);
    c->rules[c->nrules++] = (rule){val, (size_t)(eq - val), eq + 1, NULL};
    break;
  }
  case OPT_TO_NONE:
    if (!*val) return usage_error("%s", "--to-none needs a KIND");
    c->rules[c->nrules++] = (rule){val, strlen(val), NULL, NULL};
    break;
  case OPT_TO:
    if (strcmp(val, "wire") && strcmp(val, "literal") && strcmp(val, "json"))
      return usage_error("bad --to value '%s' (literal, json or wire)", val);
    c->to = val;
    break;
  case OPT_FROM:
    if (strcmp(val, "wire") && strcmp(val, "literal"))
      return usage_error("bad --from value '%s' (literal or wire)", val);
    c->from = val;
    break;
  case OPT_OUTPUT:
    if (!*val) return usage_error("%s", "-o needs a file name");
    c->output = strcmp(val, "-") == 0 ? NULL : val; /* -o - is standard output */
    break;
  case OPT_LINES:
    c->lines = 1;
    break;
  case OPT_FAIL_FAST:
    c->fail_fast = 1;
    break;
  case OPT_JOBS: {
    uint64_t v;
    if (!parse_uint(val, 256, &v) || v < 1)
      return usage_error("bad --jobs value '%s' (1 to 256)", val);
    c->jobs = (size_t)v;
    break;
  }
  }
  return 0;
}
