/* SPDX-License-Identifier: MIT */
/* wire.c -- the binary wire format (docs/wire-format.md) and fingerprints.
 *
 * Encoding walks the DAG once, depth-first with an explicit stack: every
 * distinct node gets a number in post-order (a pointer -> number hash map
 * dedups shared nodes) and its record, each child a back-reference, is
 * appended as soon as its children are numbered; the header, which holds the
 * record count, goes out first, then the records.
 * Decoding reads the records in order and rebuilds every value through the
 * public constructors, so all the usual validation and interning applies;
 * metadata records (keysets, schemas, ctypes) are kept pending until a value
 * record uses them. */
#include "internal.h"

#include <stdio.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#define GV__WIRE_VERSION 1u

/* Record tags (fixed by format version 1; not the gv_kind numbers). */
enum {
  W_NONE = 0x01,
  W_FALSE = 0x02,
  W_TRUE = 0x03,
  W_INT = 0x04,
  W_FLOAT = 0x05,
  W_STR = 0x06,
  W_BYTES = 0x07,
  W_HANDLE = 0x08,
  W_STAR = 0x09,
  W_LIST = 0x10,
  W_TUPLE = 0x11,
  W_DICT = 0x12,
  W_ODICT = 0x13,
  W_DDICT = 0x14,
  W_NAMEDTUPLE = 0x15,
  W_DEQUE = 0x16,
  W_CUSTOM = 0x17,
  W_KEYSET = 0x20,
  W_SCHEMA = 0x21,
  W_CTYPE = 0x22,
  W_HKEYSET = 0x23 /* a host-ordered keyset: the keys, then the order */
};

static int w_is_value_tag(unsigned t) {
  return t >= W_NONE && t <= W_CUSTOM;
}

static const char *w_tag_name(unsigned t) {
  switch (t) {
  case W_NONE:
    return "None";
  case W_FALSE:
  case W_TRUE:
    return "bool";
  case W_INT:
    return "int";
  case W_FLOAT:
    return "float";
  case W_STR:
    return "str";
  case W_BYTES:
    return "bytes";
  case W_HANDLE:
    return "handle";
  case W_STAR:
    return "star";
  case W_LIST:
    return "list";
  case W_TUPLE:
    return "tuple";
  case W_DICT:
    return "dict";
  case W_ODICT:
    return "OrderedDict";
  case W_DDICT:
    return "defaultdict";
  case W_NAMEDTUPLE:
    return "namedtuple";
  case W_DEQUE:
    return "deque";
  case W_CUSTOM:
    return "custom";
  case W_KEYSET:
    return "keyset";
  case W_HKEYSET:
    return "host keyset";
  case W_SCHEMA:
    return "schema";
  case W_CTYPE:
    return "ctype";
  default:
    return "?";
  }
}

/* ===========================================================================
 * Encoder
 * =========================================================================== */

/* Node -> record number map: open addressing (linear probing) over 64-bit
 * slots, each the high 32 bits of the node's slot hash and, in the low 32, its
 * record number + 1 (0 = empty); the node itself is recs[number]. The map is
 * the one big structure of a big encoding: small slots keep it in few cache
 * lines and pages, and the hash bits in a slot make a probe past another
 * node's slot rarely read recs. A node's home slot is the top bits of its
 * hash, which its slot holds: growing scans the old slots in order and puts
 * each in the new map (nearly in order too) without reading recs or hashing
 * again. The map's layout never shows in the output. */
typedef struct w_frame {
  const gv_node *node;
  const gv_node *const *kids; /* its refs after the first pre */
  const gv_node *pfx[2];      /* its first pre refs (meta, aux) */
  size_t next;                /* next ref to visit */
  size_t nr, pre;             /* refs in all; those in pfx */
  size_t base;                /* its refs' numbers start here on the number stack */
} w_frame;

/* A piece of the record bytes (they are kept in pieces that are never moved). */
typedef struct w_chunk {
  unsigned char *p;
  size_t len, cap;
} w_chunk;

typedef struct w_enc {
  gv__mem mem; /* the encoder is a reader: scratch from the hook */
  uint64_t *tab;
  size_t cap;               /* slots: a power of two, or 0 */
  unsigned shift;           /* 64 - log2(cap): the home slot of hash h is h >> shift */
  size_t limit;             /* records the map takes before it grows (recs has room for them) */
  size_t want;              /* slots for the records guessed (see w_walk) */
  size_t len;               /* records numbered so far */
  gv__vec recs;             /* const gv_node *: the node of each record */
  gv__vec stack;            /* w_frame */
  gv__vec nums;             /* size_t: numbers of the refs of the open frames */
  gv__vec chunks;           /* w_chunk: the records' bytes, in order; the last is being filled */
  unsigned char *out, *end; /* the free bytes of the last chunk */
} w_enc;

#define W_MAX_RECORDS ((size_t)UINT32_MAX - 1)
/* How far ahead the map's slots are loaded (see w_prefetch). */
#define W_AHEAD 8
/* The map starts with room for at most this many records (see w_encode). */
#define W_PRESIZE_MAX ((size_t)1 << 21)
/* Record chunks: the first holds W_CHUNK_MIN bytes or more, each next one
 * twice the one before, up to W_CHUNK_MAX (a record that needs more gets a
 * chunk of its size). */
#define W_CHUNK_MIN ((size_t)1 << 10)
#define W_CHUNK_MAX ((size_t)1 << 22)

static inline uint64_t w_hash(const gv_node *n) {
  uint64_t h = gv__word(n);
  h ^= h >> 31;
  h *= 0x9e3779b97f4a7c15ull;
  h ^= h >> 29;
  return h;
}

/* The record number of n (hash h), or SIZE_MAX with *at = the empty slot
 * that ends its probe. */
static inline size_t w_find(const w_enc *e, const gv_node *n, uint64_t h, size_t *at) {
  size_t mask = e->cap - 1, i = (size_t)(h >> e->shift);
  uint32_t frag = (uint32_t)(h >> 32);
  const gv_node *const *recs = e->recs.p;
  for (;;) {
    uint64_t t = e->tab[i];
    if (!t) {
      *at = i;
      return SIZE_MAX;
    }
    if ((uint32_t)(t >> 32) == frag && recs[(uint32_t)t - 1] == n) return (uint32_t)t - 1;
    i = (i + 1) & mask;
  }
}

