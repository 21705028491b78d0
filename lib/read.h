/* SPDX-License-Identifier: MIT */
/* read.h -- the reader's state, shared by lex.c (tokens and literals) and
 * read.c (values, containers and gv_parse) (private). The small helpers both use
 * are static inline here, so both files keep them inlined. */
#ifndef GROVE_READ_H
#define GROVE_READ_H

#include "internal.h"

enum { FR_LIST, FR_TUPLE, FR_DICT, FR_CALL, FR_ODICT, FR_DDICT, FR_DEQUE, FR_NT, FR_CUSTOM };

typedef struct pframe {
  uint8_t type, st, fl;
  size_t off;          /* offset of the opening token */
  size_t kbase, vbase; /* first entries of this frame on the stacks */
  const gv_node *name; /* defaultdict factory, namedtuple/custom type name */
  int64_t maxlen;      /* deque */
} pframe;

/* The str cache: short strs (at most 16 bytes, no escapes) already made in
 * this parse, by their bytes. Dict keys repeat; this spares them the UTF-8
 * check, the hash and the intern probe. */
#define KC_BITS 8
#define KC_N (1u << KC_BITS)
typedef struct kc_ent {
  uint64_t w0, w1; /* the bytes, zero-padded */
  size_t len;      /* SIZE_MAX: empty entry */
  const gv_node *node;
} kc_ent;

typedef struct P {
  gv_arena *a;
  const unsigned char *t;
  size_t len, pos;
  gv_error *err;
  gv__vec frames, keys, vals, sb;
  size_t depth, max_depth;
  size_t kc_used;
  int kc_ready; /* kc is set up on first use (small parses never touch it) */
  kc_ent kc[KC_N];
} P;

/* ---------------------------------------------------------------------------
 * Tokens (lex.c, where each is described)
 * ------------------------------------------------------------------------- */

gv_status gv__read_fail(P *p, size_t off, gv_status s, const char *fmt, ...) GV_PRINTF(4, 5);
gv_status gv__read_expect(P *p, const char *what);
void gv__read_skip_ws_slow(P *p);
size_t gv__read_scan_ident(P *p);
int gv__read_word_is(const unsigned char *s, size_t n, const char *w);
/* Appends n bytes to the scratch text p->sb. */
gv_status gv__read_sb_put(P *p, const void *d, size_t n);
gv_status gv__read_string(P *p, int is_bytes, const gv_node **r);
gv_status gv__read_u64(P *p, size_t start, uint64_t limit, uint64_t *v);
gv_status gv__read_fast_scalar(P *p, int c, const gv_node **r, int *ok);

/* A constructor's failure, placed at off. */
static inline gv_status p_cons(P *p, gv_status s, const gv_error *sub, size_t off) {
  if (s == GV_OK) return s;
  if (s == GV_ENOMEM) return gv__err(p->err, s, "%s", sub->msg);
  return gv__read_fail(p, off, s, "%s", sub->msg);
}

static inline void skip_ws(P *p) {
  size_t i = p->pos;
  if (i < p->len) { /* nothing to skip, or the one space after ',' or ':' */
    unsigned char c = p->t[i];
    if (c > ' ' && c != '#') return;
    if (c == ' ' && i + 1 < p->len && p->t[i + 1] > ' ' && p->t[i + 1] != '#') {
      p->pos = i + 1;
      return;
    }
  }
  gv__read_skip_ws_slow(p);
}

static inline int peek(const P *p) {
  return p->pos < p->len ? p->t[p->pos] : -1;
}

static inline int ident_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static inline int is_digit(int c) {
  return c >= '0' && c <= '9';
}

#endif /* GROVE_READ_H */
