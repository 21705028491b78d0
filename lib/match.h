/* SPDX-License-Identifier: MIT */
/* match.h -- the match relation shared by compare.c and transform.c (private). */
#ifndef GROVE_MATCH_H
#define GROVE_MATCH_H

#include "walk.h"

/* One step of the match relation (stated in include/grove.h, above
 * gv_same_structure): does b match the reference a at this node (children not
 * looked at)? When a is a leaf, the leaf rule applies (b must be a leaf);
 * callers that do not apply it (map_up_to) must not call this on leaves. Returns 1 on a match;
 * otherwise 0 with the message (no path) in msg, or -1 when out of memory (namedtuple and custom
 * types and keys of two arenas are compared by value, under kc). */
int gv__match_node(gv__cmp *kc, const gv_node *a, const gv_node *b, gv__sbuf *msg);
/* The child of b paired with a's child at traversal position i (a and b
 * matched by gv__match_node); NULL when kc->oom. */
const gv_node *gv__match_child(gv__cmp *kc, const gv_node *a, const gv_node *b, size_t i);
/* Appends the path of the walk's current node: entry k is frame k's child at
 * traversal position frames[k].next - 1. */
void gv__frames_path(gv__sbuf *b, const gv__frame *frames, size_t n);
/* Fills err with "at PATH: msg" (no prefix when n == 0) and returns s. */
gv_status gv__match_fail(gv_error *err, gv_status s, const gv__frame *frames, size_t n,
                         const char *msg);
/* The same for a msg that was itself cut (msg_cut): the message ends "...". */
gv_status gv__match_fail_cut(gv_error *err, gv_status s, const gv__frame *frames, size_t n,
                             const char *msg, int msg_cut);
/* printf into a text buffer (truncating). */
void gv__sbuf_printf(gv__sbuf *b, const char *fmt, ...) GV_PRINTF(2, 3);

#endif /* GROVE_MATCH_H */
