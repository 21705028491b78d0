/* SPDX-License-Identifier: MIT */
/* arena.c -- bump chunks, the budget, marks and rollback, stats, freezing and children. */
#include "internal.h"

#include <stdlib.h>

#if defined(GROVE_SANITIZE)
#include <sanitizer/asan_interface.h>
#define GV__POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define GV__UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define GV__POISON(p, n) ((void)(p), (void)(n))
#define GV__UNPOISON(p, n) ((void)(p), (void)(n))
#endif
#if defined(GROVE_SANITIZE) || defined(GROVE_NO_MIMALLOC)
#define GV__MALLOC 1 /* the default hook is the C library's malloc */
#else
#include <mimalloc.h>
#endif

#define GV__ALIGN 8u
#define GV__CHUNK_HDR ((sizeof(gv__chunk) + GV__ALIGN - 1) & ~(size_t)(GV__ALIGN - 1))
#define GV__CHUNK_MIN ((size_t)4096)
#define GV__CHUNK_MAX ((size_t)1 << 20)

/* The default hook. Sanitizer builds use plain malloc so ASan sees every
 * block, and so do builds without mimalloc (GROVE_MIMALLOC=OFF: the Python
 * extension, which gives its generations an allocator of its own); others use
 * mimalloc's thread-safe entry points. Either way an arena may move between
 * threads (one writer at a time). */
static void *gv__default_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
  (void)ctx;
  (void)old_size;
#if defined(GV__MALLOC)
  if (new_size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, new_size);
#else
  if (new_size == 0) {
    mi_free(ptr);
    return NULL;
  }
  return mi_realloc(ptr, new_size);
#endif
}

const gv_allocator *gv__default_allocator(void) {
  static const gv_allocator al = {gv__default_realloc, NULL};
  return &al;
}

static int gv__budget_ok(const gv_arena *a, size_t more) {
  return a->max_bytes == 0 || (a->reserved <= a->max_bytes && more <= a->max_bytes - a->reserved);
}

void *gv__raw_alloc(gv_arena *a, size_t size) {
  return gv__raw_realloc(a, NULL, 0, size);
}

/* Notes why an allocation of size bytes failed, for gv__oom's message. */
static void *gv__fail(gv_arena *a, size_t size, int budget) {
  a->oom_size = size;
  a->oom_budget = (uint8_t)(budget != 0);
  return NULL;
}

void *gv__raw_realloc(gv_arena *a, void *p, size_t old_size, size_t new_size) {
  if (new_size == 0) {
    gv__raw_free(a, p, old_size);
    return NULL;
  }
  if (new_size > old_size && !gv__budget_ok(a, new_size - old_size))
    return gv__fail(a, new_size, 1);
  void *q = a->alloc.realloc(a->alloc.ctx, p, old_size, new_size);
  if (!q) {
    if (new_size <= old_size) return p; /* a shrink that failed: keep the block */
    return gv__fail(a, new_size, 0);
  }
  a->reserved = a->reserved - old_size + new_size;
  return q;
}

void *gv__raw_alloc_replacing(gv_arena *a, size_t size, size_t replaced) {
  if (size > replaced && !gv__budget_ok(a, size - replaced)) return gv__fail(a, size, 1);
  void *q = a->alloc.realloc(a->alloc.ctx, NULL, 0, size);
  if (!q) return gv__fail(a, size, 0);
  a->reserved += size;
  return q;
}

void gv__raw_free(gv_arena *a, void *p, size_t size) {
  if (!p) return;
  a->alloc.realloc(a->alloc.ctx, p, size, 0);
  a->reserved -= size;
}

static char *gv__chunk_data(gv__chunk *c) {
  return (char *)c + GV__CHUNK_HDR;
}

static gv__chunk *gv__chunk_new(gv_arena *a, size_t need) {
  size_t size = GV__CHUNK_MIN << (a->nchunks / 2 < 8 ? a->nchunks / 2 : 8);
  if (size > GV__CHUNK_MAX) size = GV__CHUNK_MAX;
  if (need > size / 2) size = need; /* big requests get a chunk of their own */
  if (a->max_bytes) {
    size_t room = a->max_bytes > a->reserved ? a->max_bytes - a->reserved : 0;
    if (room < GV__CHUNK_HDR || room - GV__CHUNK_HDR < need)
      return gv__fail(a, need > SIZE_MAX - GV__CHUNK_HDR ? SIZE_MAX : GV__CHUNK_HDR + need, 1);
    if (size > room - GV__CHUNK_HDR) size = room - GV__CHUNK_HDR;
  }
  if (size > SIZE_MAX - GV__CHUNK_HDR) return gv__fail(a, SIZE_MAX, 0);
  gv__chunk *c = gv__raw_alloc(a, GV__CHUNK_HDR + size);
  if (!c) return NULL;
  c->prev = a->chunk;
  c->size = size;
  c->used = 0;
  GV__POISON(gv__chunk_data(c), size);
  a->chunk = c;
  a->nchunks++;
  return c;
}

