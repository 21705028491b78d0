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
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* Opens the next source into st->f; 0 when there is none (or on error: st->fatal). */
static int open_source(stream *st) {
  if (st->src == st->nsrcs) return 0;
  const char *name = st->srcs[st->src];
  errno = 0;
  FILE *in = st->c->io->in ? st->c->io->in : stdin;
  st->f = strcmp(name, "-") == 0 ? in : fopen(name + 1, "rb");
  st->lineno = 0;
  st->rpos = st->rlen = 0;
  if (!st->f) {
    errf(NULL, "grove: error: cannot read '%s': %s\n", name + 1, strerror(errno ? errno : ENOENT));
    st->fatal = 1;
    return 0;
  }
  return 1;
}

static void close_source(stream *st) {
  if (st->f != stdin && st->f != st->c->io->in) fclose(st->f);
  st->f = NULL;
  st->src++;
}

/* Reads the next line of st->f onto the end of b->text (not past st->line_max bytes: the rest
 * of a longer line is read and dropped, *too_long set). *n: its length, newline excluded.
 * Returns 1 for a line, 0 at the end of the source, -1 on a read error or out of memory. */
static int read_line(stream *st, batch *b, size_t *n, int *too_long) {
  size_t got = 0;
  int any = 0;
  *too_long = 0;
  for (;;) {
    if (st->rpos == st->rlen) {
      errno = 0;
      st->rlen = fread(st->rbuf, 1, LN_READ_BYTES, st->f);
      st->rpos = 0;
      if (st->rlen == 0) {
        if (ferror(st->f)) return -1;
        break; /* the end: a last line without a newline */
      }
    }
    any = 1;
    const char *p = st->rbuf + st->rpos;
    size_t avail = st->rlen - st->rpos;
    const char *nl = memchr(p, '\n', avail);
    size_t take = nl ? (size_t)(nl - p) : avail;
    if (!*too_long && take > st->line_max - got) *too_long = 1; /* not kept */
    if (!*too_long) {
      if (!grow((void **)&b->text, &b->tcap, b->tlen + got + take + 1, 1)) return -1;
      memcpy(b->text + b->tlen + got, p, take);
      got += take;
    }
    st->rpos += take + (nl ? 1 : 0);
    if (nl) break;
  }
  *n = got;
  return any;
}

/* Reads lines into b (at most a batch); 0 when the sources are all read (or on error). */
static int fill_batch(stream *st, batch *b) {
  b->n = b->done = b->written = 0;
  b->tlen = 0;
  while (b->n < st->batch_lines && b->tlen < LN_BATCH_BYTES && !st->eof) {
    if (!st->f && !open_source(st)) {
      st->eof = 1;
      break;
    }
    size_t n = 0;
    int too_long = 0;
    int r = read_line(st, b, &n, &too_long);
    if (r > 0 && !grow((void **)&b->text, &b->tcap, b->tlen + n + 1, 1)) r = -1;
    if (r < 0) {
      if (st->f && ferror(st->f))
        errf(NULL, "grove: error: cannot read '%s': %s\n", src_name(st, st->src),
             strerror(errno ? errno : EIO));
      else
        errf(NULL, "grove: error: out of memory\n");
      st->fatal = st->eof = 1;
      break;
    }
    if (r == 0) {
      close_source(st);
      continue;
    }
    st->lineno++;
    char *p = b->text + b->tlen;
    if (n && p[n - 1] == '\r') n--;
    size_t skip = 0;
    if (st->lineno == 1 && n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) skip = 3;
    if (!too_long && blank(p + skip, n - skip)) continue;
    if (skip) memmove(p, p + skip, n -= skip);
    if (!grow((void **)&b->res, &b->cap, b->n + 1, sizeof *b->res)) {
      errf(NULL, "grove: error: out of memory\n");
      st->fatal = st->eof = 1;
      break;
    }
    if (too_long) n = 0;
    p[n] = '\0'; /* a NUL inside the line stays: the reader refuses it, as without --lines */
    b->res[b->n] = (lres){
        .off = b->tlen, .len = n, .lineno = st->lineno, .src = st->src, .too_long = too_long};
    b->tlen += n + 1;
    b->n++;
  }
  b->theld = b->tcap; /* what its text holds, a line too long read in part included */
  atomic_fetch_add(&st->held, b->theld);
  return b->n > 0;
}

/* ---- the stream: writing (main thread, in input order) ---- */

