/* SPDX-License-Identifier: MIT */
/* grove.c -- the grove command-line tool (its manual: docs/grove.1).
 *
 *   grove OP [OPTIONS] [ARG...]
 *
 * Each ARG is a tree in literal notation (docs/notation.md); @PATH reads it from a file and -
 * from standard input; an operation on one tree reads standard input when the tree is not
 * given. Files and standard input may hold grove's binary format instead (told by its magic
 * bytes). Options go anywhere on the line; -- ends them.
 * Exit status: 0 done, 1 the operation's own failure (mismatch, leaf count, is-nested false),
 * 2 bad usage or bad input ("grove: error: ..." on stderr).
 *
 * The operations and the options are the two tables OPS and OPTS below: the help text, the
 * argument checks and "does this option apply to this operation" all come from them. */
#define _POSIX_C_SOURCE 200809L /* fileno, isatty, stat */
#include "grove.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <io.h>
#define isatty _isatty
#define fileno _fileno
#else
#include <unistd.h>
#endif

/* ---------------------------------------------------------------------------
 * The operations
 * ------------------------------------------------------------------------- */

typedef enum op_id {
  OP_FLATTEN,
  OP_FLATTEN_WITH_PATH,
  OP_STRUCTURE,
  OP_IS_NESTED,
  OP_PACK_SEQUENCE_AS,
  OP_MAP,
  OP_MAP_UP_TO,
  OP_MAP_SHAPE,
  OP_TRAVERSE,
  OP_LISTS_TO_TUPLES,
  OP_ORDER,
  OP_ASSERT_SAME_STRUCTURE,
  OP_ASSERT_SAME_PATHS,
  OP_FINGERPRINT,
  OP_CONVERT,
  OP_STATS,
  OP_DEMO,
  OP_COUNT
} op_id;

typedef struct opdef {
  const char *name;
  const char *args; /* as the help shows them */
  size_t min, max;  /* positional arguments (max SIZE_MAX: any number) */
  int stdin_tree;   /* 1: with min - 1 arguments, the last tree is read from standard input */
  const char *help;
} opdef;

