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
 * The operations and the options are the two tables OPS and OPTS (options.c): the help text, the
 * argument checks and "does this option apply to this operation" all come from them. */
#define _POSIX_C_SOURCE 200809L /* fileno, isatty, stat, getline */

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
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

static int run_demo(cli_io *io, cli_run_fn *run);

/* ---------------------------------------------------------------------------
 * --lines: a stream of trees, one per line
 *
 * Each line is parsed and worked on in a child arena of the current generation's frozen
 * parent, freed once the line is done, so memory stays flat however long the stream. The
 * parent holds the operation's fixed trees (the reference of assert-same-structure, the S of
 * pack-sequence-as and map-up-to, --replace values) and templates of the keysets seen often:
 * a dict {k: None, ...} per keyset, which brings the keyset, its sorted twin (with its rank
 * index) and the keys. A child then interns those instead of building them, and a shuffled
 * keyset of known keys finds its sorted twin without sorting.
 *
 * How the parent is populated: every line reports the keysets of its child's dicts (their
 * own keysets and sorted twins, by hash, at most LN_RECS per line). The stream counts them
 * in a bounded table; a keyset reported by LN_FREQ lines of a window becomes a template
 * (its line is parsed again on the main thread to get its keys). At the end of each window
 * (64 lines, then doubling up to LN_WINDOW_MAX) a new parent is made if something changed:
 * the templates still reported in the window plus the new ones (at most LN_TEMPLATES), and
 * the fixed trees, copied into a fresh arena and frozen. Lines already handed out finish on
 * the old parent, which is freed when its last batch has been written.
 *
 * --jobs N: batches of lines go to N worker threads; the main thread reads, hands out,
 * writes the batches' results in input order and keeps the statistics. Every worker builds
 * in its own children; the parents are frozen, so nothing is shared for writing.
 * ------------------------------------------------------------------------- */

/* ---- the stream: reading ---- */

static int blank(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\f' && p[i] != '\v') return 0;
  return 1;
}

static const char *src_name(const stream *st, size_t i) {
  const char *s = st->srcs[i];
  return strcmp(s, "-") == 0 ? "standard input" : s + 1;
}