/* Makes the map ncap slots (a power of two, 256 or more) and the record
 * array room for as many records as that map takes, placing the records that
 * are already numbered again. On failure the map is as it was. */
static gv_status w_resize(w_enc *e, size_t ncap) {
  if (ncap > SIZE_MAX / 2 / sizeof(uint64_t)) return GV_ENOMEM;
  unsigned nbits = 0;
  while (((size_t)1 << nbits) < ncap)
    nbits++;
  size_t nlimit = ncap / 4 * 3;
  if (nlimit > W_MAX_RECORDS) nlimit = W_MAX_RECORDS;
  if (nlimit > e->recs.len && gv__mvec_reserve(e->mem, &e->recs, nlimit - e->recs.len) != GV_OK)
    return GV_ENOMEM;
  uint64_t *nt = gv__mem_realloc(e->mem, NULL, 0, ncap * sizeof *nt);
  if (!nt) return GV_ENOMEM;
  memset(nt, 0, ncap * sizeof *nt);
  unsigned nshift = 64u - nbits;
  size_t mask = ncap - 1;
  if (nshift >= 32) {
    /* the slot's hash bits are the top 32 of the hash: they give the home */
    for (size_t i = 0; i < e->cap; i++) {
      uint64_t t = e->tab[i];
      if (!t) continue;
      size_t j = (size_t)(t >> nshift);
      while (nt[j])
        j = (j + 1) & mask;
      nt[j] = t;
    }
  } else { /* a map of more than 2^32 slots: the home needs bits the slot lacks */
    const gv_node *const *recs = e->recs.p;
    for (size_t r = 0; r < e->len; r++) {
      uint64_t h = w_hash(recs[r]);
      size_t j = (size_t)(h >> nshift);
      while (nt[j])
        j = (j + 1) & mask;
      nt[j] = ((h >> 32) << 32) | (uint64_t)(r + 1);
    }
  }
  if (e->tab) gv__mem_realloc(e->mem, e->tab, e->cap * sizeof *e->tab, 0);
  e->tab = nt;
  e->cap = ncap;
  e->shift = nshift;
  e->limit = nlimit;
  return GV_OK;
}

/* Numbers x (hash h; at: where w_find ended) as record e->len. */
static inline gv_status w_number(w_enc *e, const gv_node *x, uint64_t h, size_t at) {
  if (e->len >= e->limit) {
    size_t ncap = e->cap * 2 > e->want ? e->cap * 2 : e->want;
    if (e->len >= W_MAX_RECORDS || w_resize(e, ncap) != GV_OK) return GV_ENOMEM;
    size_t found = w_find(e, x, h, &at); /* absent: where it goes now */
    (void)found;
  }
  ((const gv_node **)e->recs.p)[e->len] = x;
  e->recs.len = e->len + 1;
  e->tab[at] = ((h >> 32) << 32) | (uint64_t)(e->len + 1);
  e->len++;
  return GV_OK;
}

/* Starts a new chunk with room for need bytes or more. */
static gv_status w_chunk_new(w_enc *e, size_t need) {
  size_t size = W_CHUNK_MIN;
  if (e->chunks.len) {
    w_chunk *last = &GV__VEC_AT(&e->chunks, w_chunk, e->chunks.len - 1);
    last->len = (size_t)(e->out - last->p);
    size = last->cap < W_CHUNK_MAX / 2 ? last->cap * 2 : W_CHUNK_MAX;
  }
  if (size < need) size = need;
  w_chunk c = {NULL, 0, size};
  if (gv__mvec_reserve(e->mem, &e->chunks, 1) != GV_OK) return GV_ENOMEM;
  c.p = gv__mem_realloc(e->mem, NULL, 0, size);
  if (!c.p) return GV_ENOMEM;
  GV__VEC_AT(&e->chunks, w_chunk, e->chunks.len++) = c;
  e->out = c.p;
  e->end = c.p + size;
  return GV_OK;
}

/* Makes room for need more record bytes at e->out. */
static inline gv_status w_room(w_enc *e, size_t need) {
  return (size_t)(e->end - e->out) >= need ? GV_OK : w_chunk_new(e, need);
}

/* The references of a record, in the order they are written. */
static size_t w_nrefs(const gv_node *n) {
  if (gv__is_imm(n)) return 0;
  switch (n->kind) {
  case GV_LIST:
  case GV_TUPLE:
  case GV_DEQUE:
  case GV_KEYSET:
  case GV_SCHEMA:
    return n->arity;
  case GV_DICT:
  case GV_ODICT:
  case GV_NAMEDTUPLE:
  case GV_CUSTOM:
    return (size_t)n->arity + 1;
  case GV_DDICT:
    return (size_t)n->arity + 2;
  case GV_CTYPE:
    return 3;
  default:
    return 0;
  }
}

static int w_known_kind(const gv_node *n) {
  if (!n) return 0;
  if (gv__is_imm(n)) return gv__imm_valid(n);
  return n->kind >= GV_NONE && n->kind <= GV_CTYPE;
}

static inline unsigned char *w_varint_raw(unsigned char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return p;
}

static uint64_t w_zigzag(int64_t v) {
  return ((uint64_t)v << 1) ^ (v < 0 ? ~(uint64_t)0 : 0);
}

/* Room a scalar's record may need: a tag and a varint or f64. */
#define W_SCALAR_MAX 16

/* Writes the record of scalar x (None, bool, int, float, handle or *; kind
 * xk) at p; returns its end. */
static inline unsigned char *w_scalar(unsigned char *p, const gv_node *x, unsigned xk) {
  switch (xk) {
  case GV_INT:
    *p++ = W_INT;
    return w_varint_raw(p, w_zigzag(gv__ival(x)));
  case GV_NONE:
    *p++ = W_NONE;
    return p;
  case GV_BOOL:
    *p++ = gv__sval(x) ? W_TRUE : W_FALSE;
    return p;
  case GV_STAR:
    *p++ = W_STAR;
    return p;
  case GV_HANDLE:
    *p++ = W_HANDLE;
    return w_varint_raw(p, gv__sval(x));
  default: { /* GV_FLOAT */
    uint64_t u = gv__sval(x);
    *p++ = W_FLOAT;
    for (int k = 0; k < 8; k++)
      *p++ = (unsigned char)(u >> (8 * k));
    return p;
  }
  }
}