#define ANY SIZE_MAX
static const opdef OPS[OP_COUNT] = {
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

#define ON(op) (1u << (op))
#define ALL_OPS ((1u << OP_COUNT) - 1u)
#define TREE_OPS (ALL_OPS & ~ON(OP_DEMO))

/* ---------------------------------------------------------------------------
 * The options: one line each. `ops` is the set of operations an option applies to; giving
 * it to another one is a usage error.
 * ------------------------------------------------------------------------- */

typedef enum opt_id {
  OPT_HELP,
  OPT_VERSION,
  OPT_JSON,
  OPT_MAX_BYTES,
  OPT_MAX_OUTPUT,
  OPT_NONE_IS_LEAF,
  OPT_TOP_DOWN,
  OPT_BOTTOM_UP,
  OPT_REPLACE,
  OPT_TO_NONE,
  OPT_TO,
  OPT_FROM,
  OPT_OUTPUT
} opt_id;

enum { NO_VALUE, VALUE, EQ_VALUE /* optional, only as --name=VALUE */ };

typedef struct optdef {
  opt_id id;
  const char *name; /* long form */
  char letter;      /* short form (-h), or 0 */
  int value;
  const char *metavar;
  unsigned ops;
  const char *help;
} optdef;

static const optdef OPTS[] = {
    {OPT_HELP, "--help", 'h', NO_VALUE, NULL, ALL_OPS, "this help; after OP, that operation's"},
    {OPT_VERSION, "--version", 'V', NO_VALUE, NULL, ALL_OPS, "grove's version"},
    {OPT_JSON, "--json", 0, NO_VALUE, NULL, TREE_OPS, "print one JSON document"},
    {OPT_MAX_BYTES, "--max-bytes", 0, VALUE, "N", TREE_OPS,
     "bound the arena to N bytes (0: unlimited)"},
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
};
#define NOPTS (sizeof OPTS / sizeof OPTS[0])

/* ---------------------------------------------------------------------------
 * The command's state
 * ------------------------------------------------------------------------- */

enum { FN_ID, FN_ADD, FN_TYPE, FN_STR, FN_NONE };
static const char *const FN_NAMES[] = {"id", "add", "type", "str", "none"};

typedef struct rule {
  const char *kind; /* type name */
  size_t kind_len;
  const char *value; /* literal text, NULL for --to-none */
  const gv_node *node;
} rule;

typedef struct cli {
  gv_arena *a;
  op_id op;
  int json;
  size_t max_bytes;
  uint64_t max_output; /* the arena's max_output; flatten-with-path counts its bytes too */
  int none_is_leaf;
  int top_down;
  rule *rules;
  size_t nrules;
  const char *to;
  const char *from;
  const char *output; /* -o FILE */
  int fn;
  char fnmsg[600]; /* a built-in function's own error, if any */
  /* Output. Under --json and -o it is kept in buf and written at the end, so a failing run
   * leaves no half document (and no half file) behind. */
  int buffered;
  char *buf;
  size_t len, cap;
  int buf_oom;
  uint64_t out_bytes; /* written (or kept) so far */
} cli;

static int g_write_failed;

static void put(cli *c, const char *data, size_t len) {
  if (len == 0) return;
  c->out_bytes += len;
  if (c->buffered) {
    if (c->buf_oom) return;
    if (c->cap - c->len < len) {
      size_t ncap = c->cap ? c->cap : 4096;
      while (ncap - c->len < len) {
        if (ncap > SIZE_MAX / 2) {
          c->buf_oom = 1;
          return;
        }
        ncap *= 2;
      }
      char *nb = realloc(c->buf, ncap);
      if (!nb) {
        c->buf_oom = 1;
        return;
      }
      c->buf = nb;
      c->cap = ncap;
    }
    memcpy(c->buf + c->len, data, len);
    c->len += len;
    return;
  }
  if (fwrite(data, 1, len, stdout) != len) g_write_failed = 1;
}

static void put_s(cli *c, const char *s) {
  put(c, s, strlen(s));
}

static gv_status w_out(void *ctx, const char *data, size_t len) {
  cli *c = ctx;
  put(c, data, len);
  return (g_write_failed || c->buf_oom) ? GV_EINVAL : GV_OK;
}

/* s as a JSON string; invalid UTF-8 bytes (a message cut short) become U+FFFD. */
static void put_json_string(cli *c, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  put_s(c, "\"");
  while (*p) {
    unsigned ch = *p;
    char esc[8];
    if (ch == '"' || ch == '\\') {
      esc[0] = '\\', esc[1] = (char)ch, esc[2] = 0;
      put_s(c, esc);
      p++;
    } else if (ch < 0x20) {
      snprintf(esc, sizeof esc, "\\u%04x", ch);
      put_s(c, esc);
      p++;
    } else if (ch < 0x80) {
      put(c, (const char *)p, 1);
      p++;
    } else {
      size_t n = ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc2 ? 2 : 0;
      size_t k = 1;
      while (n && k < n && (p[k] & 0xc0) == 0x80)
        k++;
      if (n && k == n) {
        put(c, (const char *)p, n);
        p += n;
      } else {
        put_s(c, "\\ufffd");
        p++;
      }
    }
  }
  put_s(c, "\"");
}

/* ---------------------------------------------------------------------------
 * Help
 * ------------------------------------------------------------------------- */

static const char USAGE[] = "usage: grove OP [OPTIONS] [ARG...]   (grove --help lists them)\n";

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
static void opt_scope(const optdef *o, char *buf, size_t n) {
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

static void print_help(cli *c, const opdef *only) {
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
           "is-nested false), 2 bad usage or bad input\n");
}

static void print_version(cli *c) {
  put_s(c, "grove " GV_VERSION_STRING);
  if (strcmp(gv_version(), GV_VERSION_STRING) != 0) {
    put_s(c, " (library ");
    put_s(c, gv_version());
    put_s(c, ")");
  }
  put_s(c, "\n");
}

static int usage_error(const char *fmt, const char *detail) {
  fputs("grove: error: ", stderr);
  fprintf(stderr, fmt, detail);
  fputc('\n', stderr);
  fputs(USAGE, stderr);
  return 2;
}

/* ---------------------------------------------------------------------------
 * Reading arguments
 * ------------------------------------------------------------------------- */

static char *g_stdin;
static size_t g_stdin_len;
static int g_stdin_read;

/* Reads all of f into a malloc'd buffer (NUL-terminated). NULL on failure. */
static char *read_all(FILE *f, size_t *len) {
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  for (;;) {
    if (cap - n < 2) {
      if (cap > SIZE_MAX / 2) {
        free(buf);
        errno = ENOMEM;
        return NULL;
      }
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        errno = ENOMEM;
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) {
        int e = errno ? errno : EIO;
        free(buf);
        errno = e;
        return NULL;
      }
      break;
    }
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* The bytes of an argument: stdin for "-", a file for "@PATH", else the text itself.
 * *owned is set when the caller must free the result. NULL on failure (an error was
 * printed). */
static const char *arg_bytes(const char *arg, size_t *len, char **owned) {
  *owned = NULL;
  if (strcmp(arg, "-") == 0) {
    if (!g_stdin_read) {
      g_stdin = read_all(stdin, &g_stdin_len);
      if (!g_stdin) {
        fprintf(stderr, "grove: error: cannot read standard input: %s\n", strerror(errno));
        return NULL;
      }
      g_stdin_read = 1;
    }
    *len = g_stdin_len;
    return g_stdin;
  }
  if (arg[0] == '@') {
    errno = 0;
    FILE *f = fopen(arg + 1, "rb");
    if (!f) {
      fprintf(stderr, "grove: error: cannot read '%s': %s\n", arg + 1,
              strerror(errno ? errno : ENOENT));
      return NULL;
    }
    char *buf = read_all(f, len);
    int e = errno;
    fclose(f);
    if (!buf) {
      fprintf(stderr, "grove: error: cannot read '%s': %s\n", arg + 1, strerror(e ? e : EIO));
      return NULL;
    }
    *owned = buf;
    return buf;
  }
  *len = strlen(arg);
  return arg;
}

/* grove's binary format starts with "GRV" and a version byte (a control character, which
 * literal text cannot hold there). */
static int is_wire(const char *data, size_t len) {
  return len >= 4 && memcmp(data, "GRV", 3) == 0 && (unsigned char)data[3] < 0x20 &&
         !strchr("\t\n\r\f", data[3]);
}

/* Reports a failed status; returns the exit code. what names the step. */
static int report(cli *c, gv_status s, const gv_error *e, const char *what) {
  const char *msg = (e && e->msg[0]) ? e->msg : gv_status_name(s);
  if (g_write_failed) {
    fprintf(stderr, "grove: error: cannot write output\n");
    return 2;
  }
  if (c->buf_oom) {
    fprintf(stderr, "grove: error: out of memory (output)\n");
    return 2;
  }
  if (s == GV_EUSER && c->fnmsg[0]) {
    fprintf(stderr, "grove: error: %s\n", c->fnmsg);
    return 2;
  }
  if (s == GV_ENOMEM) {
    fprintf(stderr, "grove: error: %s%sout of memory budget\n", what ? what : "", what ? ": " : "");
    return 2;
  }
  if (s == GV_EMISMATCH || s == GV_ECOUNT) {
    fprintf(stderr, "grove: %s\n", msg);
    return 1;
  }
  fprintf(stderr, "grove: error: %s%s", what ? what : "", what ? ": " : "");
  if (s == GV_EPARSE && e && e->line && !strstr(msg, "line "))
    fprintf(stderr, "line %zu, column %zu: ", e->line, e->column);
  fprintf(stderr, "%s%s\n", msg,
          s == GV_ERANGE && strstr(msg, "max_output") ? " (see --max-output)" : "");
  return 2;
}

/* Reads argument idx (1-based in messages) into a tree: literal text, or the binary format
 * when a file or standard input starts with its magic bytes (or --from wire says so). */
static int load_arg(cli *c, const char *arg, size_t idx, const gv_node **out) {
  size_t len = 0;
  char *owned = NULL;
  int from_cmdline = strcmp(arg, "-") != 0 && arg[0] != '@';
  int want_wire = c->from && strcmp(c->from, "wire") == 0;
  int want_text = c->from && strcmp(c->from, "literal") == 0;
  if (want_wire && from_cmdline)
    return usage_error("%s", "--from wire reads a file (@PATH) or standard input (-)");
  const char *data = arg_bytes(arg, &len, &owned);
  if (!data) return 2;
  char what[80];
  if (!from_cmdline && arg[0] == '@')
    snprintf(what, sizeof what, "%.70s", arg + 1);
  else if (!from_cmdline)
    snprintf(what, sizeof what, "standard input");
  else
    snprintf(what, sizeof what, "argument %zu", idx);
  gv_error e;
  memset(&e, 0, sizeof e);
  gv_status s;
  if (want_wire || (!want_text && !from_cmdline && is_wire(data, len))) {
    s = gv_decode(c->a, data, len, out, &e);
  } else {
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) { /* a UTF-8 byte order mark */
      data += 3;
      len -= 3;
    }
    s = gv_parse(c->a, data, len, out, &e);
  }
  free(owned);
  if (s == GV_OK) return 0;
  int rc = report(c, s, &e, what);
  struct stat st;
  if (from_cmdline && s != GV_ENOMEM && stat(arg, &st) == 0 && S_ISREG(st.st_mode))
    fprintf(stderr, "grove: hint: '%s' is a file; did you mean @%s?\n", arg, arg);
  return rc;
}

/* Prints a tree (JSON under --json); no newline. */
static gv_status print_node(cli *c, const gv_node *n, gv_error *e) {
  return c->json ? gv_print_json(c->a, n, w_out, c, e) : gv_print(c->a, n, w_out, c, e);
}

/* The Python type name of a node (leaves by kind, containers by gv_type_name). */
static const char *type_name(const gv_node *n, size_t *len) {
  const char *s = NULL;
  switch (gv_kind(n)) {
  case GV_NONE:
    s = "NoneType";
    break;
  case GV_BOOL:
    s = "bool";
    break;
  case GV_INT:
    s = "int";
    break;
  case GV_FLOAT:
    s = "float";
    break;
  case GV_STR:
    s = "str";
    break;
  case GV_BYTES:
    s = "bytes";
    break;
  case GV_HANDLE:
    s = "handle";
    break;
  case GV_STAR:
    s = "star";
    break;
  default: {
    size_t l = 0;
    const char *t = gv_type_name(n, &l);
    if (t) {
      *len = l;
      return t;
    }
    s = "?";
  }
  }
  *len = strlen(s);
  return s;
}

/* ---------------------------------------------------------------------------
 * Built-in functions for map, map-up-to, map-shape
 * ------------------------------------------------------------------------- */

static int parse_fn(const char *name) {
  for (int i = 0; i < (int)(sizeof FN_NAMES / sizeof FN_NAMES[0]); i++)
    if (strcmp(name, FN_NAMES[i]) == 0) return i;
  return -1;
}

static gv_status fn_fail_value(cli *c, gv_arena *a, const char *pre, const gv_node *v) {
  const char *repr = NULL;
  size_t rlen = 0, tlen = 0;
  const char *t = type_name(v, &tlen);
  gv_status s = gv_print_str(a, v, false, &repr, &rlen, NULL);
  if (s != GV_OK) repr = "?", rlen = 1;
  if (rlen > 200) rlen = 200;
  snprintf(c->fnmsg, sizeof c->fnmsg, "%s%.*s (of type %.*s)", pre, (int)rlen, repr, (int)tlen, t);
  return GV_EUSER;
}

static gv_status fn_add(cli *c, gv_arena *a, const gv_node *const *v, size_t n,
                        const gv_node **out) {
  int64_t acc = 0;
  double facc = 0.0;
  int isf = 0;
  for (size_t i = 0; i < n; i++) {
    gv_node_kind k = gv_kind(v[i]);
    if (k == GV_INT || k == GV_BOOL) {
      int64_t x = gv_get_int(v[i]);
      if (isf) {
        facc += (double)x;
      } else if ((x > 0 && acc > INT64_MAX - x) || (x < 0 && acc < INT64_MIN - x)) {
        snprintf(c->fnmsg, sizeof c->fnmsg,
                 "add: integer overflow: the sum leaves the 64-bit range");
        return GV_EUSER;
      } else {
        acc += x;
      }
    } else if (k == GV_FLOAT) {
      if (!isf) {
        facc = (double)acc;
        isf = 1;
      }
      facc += gv_get_float(v[i]);
    } else {
      return fn_fail_value(c, a, "add: not a number: ", v[i]);
    }
  }
  return isf ? gv_float(a, facc, out, NULL) : gv_int(a, acc, out, NULL);
}

static gv_status map_fn(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                        const gv_node **out) {
  cli *c = ctx;
  if (n == 0 && c->fn != FN_ADD && c->fn != FN_NONE) {
    snprintf(c->fnmsg, sizeof c->fnmsg, "function called with no values");
    return GV_EUSER;
  }
  switch (c->fn) {
  case FN_ID:
    *out = values[0];
    return GV_OK;
  case FN_ADD:
    return fn_add(c, a, values, n, out);
  case FN_TYPE: {
    size_t len = 0;
    const char *t = type_name(values[0], &len);
    return gv_str(a, t, len, out, NULL);
  }
  case FN_STR: {
    const char *s = NULL;
    size_t len = 0;
    gv_status st = gv_print_str(a, values[0], false, &s, &len, NULL);
    if (st != GV_OK) return st;
    return gv_str(a, s, len, out, NULL);
  }
  default:
    return gv_none(a, out, NULL);
  }
}

/* ---------------------------------------------------------------------------
 * traverse rules
 * ------------------------------------------------------------------------- */

static gv_status traverse_fn(void *ctx, gv_arena *a, const gv_node *node, gv_visit *action,
                             const gv_node **replacement) {
  cli *c = ctx;
  (void)a;
  size_t len = 0;
  const char *t = type_name(node, &len);
  *action = GV_VISIT_KEEP;
  for (size_t i = 0; i < c->nrules; i++) {
    const rule *r = &c->rules[i];
    if (r->kind_len == len && memcmp(r->kind, t, len) == 0) {
      if (r->node) {
        *action = GV_VISIT_REPLACE;
        *replacement = r->node;
      } else {
        *action = GV_VISIT_NONE;
      }
      break;
    }
  }
  return GV_OK;
}

/* ---------------------------------------------------------------------------
 * flatten-with-path: "(0, 'a')<TAB>leaf" lines, or one JSON array of [path, leaf] pairs
 * ------------------------------------------------------------------------- */

typedef struct path_ctx {
  cli *c;
  gv_error *e; /* the printer's own error (walk_paths fills the outer one) */
  size_t count;
  int too_big;
  uint64_t start; /* c->out_bytes when the walk began */
} path_ctx;

static gv_status path_fn(void *ctx, const gv_node *const *path, size_t depth, const gv_node *leaf) {
  path_ctx *p = ctx;
  cli *c = p->c;
  gv_status s;
  if (c->json)
    put_s(c, p->count ? ", [[" : "[[");
  else
    put_s(c, "(");
  p->count++;
  for (size_t i = 0; i < depth; i++) {
    if (i) put_s(c, ", ");
    s = print_node(c, path[i], p->e);
    if (s != GV_OK) return s;
  }
  if (c->json) {
    put_s(c, "], ");
  } else {
    put_s(c, depth == 1 ? ",)\t" : ")\t");
  }
  s = print_node(c, leaf, p->e);
  if (s != GV_OK) return s;
  put_s(c, c->json ? "]" : "\n");
  if (c->max_output && c->out_bytes - p->start > c->max_output) { /* paths repeat their keys */
    p->too_big = 1;
    return GV_ERANGE;
  }
  return (g_write_failed || c->buf_oom) ? GV_EINVAL : GV_OK;
}

/* ---------------------------------------------------------------------------
 * stats: an explicit-stack walk with a pointer map (node -> subtree size)
 * ------------------------------------------------------------------------- */

typedef struct pmap {
  const gv_node **keys;
  uint64_t *vals;
  size_t cap, len; /* cap a power of two */
} pmap;

static size_t pmap_slot(const pmap *m, const gv_node *k) {
  uint64_t h = (uint64_t)(uintptr_t)k;
  h ^= h >> 33;
  h *= UINT64_C(0xff51afd7ed558ccd);
  h ^= h >> 33;
  size_t i = (size_t)h & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != k)
    i = (i + 1) & (m->cap - 1);
  return i;
}

