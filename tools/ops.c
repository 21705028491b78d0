/* SPDX-License-Identifier: MIT */
/* ops.c -- one operation on the trees of the command line (run_op), and the pieces of output
 * the --lines stream shares with it (flatten_too_big, structure_of, put_mismatch,
 * put_fingerprint). */
#define _POSIX_C_SOURCE 200809L /* fileno, isatty */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <io.h>
#define isatty _isatty
#define fileno _fileno
#else
#include <unistd.h>
#endif

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
  return (c->io->write_failed || c->buf_oom) ? GV_EINVAL : GV_OK;
}

/* ---------------------------------------------------------------------------
 * Running one operation
 * ------------------------------------------------------------------------- */

static gv_status star_to_none(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                              const gv_node **out) {
  (void)ctx, (void)values, (void)n;
  return gv_none(a, out, NULL);
}

/* Whether flatten's output of t would be over --max-output; if so, says so (errf). */
int flatten_too_big(cli *c, const gv_node *t) {
  if (!c->max_output || gv_expanded_size(t) <= c->max_output) return 0;
  too_large(c);
  return 1;
}

/* The structure of t; under --json its leaves are null instead of * (JSON has no *, and no None
 * is left in a structure). */
gv_status structure_of(cli *c, gv_arena *a, const gv_node *t, const gv_node **out, gv_error *e) {
  gv_status s = gv_structure(a, t, out, e);
  if (s == GV_OK && c->json) {
    const gv_node *skeleton = *out;
    s = gv_map(a, star_to_none, NULL, &skeleton, 1, true, out, e);
  }
  return s;
}

/* What a failed assert-same-structure or assert-same-paths prints. */
void put_mismatch(cli *c, const gv_error *e) {
  const char *msg = e->msg[0] ? e->msg : "mismatch";
  if (c->json) {
    put_s(c, "{\"ok\": false, \"error\": ");
    put_json_string(c, msg);
    put_s(c, "}\n");
  } else {
    put_s(c, msg);
    put_s(c, "\n");
  }
}

/* The fingerprint of t in hex on a line of its own (a JSON string under --json). */
gv_status put_fingerprint(cli *c, gv_arena *a, const gv_node *t, gv_error *e) {
  uint8_t fp[16];
  gv_status s = gv_fingerprint(a, t, fp, e);
  if (s != GV_OK) return s;
  char hex[40];
  for (size_t i = 0; i < 16; i++)
    snprintf(hex + 2 * i, 3, "%02x", (unsigned)fp[i]);
  put_s(c, c->json ? "\"" : "");
  put(c, hex, 32);
  put_s(c, c->json ? "\"\n" : "\n");
  return GV_OK;
}

int run_op(cli *c, const char *const *args, size_t n) {
  gv_error e;
  memset(&e, 0, sizeof e);
  gv_status s = GV_OK;
  const gv_node *out = NULL;
  int rc = 0;
  const gv_node **trees = calloc(n ? n : 1, sizeof *trees);
  if (!trees) return oom();

  if (c->op == OP_CONVERT && c->to && strcmp(c->to, "wire") == 0 && !c->output &&
      isatty(fileno(stdout))) {
    errf(NULL, "grove: error: convert: refusing to write binary output to a terminal "
               "(use -o FILE or redirect standard output)\n");
    rc = 2;
    goto done;
  }
  if ((rc = load_args(c, args, n, trees)) != 0) goto done;

  const gv_node *t = trees[0];
  switch (c->op) {
  case OP_FLATTEN: {
    uint64_t nl = gv_num_leaves(t);
    if (flatten_too_big(c, t)) {
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
    /* Paths repeat their keys, so the size written is known only by writing it: text goes to
     * standard output as it comes, so it is first measured (dry), and refused before anything
     * is written when it is over --max-output. (--json keeps its document until the end.) */
    if (c->max_output && !c->buffered) {
      c->dry = 1;
      s = gv_walk_paths(c->a, t, path_fn, &p, &e);
      c->dry = 0;
      c->out_bytes = p.start;
      if (!p.too_big && s != GV_OK) {
        if (pe.status != GV_OK) e = pe;
        break;
      }
      p.count = 0;
    }
    if (c->json) put_s(c, "[");
    if (!p.too_big) s = gv_walk_paths(c->a, t, path_fn, &p, &e);
    if (p.too_big) {
      too_large(c);
      rc = 2;
      goto done;
    }
    if (s != GV_OK && pe.status != GV_OK) e = pe; /* the printer's own message */
    if (c->json) put_s(c, "]\n");
    break;
  }
  case OP_STRUCTURE:
    s = structure_of(c, c->a, t, &out, &e);
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
      errf(NULL, "grove: error: pack-sequence-as: the leaves (argument 2) must be a list\n");
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
      put_mismatch(c, &e);
      rc = 1;
      goto done;
    }
    if (s == GV_OK && c->json) put_s(c, "{\"ok\": true}\n");
    break;
  case OP_FINGERPRINT:
    s = put_fingerprint(c, c->a, t, &e);
    break;
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
    rc = do_stats(c, t, 0);
    goto done;
  default:
    break;
  }
  if (s == GV_OK && out) {
    s = print_node(c, out, &e);
    if (s == GV_OK) put_s(c, "\n");
  }
  if (s == GV_OK && (c->io->write_failed || c->buf_oom)) s = GV_EINVAL;
  if (s != GV_OK) rc = report(c, s, &e, NULL);

done:
  free(trees);
  return rc;
}