/* Reads lines into b (at most a batch); 0 when the sources are all read (or on error). */
static int fill_batch(stream *st, batch *b) {
  b->n = 0;
  b->tlen = 0;
  while (b->n < st->batch_lines && b->tlen < LN_BATCH_BYTES && !st->eof) {
    if (!st->f) {
      if (st->src == st->nsrcs) {
        st->eof = 1;
        break;
      }
      const char *name = st->srcs[st->src];
      errno = 0;
      st->f = strcmp(name, "-") == 0 ? stdin : fopen(name + 1, "rb");
      st->lineno = 0;
      if (!st->f) {
        fprintf(stderr, "grove: error: cannot read '%s': %s\n", name + 1,
                strerror(errno ? errno : ENOENT));
        st->fatal = st->eof = 1;
        break;
      }
    }
    errno = 0;
    ssize_t r = getline(&st->line, &st->linecap, st->f);
    if (r < 0) {
      int bad = ferror(st->f);
      if (bad)
        fprintf(stderr, "grove: error: cannot read '%s': %s\n", src_name(st, st->src),
                strerror(errno ? errno : EIO));
      if (st->f != stdin) fclose(st->f);
      st->f = NULL;
      st->src++;
      if (bad) st->fatal = st->eof = 1;
      continue;
    }
    st->lineno++;
    size_t n = (size_t)r;
    char *p = st->line;
    if (n && p[n - 1] == '\n') n--;
    if (n && p[n - 1] == '\r') n--;
    if (st->lineno == 1 && n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3, n -= 3;
    if (blank(p, n)) continue;
    if (memchr(p, '\0', n)) n = strlen(p); /* a NUL ends the line's text (the parser reports it) */
    if (!grow((void **)&b->text, &b->tcap, b->tlen + n + 1, 1) ||
        !grow((void **)&b->res, &b->cap, b->n + 1, sizeof *b->res)) {
      fprintf(stderr, "grove: error: out of memory\n");
      st->fatal = st->eof = 1;
      break;
    }
    memcpy(b->text + b->tlen, p, n);
    b->text[b->tlen + n] = '\0';
    b->res[b->n] = (lres){.off = b->tlen, .len = n, .lineno = st->lineno, .src = st->src};
    b->tlen += n + 1;
    b->n++;
  }
  if (st->linecap > ((size_t)1 << 22)) { /* one huge line: do not keep its buffer */
    free(st->line);
    st->line = NULL;
    st->linecap = 0;
  }
  return b->n > 0;
}

/* ---- the stream: writing (main thread, in input order) ---- */

static void write_batch(stream *st, batch *b) {
  cli *c = st->c;
  size_t o = 0, e = 0;
  for (size_t i = 0; i < b->n && !st->stop; i++) {
    lres *r = &b->res[i];
    if (r->oend > o && fwrite(b->out + o, 1, r->oend - o, stdout) != r->oend - o)
      c->io->write_failed = 1;
    o = r->oend;
    if (r->eend > e) {
      const char *msg = b->err + e;
      const char *rest = msg, *head = "grove: ";
      if (strncmp(msg, "grove: error: ", 14) == 0)
        head = "grove: error: ", rest = msg + 14;
      else if (strncmp(msg, "grove: ", 7) == 0)
        rest = msg + 7;
      if (st->nsrcs > 1)
        fprintf(stderr, "%s%s: line %" PRIu64 ": %.*s", head, src_name(st, r->src), r->lineno,
                (int)(r->eend - (size_t)(rest - b->err)), rest);
      else
        fprintf(stderr, "%sline %" PRIu64 ": %.*s", head, r->lineno,
                (int)(r->eend - (size_t)(rest - b->err)), rest);
    }
    e = r->eend;
    if (r->failed) {
      st->bad_lines++;
      if (c->fail_fast) st->stop = 1;
    }
  }
  /* the keysets the lines reported */
  for (size_t i = 0; i < b->nrecs && !st->stop; i++) {
    kcount *k = count_slot(st, b->recs[i].hash, 1);
    if (!k || k->count == UINT32_MAX) continue;
    if (++k->count == LN_FREQ && k->state == 0)
      k->state = make_template(st, k->hash, b->text + b->res[b->recs[i].line].off) ? 1 : 2;
  }
  st->lines_done += b->n;
  gen_release(b->g);
  b->g = NULL;
  if (c->io->write_failed) st->stop = st->fatal = 1;
  /* keep memory flat: no batch keeps a buffer made big by one huge line */
  if (b->ocap > ((size_t)8 << 20)) free(b->out), b->out = NULL, b->ocap = 0;
  if (b->ecap > ((size_t)1 << 20)) free(b->err), b->err = NULL, b->ecap = 0;
  if (b->tcap > ((size_t)8 << 20)) free(b->text), b->text = NULL, b->tcap = 0;
  if (!st->stop && st->lines_done >= st->next_window) window_end(st);
}

/* ---- the stream: workers ---- */

typedef struct worker {
  stream *st;
  cli w;
  pthread_t th;
} worker;

static void *worker_main(void *arg) {
  worker *x = arg;
  stream *st = x->st;
  pthread_mutex_lock(&st->mu);
  for (;;) {
    batch *b = &st->slots[st->next_take];
    while (!st->quit && b->state != 1) {
      pthread_cond_wait(&st->work, &st->mu);
      b = &st->slots[st->next_take];
    }
    if (b->state != 1) break; /* quit, nothing left */
    b->state = 2;
    st->next_take = (st->next_take + 1) % st->nslots;
    pthread_mutex_unlock(&st->mu);
    run_batch(&x->w, b);
    pthread_mutex_lock(&st->mu);
    b->state = 3;
    pthread_cond_broadcast(&st->done);
  }
  pthread_mutex_unlock(&st->mu);
  return NULL;
}

static int worker_init(worker *x, stream *st) {
  x->st = st;
  x->w = *st->c;
  x->w.a = NULL;
  x->w.buf = NULL;
  x->w.len = x->w.cap = 0;
  x->w.ebuf = NULL;
  x->w.elen = x->w.ecap = 0;
  x->w.rules = calloc(st->c->nrules + 1, sizeof *x->w.rules);
  if (!x->w.rules) return 0;
  if (st->c->nrules) memcpy(x->w.rules, st->c->rules, st->c->nrules * sizeof *x->w.rules);
  return 1;
}

/* Runs the stream; returns the exit status. fixed: the trees given on the command line. */
static int run_lines(cli *c, const gv_node *const *fixed, size_t nfixed, const char *const *srcs,
                     size_t nsrcs) {
  static const char *const stdin_only[] = {"-"};
  stream st;
  memset(&st, 0, sizeof st);
  st.c = c;
  st.nfixed = nfixed;
  st.srcs = nsrcs ? srcs : stdin_only;
  st.nsrcs = nsrcs ? nsrcs : 1;
  st.window = LN_WINDOW_FIRST;
  st.batch_lines = LN_BATCH_LINES;
  const char *bl = getenv("GROVE_LINES_BATCH"); /* small batches: the tests of --jobs */
  if (bl && atoi(bl) > 0) st.batch_lines = (size_t)atoi(bl);
  st.next_window = LN_WINDOW_FIRST;
  size_t jobs = c->jobs ? c->jobs : 1;
  const gv_node **rules = calloc(c->nrules + 1, sizeof *rules);
  st.counts = calloc(LN_COUNT_CAP, sizeof *st.counts);
  worker *ws = calloc(jobs, sizeof *ws);
  st.nslots = jobs == 1 ? 1 : 2 * jobs + 2;
  st.slots = calloc(st.nslots, sizeof *st.slots);
  int rc = 0;
  if (!rules || !st.counts || !ws || !st.slots || gv_arena_new(NULL, &st.scratch) != GV_OK ||
      gv_arena_new(NULL, &st.staging) != GV_OK) {
    rc = oom();
    goto out;
  }
  for (size_t i = 0; i < c->nrules; i++)
    rules[i] = c->rules[i].node;
  st.cur = gen_make(&st, fixed, rules, NULL, NULL, 0);
  if (!st.cur) {
    rc = oom();
    goto out;
  }
  size_t started = 0;
  for (size_t i = 0; i < jobs; i++)
    if (!worker_init(&ws[i], &st)) {
      rc = oom();
      goto out;
    }
  if (jobs == 1) {
    batch *b = &st.slots[0];
    while (!st.stop && fill_batch(&st, b)) {
      b->g = st.cur;
      st.cur->refs++;
      run_batch(&ws[0].w, b);
      write_batch(&st, b);
    }
  } else {
    pthread_mutex_init(&st.mu, NULL);
    pthread_cond_init(&st.work, NULL);
    pthread_cond_init(&st.done, NULL);
    for (; started < jobs; started++)
      if (pthread_create(&ws[started].th, NULL, worker_main, &ws[started]) != 0) break;
    if (started == 0) {
      fprintf(stderr, "grove: error: cannot start a thread\n");
      st.fatal = 1;
    }
    size_t fill = 0, write = 0, inflight = 0;
    while (started) {
      if (!st.eof && !st.stop && inflight < st.nslots) {
        batch *b = &st.slots[fill];
        if (fill_batch(&st, b)) {
          b->g = st.cur;
          st.cur->refs++;
          pthread_mutex_lock(&st.mu);
          b->state = 1;
          pthread_cond_signal(&st.work);
          pthread_mutex_unlock(&st.mu);
          fill = (fill + 1) % st.nslots;
          inflight++;
          continue;
        }
      }
      if (inflight == 0) break;
      batch *b = &st.slots[write];
      pthread_mutex_lock(&st.mu);
      while (b->state != 3)
        pthread_cond_wait(&st.done, &st.mu);
      pthread_mutex_unlock(&st.mu);
      write_batch(&st, b); /* after --fail-fast tripped: only releases it */
      pthread_mutex_lock(&st.mu);
      b->state = 0;
      pthread_mutex_unlock(&st.mu);
      write = (write + 1) % st.nslots;
      inflight--;
    }
    pthread_mutex_lock(&st.mu);
    st.quit = 1;
    pthread_cond_broadcast(&st.work);
    pthread_mutex_unlock(&st.mu);
    for (size_t i = 0; i < started; i++)
      pthread_join(ws[i].th, NULL);
    pthread_cond_destroy(&st.work);
    pthread_cond_destroy(&st.done);
    pthread_mutex_destroy(&st.mu);
  }
  if (st.fatal)
    rc = 2;
  else if (st.bad_lines)
    rc = 1;
  if (getenv("GROVE_LINES_STATS")) { /* for the tests and the benchmarks */
    long hwm = -1;
    FILE *f = fopen("/proc/self/status", "r"); /* Linux: the peak RSS of this program alone */
    char buf[256];
    while (f && fgets(buf, sizeof buf, f))
      if (strncmp(buf, "VmHWM:", 6) == 0) hwm = strtol(buf + 6, NULL, 10);
    if (f) fclose(f);
    fprintf(stderr,
            "grove: lines %" PRIu64 ", bad %" PRIu64 ", parents %zu, templates %zu, peak RSS %ld "
            "KiB\n",
            st.lines_done, st.bad_lines, st.rebuilds + 1, st.cur ? st.cur->ntmpl : 0, hwm);
  }
out:
  if (st.f && st.f != stdin) fclose(st.f);
  free(st.line);
  for (size_t i = 0; st.slots && i < st.nslots; i++) {
    gen_release(st.slots[i].g);
    batch_free(&st.slots[i]);
  }
  for (size_t i = 0; ws && i < jobs; i++)
    free(ws[i].w.rules);
  free(ws);
  free(st.slots);
  gen_release(st.cur);
  gv_arena_free(st.scratch);
  gv_arena_free(st.staging);
  free(st.counts);
  free((void *)st.pend);
  free(st.phash);
  free((void *)rules);
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
    fprintf(stderr, "grove: error: cannot write '%s': %s\n", c->output,
            strerror(errno ? errno : EIO));
    return 2;
  }
  return 0;
}

