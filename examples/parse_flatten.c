/* SPDX-License-Identifier: MIT */
/* parse_flatten.c -- parse a tree, flatten it, print it.
 *
 * README. The first program to try with grove. It reads one tree written in the literal
 * notation (docs/notation.md) from its first argument, or takes a built-in sample, and prints
 * the tree, its leaves in traversal order with their paths (dicts go by sorted key), its
 * structure (every leaf replaced by *), the tree with its dicts in sorted-key order, and the
 * tree as JSON.
 *
 *   cc parse_flatten.c $(pkg-config --cflags --libs grove) -o parse_flatten
 *   ./parse_flatten "{'b': [1, 2], 'a': 'x'}"
 *
 * Everything the library builds lives in the arena; gv_arena_free releases it all at once.
 * Every call that can fail returns a gv_status and fills the optional gv_error.
 */
#include <grove.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SAMPLE[] = "[{'b': 1, 'a': [2, 3]}, (4, 5), 6]";

/* A gv_write_fn: the printers hand their text to a sink like this one. */
static gv_status write_stdout(void *ctx, const char *data, size_t len) {
  (void)ctx;
  return fwrite(data, 1, len, stdout) == len ? GV_OK : GV_EINVAL;
}

/* Prints a label, the tree in Python's repr style, and a newline. */
static gv_status show(gv_arena *a, const char *label, const gv_node *t) {
  gv_error err;
  fputs(label, stdout);
  gv_status s = gv_print(a, t, write_stdout, NULL, &err);
  if (s != GV_OK) fprintf(stderr, "print: %s\n", err.msg);
  fputs("\n", stdout);
  return s;
}

/* gv_walk_paths calls this once per leaf, in traversal order, with the path from the root:
 * positions (ints) for lists and tuples, keys for dicts. */
static gv_status print_path(void *ctx, const gv_node *const *path, size_t depth,
                            const gv_node *leaf) {
  gv_arena *a = ctx;
  gv_status s = GV_OK;
  fputs("  (", stdout);
  for (size_t i = 0; i < depth && s == GV_OK; i++) {
    if (i) fputs(", ", stdout);
    s = gv_print(a, path[i], write_stdout, NULL, NULL);
  }
  fputs(depth == 1 ? ",) -> " : ") -> ", stdout);
  if (s == GV_OK) s = gv_print(a, leaf, write_stdout, NULL, NULL);
  fputs("\n", stdout);
  return s;
}

int main(int argc, char **argv) {
  const char *text = argc > 1 ? argv[1] : SAMPLE;
  gv_arena *a = NULL;
  if (gv_arena_new(NULL, &a) != GV_OK) return 1; /* NULL config: no budget */

  gv_error err = {.msg = ""};
  const gv_node *t = NULL;
  if (gv_parse(a, text, strlen(text), &t, &err) != GV_OK) {
    fprintf(stderr, "parse_flatten: %s\n", err.msg); /* "line 1, column 9: ..." */
    gv_arena_free(a);
    return 1;
  }
  int ok = show(a, "tree:      ", t) == GV_OK;

  /* The leaves, into an array sized by gv_num_leaves (known in O(1)). */
  size_t n = (size_t)gv_num_leaves(t);
  const gv_node **leaves = malloc((n ? n : 1) * sizeof *leaves);
  if (ok && leaves && gv_flatten(t, leaves, n, &n, &err) == GV_OK) {
    printf("leaves:    %zu:", n);
    for (size_t i = 0; i < n; i++) {
      fputs(" ", stdout);
      ok = ok && gv_print(a, leaves[i], write_stdout, NULL, NULL) == GV_OK;
    }
    fputs("\n", stdout);
  } else {
    ok = 0;
  }
  free(leaves);

  puts("paths:");
  ok = ok && gv_walk_paths(a, t, print_path, a, &err) == GV_OK;

  const gv_node *s = NULL, *ordered = NULL;
  bool changed = false;
  ok = ok && gv_structure(a, t, &s, &err) == GV_OK && show(a, "structure: ", s) == GV_OK;
  ok = ok && gv_order(a, t, &ordered, &changed, &err) == GV_OK &&
       show(a, changed ? "ordered:   " : "ordered (no change): ", ordered) == GV_OK;

  /* JSON where the tree has a JSON form (a tuple prints as an array). */
  fputs("json:      ", stdout);
  if (ok && gv_print_json(a, t, write_stdout, NULL, &err) != GV_OK) printf("(none: %s)", err.msg);
  fputs("\n", stdout);

  if (!ok) fprintf(stderr, "parse_flatten: %s\n", err.msg);
  gv_arena_free(a);
  return ok ? 0 : 1;
}