static unsigned w_seq_tag(unsigned kind) {
  switch (kind) {
  case GV_LIST:
    return W_LIST;
  case GV_TUPLE:
    return W_TUPLE;
  case GV_DEQUE:
    return W_DEQUE;
  case GV_KEYSET:
    return W_KEYSET;
  case GV_DICT:
    return W_DICT;
  case GV_ODICT:
    return W_ODICT;
  case GV_DDICT:
    return W_DDICT;
  case GV_NAMEDTUPLE:
    return W_NAMEDTUPLE;
  case GV_CUSTOM:
    return W_CUSTOM;
  case GV_SCHEMA:
    return W_SCHEMA;
  default:
    return W_CTYPE;
  }
}

/* Appends the record of x, to be numbered e->len, whose refs (NULL ctype
 * kids left out) have the numbers refs[0..nr). */
static gv_status w_emit(w_enc *e, const gv_node *x, const size_t *refs, size_t nr) {
  size_t cur = e->len;
  unsigned xk = gv__kind(x);
  size_t blob = (xk == GV_STR || xk == GV_BYTES) ? GV__BLOB(x)->len : 0;
  int host = xk == GV_KEYSET && gv_keyset_host_ordered(x);
  if (nr > (SIZE_MAX - 64 - blob) / 20) return GV_ENOMEM;
  if (w_room(e, 32 + blob + (host ? 20 : 10) * nr) != GV_OK) return GV_ENOMEM;
  unsigned char *p = e->out;
  const gv__cont *c = GV__CONT(x);
  switch (xk) {
  case GV_NONE:
  case GV_BOOL:
  case GV_STAR:
  case GV_INT:
  case GV_HANDLE:
  case GV_FLOAT:
    p = w_scalar(p, x, xk);
    break;
  case GV_STR:
  case GV_BYTES:
    *p++ = xk == GV_STR ? W_STR : W_BYTES;
    p = w_varint_raw(p, (uint64_t)blob);
    if (blob) memcpy(p, GV__BLOB(x)->data, blob);
    p += blob;
    break;
  default: {
    size_t k = 0;
    *p++ = (unsigned char)(host ? W_HKEYSET : w_seq_tag(xk));
    switch (xk) {
    case GV_DEQUE:
      p = w_varint_raw(p, c->aux ? (uint64_t)gv__ival(c->aux) + 1u : 0u);
      p = w_varint_raw(p, (uint64_t)nr);
      break;
    case GV_LIST:
    case GV_TUPLE:
    case GV_KEYSET:
      p = w_varint_raw(p, (uint64_t)nr);
      break;
    case GV_DICT:
    case GV_ODICT:
    case GV_NAMEDTUPLE:
      break;
    case GV_DDICT:
      break;
    case GV_CUSTOM: /* ctype, count, children */
      p = w_varint_raw(p, (uint64_t)(cur - refs[0] - 1));
      p = w_varint_raw(p, (uint64_t)(nr - 1));
      k = 1;
      break;
    case GV_SCHEMA: /* name, count, fields */
      p = w_varint_raw(p, (uint64_t)(cur - refs[0] - 1));
      p = w_varint_raw(p, (uint64_t)(nr - 1));
      k = 1;
      break;
    case GV_CTYPE:
      *p++ = (unsigned char)((c->kids[1] ? 1u : 0u) | (c->kids[2] ? 2u : 0u));
      break;
    default:
      break;
    }
    for (; k < nr; k++)
      p = w_varint_raw(p, (uint64_t)(cur - refs[k] - 1));
    if (host) /* the traversal order: insertion indices */
      for (k = 0; k < nr; k++)
        p = w_varint_raw(p, c->perm ? (uint64_t)c->perm[k] : (uint64_t)k);
    break;
  }
  }
  e->out = p;
  return GV_OK;
}

/* How far ahead of the walk the map's slots are loaded: a container's refs
 * are mostly new nodes (each a cache miss in a big map), and their slots are
 * known long before they are looked up. (A macro: gcc deletes a call to a
 * function that only prefetches.) */
#define w_prefetch(e, n)                                                                           \
  do {                                                                                             \
    const gv_node *pf_ = (n);                                                                      \
    if (pf_) __builtin_prefetch(&(e)->tab[(size_t)(w_hash(pf_) >> (e)->shift)]);                   \
  } while (0)

static inline const gv_node *w_fref(const w_frame *f, size_t i) {
  return i < f->pre ? f->pfx[i] : f->kids[i - f->pre];
}

/* The frame of container or metadata node n (refs in the order w_nrefs counts). */
static void w_frame_of(w_frame *f, const gv_node *n, size_t base) {
  const gv__cont *c = GV__CONT(n);
  f->node = n;
  f->next = 0;
  f->base = base;
  f->nr = w_nrefs(n);
  f->kids = c->kids;
  f->pfx[0] = f->pfx[1] = NULL;
  switch (n->kind) {
  case GV_DICT:
  case GV_ODICT:
  case GV_NAMEDTUPLE:
  case GV_CUSTOM:
    f->pre = 1;
    f->pfx[0] = c->meta;
    break;
  case GV_DDICT:
    f->pre = 2;
    f->pfx[0] = c->aux;
    f->pfx[1] = c->meta;
    break;
  default:
    f->pre = 0;
  }
}

/* Opens the frame of n: the numbers of all its refs will fit on the number
 * stack without a check. */
static gv_status w_open(w_enc *e, const gv_node *n) {
  w_frame f;
  w_frame_of(&f, n, e->nums.len);
  if (gv__mvec_reserve(e->mem, &e->nums, f.nr) != GV_OK ||
      gv__mvec_push(e->mem, &e->stack, &f) != GV_OK)
    return GV_ENOMEM;
  return GV_OK;
}

/* One pass: a depth-first walk with an explicit stack numbers every distinct
 * node in post-order and appends its record as soon as its refs are known.
 * hint: about how many records there will be. The first chunk of record bytes
 * is made for that many, and so is the map when it first grows: it starts
 * small, because a walk down a deep chain looks every node up before it
 * numbers any (a big empty map would make each of those a cache miss). A
 * wrong guess costs a resize. */
