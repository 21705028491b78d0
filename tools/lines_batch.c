/* SPDX-License-Identifier: MIT */
/* lines_batch.c -- a batch of --lines lines, run by one worker: each line in a child arena of
 * the batch's generation, its result and its error text kept in the batch, the keysets of its
 * dicts reported for the statistics. The design is told in lines.c. */
#include "cli.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records the keysets of the child's own dicts (and their sorted twins). */
static void note_keysets(batch *b, size_t line, const gv_arena *a) {
  gv_stats s;
  gv_arena_stats(a, &s);
  uint64_t seen[LN_RECS];
  size_t nseen = 0;
  for (size_t i = 0; i < s.nodes && nseen < LN_RECS; i++) {
    const gv_node *n = gv_arena_node_at(a, i);
    gv_node_kind k = gv_kind(n);
    if (k != GV_DICT && k != GV_ODICT && k != GV_DDICT) continue;
    const gv_node *ks = gv_meta(n);
    if (gv_arity(n) < 2) continue;
    for (int twin = 0; twin < 2 && nseen < LN_RECS; twin++) {
      const gv_node *x = twin ? gv_keyset_twin(ks) : ks;
      if (!x || (twin && x == ks)) continue;
      uint64_t h = gv_hash(x);
      size_t j = 0;
      while (j < nseen && seen[j] != h)
        j++;
      if (j < nseen) continue;
      seen[nseen++] = h;
      if (!grow((void **)&b->recs, &b->rcap, b->nrecs + 1, sizeof *b->recs)) return;
      b->recs[b->nrecs].hash = h;
      b->recs[b->nrecs++].line = (uint32_t)line;
    }
  }
}

/* The error of a line. A parse error keeps the reader's "line 1, column C: ..." (a line is one
 * line): the writer puts the line's number in the stream in place of its 1. */
static void line_error(cli *w, gv_status s, gv_error *e) {
  (void)report(w, s, e, NULL);
}

/* A failed allocation of the tool's own (not the arena's). */
static int oom_line(cli *w) {
  errf(w, "grove: error: out of memory\n");
  return 1;
}

/* The budget of a line's output: what its text and its arena leave of --max-bytes. */
static void limit_output(cli *w, const gv_arena *a, size_t start, size_t len) {
  if (!w->max_bytes) return;
  gv_stats st;
  gv_arena_stats(a, &st);
  size_t used = len + st.bytes_reserved;
  w->out_limit = start + (used < w->max_bytes ? w->max_bytes - used : 0);
  if (w->out_limit == 0) w->out_limit = 1; /* 0 would mean no end */
}

/* Runs the operation on one line in a child of g. Returns 0, or 1 for a failed line. Every
 * byte the line costs counts in --max-bytes: its text, its arena, its output. */
