/* SPDX-License-Identifier: MIT */
/* service.c -- a request loop over one long-lived arena with a memory budget.
 *
 * README. The shape of a service that takes trees from untrusted clients: one arena, created
 * once with a budget (max_bytes); for each request a mark, the work, and a rollback to the
 * mark, so every request starts from the same arena and memory never grows. A request that
 * is malformed or needs more memory than the budget gets an error answer; the arena is then
 * exactly as it was (grove rolls a failed call back by itself), and the loop goes on.
 *
 * Requests are lines on standard input, each a tree in the literal notation; answers are
 * lines on standard output: "ok: <the tree with sorted dict keys> (N leaves)" or
 * "error: <message>". Empty lines and lines starting with '#' are skipped.
 *
 *   cc service.c $(pkg-config --cflags --libs grove) -o service
 *   printf '%s\n' "{'b': 1, 'a': 2}" "[1, 2" | ./service
 */
#include <grove.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET (16 * 1024) /* bytes: small on purpose, so that a big request is refused */
#define MAX_LINE (64 * 1024)

static gv_status write_stdout(void *ctx, const char *data, size_t len) {
  (void)ctx;
  return fwrite(data, 1, len, stdout) == len ? GV_OK : GV_EINVAL;
}

/* One request: parse, put the dicts in sorted-key order, answer. */
static gv_status serve(gv_arena *a, const char *text, size_t len, gv_error *err) {
  const gv_node *t, *ordered;
  gv_status s = gv_parse(a, text, len, &t, err);
  if (s == GV_OK) s = gv_order(a, t, &ordered, NULL, err);
  if (s != GV_OK) return s;
  fputs("ok: ", stdout);
  s = gv_print(a, ordered, write_stdout, NULL, err);
  printf(" (%llu leaves)\n", (unsigned long long)gv_num_leaves(ordered));
  return s;
}

int main(void) {
  gv_arena_config cfg = {.max_bytes = BUDGET};
  gv_arena *a = NULL;
  if (gv_arena_new(&cfg, &a) != GV_OK) return 1;
  gv_stats before, after;
  gv_arena_stats(a, &before);

  static char line[MAX_LINE];
  unsigned answered = 0, refused = 0;
  while (fgets(line, sizeof line, stdin)) {
    size_t len = strcspn(line, "\n");
    if (len == 0 || line[0] == '#') continue;
    gv_mark m = gv_arena_mark(a); /* everything this request builds goes at the end */
    gv_error err;
    gv_status s = serve(a, line, len, &err);
    if (s == GV_OK) {
      answered++;
    } else {
      refused++;
      if (s == GV_ENOMEM)
        printf("error: request too large for the %d-byte budget\n", BUDGET);
      else
        printf("error: %s\n", err.msg);
    }
    gv_arena_rollback(a, &m); /* the request's nodes go; the arena is as before */
  }

  gv_arena_stats(a, &after);
  printf("%u answered, %u refused; arena bytes in use before and after: %s\n", answered, refused,
         before.bytes_used == after.bytes_used && before.nodes == after.nodes ? "equal"
                                                                              : "DIFFERENT");
  gv_arena_free(a);
  return before.bytes_used == after.bytes_used ? 0 : 1;
}
