/* SPDX-License-Identifier: MIT */
/* shared_service.c -- requests served by threads, each in a child arena of one frozen parent.
 *
 * README. The shape of a service that takes trees from untrusted clients on several threads,
 * with a fixed memory budget per request. What every request needs -- here the reference
 * structure requests must follow, and the keys and keysets they use -- is built once in a
 * parent arena, which is then frozen: from then on no one writes it, and any number of threads
 * read it. Each request gets a child arena of the parent with a small budget (max_bytes): it
 * interns through the parent first, so the reference's keys and keysets are the parent's nodes
 * and cost the request nothing; its own nodes count against its own budget only; and freeing
 * the child when the answer is written frees the request's memory at once. A request that is
 * malformed, does not match the reference, or needs more than its budget is answered with an
 * error; the parent and the other requests never notice.
 *
 * Requests are lines on standard input, each a tree in the literal notation (JSON is fine);
 * two worker threads take them in turn; the answers are printed in input order:
 *   "ok <fingerprint> <the tree with sorted dict keys>", "mismatch: <why>" or "error: <why>".
 * Empty lines and lines starting with '#' are skipped.
 *
 *   cc shared_service.c $(pkg-config --cflags --libs grove) -lpthread -o shared_service
 *   printf '%s\n' "{'user': 'ada', 'tags': ['x', 'y'], 'pos': {'y': 2, 'x': 1}}" |
 *     ./shared_service
 */
#include <grove.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REQUEST_BUDGET (8 * 1024) /* bytes per request: small on purpose */
#define NTHREADS 2
#define MAX_REQUESTS 256
#define MAX_LINE (64 * 1024)
#define REFERENCE "{'user': *, 'tags': [*, *], 'pos': {'x': *, 'y': *}}"

typedef struct service {
  gv_arena *parent;         /* frozen: read by every thread */
  const gv_node *reference; /* a node of the parent */
  char *req[MAX_REQUESTS];
  char *answer[MAX_REQUESTS];
  size_t nreq;
  atomic_size_t next; /* the next request to take */
} service;

typedef struct text {
  char *p;
  size_t len, cap;
} text;

static gv_status to_text(void *ctx, const char *data, size_t len) {
  text *t = ctx;
  if (t->len + len + 1 > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 256;
    while (cap < t->len + len + 1)
      cap *= 2;
    char *p = realloc(t->p, cap);
    if (!p) return GV_ENOMEM;
    t->p = p;
    t->cap = cap;
  }
  memcpy(t->p + t->len, data, len);
  t->len += len;
  t->p[t->len] = '\0';
  return GV_OK;
}

/* One request, in a child arena of the parent; the answer is a malloc'd line. */
static char *serve(const service *sv, const char *line) {
  gv_arena_config cfg = {.max_bytes = REQUEST_BUDGET, .parent = sv->parent};
  gv_arena *a = NULL;
  text out = {NULL, 0, 0};
  gv_error err;
  memset(&err, 0, sizeof err);
  if (gv_arena_new(&cfg, &a) != GV_OK) return NULL;
  const gv_node *t = NULL, *ordered = NULL;
  uint8_t fp[16];
  gv_status s = gv_parse(a, line, strlen(line), &t, &err);
  if (s == GV_OK) s = gv_same_structure(a, sv->reference, t, &err);
  if (s == GV_OK) s = gv_order(a, t, &ordered, NULL, &err);
  if (s == GV_OK) s = gv_fingerprint(a, ordered, fp, &err);
  if (s == GV_OK) {
    char hex[8 * 2 + 1];
    for (int i = 0; i < 8; i++)
      snprintf(hex + 2 * i, 3, "%02x", fp[i]);
    to_text(&out, "ok ", 3);
    to_text(&out, hex, 16);
    to_text(&out, " ", 1);
    s = gv_print(a, ordered, to_text, &out, &err);
  }
  if (s != GV_OK) {
    char msg[600];
    if (s == GV_EMISMATCH)
      snprintf(msg, sizeof msg, "mismatch: %s", err.msg);
    else if (s == GV_ENOMEM)
      snprintf(msg, sizeof msg, "error: the request needs more than its %d-byte budget",
               REQUEST_BUDGET);
    else
      snprintf(msg, sizeof msg, "error: %s", err.msg);
    out.len = 0;
    to_text(&out, msg, strlen(msg));
  }
  gv_arena_free(a); /* everything the request built goes at once */
  return out.p;
}

static void *worker(void *arg) {
  service *sv = arg;
  for (;;) {
    size_t i = atomic_fetch_add(&sv->next, 1);
    if (i >= sv->nreq) break;
    sv->answer[i] = serve(sv, sv->req[i]);
  }
  return NULL;
}

int main(void) {
  static service sv;
  gv_error err;
  /* the parent: the reference, and the keys and keysets requests use, then frozen */
  if (gv_arena_new(NULL, &sv.parent) != GV_OK) return 1;
  const gv_node *sample = NULL, *ordered = NULL;
  const char *sample_text = "{'user': '', 'tags': ['', ''], 'pos': {'y': 0, 'x': 0}}";
  if (gv_parse(sv.parent, REFERENCE, strlen(REFERENCE), &sv.reference, &err) != GV_OK ||
      gv_parse(sv.parent, sample_text, strlen(sample_text), &sample, &err) != GV_OK ||
      gv_order(sv.parent, sample, &ordered, NULL, &err) != GV_OK) {
    fprintf(stderr, "shared_service: %s\n", err.msg);
    return 1;
  }
  if (gv_arena_freeze(sv.parent) != GV_OK) return 1;
  gv_stats before, after;
  gv_arena_stats(sv.parent, &before);

  static char line[MAX_LINE];
  while (sv.nreq < MAX_REQUESTS && fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = '\0';
    if (line[0] == '\0' || line[0] == '#') continue;
    size_t len = strlen(line) + 1;
    if (!(sv.req[sv.nreq] = malloc(len))) return 1;
    memcpy(sv.req[sv.nreq], line, len);
    sv.nreq++;
  }
  pthread_t th[NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    if (pthread_create(&th[i], NULL, worker, &sv) != 0) return 1;
  for (int i = 0; i < NTHREADS; i++)
    pthread_join(th[i], NULL);

  unsigned ok = 0, refused = 0;
  for (size_t i = 0; i < sv.nreq; i++) {
    const char *ans = sv.answer[i] ? sv.answer[i] : "error: out of memory";
    printf("%s\n", ans);
    if (strncmp(ans, "ok ", 3) == 0)
      ok++;
    else
      refused++;
    free(sv.answer[i]);
    free(sv.req[i]);
  }
  gv_arena_stats(sv.parent, &after);
  int same = memcmp(&before, &after, sizeof before) == 0;
  printf("%u answered, %u refused; the parent before and after: %s\n", ok, refused,
         same ? "unchanged" : "CHANGED");
  gv_arena_free(sv.parent);
  return same ? 0 : 1;
}
