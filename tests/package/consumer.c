/* SPDX-License-Identifier: MIT */
/* consumer.c -- a program that uses an installed (or add_subdirectory'd) grove; built by
 * tests/package/check.sh through find_package, pkg-config and add_subdirectory. */
#include <grove.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  gv_arena *a = NULL;
  if (gv_arena_new(NULL, &a) != GV_OK) return 1;
  const char *text = "{'b': [1, 2], 'a': (3,)}";
  const gv_node *t = NULL, *ordered = NULL;
  const char *repr = NULL;
  size_t len = 0;
  gv_error err;
  int ok = gv_parse(a, text, strlen(text), &t, &err) == GV_OK &&
           gv_order(a, t, &ordered, NULL, &err) == GV_OK &&
           gv_print_str(a, ordered, false, &repr, &len, &err) == GV_OK;
  if (!ok) {
    fprintf(stderr, "consumer: %s\n", err.msg);
    gv_arena_free(a);
    return 1;
  }
  /* the header and the library linked in must be the same version */
  int same = strcmp(gv_version(), GV_VERSION_STRING) == 0;
  printf("consumer: grove %s, %llu leaves, %s\n", gv_version(),
         (unsigned long long)gv_num_leaves(t), repr);
  gv_arena_free(a);
  return same && gv_num_leaves(t) == 3 && strcmp(repr, "{'a': (3,), 'b': [1, 2]}") == 0 ? 0 : 1;
}