static gv_status w_walk(w_enc *e, const gv_node *root, size_t hint, gv_error *err) {
  e->want = 256;
  while (e->want / 4 * 3 < hint)
    e->want *= 2;
  if (w_resize(e, 256) != GV_OK) return gv__oom(err);
  size_t first = hint < W_CHUNK_MAX / 8 ? hint * 8 : W_CHUNK_MAX;
  if (w_chunk_new(e, first < W_CHUNK_MIN ? W_CHUNK_MIN : first) != GV_OK) return gv__oom(err);
  size_t at = 0;
  if (w_nrefs(root) == 0) {
    uint64_t h = w_hash(root);
    (void)w_find(e, root, h, &at);
    if (w_emit(e, root, NULL, 0) != GV_OK || w_number(e, root, h, at) != GV_OK) return gv__oom(err);
    return GV_OK;
  }
  if (w_open(e, root) != GV_OK) return gv__oom(err);
  while (e->stack.len) {
    w_frame *f = &GV__VEC_AT(&e->stack, w_frame, e->stack.len - 1);
    size_t nr = f->nr, k = f->next;
    size_t *nums = e->nums.p;
    if (k == 0)
      for (size_t j = 1; j < W_AHEAD && j < nr; j++)
        w_prefetch(e, w_fref(f, j));
    for (; k < nr; k++) {
      if (k + W_AHEAD < nr) w_prefetch(e, w_fref(f, k + W_AHEAD));
      const gv_node *c = w_fref(f, k);
      if (!c) continue; /* an absent ctype part */
      uint64_t h = w_hash(c);
      size_t idx = w_find(e, c, h, &at);
      if (idx == SIZE_MAX) {
        if (gv__is_imm(c)) { /* the common new leaf: written here */
          if (!gv__imm_valid(c))
            return gv__err(err, GV_EINVAL, "corrupt node (kind %u)", gv__imm_kind(c));
          if (w_room(e, W_SCALAR_MAX) != GV_OK) return gv__oom(err);
          e->out = w_scalar(e->out, c, gv__imm_kind(c));
        } else {
          if (!w_known_kind(c)) return gv__err(err, GV_EINVAL, "corrupt node (kind %u)", c->kind);
          if (w_nrefs(c) != 0) {
            f->next = k + 1;
            if (w_open(e, c) != GV_OK) return gv__oom(err);
            goto next_frame;
          }
          if (w_emit(e, c, NULL, 0) != GV_OK) return gv__oom(err);
        }
        idx = e->len;
        if (w_number(e, c, h, at) != GV_OK) return gv__oom(err);
      }
      nums[e->nums.len++] = idx;
    }
    {
      const gv_node *done = f->node;
      size_t base = f->base, idx = e->len;
      uint64_t h = w_hash(done);
      (void)w_find(e, done, h, &at); /* absent: its refs were walked first */
      if (w_emit(e, done, nums + base, e->nums.len - base) != GV_OK ||
          w_number(e, done, h, at) != GV_OK)
        return gv__oom(err);
      e->nums.len = base;
      e->stack.len--;
      if (e->stack.len) nums[e->nums.len++] = idx; /* the parent reserved its slot */
    }
  next_frame:;
  }
  return GV_OK;
}

static gv_status w_encode(const gv_arena *a, const gv_node *n, gv_write_fn w, void *ctx,
                          gv_error *err) {
  if (!a) return gv__err(err, GV_EINVAL, "NULL arena");
  if (!n || !w) return gv__err(err, GV_EINVAL, "NULL argument");
  if (!gv__is_value(n))
    return gv__err(err, GV_EINVAL, "only value nodes can be encoded (got a %s)",
                   gv_type_name(n, NULL));
  w_enc e;
  memset(&e, 0, sizeof e);
  e.mem = gv__mem_reader(a);
  gv__vec_init(&e.recs, sizeof(const gv_node *));
  gv__vec_init(&e.stack, sizeof(w_frame));
  gv__vec_init(&e.nums, sizeof(size_t));
  gv__vec_init(&e.chunks, sizeof(w_chunk));
  /* A guess at the records: at most one per node written out (esize), and
   * in an arena of u bytes at most u / 8 + 1 (a node takes 24 bytes or more,
   * a ref to an immediate 8); about the leaves plus one per 64 bytes (the
   * least a container or metadata node takes). Only a guess: the nodes may be
   * of other arenas, and readers may run next to a writer of a. */
  uint64_t hint = gv__esize(n);
  uint64_t used = (uint64_t)gv__used_chain(a);
  if (hint > used / 8 + 1) hint = used / 8 + 1;
  uint64_t guess = gv__sat_add(gv__num_leaves(n), used / 64 + 256);
  if (hint > guess) hint = guess;
  if (hint > W_PRESIZE_MAX) hint = W_PRESIZE_MAX;
  gv_status s = w_walk(&e, n, (size_t)hint, err);
  gv__mvec_free(e.mem, &e.stack);
  gv__mvec_free(e.mem, &e.nums);
  gv__mvec_free(e.mem, &e.recs);
  if (e.tab) gv__mem_realloc(e.mem, e.tab, e.cap * sizeof *e.tab, 0);
  w_chunk *chunks = e.chunks.p;
  if (e.chunks.len) chunks[e.chunks.len - 1].len = (size_t)(e.out - chunks[e.chunks.len - 1].p);
  if (s == GV_OK) {
    unsigned char hdr[16] = {'G', 'R', 'V', GV__WIRE_VERSION};
    size_t hl = (size_t)(w_varint_raw(hdr + 4, (uint64_t)e.len) - hdr);
    s = w(ctx, (const char *)hdr, hl);
    for (size_t i = 0; s == GV_OK && i < e.chunks.len; i++) {
      const char *p = (const char *)chunks[i].p;
      for (size_t off = 0; s == GV_OK && off < chunks[i].len;) {
        size_t left = chunks[i].len - off;
        size_t piece = left < ((size_t)1 << 16) ? left : (size_t)1 << 16;
        s = w(ctx, p + off, piece);
        off += piece;
      }
    }
    if (s != GV_OK) s = gv__err(err, s, "write callback failed (%s)", gv_status_name(s));
  }
  for (size_t i = 0; i < e.chunks.len; i++)
    gv__mem_realloc(e.mem, chunks[i].p, chunks[i].cap, 0);
  gv__mvec_free(e.mem, &e.chunks);
  return s;
}

