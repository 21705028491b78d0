/* SPDX-License-Identifier: MIT */
/* walk.h -- the rebuild walk (walk.c; private): an iterative depth-first walk
 * in traversal order that rebuilds containers from their children's results
 * and returns the very same node wherever nothing changed. Used by flatten.c
 * and transform.c; compare.c and transform.c share its frames (match.h). */
#ifndef GROVE_WALK_H
#define GROVE_WALK_H

#include "internal.h"

typedef struct gv__frame {
  const gv_node *node; /* container being walked */
  size_t next;         /* traversal position of the next child */
  size_t base;         /* first of its children's results on the value stack */
  uintptr_t user;      /* free for the callbacks */
} gv__frame;

typedef struct gv__walk gv__walk;
typedef struct gv__walk_ops {
  /* Called on each node before its children. Set *res and return with
   * *descend = 0 to give the node's result (leaves must); leave *descend = 1
   * to walk a container's children. */
  gv_status (*pre)(gv__walk *w, const gv_node *n, int *descend, const gv_node **res);
  /* Called after a container's children: rebuilt is n itself when no child
   * result differs. NULL post means *res = rebuilt. */
  gv_status (*post)(gv__walk *w, const gv_node *n, const gv_node *rebuilt, const gv_node **res);
  /* The result depends on the node alone (no callback, no position): large
   * subtrees are then memoized, and a shared one is walked once. */
  int memo;
} gv__walk_ops;

struct gv__walk {
  gv_arena *a;
  gv_error *err;
  void *ctx;
  gv__vec frames; /* gv__frame; frames.len-1 is the innermost container */
  gv__vec vals;   /* const gv_node *, results in traversal order */
  gv__vec kids;   /* scratch for rebuilding in insertion order */
};

/* Walk root; *out gets the root's result. Scratch is freed before returning.
 * Atomic: on failure the arena is rolled back to what it held at the call. */
gv_status gv__walk_run(gv_arena *a, const gv_node *root, const gv__walk_ops *ops, void *ctx,
                       const gv_node **out, gv_error *err);

#endif /* GROVE_WALK_H */
