/* SPDX-License-Identifier: MIT */
/* cli.h -- the grove tool's internal header (never installed; the tool's manual is docs/grove.1):
 * the types of the two tables, the command's state, the --lines stream's types, and what each file
 * of tools/ offers the others.
 *
 * The files, from the top down; a file calls only files below it:
 *   main.c         the command line, read against the tables; runs one operation, the --lines
 *                  stream or the demo; main()
 *   demo.c         grove demo (its steps run through the cli_run_fn main.c gives it)
 *   lines.c        --lines: the sources read in batches, the workers, the results in input order
 *   lines_batch.c  --lines: a batch of lines, run in one worker
 *   lines_gen.c    --lines: the generations (frozen parents) and the templates' statistics
 *   ops.c          one operation on the command line's trees; the output --lines shares
 *   load.c         the arguments as trees: literal text, @FILE, -, grove's binary format
 *   stats.c        the stats operation
 *   functions.c    map's FN and traverse's rules
 *   options.c      the tables OPS and OPTS; help, usage errors, applying an option
 *   output.c       results and error lines, written or kept; report()
 * The prototypes at the end come file by file in the same order, from the bottom up.
 * fuzz/fuzz_lines.c builds these files but main.c and runs lines_main on streams in memory
 * (cli_io's in, out and err). */
#ifndef GROVE_TOOLS_CLI_H
#define GROVE_TOOLS_CLI_H

#include "grove.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------------------
 * The operations and the options (the tables: options.c)
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

extern const opdef OPS[OP_COUNT];

/* The set of operations an option applies to. */
#define ON(op) (1u << (op))

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
  OPT_OUTPUT,
  OPT_LINES,
  OPT_JOBS,
  OPT_FAIL_FAST
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

extern const optdef OPTS[];
extern const size_t NOPTS; /* the number of OPTS */
extern const char USAGE[]; /* the one-line usage, for usage errors */

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

/* What one run of the program shares across the command lines it runs (the demo runs several):
 * standard input, read once, and whether writing standard output failed. */
typedef struct cli_io {
  char *stdin_buf;
  size_t stdin_len;
  int stdin_read;
  int write_failed;
  /* --lines' standard input, results and line errors: NULL for stdin, stdout, stderr (a
   * harness, such as fuzz/fuzz_lines.c, gives its own) */
  FILE *in, *out, *err;
} cli_io;

/* Runs one command line (argv without the program name); returns its exit code. */
typedef int cli_run_fn(cli_io *io, size_t argc, const char *const *argv);

/* The default memory ceilings (docs/grove.1, --help): the arena of one run, and under --lines
 * each line's (its text, arena and output) and each of the stream's shared arenas. */
#define CLI_MAX_BYTES ((size_t)1000000000) /* 1e9 */
#define LN_MAX_BYTES ((size_t)50000000)    /* 5e7 */

typedef struct cli {
  cli_io *io;
  gv_arena *a;
  op_id op;
  int json;
  size_t max_bytes; /* the arena's budget (0: none): --max-bytes, else CLI_MAX_BYTES or,
                     * under --lines, LN_MAX_BYTES */
  int max_bytes_set;
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
  size_t out_limit;   /* under --lines: a line's output ends at buf + out_limit (0: no end) */
  int out_over;       /* the output went past out_limit (the line's budget) */
  uint64_t out_bytes; /* written (or kept) so far */
  int dry;            /* output only counted in out_bytes (a measuring pass) */
  /* --lines */
  int lines;
  int fail_fast;
  size_t jobs;
  /* Error text kept instead of written to stderr (a --lines worker: the stream writes it,
   * with the line number, in input order). */
  int capture;
  char *ebuf;
  size_t elen, ecap;
} cli;

/* ---------------------------------------------------------------------------
 * The --lines stream (lines.c tells its design)
 * ------------------------------------------------------------------------- */

#define LN_BATCH_LINES 256
#define LN_BATCH_BYTES ((size_t)1 << 18) /* a batch's text, and its output between two writes */
#define LN_READ_BYTES ((size_t)1 << 16)  /* the read buffer */
#define LN_RECS 8                        /* keysets reported per line */
#define LN_FREQ 2                        /* reports in a window that make a template */
#define LN_TEMPLATES 1024                /* templates in a parent */
#define LN_COUNT_CAP 16384               /* the count table (a power of two) */
#define LN_WINDOW_FIRST 64               /* lines before the first parent with templates */
#define LN_WINDOW_MAX 65536              /* the longest window */

/* A generation: a frozen parent with the templates, a child of the arena of the fixed trees (or
 * that arena itself while there are no templates). */
