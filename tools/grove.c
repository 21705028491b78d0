/* grove.c -- the grove command-line tool (see ../shared/CLI.md).
 *
 *   grove OP [OPTIONS] ARG...
 *
 * Each ARG is a tree in literal notation, @PATH reads it from a file and - from
 * standard input. Exit status: 0 done, 1 the operation's own failure (mismatch,
 * leaf count), 2 bad usage or bad input ("grove: error: ..." on stderr). */
#include "grove.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------------- */

static int g_write_failed;
static uint64_t g_out_bytes; /* written so far (flatten-with-path checks it) */

static gv_status w_stdout(void *ctx, const char *data, size_t len) {
  (void)ctx;
  g_out_bytes += len;
  if (len && fwrite(data, 1, len, stdout) != len) {
    g_write_failed = 1;
    return GV_EINVAL;
  }
  return GV_OK;
}

static void out_s(const char *s) {
  g_out_bytes += strlen(s);
  if (fputs(s, stdout) == EOF) g_write_failed = 1;
}

static const char USAGE[] =
    "usage: grove OP [OPTIONS] ARG...   (grove --help lists the operations)\n";

static const char HELP[] =
    "usage: grove OP [OPTIONS] ARG...\n"
    "\n"
    "Each ARG is a tree in literal notation; @PATH reads it from a file, - from stdin.\n"
    "Options come before the arguments.\n"
    "\n"
    "operations:\n"
    "  flatten T                 each leaf on its own line\n"
    "  flatten-with-path T       PATH<TAB>LEAF per leaf\n"
    "  structure T               T with * for every leaf\n"
    "  is-nested T               True or False\n"
    "  pack-sequence-as S L      S rebuilt with the items of the list L\n"
    "  map FN T...               the mapped tree (FN: id, add, type, str, none)\n"
    "  map-up-to FN S T...       FN applied to the subtrees at S's leaves\n"
    "  map-shape FN T            like map, lists/tuples of ints or None are leaves\n"
    "  traverse T                rewrite with --replace / --to-none rules\n"
    "  lists-to-tuples T         every list becomes a tuple\n"
    "  order T                   dicts in sorted-key order; then 'changed: true|false'\n"
    "  assert-same-structure A B nothing (exit 0) or the mismatch (exit 1)\n"
    "  assert-same-paths A B     nothing (exit 0) or the difference (exit 1)\n"
    "  fingerprint T             32 hex digits\n"
    "  convert T                 --to literal|json|wire, --from literal|wire\n"
    "  stats T                   nodes, distinct nodes, leaves, depth, arena bytes\n"
    "  demo                      a short tour of every operation\n"
    "\n"
    "options:\n"
    "  --json                    print JSON instead of literal notation\n"
    "  --max-bytes N             bound the arena to N bytes (0: unlimited)\n"
    "  --max-output N            refuse trees larger than N written out (nodes + str/bytes\n"
    "                            bytes; default 100000000; 0: unlimited)\n"
    "  --none-is-leaf=false      map: None is an empty node (default true)\n"
    "  --top-down, --bottom-up   traverse order (default top-down)\n"
    "  --replace KIND=VALUE      traverse: replace subtrees of type KIND by VALUE\n"
    "  --to-none KIND            traverse: map subtrees of type KIND to None\n"
    "  --to FMT, --from FMT      convert: output / input format\n"
    "\n"
    "exit status: 0 done, 1 the operation failed (mismatch, leaf count), 2 bad usage or input\n";

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

/* The text of an argument: stdin for "-", a file for "@PATH", else itself.
 * *owned is set when the caller must free the result. NULL on failure (an
 * error was printed). */