void *gv__alloc(gv_arena *a, size_t size) {
  if (size > SIZE_MAX - GV__ALIGN) return gv__fail(a, size, 0);
  size = (size + GV__ALIGN - 1) & ~(size_t)(GV__ALIGN - 1);
  gv__chunk *c = a->chunk;
  if (!c || c->size - c->used < size) {
    c = gv__chunk_new(a, size);
    if (!c) return NULL;
  }
  char *p = gv__chunk_data(c) + c->used;
  c->used += size;
  gv__set_used(a, gv__used(a) + size);
  GV__UNPOISON(p, size);
  return p;
}

void *gv__tmp(gv_arena *a, size_t size) {
  if (size <= a->tmp_cap) return a->tmp;
  size_t cap = a->tmp_cap ? a->tmp_cap : 256;
  while (cap < size) {
    if (cap > SIZE_MAX / 2) return gv__fail(a, size, 0);
    cap *= 2;
  }
  /* contents need not survive; the old block stays until the new one is had
   * (the budget counts only the growth), so the scratch never shrinks except
   * by rollback */
  void *p = gv__raw_alloc_replacing(a, cap, a->tmp_cap);
  if (!p) return NULL;
  gv__raw_free(a, a->tmp, a->tmp_cap);
  a->tmp = p;
  a->tmp_cap = cap;
  return p;
}

gv_status gv_arena_new(const gv_arena_config *cfg, gv_arena **out) {
  gv_arena_config def;
  memset(&def, 0, sizeof def);
  if (!out) return GV_EINVAL;
  *out = NULL;
  if (!cfg) cfg = &def;
  gv_allocator al = *gv__default_allocator();
  if (cfg->alloc) {
    if (!cfg->alloc->realloc) return GV_EINVAL;
    al = *cfg->alloc;
  }
  if (cfg->parent && !cfg->parent->frozen) return GV_EINVAL; /* only a frozen arena is shared */
  if (cfg->max_bytes && cfg->max_bytes < sizeof(gv_arena)) return GV_ENOMEM;
  gv_arena *a = al.realloc(al.ctx, NULL, 0, sizeof *a);
  if (!a) return GV_ENOMEM;
  memset(a, 0, sizeof *a);
  atomic_init(&a->refs, 1);
  if (cfg->parent) {
    a->parent = cfg->parent;
    atomic_fetch_add_explicit(&cfg->parent->refs, 1, memory_order_relaxed);
  }
  a->alloc = al;
  /* the tag of its nodes: the top 16 bits of a mix of its address, which no
   * other live arena has */
  a->tag = (uint16_t)(((uint64_t)(uintptr_t)a * UINT64_C(0x9E3779B97F4A7C15)) >> 48);
  a->max_bytes = cfg->max_bytes;
  a->max_depth = cfg->max_depth ? cfg->max_depth : GV_DEFAULT_MAX_DEPTH;
  a->seed = cfg->seed;
  a->probe_nentries = SIZE_MAX;
  a->max_output = cfg->max_output;
  a->reserved = sizeof *a;
  *out = a;
  return GV_OK;
}

/* Gives a's memory back (its parent is released by the caller). */
static void gv__arena_destroy(gv_arena *a) {
  while (a->chunk) {
    gv__chunk *c = a->chunk;
    a->chunk = c->prev;
    GV__UNPOISON(gv__chunk_data(c), c->size);
    gv__raw_free(a, c, GV__CHUNK_HDR + c->size);
  }
  gv__intern_free(a);
  gv__raw_free(a, a->tmp, a->tmp_cap);
  gv_allocator al = a->alloc;
  al.realloc(al.ctx, a, sizeof *a, 0);
}

