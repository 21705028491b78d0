/* SPDX-License-Identifier: MIT */
/* lines.c -- --lines: a stream of trees, one per line.
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
 *
 * The knobs (LN_*) and the stream's types are in cli.h. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

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

/* ---- the entry: the operation's fixed trees, then the stream ---- */

/* --lines: the operation's arguments but its last tree, then the sources (@PATH or -). */
int lines_main(cli *c, const opdef *def, const char *const *args, size_t nargs) {
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