gv_status gv_encode(const gv_arena *a, const gv_node *n, gv_write_fn w, void *ctx, gv_error *err) {
  return w_encode(a, n, w, ctx, err);
}

static gv_status w_hash_sink(void *ctx, const char *data, size_t len) {
  return XXH3_128bits_update((XXH3_state_t *)ctx, data, len) == XXH_OK ? GV_OK : GV_EINVAL;
}

gv_status gv_fingerprint(const gv_arena *a, const gv_node *n, uint8_t out[16], gv_error *err) {
  if (!out) return gv__err(err, GV_EINVAL, "NULL out");
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  gv_status s = w_encode(a, n, w_hash_sink, &st, err);
  if (s != GV_OK) return s;
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&st));
  memcpy(out, c.digest, 16);
  return GV_OK;
}

/* ===========================================================================
 * Decoder
 * =========================================================================== */

/* What the decoder keeps of a record: its tag (with D_USED once referred
 * to) and its node, for value records; for metadata records (few, but kept
 * until the end) an index into a table of d_slot. A big encoding is mostly
 * value records: nine bytes each. */
typedef struct d_slot {
  const gv_node *node; /* once materialized */
  const gv_node *name; /* schema, ctype: the type name */
  const gv_node *meta; /* ctype: explicit metadata or NULL */
  size_t pos;          /* keyset, schema: offset of the first key/field ref;
                          ctype: keyset record index + 1, or 0 */
  uint32_t n;          /* keyset: keys; schema: fields */
  size_t opos;         /* host keyset: offset of its order */
} d_slot;

typedef union d_rec {
  const gv_node *node; /* value records */
  size_t meta;         /* metadata records: their d_slot */
} d_rec;

#define D_USED 0x80u

typedef struct w_dec {
  gv_arena *a;
  gv_error *err;
  const unsigned char *p;
  size_t len, pos;
  d_rec *recs;
  uint8_t *tags; /* tag | D_USED */
  size_t nrecs, recs_cap, tags_cap;
  gv__vec metas; /* d_slot */
  gv__vec kids;  /* const gv_node * */
  gv__vec keys;  /* const gv_node * */
  gv__vec order; /* uint32_t: a host keyset's order */
} w_dec;

static unsigned d_tag(const w_dec *d, size_t i) {
  return d->tags[i] & ~D_USED;
}
/* The d_slot of metadata record i. */
static d_slot *d_sl(const w_dec *d, size_t i) {
  return &GV__VEC_AT(&d->metas, d_slot, d->recs[i].meta);
}

static gv_status d_fail(w_dec *d, gv_status s, size_t off, const char *fmt, ...) GV_PRINTF(4, 5);
static gv_status d_fail(w_dec *d, gv_status s, size_t off, const char *fmt, ...) {
  if (!d->err) return s;
  char buf[sizeof d->err->msg];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  gv__err(d->err, s, "at byte %zu: %s", off, buf);
  if (n >= (int)sizeof buf) gv__err_cut(d->err);
  d->err->offset = off;
  return s;
}

/* Minimal LEB128, at most 10 bytes, value < 2^64. */
static gv_status d_varint_slow(w_dec *d, size_t *pos, uint64_t *out) {
  size_t start = *pos;
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (*pos >= d->len) return d_fail(d, GV_EWIRE, start, "truncated varint");
    unsigned b = d->p[(*pos)++];
    if (shift == 63 && b > 1) return d_fail(d, GV_EWIRE, start, "varint overflows 64 bits");
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      if (b == 0 && shift > 0) return d_fail(d, GV_EWIRE, start, "overlong varint");
      *out = v;
      return GV_OK;
    }
  }
}

/* The same, without a call or a bounds check per byte where ten bytes are
 * left (a varint of nine bytes or fewer, minimal); the rest, and every error,
 * take d_varint_slow. */
static inline gv_status d_varint_at(w_dec *d, size_t *pos, uint64_t *out) {
  size_t at = *pos;
  if (d->len - at >= 10) {
    const unsigned char *q = d->p + at;
    uint64_t v = 0;
    for (unsigned i = 0; i < 9; i++) {
      unsigned b = q[i];
      v |= (uint64_t)(b & 0x7f) << (7 * i);
      if (!(b & 0x80)) {
        if (b == 0 && i > 0) break; /* overlong: the slow path says so */
        *out = v;
        *pos = at + i + 1;
        return GV_OK;
      }
    }
  }
  return d_varint_slow(d, pos, out);
}

static gv_status d_varint(w_dec *d, uint64_t *out) {
  return d_varint_at(d, &d->pos, out);
}

static size_t d_left(const w_dec *d) {
  return d->len - d->pos;
}

/* A back-reference from record cur to an earlier record; marks it used. */
static gv_status d_ref(w_dec *d, size_t cur, size_t *idx) {
  size_t off = d->pos;
  uint64_t v = 0;
  gv_status s = d_varint(d, &v);
  if (s != GV_OK) return s;
  if (v >= (uint64_t)cur)
    return d_fail(d, GV_EWIRE, off, "back-reference %llu from record %zu points before the first",
                  (unsigned long long)v, cur);
  *idx = cur - 1 - (size_t)v;
  d->tags[*idx] |= D_USED;
  return GV_OK;
}

static gv_status d_ref_value(w_dec *d, size_t cur, const gv_node **out) {
  size_t off = d->pos, idx = 0;
  gv_status s = d_ref(d, cur, &idx);
  if (s != GV_OK) return s;
  if (!w_is_value_tag(d_tag(d, idx)))
    return d_fail(d, GV_EWIRE, off, "reference to record %zu (a %s) where a value is expected", idx,
                  w_tag_name(d_tag(d, idx)));
  *out = d->recs[idx].node;
  return GV_OK;
}

static gv_status d_ref_tag(w_dec *d, size_t cur, unsigned tag, size_t *idx) {
  size_t off = d->pos;
  gv_status s = d_ref(d, cur, idx);
  if (s != GV_OK) return s;
  if (d_tag(d, *idx) != tag)
    return d_fail(d, GV_EWIRE, off, "reference to record %zu (a %s) where a %s is expected", *idx,
                  w_tag_name(d_tag(d, *idx)), w_tag_name(tag));
  return GV_OK;
}

