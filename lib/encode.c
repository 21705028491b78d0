/* SPDX-License-Identifier: MIT */
/* encode.c -- the binary wire format's encoder (docs/wire-format.md) and
 * fingerprints. The decoder is decode.c.
 *
 * Encoding walks the DAG once, depth-first with an explicit stack: every
 * distinct node gets a number in post-order (a pointer -> number hash map
 * dedups shared nodes) and its record, each child a back-reference, is
 * appended as soon as its children are numbered; the header, which holds the
 * record count, goes out first, then the records. */
#include "wire.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

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
  gv__mem mem;   /* the encoder is a reader: scratch from the hook */
  size_t failed; /* the size of a request of mem that failed */
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
  if (w_resize(e, 256) != GV_OK) return gv__oom_mem(e->mem, err);
  size_t first = hint < W_CHUNK_MAX / 8 ? hint * 8 : W_CHUNK_MAX;
  if (w_chunk_new(e, first < W_CHUNK_MIN ? W_CHUNK_MIN : first) != GV_OK)
    return gv__oom_mem(e->mem, err);
  size_t at = 0;
  if (w_nrefs(root) == 0) {
    uint64_t h = w_hash(root);
    (void)w_find(e, root, h, &at);
    if (w_emit(e, root, NULL, 0) != GV_OK || w_number(e, root, h, at) != GV_OK)
      return gv__oom_mem(e->mem, err);
    return GV_OK;
  }
  if (w_open(e, root) != GV_OK) return gv__oom_mem(e->mem, err);
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
          if (w_room(e, W_SCALAR_MAX) != GV_OK) return gv__oom_mem(e->mem, err);
          e->out = w_scalar(e->out, c, gv__imm_kind(c));
        } else {
          if (!w_known_kind(c)) return gv__err(err, GV_EINVAL, "corrupt node (kind %u)", c->kind);
          if (w_nrefs(c) != 0) {
            f->next = k + 1;
            if (w_open(e, c) != GV_OK) return gv__oom_mem(e->mem, err);
            goto next_frame;
          }
          if (w_emit(e, c, NULL, 0) != GV_OK) return gv__oom_mem(e->mem, err);
        }
        idx = e->len;
        if (w_number(e, c, h, at) != GV_OK) return gv__oom_mem(e->mem, err);
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
        return gv__oom_mem(e->mem, err);
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
  e.mem = gv__mem_reader(a, &e.failed);
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