static int pmap_get(const pmap *m, const gv_node *k, uint64_t *v) {
  if (!m->cap) return 0;
  size_t i = pmap_slot(m, k);
  if (!m->keys[i]) return 0;
  *v = m->vals[i];
  return 1;
}

static int pmap_put(pmap *m, const gv_node *k, uint64_t v) {
  if ((m->len + 1) * 2 > m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    if (ncap > SIZE_MAX / sizeof(uint64_t)) return 0;
    pmap nm = {calloc(ncap, sizeof(const gv_node *)), calloc(ncap, sizeof(uint64_t)), ncap, 0};
    if (!nm.keys || !nm.vals) {
      free((void *)nm.keys);
      free(nm.vals);
      return 0;
    }
    for (size_t i = 0; i < m->cap; i++) {
      if (m->keys[i]) {
        size_t j = pmap_slot(&nm, m->keys[i]);
        nm.keys[j] = m->keys[i];
        nm.vals[j] = m->vals[i];
        nm.len++;
      }
    }
    free((void *)m->keys);
    free(m->vals);
    *m = nm;
  }
  size_t i = pmap_slot(m, k);
  if (!m->keys[i]) m->len++;
  m->keys[i] = k;
  m->vals[i] = v;
  return 1;
}

static uint64_t sat_add(uint64_t x, uint64_t y) {
  return x > UINT64_MAX - y ? UINT64_MAX : x + y;
}