void gv_arena_free(gv_arena *a) {
  /* drop one reference; the last one destroys the arena and drops its parent's (a loop, not
   * recursion, up the chain). acq_rel: every child's reads of its parent happen before the
   * parent is destroyed, whichever thread frees last. */
  while (a) {
    if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1) return;
    gv_arena *p = a->parent;
    gv__arena_destroy(a);
    a = p;
  }
}

gv_status gv_arena_freeze(gv_arena *a) {
  if (!a) return GV_EINVAL;
  if (a->frozen) return GV_OK;
  /* the scratch of constructors is a writer's: no writer runs on it again */
  gv__raw_free(a, a->tmp, a->tmp_cap);
  a->tmp = NULL;
  a->tmp_cap = 0;
  a->probe_nentries = SIZE_MAX;
  a->frozen = 1;
  return GV_OK;
}

bool gv_arena_frozen(const gv_arena *a) {
  return a && a->frozen;
}

const gv_arena *gv_arena_parent(const gv_arena *a) {
  return a ? a->parent : NULL;
}

gv_status gv__oom(gv_arena *a, gv_error *err) {
  size_t size = a->oom_size;
  int budget = a->oom_budget;
  a->oom_size = 0;
  a->oom_budget = 0;
  if (budget) return gv__err(err, GV_ENOMEM, "out of memory budget (max_bytes %zu)", a->max_bytes);
  return gv__oom_bytes(err, size);
}

gv_status gv__frozen_err(gv_error *err) {
  return gv__err(err, GV_EINVAL,
                 "the arena is frozen (gv_arena_freeze): build in a child arena of it instead");
}

void gv_arena_stats(const gv_arena *a, gv_stats *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (!a) return;
  out->bytes_used = gv__used(a);
  out->bytes_reserved = a->reserved;
  out->max_bytes = a->max_bytes;
  out->nodes = a->nentries;
  out->chunks = a->nchunks;
  out->table_slots = a->nslots;
  out->lookups = a->lookups;
  out->hits = a->hits;
}

gv_mark gv_arena_mark(const gv_arena *a) {
  gv_mark m;
  memset(&m, 0, sizeof m);
  if (!a) return m;
  m.arena = a;
  m.gen = a->nrollbacks;
  m.nodes = a->nentries;
  m.used = gv__used(a);
  m.chunk = a->chunk;
  m.chunk_used = a->chunk ? a->chunk->used : 0;
  m.lookups = a->lookups;
  m.hits = a->hits;
  m.table_slots = a->nslots;
  m.entries_cap = a->entries_cap;
  m.tmp_cap = a->tmp_cap;
  return m;
}

static size_t gv__pos(size_t nodes, size_t used) {
  return nodes + used;
}

/* Records rollback number a->nrollbacks to position pos. */
static void gv__note_rollback(gv_arena *a, size_t pos) {
  uint64_t i = a->nrollbacks++;
  if (pos == gv__pos(a->nentries, gv__used(a))) return; /* nothing dropped: no mark goes stale */
  while (a->nrb && a->rb[a->nrb - 1].pos >= pos)
    a->nrb--;
  if (a->nrb == GV__RB_N) { /* forget the oldest */
    a->rb_lost = a->rb[0].i + 1;
    memmove(a->rb, a->rb + 1, (GV__RB_N - 1) * sizeof a->rb[0]);
    a->nrb--;
  }
  a->rb[a->nrb].i = i;
  a->rb[a->nrb].pos = pos;
  a->nrb++;
}

void gv__rollback(gv_arena *a, const gv_mark *m) {
  gv__note_rollback(a, gv__pos(m->nodes, m->used));
  gv__intern_rollback(a, m);
  while (a->chunk && a->chunk != m->chunk) {
    gv__chunk *c = a->chunk;
    a->chunk = c->prev;
    a->nchunks--;
    GV__UNPOISON(gv__chunk_data(c), c->size);
    gv__raw_free(a, c, GV__CHUNK_HDR + c->size);
  }
  if (a->chunk) {
    gv__chunk *c = a->chunk;
    GV__POISON(gv__chunk_data(c) + m->chunk_used, c->size - m->chunk_used);
    c->used = m->chunk_used;
  }
  gv__set_used(a, m->used);
  if (m->tmp_cap < a->tmp_cap) { /* scratch only shrinks back */
    if (m->tmp_cap == 0) {
      gv__raw_free(a, a->tmp, a->tmp_cap);
      a->tmp = NULL;
    } else {
      a->tmp = gv__raw_realloc(a, a->tmp, a->tmp_cap, m->tmp_cap);
    }
    a->tmp_cap = m->tmp_cap;
  }
  a->lookups = m->lookups;
  a->hits = m->hits;
}