/* d_ref_value, inlined for a valid reference (any other: d_ref_value says
 * what is wrong). */
static inline gv_status d_ref_value_fast(w_dec *d, size_t cur, const gv_node **out) {
  size_t at = d->pos;
  uint64_t r;
  if (d_varint_at(d, &at, &r) == GV_OK && r < (uint64_t)cur) {
    size_t idx = cur - 1 - (size_t)r;
    if (w_is_value_tag(d_tag(d, idx))) {
      d->pos = at;
      d->tags[idx] |= D_USED;
      *out = d->recs[idx].node;
      return GV_OK;
    }
  }
  return d_ref_value(d, cur, out);
}

/* A reference to a keyset record of either kind. */
static gv_status d_ref_keyset(w_dec *d, size_t cur, size_t *idx) {
  size_t off = d->pos;
  gv_status s = d_ref(d, cur, idx);
  if (s != GV_OK) return s;
  unsigned t = d_tag(d, *idx);
  if (t != W_KEYSET && t != W_HKEYSET)
    return d_fail(d, GV_EWIRE, off, "reference to record %zu (a %s) where a keyset is expected",
                  *idx, w_tag_name(t));
  return GV_OK;
}

/* The keyset node of host keyset record k with keys items (materialized once). */
static gv_status d_host_keyset(w_dec *d, size_t k, const gv_node *const *items, const gv_node **ks,
                               gv_error *e) {
  d_slot *sl = d_sl(d, k);
  if (sl->node) {
    *ks = sl->node;
    return GV_OK;
  }
  d->order.len = 0;
  if (gv__vec_reserve(d->a, &d->order, sl->n) != GV_OK) return gv__oom(e);
  size_t pos = sl->opos;
  for (size_t i = 0; i < sl->n; i++) {
    uint64_t v;
    gv_status s = d_varint_at(d, &pos, &v);
    if (s != GV_OK) return s;
    GV__VEC_AT(&d->order, uint32_t, i) = (uint32_t)v; /* < n, checked when read */
  }
  return gv_keyset_ordered(d->a, items, sl->n, (const uint32_t *)d->order.p, ks, e);
}

/* A count that claims n items of at least one byte each. */
static gv_status d_count(w_dec *d, const char *what, uint64_t *n) {
  size_t off = d->pos;
  gv_status s = d_varint(d, n);
  if (s != GV_OK) return s;
  if (*n > d_left(d))
    return d_fail(d, GV_EWIRE, off, "%llu %s claimed but only %zu bytes left",
                  (unsigned long long)*n, what, d_left(d));
  if (*n > UINT32_MAX)
    return d_fail(d, GV_EWIRE, off, "%llu %s: too many", (unsigned long long)*n, what);
  return GV_OK;
}

/* Reads n value refs of record cur into v (replacing its contents). */
static gv_status d_values(w_dec *d, size_t cur, size_t n, gv__vec *v) {
  v->len = 0;
  if (gv__vec_reserve(d->a, v, n) != GV_OK)
    return d_fail(d, GV_ENOMEM, d->pos, "out of memory budget");
  const gv_node **out = (const gv_node **)v->p;
  for (size_t i = 0; i < n; i++) {
    gv_status s = d_ref_value_fast(d, cur, &out[i]);
    if (s != GV_OK) return s;
  }
  v->len = n;
  return GV_OK;
}

/* The keys of keyset record k (or the fields of schema record k): from the
 * materialized node, else by re-reading its (already checked) refs. */
static gv_status d_meta_items(w_dec *d, size_t k, const gv_node *const **items) {
  d_slot *sl = d_sl(d, k);
  if (sl->node) {
    *items = GV__CONT(sl->node)->kids + (d_tag(d, k) == W_SCHEMA ? 1 : 0);
    return GV_OK;
  }
  d->keys.len = 0;
  if (gv__vec_reserve(d->a, &d->keys, sl->n) != GV_OK)
    return d_fail(d, GV_ENOMEM, d->pos, "out of memory budget");
  const gv_node **out = (const gv_node **)d->keys.p;
  size_t pos = sl->pos;
  for (size_t i = 0; i < sl->n; i++) {
    uint64_t v = 0; /* set by d_varint_at; gcc -O3 cannot see it */
    gv_status s = d_varint_at(d, &pos, &v);
    if (s != GV_OK) return s;
    out[i] = d->recs[k - 1 - (size_t)v].node;
  }
  d->keys.len = sl->n;
  *items = out;
  return GV_OK;
}

/* A constructor's failure, tied to the record's offset. */
static gv_status d_ctor(w_dec *d, gv_status s, size_t off, size_t cur, unsigned tag,
                        const gv_error *e) {
  gv_status out = (s == GV_ENOMEM || s == GV_EDEPTH) ? s : GV_EWIRE;
  return d_fail(d, out, off, "record %zu (%s): %s", cur, w_tag_name(tag), e->msg);
}