typedef struct sframe {
  const gv_node *n;
  size_t i;
  uint64_t sum;
} sframe;

static int do_stats(cli *c, const gv_node *t) {
  pmap m = {NULL, NULL, 0, 0};
  sframe *st = NULL;
  size_t sp = 0, scap = 0;
  int ok = 1;
  if (!gv_is_nested(t)) {
    ok = pmap_put(&m, t, 1);
  } else {
    scap = 64;
    st = malloc(scap * sizeof *st);
    if (!st) ok = 0;
    if (ok) st[sp++] = (sframe){t, 0, 1};
    while (ok && sp) {
      sframe *f = &st[sp - 1];
      if (f->i < gv_arity(f->n)) {
        const gv_node *ch = gv_child(f->n, f->i++);
        uint64_t v;
        if (pmap_get(&m, ch, &v)) {
          f->sum = sat_add(f->sum, v);
        } else if (!gv_is_nested(ch)) {
          if (!pmap_put(&m, ch, 1)) ok = 0;
          f->sum = sat_add(f->sum, 1);
        } else {
          if (sp == scap) {
            sframe *ns =
                scap > SIZE_MAX / 2 / sizeof *st ? NULL : realloc(st, 2 * scap * sizeof *st);
            if (!ns) {
              ok = 0;
              break;
            }
            st = ns;
            scap *= 2;
          }
          st[sp++] = (sframe){ch, 0, 1};
        }
      } else {
        sframe done = *f;
        sp--;
        if (!pmap_put(&m, done.n, done.sum)) ok = 0;
        if (sp) st[sp - 1].sum = sat_add(st[sp - 1].sum, done.sum);
      }
    }
  }
  uint64_t nodes = 0;
  if (ok) ok = pmap_get(&m, t, &nodes);
  size_t distinct = m.len;
  free(st);
  free((void *)m.keys);
  free(m.vals);
  if (!ok) {
    fprintf(stderr, "grove: error: stats: out of memory\n");
    return 2;
  }
  gv_stats s;
  gv_arena_stats(c->a, &s);
  char buf[256];
  snprintf(buf, sizeof buf,
           c->json ? "{\"nodes\": %" PRIu64 ", \"distinct_nodes\": %zu, \"leaves\": %" PRIu64
                     ", \"depth\": %zu, \"arena_bytes\": %zu}\n"
                   : "nodes: %" PRIu64 "\ndistinct nodes: %zu\nleaves: %" PRIu64
                     "\ndepth: %zu\narena bytes: %zu\n",
           nodes, distinct, gv_num_leaves(t), gv_depth(t), s.bytes_reserved);
  put_s(c, buf);
  return 0;
}