static int run_line(cli *w, gen *g, const lres *r, const char *text, batch *b, size_t line) {
  size_t len = r->len;
  if (r->too_long) {
    errf(w, "grove: error: line too long: more than --max-bytes %zu bytes\n", w->max_bytes);
    return 1;
  }
  gv_arena_config cfg;
  memset(&cfg, 0, sizeof cfg);
  if (w->max_bytes) cfg.max_bytes = w->max_bytes > len ? w->max_bytes - len : 1;
  cfg.max_output = w->max_output;
  cfg.parent = g->p;
  gv_arena *a = NULL;
  size_t before = w->len;
  w->out_limit = 0;
  w->out_over = 0;
  if (gv_arena_new(&cfg, &a) != GV_OK) {
    out_of_memory(w, NULL, NULL);
    return 1;
  }
  w->a = a;
  w->fnmsg[0] = '\0';
  gv_error e;
  memset(&e, 0, sizeof e);
  const gv_node *t = NULL, *out = NULL;
  int rc = 0;
  gv_status s = gv_parse(a, text, len, &t, &e);
  if (s != GV_OK) {
    line_error(w, s, &e);
    gv_arena_free(a);
    w->a = NULL;
    return 1;
  }
  limit_output(w, a, before, len);
  const gv_node *fixed0 = g->fixed[0];
  switch (w->op) {
  case OP_FLATTEN: {
    if (flatten_too_big(w, t)) {
      rc = 1;
      break;
    }
    uint64_t nl = gv_num_leaves(t);
    const gv_node **leaves =
        nl > SIZE_MAX / sizeof(gv_node *) ? NULL : malloc((size_t)nl * sizeof *leaves + 1);
    if (!leaves) {
      (void)oom_line(w);
      rc = 1;
      break;
    }
    size_t got = 0;
    s = gv_flatten(t, leaves, (size_t)nl, &got, &e);
    put_s(w, "[");
    for (size_t i = 0; s == GV_OK && i < got; i++) {
      if (i) put_s(w, ", ");
      s = print_node(w, leaves[i], &e);
    }
    put_s(w, "]\n");
    free(leaves);
    break;
  }
  case OP_FLATTEN_WITH_PATH:
    s = gv_flatten_with_path(a, t, &out, &e);
    break;
  case OP_STRUCTURE:
    s = structure_of(w, a, t, &out, &e);
    break;
  case OP_IS_NESTED: {
    int nested = gv_is_nested(t);
    put_s(w, w->json ? (nested ? "true\n" : "false\n") : (nested ? "True\n" : "False\n"));
    if (!nested) rc = 2; /* a result, and a negative answer: a failed line (exit 1) */
    break;
  }
  case OP_PACK_SEQUENCE_AS: {
    if (gv_kind(t) != GV_LIST) {
      errf(w, "grove: error: pack-sequence-as: the leaves must be a list\n");
      rc = 1;
      break;
    }
    size_t k = gv_arity(t);
    const gv_node **items = malloc(k * sizeof *items + 1);
    if (!items) {
      (void)oom_line(w);
      rc = 1;
      break;
    }
    for (size_t i = 0; i < k; i++)
      items[i] = gv_child(t, i);
    s = gv_pack_sequence_as(a, fixed0, items, k, &out, &e);
    free(items);
    break;
  }
  case OP_MAP:
    s = gv_map(a, map_fn, w, &t, 1, w->none_is_leaf != 0, &out, &e);
    break;
  case OP_MAP_UP_TO:
    s = gv_map_up_to(a, fixed0, map_fn, w, &t, 1, &out, &e);
    break;
  case OP_MAP_SHAPE:
    s = gv_map_shape(a, map_fn, w, t, &out, &e);
    break;
  case OP_TRAVERSE:
    s = gv_traverse(a, t, w->top_down != 0, traverse_fn, w, &out, &e);
    break;
  case OP_LISTS_TO_TUPLES:
    s = gv_lists_to_tuples(a, t, &out, &e);
    break;
  case OP_ORDER:
    s = gv_order(a, t, &out, NULL, &e);
    break;
  case OP_ASSERT_SAME_STRUCTURE:
  case OP_ASSERT_SAME_PATHS:
    s = w->op == OP_ASSERT_SAME_STRUCTURE ? gv_same_structure(a, fixed0, t, &e)
                                          : gv_same_paths(a, fixed0, t, &e);
    if (s == GV_EMISMATCH) {
      put_mismatch(w, &e);
      rc = 2; /* a result, and a failed line */
      s = GV_OK;
    } else if (s == GV_OK) {
      put_s(w, w->json ? "{\"ok\": true}\n" : "ok\n");
    }
    break;
  case OP_FINGERPRINT:
    s = put_fingerprint(w, a, t, &e);
    break;
  case OP_CONVERT:
    out = t;
    break;
  case OP_STATS:
    rc = do_stats(w, t, 1) ? 1 : 0;
    break;
  default:
    break;
  }
  if (rc == 0 && s == GV_OK && out) {
    limit_output(w, a, before, len);
    s = print_node(w, out, &e);
    if (s == GV_OK) put_s(w, "\n");
  }
  if (w->buf_oom) { /* the output went over the line's budget, or could not be kept */
    w->len = before;
    if (w->out_over)
      out_of_memory(w, "output", NULL);
    else
      errf(w, "grove: error: out of memory (output)\n");
    w->buf_oom = w->out_over = 0;
    rc = 1;
  } else if (rc == 0 && s != GV_OK) {
    line_error(w, s, &e);
    rc = 1;
  }
  if (rc == 1) w->len = before; /* no half result */
  if (rc != 1) note_keysets(b, line, a);
  gv_arena_free(a);
  w->a = NULL;
  w->out_limit = 0;
  return rc ? 1 : 0;
}

/* Runs the next chunk of b's lines; its outputs and errors go into b (from their start). */
void run_batch(stream *st, cli *w, batch *b, int worker) {
  b->nrecs = 0;
  for (size_t i = 0; i < w->nrules; i++) /* the rules' replacements live in the base arena */
    w->rules[i].node = b->g->rules[i];
  w->buffered = 1;
  w->buf = b->out;
  w->cap = b->ocap;
  w->len = 0;
  w->capture = 1;
  w->ebuf = b->err;
  w->ecap = b->ecap;
  w->elen = 0;
  size_t first = b->done;
  for (size_t i = first; i < b->n; i++) {
    size_t before = w->len, ebefore = w->elen;
    if (i > first && w->len + w->elen > LN_BATCH_BYTES &&
        (!worker || atomic_load(&st->held) > st->hold_max))
      break; /* the rest is the next chunk's */
    w->buf_oom = 0;
    int bad = run_line(w, b->g, &b->res[i], b->text + b->res[i].off, b, i);
    b->res[i].failed = bad;
    b->res[i].oend = w->len;
    b->res[i].eend = w->elen;
    b->done = i + 1;
    atomic_fetch_add(&st->held, (w->len - before) + (w->elen - ebefore));
  }
  b->out = w->buf;
  b->ocap = w->cap;
  b->olen = w->len;
  b->err = w->ebuf;
  b->ecap = w->ecap;
  b->elen = w->elen;
  w->buf = NULL;
  w->ebuf = NULL;
  w->len = w->cap = w->elen = w->ecap = 0;
}

void batch_free(batch *b) {
  free(b->text);
  free(b->res);
  free(b->out);
  free(b->err);
  free(b->recs);
}
