/* SPDX-License-Identifier: MIT */
/* fuzz_parse.c -- libFuzzer target for the literal-notation reader.
 *
 * Arbitrary bytes go to gv_parse in a fresh arena with a few MiB of budget.
 * Invariants (abort() when broken):
 *   - a failing parse returns a real error status with a message and leaves
 *     the arena exactly as it was (stats and intern-table digest);
 *   - on success, gv_print_str (repr) then gv_parse gives the SAME node;
 *   - when gv_print_json succeeds, its text parses back, and printing that
 *     tree as JSON gives the very same text. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const gv_error *e) {
  fprintf(stderr, "fuzz_parse: broken invariant: %s%s%s\n", what, e ? ": " : "", e ? e->msg : "");
  abort();
}

static int is_error_status(gv_status s) {
  return s == GV_ENOMEM || s == GV_EINVAL || s == GV_EPARSE || s == GV_EDEPTH || s == GV_ERANGE ||
         s == GV_EKEY;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gv_arena_config cfg = {(size_t)8 << 20, 0, NULL, 0, 0, NULL};
  gv_arena *a = NULL;
  if (gv_arena_new(&cfg, &a) != GV_OK) fail("gv_arena_new", NULL);
  gv_error e;
  const gv_node *t = NULL;
  gv__snapshot before = gv__snap(a);
  gv_status s = gv_parse(a, (const char *)data, size, &t, &e);
  if (s != GV_OK) {
    if (!is_error_status(s)) fail("parse returned an unexpected status", &e);
    if (e.status != s) fail("gv_error.status differs from the returned status", &e);
    if (e.msg[0] == '\0') fail("parse failed without a message", NULL);
    gv__snapshot after = gv__snap(a);
    if (!gv__snap_eq(&before, &after)) fail("failed parse changed the arena", &e);
    gv_arena_free(a);
    return 0;
  }
  if (!t || gv_kind(t) == GV_INVALID) fail("parse gave no node", NULL);

  /* repr round trip: the same node */
  const char *txt = NULL;
  size_t len = 0;
  s = gv_print_str(a, t, false, &txt, &len, &e);
  if (s == GV_OK) {
    if (!txt || strlen(txt) != len) fail("print_str length", NULL);
    const gv_node *t2 = NULL;
    s = gv_parse(a, txt, len, &t2, &e);
    if (s != GV_OK) {
      fprintf(stderr, "repr: %.*s\n", (int)(len > 2000 ? 2000 : len), txt);
      fail("repr text does not parse", &e);
    }
    if (t2 != t) {
      fprintf(stderr, "repr: %.*s\n", (int)(len > 2000 ? 2000 : len), txt);
      fail("repr text parses to a different node", NULL);
    }
  } else if (s != GV_ENOMEM) {
    fail("print_str failed", &e);
  }

  /* JSON: when it has a form, it parses back, and is a fixed point */
  const char *js = NULL;
  size_t jlen = 0;
  s = gv_print_str(a, t, true, &js, &jlen, &e);
  if (s == GV_OK) {
    const gv_node *j = NULL;
    s = gv_parse(a, js, jlen, &j, &e);
    if (s != GV_OK) {
      fprintf(stderr, "json: %.*s\n", (int)(jlen > 2000 ? 2000 : jlen), js);
      fail("JSON text does not parse", &e);
    }
    const char *js2 = NULL;
    size_t jlen2 = 0;
    s = gv_print_str(a, j, true, &js2, &jlen2, &e);
    if (s == GV_OK && (jlen2 != jlen || memcmp(js, js2, jlen) != 0)) {
      fprintf(stderr, "json1: %.*s\njson2: %.*s\n", (int)(jlen > 2000 ? 2000 : jlen), js,
              (int)(jlen2 > 2000 ? 2000 : jlen2), js2);
      fail("JSON print is not a fixed point", NULL);
    }
    if (s != GV_OK && s != GV_ENOMEM) fail("JSON of parsed JSON does not print", &e);
    if (gv_num_leaves(j) != gv_num_leaves(t)) fail("JSON changed the leaf count", NULL);
  } else if (s != GV_EINVAL && s != GV_ENOMEM) {
    fail("print_json failed with an unexpected status", &e);
  }
  gv_arena_free(a);
  return 0;
}