/* ---------------------------------------------------------------------------
 * Running one operation
 * ------------------------------------------------------------------------- */

static int run_demo(void);

static gv_status star_to_none(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                              const gv_node **out) {
  (void)ctx, (void)values, (void)n;
  return gv_none(a, out, NULL);
}

static int oom(void) {
  fprintf(stderr, "grove: error: out of memory\n");
  return 2;
}

static int run_op(cli *c, const char *const *args, size_t n) {
  gv_error e;
  memset(&e, 0, sizeof e);
  gv_status s = GV_OK;
  const gv_node *out = NULL;
  int rc = 0;
  const gv_node **trees = calloc(n ? n : 1, sizeof *trees);
  if (!trees) return oom();

  int fn_op = c->op == OP_MAP || c->op == OP_MAP_UP_TO || c->op == OP_MAP_SHAPE;
  if (fn_op) {
    c->fn = parse_fn(args[0]);
    if (c->fn < 0) {
      rc = usage_error("unknown function '%s' (id, add, type, str, none)", args[0]);
      goto done;
    }
  }
  if (c->op == OP_CONVERT && c->to && strcmp(c->to, "wire") == 0 && !c->output &&
      isatty(fileno(stdout))) {
    fprintf(stderr, "grove: error: convert: refusing to write binary output to a terminal "
                    "(use -o FILE or redirect standard output)\n");
    rc = 2;
    goto done;
  }
  for (size_t i = fn_op ? 1 : 0; i < n; i++) {
    rc = load_arg(c, args[i], i + 1, &trees[i]);
    if (rc) goto done;
  }
  for (size_t i = 0; i < c->nrules; i++) {
    if (!c->rules[i].value) continue;
    const char *v = c->rules[i].value;
    s = gv_parse(c->a, v, strlen(v), &c->rules[i].node, &e);
    if (s != GV_OK) {
      rc = report(c, s, &e, "--replace");
      goto done;
    }
  }

  const gv_node *t = trees[0];
  switch (c->op) {
  case OP_FLATTEN: {
    uint64_t nl = gv_num_leaves(t);
    if (c->max_output && gv_expanded_size(t) > c->max_output) {
      fprintf(stderr,
              "grove: error: output too large: the tree written out is %" PRIu64
              " nodes and bytes, more than --max-output %" PRIu64 "\n",
              gv_expanded_size(t), c->max_output);
      rc = 2;
      goto done;
    }
    if (nl > SIZE_MAX / sizeof(gv_node *)) {
      rc = oom();
      goto done;
    }
    const gv_node **leaves = malloc((size_t)nl ? (size_t)nl * sizeof *leaves : 1);
    if (!leaves) {
      rc = oom();
      goto done;
    }
    size_t got = 0;
    s = gv_flatten(t, leaves, (size_t)nl, &got, &e);
    if (c->json) put_s(c, "[");
    for (size_t i = 0; s == GV_OK && i < got; i++) {
      if (c->json && i) put_s(c, ", ");
      s = print_node(c, leaves[i], &e);
      if (!c->json) put_s(c, "\n");
    }
    if (c->json) put_s(c, "]\n");
    free(leaves);
    break;
  }
  case OP_FLATTEN_WITH_PATH: {
    gv_error pe;
    memset(&pe, 0, sizeof pe);
    path_ctx p = {c, &pe, 0, 0, c->out_bytes};
    if (c->json) put_s(c, "[");
    s = gv_walk_paths(c->a, t, path_fn, &p, &e);
    if (p.too_big) {
      fprintf(stderr, "grove: error: output too large: more than --max-output %" PRIu64 " bytes\n",
              c->max_output);
      rc = 2;
      goto done;
    }
    if (s != GV_OK && pe.status != GV_OK) e = pe; /* the printer's own message */
    if (c->json) put_s(c, "]\n");
    break;
  }
  case OP_STRUCTURE:
    s = gv_structure(c->a, t, &out, &e);
    if (s == GV_OK && c->json) { /* JSON has no *: the leaves print as null (no None is left) */
      const gv_node *skeleton = out;
      s = gv_map(c->a, star_to_none, NULL, &skeleton, 1, true, &out, &e);
    }
    break;
  case OP_IS_NESTED: {
    int nested = gv_is_nested(t);
    put_s(c, c->json ? (nested ? "true\n" : "false\n") : (nested ? "True\n" : "False\n"));
    rc = nested ? 0 : 1;
    goto done;
  }
  case OP_PACK_SEQUENCE_AS: {
    const gv_node *l = trees[1];
    if (gv_kind(l) != GV_LIST) {
      fprintf(stderr, "grove: error: pack-sequence-as: the leaves (argument 2) must be a list\n");
      rc = 2;
      goto done;
    }
    size_t k = gv_arity(l);
    const gv_node **items = malloc(k ? k * sizeof *items : 1);
    if (!items) {
      rc = oom();
      goto done;
    }
    for (size_t i = 0; i < k; i++)
      items[i] = gv_child(l, i);
    s = gv_pack_sequence_as(c->a, t, items, k, &out, &e);
    free(items);
    break;
  }
  case OP_MAP:
    s = gv_map(c->a, map_fn, c, trees + 1, n - 1, c->none_is_leaf != 0, &out, &e);
    break;
  case OP_MAP_UP_TO:
    s = gv_map_up_to(c->a, trees[1], map_fn, c, trees + 2, n - 2, &out, &e);
    break;
  case OP_MAP_SHAPE:
    s = gv_map_shape(c->a, map_fn, c, trees[1], &out, &e);
    break;
  case OP_TRAVERSE:
    s = gv_traverse(c->a, t, c->top_down != 0, traverse_fn, c, &out, &e);
    break;
  case OP_LISTS_TO_TUPLES:
    s = gv_lists_to_tuples(c->a, t, &out, &e);
    break;
  case OP_ORDER: {
    bool changed = false;
    s = gv_order(c->a, t, &out, &changed, &e);
    if (s != GV_OK) break;
    put_s(c, c->json ? "{\"tree\": " : "");
    s = print_node(c, out, &e);
    if (s != GV_OK) break;
    if (c->json)
      put_s(c, changed ? ", \"changed\": true}\n" : ", \"changed\": false}\n");
    else
      put_s(c, changed ? "\nchanged: true\n" : "\nchanged: false\n");
    out = NULL;
    break;
  }
  case OP_ASSERT_SAME_STRUCTURE:
  case OP_ASSERT_SAME_PATHS:
    s = c->op == OP_ASSERT_SAME_STRUCTURE ? gv_same_structure(c->a, trees[0], trees[1], &e)
                                          : gv_same_paths(c->a, trees[0], trees[1], &e);
    if (s == GV_EMISMATCH) {
      const char *msg = e.msg[0] ? e.msg : "mismatch";
      if (c->json) {
        put_s(c, "{\"ok\": false, \"error\": ");
        put_json_string(c, msg);
        put_s(c, "}\n");
      } else {
        put_s(c, msg);
        put_s(c, "\n");
      }
      rc = 1;
      goto done;
    }
    if (s == GV_OK && c->json) put_s(c, "{\"ok\": true}\n");
    break;
  case OP_FINGERPRINT: {
    uint8_t fp[16];
    s = gv_fingerprint(c->a, t, fp, &e);
    if (s != GV_OK) break;
    char hex[40];
    for (size_t i = 0; i < 16; i++)
      snprintf(hex + 2 * i, 3, "%02x", (unsigned)fp[i]);
    put_s(c, c->json ? "\"" : "");
    put(c, hex, 32);
    put_s(c, c->json ? "\"\n" : "\n");
    break;
  }
  case OP_CONVERT: {
    const char *to = c->to ? c->to : (c->json ? "json" : "literal");
    if (strcmp(to, "wire") == 0) {
      s = gv_encode(c->a, t, w_out, c, &e);
    } else {
      c->json = strcmp(to, "json") == 0;
      out = t;
    }
    break;
  }
  case OP_STATS:
    rc = do_stats(c, t);
    goto done;
  default:
    break;
  }
  if (s == GV_OK && out) {
    s = print_node(c, out, &e);
    if (s == GV_OK) put_s(c, "\n");
  }
  if (s == GV_OK && (g_write_failed || c->buf_oom)) s = GV_EINVAL;
  if (s != GV_OK) rc = report(c, s, &e, NULL);

done:
  free(trees);
  return rc;
}