typedef struct gen {
  gv_arena *p;
  int own;                     /* p is the generation's own (else the fixed trees' arena) */
  size_t *live;                /* the stream's count of generations */
  const gv_node *const *fixed; /* the fixed tree arguments (the stream's) */
  const gv_node *const *rules; /* --replace values (NULL for --to-none; the stream's) */
  uint64_t *thash;             /* template i: its keyset's hash */
  const gv_node **tmpl;        /* template i: a dict of p */
  size_t ntmpl;
  size_t refs; /* batches using it, + 1 while it is the current one (main thread only) */
} gen;

typedef struct lrec {
  uint64_t hash;
  uint32_t line; /* index in its batch */
} lrec;

typedef struct lres {
  size_t off, len; /* the line is text + off, len bytes (then a NUL) */
  uint64_t lineno; /* its number in its source */
  size_t src;      /* its source */
  size_t oend;     /* the output of the line ends at out + oend (in its chunk) */
  size_t eend;     /* its error text ends at err + eend (in its chunk) */
  int too_long;    /* longer than the line budget: not kept, an error */
  int failed;
} lres;

/* A batch of lines. Its lines run in chunks: a chunk's results are kept in out and err until
 * written, then the next chunk runs (so a batch of many large results is never held whole). */
typedef struct batch {
  char *text; /* the lines, each NUL-terminated */
  size_t tlen, tcap;
  size_t theld; /* the bytes of text counted in the stream's held */
  lres *res;    /* the lines */
  size_t n, cap;
  size_t done, written; /* lines run, lines written (the chunk: [written, done)) */
  gen *g;
  char *out; /* the results of the chunk, one after another */
  size_t olen, ocap;
  char *err; /* the error texts of the chunk's failed lines, one after another */
  size_t elen, ecap;
  lrec *recs;
  size_t nrecs, rcap;
  int state; /* 0 free, 1 ready for a worker, 2 taken, 3 done */
} batch;

typedef struct kcount {
  uint64_t hash; /* 0: empty */
  uint32_t count;
  uint8_t state; /* 0 counted, 1 a template, 2 could not be made one */
} kcount;

typedef struct stream {
  cli *c;
  size_t nfixed;
  gen *cur;
  size_t live_gens; /* generations not yet freed (at most two: see window_end) */
  const gv_node **fixed, **rules;
  /* the sources */
  const char *const *srcs;
  size_t nsrcs, src;
  FILE *f;
  uint64_t lineno;
  char *rbuf; /* LN_READ_BYTES read ahead of f */
  size_t rpos, rlen;
  int eof;
  /* the memory budget: line_max the longest line kept (c->max_bytes, SIZE_MAX for none);
   * held the bytes of text and results in flight (atomic: workers add theirs); new batches
   * wait while held is over hold_max (max(--max-bytes, 512 KiB a slot)), and a worker
   * leaves the rest of its batch to the writer then */
  size_t line_max, hold_max;
  _Atomic size_t held;
  /* statistics (main thread) */
  kcount *counts;
  size_t ncounts;
  gv_arena *staging; /* new templates until the next parent */
  uint64_t *phash;   /* staged templates */
  const gv_node **pend;
  size_t npend, npendcap, phashcap;
  uint64_t lines_done, next_window, window;
  size_t rebuilds;
  /* threads */
  pthread_mutex_t mu;
  pthread_cond_t work, done;
  batch *slots;
  size_t nslots, next_take;
  int quit;
  /* results */
  FILE *out, *err; /* where results and line errors go (c->io's, else stdout and stderr) */
  uint64_t bad_lines;
  size_t batch_lines; /* LN_BATCH_LINES, or GROVE_LINES_BATCH (for the tests) */
  int stop;           /* --fail-fast tripped, or a fatal error */
  int fatal;
} stream;

/* ---- output.c: results and error lines, kept or written ---- */

/* Makes *p (*cap elements of elem bytes) hold need elements; 0 when out of memory. */
int grow(void **p, size_t *cap, size_t need, size_t elem);
/* text[0..n) safe for a terminal, into out (cap bytes, at least 4 n + 8): C0 and C1 control
 * characters, DEL and bytes that are not UTF-8 become \xNN; a newline is kept only as the last
 * byte. Returns the length. */
size_t escape_text(const char *text, size_t n, char *out, size_t cap);
/* An error line (or part of one) for standard error, or kept under c->capture; escaped. */
void errf(cli *c, const char *fmt, ...) GV_PRINTF(2, 3);
/* Output: to standard output, or kept in c->buf under c->buffered. w_out is put as a
 * gv_write_fn (ctx: the cli). */
void put(cli *c, const char *data, size_t len);
void put_s(cli *c, const char *s);
gv_status w_out(void *ctx, const char *data, size_t len);
void put_json_string(cli *c, const char *s);
/* "output too large: more than --max-output N"; an allocation that failed, what naming the step
 * or NULL: over the budget (--max-bytes) or the library's "out of memory (allocation of N bytes
 * failed)", as e (NULL: none) says; without e, the budget when one is set. */