/* Writes a line's error: "grove: error: [FILE: ]line N" and its text, whose "line 1, column"
 * (the reader's, a line being one line) becomes the line's own number. */
static void write_error(stream *st, const lres *r, const char *msg, size_t len) {
  static const char head[] = "grove: error: ", first[] = "line 1, column ";
  if (len >= sizeof head - 1 && memcmp(msg, head, sizeof head - 1) == 0)
    msg += sizeof head - 1, len -= sizeof head - 1;
  else if (len >= 7 && memcmp(msg, "grove: ", 7) == 0)
    msg += 7, len -= 7;
  char where[64];
  snprintf(where, sizeof where, "line %" PRIu64, r->lineno);
  fputs(head, st->err);
  if (st->nsrcs > 1) {
    const char *name = src_name(st, r->src);
    char safe[4 * 256 + 8];
    size_t n = escape_text(name, strnlen(name, 256), safe, sizeof safe);
    fwrite(safe, 1, n, st->err);
    fputs(": ", st->err);
  }
  fputs(where, st->err);
  if (len >= sizeof first - 1 && memcmp(msg, first, sizeof first - 1) == 0) {
    msg += sizeof first - 1 - 9, len -= sizeof first - 1 - 9; /* ", column ..." */
  } else {
    fputs(": ", st->err);
  }
  /* "opened at line 1, column C" inside the message names the same line */
  static const char opened[] = "at line 1, column ";
  const char *end = msg + len;
  while (msg < end) {
    const char *o = NULL;
    for (const char *q = msg; q + sizeof opened - 1 <= end && !o; q++)
      if (memcmp(q, opened, sizeof opened - 1) == 0) o = q;
    if (!o) break;
    fwrite(msg, 1, (size_t)(o - msg), st->err);
    fprintf(st->err, "at %s, column ", where);
    msg = o + sizeof opened - 1;
  }
  fwrite(msg, 1, (size_t)(end - msg), st->err);
}

/* Writes the chunk of b that ran ([b->written, b->done)) and lets go of its results. */
static void write_chunk(stream *st, batch *b) {
  cli *c = st->c;
  size_t o = 0, e = 0;
  for (size_t i = b->written; i < b->done && !st->stop; i++) {
    lres *r = &b->res[i];
    if (r->oend > o && fwrite(b->out + o, 1, r->oend - o, st->out) != r->oend - o)
      c->io->write_failed = 1;
    o = r->oend;
    if (r->eend > e) write_error(st, r, b->err + e, r->eend - e);
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
    const lres *r = &b->res[b->recs[i].line];
    if (++k->count == LN_FREQ && k->state == 0)
      k->state = make_template(st, k->hash, b->text + r->off, r->len) ? 1 : 2;
  }
  b->nrecs = 0;
  atomic_fetch_sub(&st->held, b->olen + b->elen);
  b->olen = b->elen = 0;
  st->lines_done += b->done - b->written;
  b->written = b->done;
  if (c->io->write_failed) st->stop = st->fatal = 1;
  /* keep memory flat: no batch keeps a buffer made big by one huge line */
  if (b->ocap > 2 * LN_BATCH_BYTES) free(b->out), b->out = NULL, b->ocap = 0;
  if (b->ecap > 2 * LN_BATCH_BYTES) free(b->err), b->err = NULL, b->ecap = 0;
}

/* Writes b, whose first chunk has run: the rest runs here, chunk after chunk, with the main
 * thread's cli w. Then b is let go of. */