static gv_status d_record(w_dec *d, size_t cur) {
  size_t off = d->pos;
  d->recs[cur].node = NULL;
  d->tags[cur] = 0;
  if (d->pos >= d->len) return d_fail(d, GV_EWIRE, off, "truncated: record %zu missing", cur);
  unsigned tag = d->p[d->pos++];
  d->tags[cur] = (uint8_t)tag; /* < D_USED: checked below */
  d_slot *sl = NULL;
  if (tag >= W_KEYSET && tag <= W_HKEYSET) {
    d_slot z;
    memset(&z, 0, sizeof z);
    d->recs[cur].meta = d->metas.len;
    if (gv__vec_push(d->a, &d->metas, &z) != GV_OK)
      return d_fail(d, GV_ENOMEM, off, "out of memory budget");
    sl = d_sl(d, cur);
  }
  gv_error e;
  e.msg[0] = '\0';
  gv_status s = GV_OK;
  const gv_node *out = NULL;
  uint64_t u, n;
  size_t idx = 0, kidx = 0;
  const gv_node *const *items;
  switch (tag) {
  case W_NONE:
    s = gv_none(d->a, &out, &e);
    break;
  case W_FALSE:
  case W_TRUE:
    s = gv_bool(d->a, tag == W_TRUE, &out, &e);
    break;
  case W_STAR:
    s = gv_star(d->a, &out, &e);
    break;
  case W_INT:
    if ((s = d_varint(d, &u)) != GV_OK) return s;
    s = gv_int(d->a, (int64_t)((u >> 1) ^ (~(u & 1) + 1)), &out, &e);
    break;
  case W_HANDLE:
    if ((s = d_varint(d, &u)) != GV_OK) return s;
    s = gv_handle(d->a, u, &out, &e);
    break;
  case W_FLOAT: {
    if (d_left(d) < 8) return d_fail(d, GV_EWIRE, d->pos, "truncated float");
    u = 0;
    for (int k = 0; k < 8; k++)
      u |= (uint64_t)d->p[d->pos + (size_t)k] << (8 * k);
    d->pos += 8;
    double f;
    memcpy(&f, &u, sizeof f);
    s = gv_float(d->a, f, &out, &e);
    break;
  }
  case W_STR:
  case W_BYTES: {
    size_t loff = d->pos;
    if ((s = d_varint(d, &u)) != GV_OK) return s;
    if (u > d_left(d))
      return d_fail(d, GV_EWIRE, loff, "%s length %llu exceeds the %zu bytes left", w_tag_name(tag),
                    (unsigned long long)u, d_left(d));
    const char *data = (const char *)d->p + d->pos;
    d->pos += (size_t)u;
    s = tag == W_STR ? gv_str(d->a, data, (size_t)u, &out, &e)
                     : gv_bytes(d->a, data, (size_t)u, &out, &e);
    break;
  }
  case W_LIST:
  case W_TUPLE:
  case W_DEQUE: {
    uint64_t ml = 0;
    if (tag == W_DEQUE) {
      size_t moff = d->pos;
      if ((s = d_varint(d, &ml)) != GV_OK) return s;
      if (ml > (uint64_t)INT64_MAX + 1u) /* maxlen + 1, 0 for None */
        return d_fail(d, GV_EWIRE, moff, "deque maxlen out of range");
    }
    if ((s = d_count(d, "children", &n)) != GV_OK) return s;
    if ((s = d_values(d, cur, (size_t)n, &d->kids)) != GV_OK) return s;
    const gv_node *const *k = (const gv_node *const *)d->kids.p;
    if (tag == W_LIST)
      s = gv_list(d->a, k, (size_t)n, &out, &e);
    else if (tag == W_TUPLE)
      s = gv_tuple(d->a, k, (size_t)n, &out, &e);
    else
      s = gv_deque(d->a, k, (size_t)n, ml ? (int64_t)(ml - 1) : -1, &out, &e);
    break;
  }
  case W_DICT:
  case W_ODICT:
  case W_DDICT: {
    const gv_node *factory = NULL;
    if (tag == W_DDICT && (s = d_ref_value(d, cur, &factory)) != GV_OK) return s;
    if ((s = d_ref_keyset(d, cur, &kidx)) != GV_OK) return s;
    n = d_sl(d, kidx)->n;
    if (n > d_left(d))
      return d_fail(d, GV_EWIRE, d->pos, "%llu values claimed but only %zu bytes left",
                    (unsigned long long)n, d_left(d));
    if ((s = d_values(d, cur, (size_t)n, &d->kids)) != GV_OK) return s;
    if ((s = d_meta_items(d, kidx, &items)) != GV_OK) return s;
    const gv_node *const *v = (const gv_node *const *)d->kids.p;
    if (d_tag(d, kidx) == W_HKEYSET) {
      const gv_node *ks = NULL;
      if ((s = d_host_keyset(d, kidx, items, &ks, &e)) == GV_OK)
        s = gv_dict_with_keyset(d->a,
                                tag == W_DICT    ? GV_DICT
                                : tag == W_ODICT ? GV_ODICT
                                                 : GV_DDICT,
                                ks, factory, v, (size_t)n, &out, &e);
    } else if (tag == W_DICT)
      s = gv_dict(d->a, items, v, (size_t)n, &out, &e);
    else if (tag == W_ODICT)
      s = gv_odict(d->a, items, v, (size_t)n, &out, &e);
    else
      s = gv_ddict(d->a, factory, items, v, (size_t)n, &out, &e);
    if (s == GV_OK) d_sl(d, kidx)->node = gv_meta(out);
    break;
  }
  case W_NAMEDTUPLE: {
    if ((s = d_ref_tag(d, cur, W_SCHEMA, &kidx)) != GV_OK) return s;
    n = d_sl(d, kidx)->n;
    if (n > d_left(d))
      return d_fail(d, GV_EWIRE, d->pos, "%llu values claimed but only %zu bytes left",
                    (unsigned long long)n, d_left(d));
    if ((s = d_values(d, cur, (size_t)n, &d->kids)) != GV_OK) return s;
    if ((s = d_meta_items(d, kidx, &items)) != GV_OK) return s;
    s = gv_namedtuple(d->a, d_sl(d, kidx)->name, items, (const gv_node *const *)d->kids.p,
                      (size_t)n, &out, &e);
    if (s == GV_OK) d_sl(d, kidx)->node = gv_meta(out);
    break;
  }
  case W_CUSTOM: {
    if ((s = d_ref_tag(d, cur, W_CTYPE, &idx)) != GV_OK) return s;
    size_t coff = d->pos;
    if ((s = d_count(d, "children", &n)) != GV_OK) return s;
    d_slot *ct = d_sl(d, idx);
    items = NULL;
    if (ct->pos) {
      kidx = ct->pos - 1;
      if (n != d_sl(d, kidx)->n)
        return d_fail(d, GV_EWIRE, coff, "custom node has %llu children but its ctype has %u keys",
                      (unsigned long long)n, (unsigned)d_sl(d, kidx)->n);
    }
    if ((s = d_values(d, cur, (size_t)n, &d->kids)) != GV_OK) return s;
    if (ct->pos && (s = d_meta_items(d, ct->pos - 1, &items)) != GV_OK) return s;
    static const gv_node *const no_keys[1] = {NULL};
    if (ct->pos && !items) items = no_keys; /* keyed with no keys: still keyed */
    s = gv_custom(d->a, ct->name, items, (const gv_node *const *)d->kids.p, (size_t)n, ct->meta,
                  &out, &e);
    if (s == GV_OK) {
      ct->node = gv_meta(out);
      if (ct->pos) d_sl(d, ct->pos - 1)->node = GV__CONT(ct->node)->kids[1];
    }
    break;
  }
  case W_KEYSET:
  case W_HKEYSET:
  case W_SCHEMA: {
    if (tag == W_SCHEMA && (s = d_ref_value(d, cur, &sl->name)) != GV_OK) return s;
    if ((s = d_count(d, tag == W_SCHEMA ? "fields" : "keys", &n)) != GV_OK) return s;
    sl->pos = d->pos;
    sl->n = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
      const gv_node *k;
      if ((s = d_ref_value_fast(d, cur, &k)) != GV_OK) return s;
    }
    if (tag == W_HKEYSET) {
      sl->opos = d->pos;
      for (size_t i = 0; i < n; i++) {
        size_t ooff = d->pos;
        if ((s = d_varint(d, &u)) != GV_OK) return s;
        if (u >= n)
          return d_fail(d, GV_EWIRE, ooff, "host keyset order entry %llu out of range",
                        (unsigned long long)u);
      }
    }
    return GV_OK;
  }
  case W_CTYPE: {
    if (d->pos >= d->len) return d_fail(d, GV_EWIRE, d->pos, "truncated ctype");
    unsigned fl = d->p[d->pos];
    if (fl > 3) return d_fail(d, GV_EWIRE, d->pos, "bad ctype flags 0x%02x", fl);
    d->pos++;
    if ((s = d_ref_value(d, cur, &sl->name)) != GV_OK) return s;
    if (fl & 1) {
      if ((s = d_ref_tag(d, cur, W_KEYSET, &kidx)) != GV_OK) return s;
      sl->pos = kidx + 1;
    }
    if ((fl & 2) && (s = d_ref_value(d, cur, &sl->meta)) != GV_OK) return s;
    return GV_OK;
  }
  default:
    return d_fail(d, GV_EWIRE, off, "unknown record tag 0x%02x", tag);
  }
  if (s != GV_OK) return d_ctor(d, s, off, cur, tag, &e);
  d->recs[cur].node = out;
  return GV_OK;
}