static const char *arg_text(const char *arg, size_t *len, char **owned) {
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

/* ---------------------------------------------------------------------------
 * The command's state
 * ------------------------------------------------------------------------- */

enum { FN_ID, FN_ADD, FN_TYPE, FN_STR, FN_NONE };

typedef struct rule {
  const char *kind; /* type name */
  size_t kind_len;
  const char *value; /* literal text, NULL for --to-none */
  const gv_node *node;
} rule;

#define DEFAULT_MAX_OUTPUT UINT64_C(100000000)

typedef struct cli {
  gv_arena *a;
  int json;
  size_t max_bytes;
  uint64_t max_output;
  int none_is_leaf;
  int top_down;
  rule *rules;
  size_t nrules;
  const char *to;
  const char *from;
  int fn;
  char fnmsg[600]; /* a built-in function's own error, if any */
} cli;

static int usage_error(const char *fmt, const char *detail) {
  fputs("grove: error: ", stderr);
  fprintf(stderr, fmt, detail);
  fputc('\n', stderr);
  fputs(USAGE, stderr);
  return 2;
}

/* Reports a failed status; returns the exit code. what names the step. */
static int report(cli *c, gv_status s, const gv_error *e, const char *what) {
  const char *msg = (e && e->msg[0]) ? e->msg : gv_status_name(s);
  if (g_write_failed) {
    fprintf(stderr, "grove: error: cannot write output\n");
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

/* Parses literal text; prints the error and returns 2 on failure. */
static int parse_text(cli *c, const char *text, size_t len, const char *what, const gv_node **out) {
  gv_error e;
  memset(&e, 0, sizeof e);
  gv_status s = gv_parse(c->a, text, len, out, &e);
  if (s != GV_OK) return report(c, s, &e, what);
  return 0;
}

/* Reads and parses argument i (1-based in messages). */
static int load_arg(cli *c, const char *arg, size_t idx, const gv_node **out) {
  size_t len = 0;
  char *owned = NULL;
  const char *text = arg_text(arg, &len, &owned);
  if (!text) return 2;
  char what[64];
  snprintf(what, sizeof what, "argument %zu", idx);
  int rc = parse_text(c, text, len, what, out);
  free(owned);
  return rc;
}

/* Prints a tree (JSON under --json); no newline. */
static gv_status print_node(cli *c, const gv_node *n, gv_error *e) {
  return c->json ? gv_print_json(c->a, n, w_stdout, NULL, e) : gv_print(c->a, n, w_stdout, NULL, e);
}

static int print_line(cli *c, const gv_node *n) {
  gv_error e;
  memset(&e, 0, sizeof e);
  gv_status s = print_node(c, n, &e);
  if (s != GV_OK) return report(c, s, &e, NULL);
  out_s("\n");
  return 0;
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
  if (strcmp(name, "id") == 0) return FN_ID;
  if (strcmp(name, "add") == 0) return FN_ADD;
  if (strcmp(name, "type") == 0) return FN_TYPE;
  if (strcmp(name, "str") == 0) return FN_STR;
  if (strcmp(name, "none") == 0) return FN_NONE;
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
 * flatten-with-path
 * ------------------------------------------------------------------------- */

typedef struct path_ctx {
  cli *c;
  gv_error *e; /* the printer's own error (walk_paths fills the outer one) */
  int too_big;
  uint64_t start; /* g_out_bytes when the walk began */
} path_ctx;

static gv_status path_fn(void *ctx, const gv_node *const *path, size_t depth, const gv_node *leaf) {
  path_ctx *p = ctx;
  cli *c = p->c;
  gv_status s;
  out_s(c->json ? "[" : "(");
  for (size_t i = 0; i < depth; i++) {
    if (i) out_s(", ");
    s = print_node(c, path[i], p->e);
    if (s != GV_OK) return s;
  }
  if (depth == 1 && !c->json) out_s(",");
  out_s(c->json ? "]\t" : ")\t");
  s = print_node(c, leaf, p->e);
  if (s != GV_OK) return s;
  out_s("\n");
  if (c->max_output && g_out_bytes - p->start > c->max_output) { /* keys repeat on every line */
    p->too_big = 1;
    return GV_ERANGE;
  }
  return g_write_failed ? GV_EINVAL : GV_OK;
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
           "nodes: %" PRIu64 "\ndistinct nodes: %zu\nleaves: %" PRIu64
           "\ndepth: %zu\narena bytes: %zu\n",
           nodes, distinct, gv_num_leaves(t), gv_depth(t), s.bytes_reserved);
  out_s(buf);
  return 0;
}

/* ---------------------------------------------------------------------------
 * The operations
 * ------------------------------------------------------------------------- */

typedef struct opdef {
  const char *name;
  size_t min, max; /* argument counts (max SIZE_MAX: any) */
  const char *args;
} opdef;

static const opdef OPS[] = {
    {"flatten", 1, 1, "T"},
    {"flatten-with-path", 1, 1, "T"},
    {"structure", 1, 1, "T"},
    {"is-nested", 1, 1, "T"},
    {"pack-sequence-as", 2, 2, "S L"},
    {"map", 1, SIZE_MAX, "FN T..."},
    {"map-up-to", 3, SIZE_MAX, "FN S T..."},
    {"map-shape", 2, 2, "FN T"},
    {"traverse", 1, 1, "T"},
    {"lists-to-tuples", 1, 1, "T"},
    {"order", 1, 1, "T"},
    {"assert-same-structure", 2, 2, "A B"},
    {"assert-same-paths", 2, 2, "A B"},
    {"fingerprint", 1, 1, "T"},
    {"convert", 1, 1, "T"},
    {"stats", 1, 1, "T"},
    {"demo", 0, 0, ""},
};

static int run_demo(void);

/* Loads arguments first..n-1 (1-based index in messages) into trees. */
static int load_args(cli *c, const char *const *args, size_t n, size_t first,
                     const gv_node **trees) {
  for (size_t i = first; i < n; i++) {
    int rc = load_arg(c, args[i], i + 1, &trees[i]);
    if (rc) return rc;
  }
  return 0;
}

static int run_op(cli *c, const char *op, const char *const *args, size_t n) {
  gv_error e;
  memset(&e, 0, sizeof e);
  gv_status s = GV_OK;
  const gv_node *out = NULL;
  int rc = 0;
  const gv_node **trees = calloc(n ? n : 1, sizeof *trees);
  if (!trees) {
    fprintf(stderr, "grove: error: out of memory\n");
    return 2;
  }

  int fn_ops =
      strcmp(op, "map") == 0 || strcmp(op, "map-up-to") == 0 || strcmp(op, "map-shape") == 0;
  if (fn_ops) {
    c->fn = parse_fn(args[0]);
    if (c->fn < 0) {
      rc = usage_error("unknown function '%s' (id, add, type, str, none)", args[0]);
      goto done;
    }
  }
  int from_wire = strcmp(op, "convert") == 0 && c->from && strcmp(c->from, "wire") == 0;
  if (from_wire) {
    if (strcmp(args[0], "-") != 0 && args[0][0] != '@') {
      rc = usage_error("%s", "convert --from wire reads - or @PATH");
      goto done;
    }
    size_t len = 0;
    char *owned = NULL;
    const char *data = arg_text(args[0], &len, &owned);
    if (!data) {
      rc = 2;
      goto done;
    }
    s = gv_decode(c->a, data, len, &trees[0], &e);
    free(owned);
    if (s != GV_OK) {
      rc = report(c, s, &e, "argument 1");
      goto done;
    }
  } else {
    rc = load_args(c, args, n, fn_ops ? 1 : 0, trees);
    if (rc) goto done;
  }
  for (size_t i = 0; i < c->nrules; i++) {
    if (c->rules[i].value) {
      rc = parse_text(c, c->rules[i].value, strlen(c->rules[i].value), "--replace",
                      &c->rules[i].node);
      if (rc) goto done;
    }
  }

  const gv_node *t = trees[0];
  if (strcmp(op, "flatten") == 0) {
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
      fprintf(stderr, "grove: error: out of memory\n");
      rc = 2;
      goto done;
    }
    const gv_node **leaves = malloc((size_t)nl ? (size_t)nl * sizeof *leaves : 1);
    if (!leaves) {
      fprintf(stderr, "grove: error: out of memory\n");
      rc = 2;
      goto done;
    }
    size_t got = 0;
    s = gv_flatten(t, leaves, (size_t)nl, &got, &e);
    for (size_t i = 0; s == GV_OK && i < got; i++) {
      s = print_node(c, leaves[i], &e);
      if (s == GV_OK) out_s("\n");
    }
    free(leaves);
  } else if (strcmp(op, "flatten-with-path") == 0) {
    gv_error pe;
    memset(&pe, 0, sizeof pe);
    path_ctx p = {c, &pe, 0, g_out_bytes};
    s = gv_walk_paths(c->a, t, path_fn, &p, &e);
    if (p.too_big) {
      fprintf(stderr, "grove: error: output too large: more than --max-output %" PRIu64 " bytes\n",
              c->max_output);
      rc = 2;
      goto done;
    }
    if (s != GV_OK && pe.status != GV_OK) e = pe; /* the printer's own message */
  } else if (strcmp(op, "structure") == 0) {
    s = gv_structure(c->a, t, &out, &e);
  } else if (strcmp(op, "is-nested") == 0) {
    int nested = gv_is_nested(t);
    out_s(c->json ? (nested ? "true\n" : "false\n") : (nested ? "True\n" : "False\n"));
  } else if (strcmp(op, "pack-sequence-as") == 0) {
    const gv_node *l = trees[1];
    if (gv_kind(l) != GV_LIST) {
      fprintf(stderr, "grove: error: pack-sequence-as: the leaves (argument 2) must be a list\n");
      rc = 2;
      goto done;
    }
    size_t k = gv_arity(l);
    const gv_node **items = malloc(k ? k * sizeof *items : 1);
    if (!items) {
      fprintf(stderr, "grove: error: out of memory\n");
      rc = 2;
      goto done;
    }
    for (size_t i = 0; i < k; i++)
      items[i] = gv_child(l, i);
    s = gv_pack_sequence_as(c->a, t, items, k, &out, &e);
    free(items);
  } else if (strcmp(op, "map") == 0) {
    s = gv_map(c->a, map_fn, c, trees + 1, n - 1, c->none_is_leaf != 0, &out, &e);
  } else if (strcmp(op, "map-up-to") == 0) {
    s = gv_map_up_to(c->a, trees[1], map_fn, c, trees + 2, n - 2, &out, &e);
  } else if (strcmp(op, "map-shape") == 0) {
    s = gv_map_shape(c->a, map_fn, c, trees[1], &out, &e);
  } else if (strcmp(op, "traverse") == 0) {
    s = gv_traverse(c->a, t, c->top_down != 0, traverse_fn, c, &out, &e);
  } else if (strcmp(op, "lists-to-tuples") == 0) {
    s = gv_lists_to_tuples(c->a, t, &out, &e);
  } else if (strcmp(op, "order") == 0) {
    bool changed = false;
    s = gv_order(c->a, t, &out, &changed, &e);
    if (s == GV_OK) {
      rc = print_line(c, out);
      if (!rc) out_s(changed ? "changed: true\n" : "changed: false\n");
      goto done;
    }
  } else if (strcmp(op, "assert-same-structure") == 0 || strcmp(op, "assert-same-paths") == 0) {
    s = op[12] == 's' ? gv_same_structure(c->a, trees[0], trees[1], &e)
                      : gv_same_paths(c->a, trees[0], trees[1], &e);
    if (s == GV_EMISMATCH) {
      out_s(e.msg[0] ? e.msg : "mismatch");
      out_s("\n");
      rc = 1;
      goto done;
    }
  } else if (strcmp(op, "fingerprint") == 0) {
    uint8_t fp[16];
    s = gv_fingerprint(c->a, t, fp, &e);
    if (s == GV_OK) {
      char hex[34];
      for (size_t i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned)fp[i]);
      hex[32] = '\n';
      hex[33] = '\0';
      out_s(hex);
    }
  } else if (strcmp(op, "convert") == 0) {
    const char *to = c->to ? c->to : (c->json ? "json" : "literal");
    if (strcmp(to, "wire") == 0) {
      s = gv_encode(c->a, t, w_stdout, NULL, &e);
    } else {
      c->json = strcmp(to, "json") == 0;
      out = t;
    }
  } else if (strcmp(op, "stats") == 0) {
    rc = do_stats(c, t);
    goto done;
  }
  if (s != GV_OK) {
    rc = report(c, s, &e, NULL);
    goto done;
  }
  if (out) rc = print_line(c, out);

done:
  free(trees);
  return rc;
}

/* One whole invocation: argv[0] is the operation. Returns the exit code. */
static int cli_main(size_t argc, const char *const *argv) {
  if (argc == 0) {
    fputs("grove: error: no operation given\n", stderr);
    fputs(USAGE, stderr);
    return 2;
  }
  const char *op = argv[0];
  if (strcmp(op, "--help") == 0 || strcmp(op, "-h") == 0 || strcmp(op, "help") == 0) {
    out_s(HELP);
    return 0;
  }
  const opdef *def = NULL;
  for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
    if (strcmp(OPS[i].name, op) == 0) def = &OPS[i];
  if (!def) return usage_error("unknown operation '%s'", op);

  cli c;
  memset(&c, 0, sizeof c);
  c.none_is_leaf = 1;
  c.top_down = 1;
  c.max_output = DEFAULT_MAX_OUTPUT;
  c.rules = calloc(argc, sizeof *c.rules);
  if (!c.rules) {
    fputs("grove: error: out of memory\n", stderr);
    return 2;
  }
  int rc = 0;
  size_t i = 1;
  for (; i < argc; i++) {
    const char *o = argv[i];
    if (strncmp(o, "--", 2) != 0) break;
    if (strcmp(o, "--") == 0) {
      i++;
      break;
    }
    const char *eq = strchr(o, '=');
    size_t nlen = eq ? (size_t)(eq - o) : strlen(o);
    const char *val = eq ? eq + 1 : NULL;
#define OPT_IS(s) (nlen == sizeof(s) - 1 && memcmp(o, s, nlen) == 0)
    int takes_value = OPT_IS("--max-bytes") || OPT_IS("--max-output") || OPT_IS("--replace") ||
                      OPT_IS("--to-none") || OPT_IS("--to") || OPT_IS("--from");
    if (takes_value && !val) {
      if (i + 1 >= argc) {
        rc = usage_error("option %s needs a value", o);
        goto out;
      }
      val = argv[++i];
    }
    if (OPT_IS("--help")) {
      out_s(HELP);
      goto out;
    } else if (OPT_IS("--json") && !val) {
      c.json = 1;
    } else if (OPT_IS("--max-bytes")) {
      char *end = NULL;
      errno = 0;
      unsigned long long v = strtoull(val, &end, 10);
      if (!*val || *end || errno || val[0] == '-' || v > SIZE_MAX) {
        rc = usage_error("bad --max-bytes value '%s'", val);
        goto out;
      }
      c.max_bytes = (size_t)v;
    } else if (OPT_IS("--max-output")) {
      char *end = NULL;
      errno = 0;
      unsigned long long v = strtoull(val, &end, 10);
      if (!*val || *end || errno || val[0] == '-') {
        rc = usage_error("bad --max-output value '%s'", val);
        goto out;
      }
      c.max_output = (uint64_t)v;
    } else if (OPT_IS("--none-is-leaf")) {
      if (!val || strcmp(val, "true") == 0) {
        c.none_is_leaf = 1;
      } else if (strcmp(val, "false") == 0) {
        c.none_is_leaf = 0;
      } else {
        rc = usage_error("bad --none-is-leaf value '%s' (true or false)", val);
        goto out;
      }
    } else if (OPT_IS("--top-down") && !val) {
      c.top_down = 1;
    } else if (OPT_IS("--bottom-up") && !val) {
      c.top_down = 0;
    } else if (OPT_IS("--replace")) {
      const char *e2 = strchr(val, '=');
      if (!e2 || e2 == val) {
        rc = usage_error("--replace needs KIND=VALUE, got '%s'", val);
        goto out;
      }
      c.rules[c.nrules++] = (rule){val, (size_t)(e2 - val), e2 + 1, NULL};
    } else if (OPT_IS("--to-none")) {
      if (!*val) {
        rc = usage_error("%s", "--to-none needs a KIND");
        goto out;
      }
      c.rules[c.nrules++] = (rule){val, strlen(val), NULL, NULL};
    } else if (OPT_IS("--to")) {
      if (strcmp(val, "wire") && strcmp(val, "literal") && strcmp(val, "json")) {
        rc = usage_error("bad --to value '%s' (wire, literal or json)", val);
        goto out;
      }
      c.to = val;
    } else if (OPT_IS("--from")) {
      if (strcmp(val, "wire") && strcmp(val, "literal")) {
        rc = usage_error("bad --from value '%s' (wire or literal)", val);
        goto out;
      }
      c.from = val;
    } else {
      rc = usage_error("unknown option '%s'", o);
      goto out;
    }
#undef OPT_IS
  }
  size_t nargs = argc - i;
  if (nargs < def->min || nargs > def->max) {
    fprintf(stderr, "grove: error: %s: wrong number of arguments (%zu)\n", op, nargs);
    fprintf(stderr, "usage: grove %s [OPTIONS] %s\n", op, def->args);
    rc = 2;
    goto out;
  }
  if (strcmp(op, "demo") == 0) {
    rc = run_demo();
    goto out;
  }

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
  rc = run_op(&c, op, argv + i, nargs);
  gv_arena_free(c.a);

out:
  free(c.rules);
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
    {0, {"is-nested", "'leaf'"}},
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
    {0, {"assert-same-structure", SAMPLE, "[{'a': [0, 0], 'b': None}, (0, 0), 'x']"}},
    {1, {"assert-same-structure", SAMPLE, "[{'b': 1, 'a': [2]}, (4, 5), 6]"}},
    {0, {"assert-same-paths", "[1, 2]", "(10, 20)"}},
    {1, {"assert-same-paths", "[1, [2]]", "{0: 1, 'k': 2}"}},
    {0, {"fingerprint", SAMPLE}},
    {0, {"convert", "--to", "json", "{'a': [1, 2.5, None], 'b': 'text'}"}},
    {0, {"stats", "[[1, 2], [1, 2], (3, [1, 2])]"}},
};

static void demo_show_cmd(const char *const *argv) {
  out_s("$ grove");
  for (size_t i = 0; argv[i]; i++) {
    const char *a = argv[i];
    int plain = *a != '\0';
    for (const char *p = a; *p; p++)
      if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.", *p))
        plain = 0;
    out_s(" ");
    if (plain) {
      out_s(a);
    } else {
      out_s("\"");
      out_s(a);
      out_s("\"");
    }
  }
  out_s("\n");
}

static int run_demo(void) {
  out_s("grove demo: every operation on a few small trees (" GV_VERSION_STRING ")\n");
  out_s("sample: " SAMPLE "\n");
  int bad = 0;
  for (size_t k = 0; k < sizeof DEMO / sizeof DEMO[0]; k++) {
    const demo_step *st = &DEMO[k];
    size_t n = 0;
    while (n < 8 && st->argv[n])
      n++;
    out_s("\n");
    demo_show_cmd(st->argv);
    if (fflush(stdout) != 0) g_write_failed = 1;
    int rc = cli_main(n, st->argv);
    if (rc != 0) {
      char buf[32];
      snprintf(buf, sizeof buf, "(exit %d)\n", rc);
      out_s(buf);
    }
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