static void write_batch(stream *st, batch *b, cli *w) {
  write_chunk(st, b);
  while (!st->stop && b->done < b->n) {
    run_batch(st, w, b, 0);
    write_chunk(st, b);
  }
  atomic_fetch_sub(&st->held, b->theld);
  b->tlen = b->theld = 0;
  if (b->tcap > 2 * LN_BATCH_BYTES) free(b->text), b->text = NULL, b->tcap = 0;
  gen_release(b->g);
  b->g = NULL;
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
    run_batch(st, &x->w, b, 1);
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

/* Runs the stream; returns the exit status. fixed: the trees given on the command line, nodes
 * of c->a, which is frozen: the base of every generation. */
static int run_lines(cli *c, const gv_node *const *fixed, size_t nfixed, const char *const *srcs,
                     size_t nsrcs) {
  static const char *const stdin_only[] = {"-"};
  stream st;
  memset(&st, 0, sizeof st);
  st.c = c;
  st.nfixed = nfixed;
  st.srcs = nsrcs ? srcs : stdin_only;
  st.nsrcs = nsrcs ? nsrcs : 1;
  st.out = c->io->out ? c->io->out : stdout;
  st.err = c->io->err ? c->io->err : stderr;
  st.window = LN_WINDOW_FIRST;
  st.batch_lines = LN_BATCH_LINES;
  const char *bl = getenv("GROVE_LINES_BATCH"); /* small batches: the tests of --jobs */
  if (bl && atoi(bl) > 0) st.batch_lines = (size_t)atoi(bl);
  st.next_window = LN_WINDOW_FIRST;
  size_t jobs = c->jobs ? c->jobs : 1;
  st.nslots = jobs == 1 ? 1 : 2 * jobs + 2;
  st.line_max = c->max_bytes ? c->max_bytes : SIZE_MAX;
  st.hold_max = st.nslots * 2 * LN_BATCH_BYTES; /* a batch text buffer grows by doubling */
  if (c->max_bytes > st.hold_max) st.hold_max = c->max_bytes;
  st.fixed = calloc(nfixed + 1, sizeof *st.fixed);
  st.rules = calloc(c->nrules + 1, sizeof *st.rules);
  st.counts = calloc(LN_COUNT_CAP, sizeof *st.counts);
  st.rbuf = malloc(LN_READ_BYTES);
  worker *ws = calloc(jobs + 1, sizeof *ws); /* ws[jobs]: the main thread's */
  st.slots = calloc(st.nslots, sizeof *st.slots);
  int rc = 0;
  if (!st.fixed || !st.rules || !st.counts || !st.rbuf || !ws || !st.slots ||
      staging_new(&st, &st.staging) != GV_OK) {
    rc = oom();
    goto out;
  }
  for (size_t i = 0; i < nfixed; i++)
    st.fixed[i] = fixed[i];
  for (size_t i = 0; i < c->nrules; i++)
    st.rules[i] = c->rules[i].node;
  (void)gv_arena_freeze(c->a);
  st.cur = gen_make(&st, NULL, NULL, 0);
  if (!st.cur) {
    rc = oom();
    goto out;
  }
  size_t started = 0;
  for (size_t i = 0; i <= jobs; i++)
    if (!worker_init(&ws[i], &st)) {
      rc = oom();
      goto out;
    }
  cli *mainw = &ws[jobs].w;
  if (jobs == 1) {
    batch *b = &st.slots[0];
    while (!st.stop && fill_batch(&st, b)) {
      b->g = st.cur;
      st.cur->refs++;
      run_batch(&st, mainw, b, 0);
      write_batch(&st, b, mainw);
    }
  } else {
    pthread_mutex_init(&st.mu, NULL);
    pthread_cond_init(&st.work, NULL);
    pthread_cond_init(&st.done, NULL);
    for (; started < jobs; started++)
      if (pthread_create(&ws[started].th, NULL, worker_main, &ws[started]) != 0) break;
    if (started == 0) {
      errf(NULL, "grove: error: cannot start a thread\n");
      st.fatal = 1;
    }
    size_t fill = 0, write = 0, inflight = 0;
    while (started) {
      /* a new batch while there is a free slot and the stream holds less than hold_max */
      if (!st.eof && !st.stop && inflight < st.nslots &&
          (inflight == 0 || atomic_load(&st.held) < st.hold_max)) {
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
      write_batch(&st, b, mainw); /* after --fail-fast tripped: only releases it */
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
    fprintf(st.err,
            "grove: lines %" PRIu64 ", bad %" PRIu64 ", parents %zu, templates %zu, peak RSS %ld "
            "KiB\n",
            st.lines_done, st.bad_lines, st.rebuilds + 1, st.cur ? st.cur->ntmpl : 0, hwm);
  }
out:
  if (st.f) close_source(&st);
  free(st.rbuf);
  for (size_t i = 0; st.slots && i < st.nslots; i++) {
    gen_release(st.slots[i].g);
    batch_free(&st.slots[i]);
  }
  for (size_t i = 0; ws && i <= jobs; i++) {
    free(ws[i].w.rules);
    free(ws[i].w.buf);
    free(ws[i].w.ebuf);
  }
  free(ws);
  free(st.slots);
  gen_release(st.cur);
  gv_arena_free(st.staging);
  free(st.counts);
  free((void *)st.pend);
  free(st.phash);
  free((void *)st.fixed);
  free((void *)st.rules);
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