/* ---------------------------------------------------------------------------
 * The command line
 * ------------------------------------------------------------------------- */

/* A word starting with '-' that is a literal, not an option: -5, -.5, -inf, -nan, ... */
static int negative_literal(const char *w) {
  if ((w[1] >= '0' && w[1] <= '9') || w[1] == '.') return 1;
  return strcmp(w + 1, "inf") == 0 || strcmp(w + 1, "Infinity") == 0 || strcmp(w + 1, "nan") == 0 ||
         strcmp(w + 1, "NaN") == 0;
}

/* Applies option o with value val (NULL if none); returns 0 or the exit code of an error. */
static int set_option(cli *c, const optdef *o, const char *val) {
  switch (o->id) {
  case OPT_HELP:
  case OPT_VERSION:
    break; /* acted on once the line is read */
  case OPT_JSON:
    c->json = 1;
    break;
  case OPT_MAX_BYTES: {
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 10);
    if (!*val || *end || errno || val[0] == '-' || v > SIZE_MAX)
      return usage_error("bad --max-bytes value '%s'", val);
    c->max_bytes = (size_t)v;
    break;
  }
  case OPT_MAX_OUTPUT: {
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(val, &end, 10);
    if (!*val || *end || errno || val[0] == '-')
      return usage_error("bad --max-output value '%s'", val);
    c->max_output = (uint64_t)v;
    break;
  }
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
  }
  return 0;
}