/* The bytes an interned node takes in its chunk. */
static size_t gv__node_size(const gv_node *n) {
  size_t size;
  switch (n->kind) {
  case GV_NONE:
  case GV_BOOL:
  case GV_INT:
  case GV_FLOAT:
  case GV_HANDLE:
  case GV_STAR:
    size = sizeof(gv__scalar);
    break;
  case GV_STR:
  case GV_BYTES:
    size = sizeof(gv__blob) + GV__BLOB(n)->len + 1;
    break;
  default:
    size = sizeof(gv__cont) + (size_t)n->arity * sizeof(gv_node *);
    if (n->kind == GV_KEYSET && (n->aux16 & GV__KS_INDEXED))
      size += gv__rank_cap(n->arity) * sizeof(uint32_t);
  }
  return (size + 7u) & ~(size_t)7u;
}

/* Whether m is a mark of a that a rollback may use. */
static int gv__mark_ok(const gv_arena *a, const gv_mark *m) {
  if (m->arena != a || m->gen > a->nrollbacks) return 0;
  size_t pos = gv__pos(m->nodes, m->used);
  size_t used = gv__used(a);
  if (m->nodes > a->nentries || m->used > used || pos > gv__pos(a->nentries, used)) return 0;
  /* stale: a rollback after it went below its position */
  for (size_t k = 0; k < a->nrb; k++)
    if (a->rb[k].i >= m->gen) {
      if (a->rb[k].pos < pos) return 0;
      break;
    }
  /* consistent with the arena: its chunk is still there, not past its end */
  if (m->chunk) {
    const gv__chunk *c = a->chunk;
    while (c && c != m->chunk)
      c = c->prev;
    if (!c || m->chunk_used > c->used) return 0;
  } else if (m->used) {
    return 0;
  }
  if (m->nodes && m->table_slots <= m->nodes) return 0; /* the table must have held them */
  if (m->entries_cap < m->nodes) return 0;
  /* the last node kept must end before the cut (in its chunk or an older one) */
  if (m->nodes) {
    const char *n = (const char *)(const void *)a->entries[m->nodes - 1];
    size_t size = gv__node_size(a->entries[m->nodes - 1]);
    int past_cut = 1; /* walking back from the newest chunk: still after m's chunk */
    for (const gv__chunk *c = a->chunk; c; c = c->prev) {
      const char *d = (const char *)c + GV__CHUNK_HDR;
      if (c == m->chunk) past_cut = 0;
      if (n >= d && n < d + c->used) {
        if (past_cut) return 0;
        if (c == m->chunk && (size_t)(n - d) + size > m->chunk_used) return 0;
        return 1;
      }
    }
    return 0;
  }
  return 1;
}

gv_status gv_arena_rollback(gv_arena *a, const gv_mark *m) {
  if (!a || !m || a->frozen || !gv__mark_ok(a, m)) return GV_EINVAL;
  gv__rollback(a, m);
  return GV_OK;
}

const gv_node *gv_arena_node_at(const gv_arena *a, size_t i) {
  return a && i < a->nentries ? a->entries[i] : NULL;
}

int gv__arena_owns(const gv_arena *a, const gv_node *n) {
  if (gv__is_imm(n)) return 1;
  const char *p = (const char *)(const void *)n;
  /* the arena's own chunks, newest first (children are most often recent nodes), then its
   * parents' (a child's nodes may point at theirs) */
  for (; a; a = a->parent) {
    for (const gv__chunk *c = a->chunk; c; c = c->prev) {
      const char *d = (const char *)c + GV__CHUNK_HDR;
      if (p >= d && p < d + c->used) return 1;
    }
  }
  return 0;
}

gv_status gv__check_output(const gv_arena *a, uint64_t size, gv_error *err) {
  if (!a->max_output || size <= a->max_output) return GV_OK;
  if (size == UINT64_MAX)
    return gv__err(err, GV_ERANGE,
                   "output too large: the tree written out is at least %llu nodes and bytes, "
                   "max_output is %llu",
                   (unsigned long long)size, (unsigned long long)a->max_output);
  return gv__err(err, GV_ERANGE,
                 "output too large: the tree written out is %llu nodes and bytes, max_output "
                 "is %llu",
                 (unsigned long long)size, (unsigned long long)a->max_output);
}