/* --lines: the operation's arguments but its last tree, then the sources (@PATH or -). */
static int lines_main(cli *c, const opdef *def, const char *const *args, size_t nargs) {
  size_t nfixed = def->min - 1;
  if (nargs < nfixed) {
    fprintf(stderr, "grove: error: %s --lines: wrong number of arguments (%zu)\n", def->name,
            nargs);
    fprintf(stderr, "usage: grove %s --lines [OPTIONS] %s [@FILE... | -]\n", def->name, def->args);
    return 2;
  }
  for (size_t i = nfixed; i < nargs; i++) {
    if (strcmp(args[i], "-") != 0 && args[i][0] != '@')
      return usage_error("--lines reads @FILE or - (standard input), not '%s'", args[i]);
  }
  gv_arena_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_bytes = c->max_bytes;
  cfg.max_output = c->max_output;
  if (gv_arena_new(&cfg, &c->a) != GV_OK) return oom();
  if (c->op == OP_CONVERT && c->to) c->json = strcmp(c->to, "json") == 0;
  const gv_node *loaded[4] = {NULL, NULL, NULL, NULL};
  size_t skip = fn_op(c) ? 1 : 0; /* the function name is no tree */
  int rc = load_args(c, args, nfixed, loaded);
  if (rc == 0) rc = run_lines(c, loaded + skip, nfixed - skip, args + nfixed, nargs - nfixed);
  gv_arena_free(c->a);
  c->a = NULL;
  return rc;
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
  if (!c.lines && (c.jobs || c.fail_fast)) {
    rc = usage_error("%s works with --lines", c.jobs ? "--jobs" : "--fail-fast");
    goto out;
  }
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
  if (io->write_failed && rc == 0) {
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

/* Runs the demo's command lines through run (the tool's own command line). */
static int run_demo(cli_io *io, cli_run_fn *run) {
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
    if (fflush(stdout) != 0) io->write_failed = 1;
    int rc = run(io, n, st->argv);
    if (rc != 0) printf("(exit %d)\n", rc);
    if (rc != st->expect) bad = 1;
    if (io->write_failed) return 2; /* already reported */
  }
  if (bad) {
    if (fflush(stdout) != 0) io->write_failed = 1;
    fputs("grove: error: demo: a step did not give its expected exit status\n", stderr);
    return 2;
  }
  return 0;
}

int main(int argc, char **argv) {
  static char buf[1 << 16];
  setvbuf(stdout, buf, _IOFBF, sizeof buf);
  cli_io io;
  memset(&io, 0, sizeof io);
  int rc = cli_main(&io, argc > 0 ? (size_t)(argc - 1) : 0, (const char *const *)(argv + 1));
  if (fflush(stdout) != 0 && rc == 0) {
    fputs("grove: error: cannot write output\n", stderr);
    rc = 2;
  }
  free(io.stdin_buf);
  return rc;
}