/* Writes the kept output to -o FILE or standard output. */
static int flush_kept(cli *c) {
  if (!c->output) {
    if (c->len && fwrite(c->buf, 1, c->len, stdout) != c->len) g_write_failed = 1;
    return 0;
  }
  errno = 0;
  FILE *f = fopen(c->output, "wb");
  int ok = f != NULL;
  if (ok && c->len && fwrite(c->buf, 1, c->len, f) != c->len) ok = 0;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok) {
    fprintf(stderr, "grove: error: cannot write '%s': %s\n", c->output,
            strerror(errno ? errno : EIO));
    return 2;
  }
  return 0;
}

/* One whole invocation (argv without the program name). Returns the exit code. */
static int cli_main(size_t argc, const char *const *argv) {
  cli c;
  memset(&c, 0, sizeof c);
  c.none_is_leaf = 1;
  c.top_down = 1;
  c.max_output = UINT64_C(100000000); /* 10^8: a tree from outside cannot print forever */
  int rc = 0;
  const char **pos = calloc(argc + 1, sizeof *pos);
  const optdef **given = calloc(argc + 1, sizeof *given); /* each option given, in order */
  const char **spelled = calloc(argc + 1, sizeof *spelled);
  c.rules = calloc(argc + 1, sizeof *c.rules);
  if (!pos || !given || !spelled || !c.rules) {
    rc = oom();
    goto out;
  }
  size_t npos = 0, ngiven = 0;
  int help = 0, version = 0, ended = 0;
  for (size_t i = 0; i < argc; i++) {
    const char *w = argv[i];
    if (ended || w[0] != '-' || w[1] == '\0' || (w[1] != '-' && negative_literal(w))) {
      pos[npos++] = w;
      continue;
    }
    if (strcmp(w, "--") == 0) {
      ended = 1;
      continue;
    }
    const optdef *o = NULL;
    const char *val = NULL;
    if (w[1] == '-') {
      const char *eq = strchr(w, '=');
      size_t nlen = eq ? (size_t)(eq - w) : strlen(w);
      for (size_t k = 0; k < NOPTS; k++)
        if (strlen(OPTS[k].name) == nlen && memcmp(OPTS[k].name, w, nlen) == 0) o = &OPTS[k];
      if (o && eq) {
        if (o->value == NO_VALUE) {
          rc = usage_error("option %s takes no value", o->name);
          goto out;
        }
        val = eq + 1;
      }
    } else if (w[2] == '\0') {
      for (size_t k = 0; k < NOPTS; k++)
        if (OPTS[k].letter == w[1]) o = &OPTS[k];
    }
    if (!o) {
      rc = usage_error("unknown option '%s'", w);
      goto out;
    }
    if (o->value == VALUE && !val) {
      if (i + 1 >= argc) {
        rc = usage_error("option %s needs a value", w);
        goto out;
      }
      val = argv[++i];
    }
    if (o->id == OPT_HELP) help = 1;
    if (o->id == OPT_VERSION) version = 1;
    given[ngiven] = o;
    spelled[ngiven++] = w;
    if ((rc = set_option(&c, o, val)) != 0) goto out;
  }

  const opdef *def = NULL;
  if (npos > 0) {
    for (int k = 0; k < OP_COUNT; k++)
      if (strcmp(OPS[k].name, pos[0]) == 0) def = &OPS[k];
    if (!def && strcmp(pos[0], "help") == 0 && npos <= 2) { /* grove help [OP] */
      help = 1;
      for (int k = 0; npos == 2 && k < OP_COUNT; k++)
        if (strcmp(OPS[k].name, pos[1]) == 0) def = &OPS[k];
      if (npos == 2 && !def) {
        rc = usage_error("unknown operation '%s'", pos[1]);
        goto out;
      }
    }
  }
  if (help || version) {
    if (help)
      print_help(&c, def);
    else
      print_version(&c);
    goto out;
  }
  if (npos == 0) {
    fputs("grove: error: no operation given\n", stderr);
    fputs(USAGE, stderr);
    rc = 2;
    goto out;
  }
  if (!def) {
    rc = usage_error("unknown operation '%s'", pos[0]);
    goto out;
  }
  c.op = (op_id)(def - OPS);
  for (size_t k = 0; k < ngiven; k++) {
    if (given[k]->ops & ON(c.op)) continue;
    char scope[128];
    opt_scope(given[k], scope, sizeof scope);
    fprintf(stderr, "grove: error: option %s does not apply to %s%s%s%s\n", spelled[k], def->name,
            scope[0] ? " (it is for " : "", scope, scope[0] ? ")" : "");
    fputs(USAGE, stderr);
    rc = 2;
    goto out;
  }
  if (c.op == OP_CONVERT && c.json && c.to && strcmp(c.to, "json") != 0) {
    rc = usage_error("--json and --to %s contradict each other", c.to);
    goto out;
  }

  const char **args = pos + 1;
  size_t nargs = npos - 1;
  if (def->stdin_tree && nargs + 1 == def->min) args[nargs++] = "-"; /* pos has room */
  if (nargs < def->min || nargs > def->max) {
    fprintf(stderr, "grove: error: %s: wrong number of arguments (%zu)\n", def->name, nargs);
    fprintf(stderr, "usage: grove %s [OPTIONS] %s\n", def->name, def->args);
    rc = 2;
    goto out;
  }
  if (c.op == OP_DEMO) {
    rc = run_demo();
    goto out;
  }

  c.buffered = c.json || c.output || c.op == OP_CONVERT;
  gv_arena_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_bytes = c.max_bytes;
  cfg.max_output = c.max_output;
  gv_status s = gv_arena_new(&cfg, &c.a);
  if (s != GV_OK) {
    c.a = NULL;
    rc = report(&c, s, NULL, NULL);
    goto out;
  }
  rc = run_op(&c, args, nargs);
  gv_arena_free(c.a);
  if (c.buffered && (rc == 0 || rc == 1)) {
    if (c.buf_oom) {
      rc = oom();
    } else {
      int frc = flush_kept(&c);
      if (frc) rc = frc;
    }
  }

out:
  free(c.buf);
  free(c.rules);
  free(spelled);
  free((void *)given);
  free((void *)pos);
  if (fflush(stdout) != 0) g_write_failed = 1;
  if (g_write_failed && rc == 0) {
    fputs("grove: error: cannot write output\n", stderr);
    rc = 2;
  }
  return rc;
}

