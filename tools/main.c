/* SPDX-License-Identifier: MIT */
/* main.c -- the grove command-line tool (its manual: docs/grove.1).
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
 * This file reads the command line against the two tables OPS and OPTS (options.c) and runs
 * one operation (ops.c), the --lines stream (lines.c) or the demo (demo.c). The files of the
 * tool and which may call which: cli.h. */
#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A word starting with '-' that is a literal, not an option: -5, -.5, -inf, -nan, ... */
static int negative_literal(const char *w) {
  if ((w[1] >= '0' && w[1] <= '9') || w[1] == '.') return 1;
  return strcmp(w + 1, "inf") == 0 || strcmp(w + 1, "Infinity") == 0 || strcmp(w + 1, "nan") == 0 ||
         strcmp(w + 1, "NaN") == 0;
}

/* Writes the kept output to -o FILE or standard output. */
static int flush_kept(cli *c) {
  if (!c->output) {
    if (c->len && fwrite(c->buf, 1, c->len, stdout) != c->len) c->io->write_failed = 1;
    return 0;
  }
  errno = 0;
  FILE *f = fopen(c->output, "wb");
  int ok = f != NULL;
  if (ok && c->len && fwrite(c->buf, 1, c->len, f) != c->len) ok = 0;
  if (f && fclose(f) != 0) ok = 0;
  if (!ok) {
    errf(NULL, "grove: error: cannot write '%s': %s\n", c->output, strerror(errno ? errno : EIO));
    return 2;
  }
  return 0;
}

/* One whole invocation (argv without the program name). Returns the exit code. */
static int cli_main(cli_io *io, size_t argc, const char *const *argv) {
  cli c;
  memset(&c, 0, sizeof c);
  c.io = io;
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
    errf(NULL, "grove: error: no operation given\n");
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
    errf(NULL, "grove: error: option %s does not apply to %s%s%s%s\n", spelled[k], def->name,
         scope[0] ? " (it is for " : "", scope, scope[0] ? ")" : "");
    fputs(USAGE, stderr);
    rc = 2;
    goto out;
  }
  if (c.op == OP_CONVERT && c.json && c.to && strcmp(c.to, "json") != 0) {
    rc = usage_error("--json and --to %s contradict each other", c.to);
    goto out;
  }
  if (!c.lines && (c.jobs || c.fail_fast)) {
    rc = usage_error("%s works with --lines", c.jobs ? "--jobs" : "--fail-fast");
    goto out;
  }
  if (!c.max_bytes_set) c.max_bytes = c.lines ? LN_MAX_BYTES : CLI_MAX_BYTES;
  if (c.lines) {
    if (c.op == OP_CONVERT && c.to && strcmp(c.to, "wire") == 0) {
      rc = usage_error("%s", "--lines writes text: --to wire does not apply");
      goto out;
    }
    if (c.output || c.from) {
      rc =
          usage_error("%s", c.output ? "--lines writes to standard output: -o does not apply"
                                     : "--lines reads the literal notation: --from does not apply");
      goto out;
    }
    rc = lines_main(&c, def, pos + 1, npos - 1);
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
    rc = run_demo(io, cli_main);
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
  if (fflush(stdout) != 0) io->write_failed = 1;
  if (io->write_failed && rc < 2) { /* a negative answer's output lost too */
    fputs("grove: error: cannot write output\n", stderr);
    rc = 2;
  }
  return rc;
}

int main(int argc, char **argv) {
  static char buf[1 << 16];
  setvbuf(stdout, buf, _IOFBF, sizeof buf);
  cli_io io;
  memset(&io, 0, sizeof io);
  int rc = cli_main(&io, argc > 0 ? (size_t)(argc - 1) : 0, (const char *const *)(argv + 1));
  if (fflush(stdout) != 0 && rc < 2) {
    fputs("grove: error: cannot write output\n", stderr);
    rc = 2;
  }
  free(io.stdin_buf);
  return rc;
}
