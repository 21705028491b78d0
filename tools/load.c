/* SPDX-License-Identifier: MIT */
/* load.c -- the operation's arguments as trees: literal text from the command line, a file
 * (@PATH) or standard input (-, read once a run), parsed, or decoded when the bytes are grove's
 * binary format; the function name of the map operations; the values of --replace. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
static const char *arg_bytes(cli_io *io, const char *arg, size_t *len, char **owned) {
  *owned = NULL;
  if (strcmp(arg, "-") == 0) {
    if (!io->stdin_read) {
      io->stdin_buf = read_all(stdin, &io->stdin_len);
      if (!io->stdin_buf) {
        errf(NULL, "grove: error: cannot read standard input: %s\n", strerror(errno));
        return NULL;
      }
      io->stdin_read = 1;
    }
    *len = io->stdin_len;
    return io->stdin_buf;
  }
  if (arg[0] == '@') {
    errno = 0;
    FILE *f = fopen(arg + 1, "rb");
    if (!f) {
      errf(NULL, "grove: error: cannot read '%s': %s\n", arg + 1, strerror(errno ? errno : ENOENT));
      return NULL;
    }
    char *buf = read_all(f, len);
    int e = errno;
    fclose(f);
    if (!buf) {
      errf(NULL, "grove: error: cannot read '%s': %s\n", arg + 1, strerror(e ? e : EIO));
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
  const char *data = arg_bytes(c->io, arg, &len, &owned);
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
    errf(NULL, "grove: hint: '%s' is a file; did you mean @%s?\n", arg, arg);
  return rc;
}

/* Whether the operation's first argument is a function name. */
int fn_op(const cli *c) {
  return c->op == OP_MAP || c->op == OP_MAP_UP_TO || c->op == OP_MAP_SHAPE;
}

/* Loads args[0..n) into trees[0..n) (for a map operation args[0] is the function: trees[0]
 * stays as it is) and parses the --replace values. Returns 0 or the exit code of an error. */
int load_args(cli *c, const char *const *args, size_t n, const gv_node **trees) {
  if (fn_op(c)) {
    c->fn = parse_fn(args[0]);
    if (c->fn < 0) return usage_error("unknown function '%s' (id, add, type, str, none)", args[0]);
  }
  for (size_t i = fn_op(c) ? 1 : 0; i < n; i++) {
    int rc = load_arg(c, args[i], i + 1, &trees[i]);
    if (rc) return rc;
  }
  for (size_t i = 0; i < c->nrules; i++) {
    if (!c->rules[i].value) continue;
    gv_error e;
    memset(&e, 0, sizeof e);
    const char *v = c->rules[i].value;
    gv_status s = gv_parse(c->a, v, strlen(v), &c->rules[i].node, &e);
    if (s != GV_OK) return report(c, s, &e, "--replace");
  }
  return 0;
}