void too_large(cli *c);
void out_of_memory(cli *c, const char *what, const gv_error *e);
/* Reports a failed status (what names the step); returns the exit code. */
int report(cli *c, gv_status s, const gv_error *e, const char *what);
/* A tree in literal notation (JSON under --json), no newline. */
gv_status print_node(cli *c, const gv_node *n, gv_error *e);
/* "out of memory" on standard error; returns 2. */
int oom(void);

/* ---- options.c: the tables, help, usage errors, applying an option ---- */

/* The operations o is for, as the help names them ("" when it is for every tree operation). */
void opt_scope(const optdef *o, char *buf, size_t n);
/* The help (only: that operation's), the version line: as output. */
void print_help(cli *c, const opdef *only);
void print_version(cli *c);
/* A usage error (fmt with one %s, detail) and the usage line on standard error; returns 2. */
int usage_error(const char *fmt, const char *detail);
/* Applies option o with value val (NULL if none); returns 0 or the exit code of an error. */
int set_option(cli *c, const optdef *o, const char *val);

/* ---- functions.c: map's FN and traverse's rules ---- */

/* The FN_ of a function name, or -1. */
int parse_fn(const char *name);
/* The gv_map_fn of the map operations: c->fn on the values (ctx: the cli). */
gv_status map_fn(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                 const gv_node **out);
/* The gv_traverse_fn of traverse: the first rule naming the node's type (ctx: the cli). */
gv_status traverse_fn(void *ctx, gv_arena *a, const gv_node *node, gv_visit *action,
                      const gv_node **replacement);

/* ---- stats.c: the stats operation ---- */

/* The stats of t (oneline: as one dict, for --lines) as output; returns 0 or 2. */
int do_stats(cli *c, const gv_node *t, int oneline);

/* ---- load.c: arguments into trees ---- */

/* Whether the operation's first argument is a function name. */
int fn_op(const cli *c);
/* Loads args[0..n) into trees[0..n) (a map operation's args[0] is its function) and the
 * --replace values; returns 0 or the exit code of an error. */
int load_args(cli *c, const char *const *args, size_t n, const gv_node **trees);

/* ---- ops.c: one operation; the output --lines shares ---- */

/* Shared with --lines: whether flatten's output of t is over --max-output (said if so), the
 * structure of t (its leaves null under --json), what a failed
 * assert-same-* prints, the fingerprint of t on a line of its own. */
int flatten_too_big(cli *c, const gv_node *t);
gv_status structure_of(cli *c, gv_arena *a, const gv_node *t, const gv_node **out, gv_error *e);
void put_mismatch(cli *c, const gv_error *e);
gv_status put_fingerprint(cli *c, gv_arena *a, const gv_node *t, gv_error *e);
/* Runs c->op on its arguments args[0..n) in the arena c->a; returns the exit code. */
int run_op(cli *c, const char *const *args, size_t n);

/* ---- lines_gen.c: generations and templates (main thread) ---- */

/* A generation: made holding the templates tmpl[0..n) over the frozen arena of the fixed trees
 * (NULL when out of memory); released by every batch that used it and by the stream. */
void gen_release(gen *g);
gen *gen_make(stream *st, const uint64_t *hashes, const gv_node *const *tmpl, size_t n);
/* An arena for staged templates (their budget: a quarter of --max-bytes, as each parent's). */
gv_status staging_new(stream *st, gv_arena **out);
/* The count of the keyset with hash h (add: made if new); NULL when it is not counted. */
kcount *count_slot(stream *st, uint64_t h, int add);
/* Makes the keyset with hash h, found in text[0..len), a template of the next parent; 0 if
 * not. */
int make_template(stream *st, uint64_t h, const char *text, size_t len);
/* The end of a window: a new parent if its templates would change, and fresh counts. */
void window_end(stream *st);

/* ---- lines_batch.c: a batch of lines, in one worker ---- */

/* Runs the next chunk of b's lines (from b->done) with the worker's own cli w: the results
 * and errors go into b. A chunk ends at the batch's end, or once its results are over
 * LN_BATCH_BYTES and (worker) the stream holds more than its hold_max. */
void run_batch(stream *st, cli *w, batch *b, int worker);
/* Frees the buffers of b. */
void batch_free(batch *b);

/* ---- lines.c: the --lines stream ---- */

/* --lines: args are the operation's arguments but its last tree, then the sources (@PATH
 * or -); returns the exit status. */
int lines_main(cli *c, const opdef *def, const char *const *args, size_t nargs);

/* ---- demo.c: grove demo ---- */

/* grove demo: runs its steps through run; returns the exit status. */
int run_demo(cli_io *io, cli_run_fn *run);

#endif /* GROVE_TOOLS_CLI_H */