/* ---------------------------------------------------------------------------
 * demo
 * ------------------------------------------------------------------------- */

#define SAMPLE "[{'b': 1, 'a': [2, 3]}, (4, 5), 6]"

typedef struct demo_step {
  int expect; /* exit code */
  const char *argv[8];
} demo_step;

static const demo_step DEMO[] = {
    {0, {"flatten", SAMPLE}},
    {0, {"flatten-with-path", SAMPLE}},
    {0, {"structure", SAMPLE}},
    {0, {"is-nested", SAMPLE}},
    {1, {"is-nested", "'leaf'"}},
    {0, {"pack-sequence-as", SAMPLE, "[10, 20, 30, 40, 50, 60]"}},
    {0, {"map", "add", SAMPLE, SAMPLE}},
    {0, {"map", "type", "[None, True, 1, 2.5, 'x', b'y', &7, *]"}},
    {0, {"map", "str", "Point(x=1, y=(2, 'z'))"}},
    {0, {"map", "--none-is-leaf=false", "add", "[1, None]", "[10, None]"}},
    {0, {"map-up-to", "str", "[0, 0, 0]", SAMPLE}},
    {0, {"map-shape", "type", "{'shape': (2, 3), 'x': [1.5, ()]}"}},
    {0, {"traverse", "--replace", "tuple=0", SAMPLE}},
    {0, {"traverse", "--bottom-up", "--to-none", "tuple", SAMPLE}},
    {0, {"lists-to-tuples", SAMPLE}},
    {0, {"order", "{'b': {'d': 4, 'c': 3}, 'a': OrderedDict({'y': 1, 'x': 2})}"}},
    {0, {"order", "{'b': [1, 2], 'a': None}", "--json"}},
    {0, {"assert-same-structure", SAMPLE, "[{'a': [0, 0], 'b': None}, (0, 0), 'x']"}},
    {1, {"assert-same-structure", SAMPLE, "[{'b': 1, 'a': [2]}, (4, 5), 6]"}},
    {0, {"assert-same-paths", "[1, 2]", "(10, 20)"}},
    {1, {"assert-same-paths", "[1, [2]]", "{0: 1, 'k': 2}"}},
    {0, {"fingerprint", SAMPLE}},
    {0, {"convert", "--to", "json", "{'a': [1, 2.5, None], 'b': 'text'}"}},
    {0, {"stats", "[[1, 2], [1, 2], (3, [1, 2])]"}},
};

static void demo_show_cmd(const char *const *argv) {
  fputs("$ grove", stdout);
  for (size_t i = 0; argv[i]; i++) {
    const char *a = argv[i];
    int plain = *a != '\0';
    for (const char *p = a; *p; p++)
      if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.", *p))
        plain = 0;
    fputs(" ", stdout);
    if (plain) {
      fputs(a, stdout);
    } else {
      fputs("\"", stdout);
      fputs(a, stdout);
      fputs("\"", stdout);
    }
  }
  fputs("\n", stdout);
}

static int run_demo(void) {
  fputs("grove demo: every operation on a few small trees (" GV_VERSION_STRING ")\n", stdout);
  fputs("sample: " SAMPLE "\n", stdout);
  int bad = 0;
  for (size_t k = 0; k < sizeof DEMO / sizeof DEMO[0]; k++) {
    const demo_step *st = &DEMO[k];
    size_t n = 0;
    while (n < 8 && st->argv[n])
      n++;
    fputs("\n", stdout);
    demo_show_cmd(st->argv);
    if (fflush(stdout) != 0) g_write_failed = 1;
    int rc = cli_main(n, st->argv);
    if (rc != 0) printf("(exit %d)\n", rc);
    if (rc != st->expect) bad = 1;
    if (g_write_failed) return 2; /* already reported */
  }
  if (bad) {
    if (fflush(stdout) != 0) g_write_failed = 1;
    fputs("grove: error: demo: a step did not give its expected exit status\n", stderr);
    return 2;
  }
  return 0;
}

int main(int argc, char **argv) {
  static char buf[1 << 16];
  setvbuf(stdout, buf, _IOFBF, sizeof buf);
  int rc = cli_main(argc > 0 ? (size_t)(argc - 1) : 0, (const char *const *)(argv + 1));
  if (fflush(stdout) != 0 && rc == 0) {
    fputs("grove: error: cannot write output\n", stderr);
    rc = 2;
  }
  free(g_stdin);
  return rc;
}