static gv_status d_run(w_dec *d, const gv_node **out) {
  static const unsigned char magic[3] = {'G', 'R', 'V'};
  for (size_t i = 0; i < 3; i++) {
    if (i >= d->len) return d_fail(d, GV_EWIRE, i, "truncated header");
    if (d->p[i] != magic[i]) return d_fail(d, GV_EWIRE, i, "bad magic (not a grove encoding)");
  }
  if (d->len < 4) return d_fail(d, GV_EWIRE, 3, "truncated header");
  if (d->p[3] != GV__WIRE_VERSION)
    return d_fail(d, GV_EWIRE, 3, "unsupported format version %u", (unsigned)d->p[3]);
  d->pos = 4;
  uint64_t nrec;
  gv_status s = d_count(d, "records", &nrec);
  if (s != GV_OK) return s;
  if (nrec == 0) return d_fail(d, GV_EWIRE, 4, "no records");
  /* grow the record table with the input actually read, not with the claim */
  for (size_t i = 0; i < nrec; i++) {
    if (i == d->recs_cap) {
      /* a canonical encoding has two bytes or more per record (but for
       * None, True, False and *): start there */
      size_t ncap = d->recs_cap ? d->recs_cap * 2 : d->len / 2 + 256;
      if (ncap > nrec) ncap = (size_t)nrec;
      d_rec *nr = gv__raw_realloc(d->a, d->recs, d->recs_cap * sizeof *nr, ncap * sizeof *nr);
      if (!nr) return d_fail(d, GV_ENOMEM, d->pos, "out of memory budget");
      d->recs = nr;
      d->recs_cap = ncap;
    }
    if (i == d->tags_cap) {
      uint8_t *nt = gv__raw_realloc(d->a, d->tags, d->tags_cap, d->recs_cap);
      if (!nt) return d_fail(d, GV_ENOMEM, d->pos, "out of memory budget");
      d->tags = nt;
      d->tags_cap = d->recs_cap;
    }
    d->nrecs = i + 1;
    if ((s = d_record(d, i)) != GV_OK) return s;
  }
  if (d->pos != d->len)
    return d_fail(d, GV_EWIRE, d->pos, "%zu trailing bytes after the last record", d->len - d->pos);
  size_t last = (size_t)nrec - 1;
  if (!w_is_value_tag(d_tag(d, last)))
    return d_fail(d, GV_EWIRE, 4, "the root record %zu is a %s, not a value", last,
                  w_tag_name(d_tag(d, last)));
  for (size_t i = 0; i < last; i++)
    if (!(d->tags[i] & D_USED)) return d_fail(d, GV_EWIRE, 4, "record %zu is never referenced", i);
  *out = d->recs[last].node;
  return GV_OK;
}

gv_status gv_decode(gv_arena *a, const void *data, size_t len, const gv_node **out, gv_error *err) {
  if (!a) return gv__err(err, GV_EINVAL, "NULL arena");
  GV__WRITABLE(a);
  if (!out || (!data && len)) return gv__err(err, GV_EINVAL, "NULL argument");
  gv_mark m = gv_arena_mark(a);
  w_dec d;
  memset(&d, 0, sizeof d);
  d.a = a;
  d.err = err;
  d.p = data;
  d.len = len;
  gv__vec_init(&d.kids, sizeof(const gv_node *));
  gv__vec_init(&d.keys, sizeof(const gv_node *));
  gv__vec_init(&d.order, sizeof(uint32_t));
  gv__vec_init(&d.metas, sizeof(d_slot));
  const gv_node *res = NULL;
  gv_status s = d_run(&d, &res);
  gv__vec_free(a, &d.kids);
  gv__vec_free(a, &d.keys);
  gv__vec_free(a, &d.order);
  gv__raw_free(a, d.recs, d.recs_cap * sizeof *d.recs);
  gv__raw_free(a, d.tags, d.tags_cap);
  gv__vec_free(a, &d.metas);
  if (s != GV_OK) {
    gv__rollback(a, &m);
    return s;
  }
  *out = res;
  return GV_OK;
}
