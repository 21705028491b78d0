/* SPDX-License-Identifier: MIT */
/* repr.h -- the output sink and the text of leaves and keys, shared by repr.c
 * and print.c (private). The sink's helpers are static inline, so that both
 * files keep them inlined. */
#ifndef GROVE_REPR_H
#define GROVE_REPR_H

#include "internal.h"

/* ===========================================================================
 * Output: a small buffered sink that writes either through a gv_write_fn (in
 * pieces of up to TOUT_CAP bytes) or into a fixed gv__sbuf.
 * =========================================================================== */

#define TOUT_CAP 4096

typedef struct tout {
  char *buf;
  size_t cap, len;
  gv_write_fn w;
  void *ctx;
  gv_status st; /* sticky: the first failing write */
  gv__sbuf *sb; /* when set, text goes here instead */
} tout;

static inline void o_flush(tout *o) {
  if (o->sb || o->st != GV_OK || o->len == 0) return;
  o->st = o->w(o->ctx, o->buf, o->len);
  o->len = 0;
}

static inline void o_put(tout *o, const char *s, size_t n) {
  if (o->sb) {
    gv__sbuf_put(o->sb, s, n);
    return;
  }
  if (o->st != GV_OK || n == 0) return;
  if (n > o->cap - o->len) {
    o_flush(o);
    if (o->st != GV_OK) return;
    if (n > o->cap) {
      o->st = o->w(o->ctx, s, n);
      return;
    }
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
}

static inline void o_puts(tout *o, const char *s) {
  o_put(o, s, strlen(s));
}

static inline void o_putc(tout *o, char c) {
  if (!o->sb && o->st == GV_OK && o->len < o->cap) {
    o->buf[o->len++] = c;
    return;
  }
  o_put(o, &c, 1);
}

/* ===========================================================================
 * Leaves and keys (repr.c, where each is described)
 * =========================================================================== */

size_t gv__fmt_float(char *out, double v); /* out: 40 bytes */
void gv__put_jstr(tout *o, const char *s, size_t n);
int gv__put_leaf(tout *o, const gv_node *n, int json);
void gv__put_key(tout *o, const gv_node *k);

/* Python repr of a leaf. */
static inline void put_scalar(tout *o, const gv_node *n) {
  (void)gv__put_leaf(o, n, 0);
}

#endif /* GROVE_REPR_H */
