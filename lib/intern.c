/* SPDX-License-Identifier: MIT */
/* intern.c -- the hash-cons table: open addressing (linear probing) over a
 * compact, creation-ordered entries array. A slot holds the high 32 bits of a
 * hash and, in its low 32 bits, the entry index + 1 (0 = empty), with bit 31
 * set on a secondary slot. Every entry has a primary slot under its node hash;
 * an indexed sorted keyset also has a secondary slot under its set hash (see
 * gv__secondary), placed right after its primary one.
 *
 * Because probing is linear and rollback removes entries newest first (each
 * one's secondary slot, then its primary), clearing a removed entry's slots
 * restores the table exactly; a table grown since the mark is shrunk back and
 * rehashed in creation order, which reproduces its earlier layout.
 *
 * A child arena (gv_arena_config.parent) looks a node up in its frozen
 * parents first, then in its own table: what a parent holds is the parent's
 * node, so equal trees of a child and its parents are still one pointer. The
 * lookups in a parent only read it (counters are the child's). */
#include "internal.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#define GV__SLOT_SEC 0x80000000u
#define GV__MAX_ENTRIES 0x7FFFFFFEu

static size_t gv__slot_start(const gv_arena *a, uint64_t hash) {
  uint64_t x = (hash ^ a->seed) * 0x9E3779B97F4A7C15ull;
  unsigned bits = (unsigned)__builtin_ctzll((unsigned long long)a->nslots);
  return bits ? (size_t)(x >> (64 - bits)) : 0;
}

static uint64_t gv__slot(uint64_t hash, size_t idx, uint32_t sec) {
  return ((hash >> 32) << 32) | (uint64_t)((uint32_t)(idx + 1) | sec);
}

static int gv__same(const gv_node *n, const gv__cand *c) {
  if (n->hash != c->hash || n->kind != c->kind || n->arity != c->arity) return 0;
  switch (c->kind) {
  case GV_NONE:
  case GV_STAR:
    return 1;
  case GV_BOOL:
  case GV_INT:
  case GV_FLOAT:
  case GV_HANDLE:
    return GV__SCALAR(n)->v.u == c->u;
  case GV_STR:
  case GV_BYTES:
    return GV__BLOB(n)->len == c->len &&
           (c->len == 0 || memcmp(GV__BLOB(n)->data, c->data, c->len) == 0);
  default: {
    const gv__cont *k = GV__CONT(n);
    /* a keyset is its keys in order, a tuple its children: their twins
     * (meta) follow from them */
    return (c->kind == GV_KEYSET || c->kind == GV_TUPLE || k->meta == c->meta) &&
           k->aux == c->aux &&
           (c->arity == 0 || memcmp(k->kids, c->kids, c->arity * sizeof(gv_node *)) == 0);
  }
  }
}

/* The node equal to c in t's own table, or NULL; reads t only (t may be a
 * frozen parent that other threads read at the same time). */
static const gv_node *gv__probe(const gv_arena *t, const gv__cand *c) {
  if (t->nslots == 0) return NULL;
  size_t mask = t->nslots - 1, i = gv__slot_start(t, c->hash);
  uint64_t frag = c->hash >> 32;
  for (;;) {
    uint64_t s = t->slots[i];
    if (s == 0) return NULL;
    if ((s >> 32) == frag && !((uint32_t)s & GV__SLOT_SEC)) {
      const gv_node *n = t->entries[(uint32_t)s - 1];
      if (gv__same(n, c)) return n;
    }
    i = (i + 1) & mask;
  }
}

int gv__intern_has(const gv_arena *a, const gv_node *n) {
  if (!n || gv__is_imm(n)) return 1;
  for (const gv_arena *t = a; t; t = t->parent) {
    if (t->nslots == 0) continue;
    size_t mask = t->nslots - 1, i = gv__slot_start(t, n->hash);
    uint64_t frag = n->hash >> 32;
    for (;;) {
      uint64_t s = t->slots[i];
      if (s == 0) break;
      if ((s >> 32) == frag && !((uint32_t)s & GV__SLOT_SEC) && t->entries[(uint32_t)s - 1] == n)
        return 1;
      i = (i + 1) & mask;
    }
  }
  return 0;
}

const gv_node *gv__intern_find(gv_arena *a, const gv__cand *c) {
  a->lookups++;
  /* a frozen parent first: what it holds is never built again below it */
  for (const gv_arena *p = a->parent; p; p = p->parent) {
    const gv_node *n = gv__probe(p, c);
    if (n) {
      a->hits++;
      return n;
    }
  }
  if (a->nslots == 0) return NULL;
  size_t mask = a->nslots - 1, i = gv__slot_start(a, c->hash);
  uint64_t frag = c->hash >> 32;
  for (;;) {
    uint64_t s = a->slots[i];
    if (s == 0) {
      a->probe_hash = c->hash;
      a->probe_slot = i;
      a->probe_nslots = a->nslots;
      return NULL;
    }
    if ((s >> 32) == frag && !((uint32_t)s & GV__SLOT_SEC)) {
      const gv_node *n = a->entries[(uint32_t)s - 1];
      if (gv__same(n, c)) {
        a->hits++;
        return n;
      }
    }
    i = (i + 1) & mask;
  }
}

static const gv_node *gv__probe_set(const gv_arena *t, uint64_t sethash, size_t n) {
  if (t->nslots == 0) return NULL;
  size_t mask = t->nslots - 1, i = gv__slot_start(t, sethash);
  uint64_t frag = sethash >> 32;
  for (;;) {
    uint64_t s = t->slots[i];
    if (s == 0) return NULL;
    if ((s >> 32) == frag && ((uint32_t)s & GV__SLOT_SEC)) {
      const gv_node *e = t->entries[((uint32_t)s & ~GV__SLOT_SEC) - 1];
      uint64_t h2;
      if (e->arity == n && gv__secondary(e, &h2) && h2 == sethash) return e;
    }
    i = (i + 1) & mask;
  }
}

const gv_node *gv__intern_find_set(const gv_arena *a, uint64_t sethash, size_t n) {
  /* the parents first, as gv__intern_find: a twin they hold is never built below them */
  const gv_arena *own = a;
  for (a = a->parent; a; a = a->parent) {
    const gv_node *e = gv__probe_set(a, sethash, n);
    if (e) return e;
  }
  return gv__probe_set(own, sethash, n);
}

static void gv__place(gv_arena *a, uint64_t hash, size_t idx, uint32_t sec) {
  size_t mask = a->nslots - 1, i = gv__slot_start(a, hash);
  while (a->slots[i] != 0)
    i = (i + 1) & mask;
  a->slots[i] = gv__slot(hash, idx, sec);
}

static void gv__place_entry(gv_arena *a, size_t idx) {
  const gv_node *n = a->entries[idx];
  uint64_t h2;
  gv__place(a, n->hash, idx, 0);
  if (gv__secondary(n, &h2)) gv__place(a, h2, idx, GV__SLOT_SEC);
}

static void gv__rehash(gv_arena *a) {
  memset(a->slots, 0, a->nslots * sizeof *a->slots);
  for (size_t i = 0; i < a->nentries; i++) {
    if (i + 8 < a->nentries)
      __builtin_prefetch(&a->slots[gv__slot_start(a, a->entries[i + 8]->hash)]);
    gv__place_entry(a, i);
  }
}

gv_status gv__intern_reserve(gv_arena *a) {
  if (a->nentries >= GV__MAX_ENTRIES) return GV_ERANGE;
  if (a->nentries == a->entries_cap) {
    size_t cap = a->entries_cap ? a->entries_cap * 2 : 64;
    void *p = gv__raw_realloc(a, (void *)a->entries, a->entries_cap * sizeof *a->entries,
                              cap * sizeof *a->entries);
    if (!p) return GV_ENOMEM;
    a->entries = p;
    a->entries_cap = cap;
  }
  /* load factor at most 3/4 after the next insert (up to two slots) */
  if ((a->nentries + a->nsecondary + 2) * 4 > a->nslots * 3) {
    size_t ns = a->nslots ? a->nslots * 2 : 128;
    uint64_t *p = gv__raw_alloc(a, ns * sizeof *p);
    if (!p) return GV_ENOMEM;
    gv__raw_free(a, a->slots, a->nslots * sizeof *a->slots);
    a->slots = p;
    a->nslots = ns;
    gv__rehash(a);
  }
  return GV_OK;
}

gv_status gv__intern_reserve_n(gv_arena *a, size_t n) {
  if (n > GV__MAX_ENTRIES - a->nentries) return GV_ERANGE;
  if (a->entries_cap < a->nentries + n) {
    size_t cap = a->nentries + n;
    void *p = gv__raw_realloc(a, (void *)a->entries, a->entries_cap * sizeof *a->entries,
                              cap * sizeof *a->entries);
    if (!p) return GV_ENOMEM;
    a->entries = p;
    a->entries_cap = cap;
  }
  size_t want = a->nentries + a->nsecondary + n + 2, ns = a->nslots ? a->nslots : 128;
  while (want * 4 > ns * 3)
    ns *= 2;
  if (ns == a->nslots) return GV_OK;
  uint64_t *p = gv__raw_alloc(a, ns * sizeof *p);
  if (!p) return GV_ENOMEM;
  gv__raw_free(a, a->slots, a->nslots * sizeof *a->slots);
  a->slots = p;
  a->nslots = ns;
  a->probe_nslots = 0;
  gv__rehash(a);
  return GV_OK;
}

void gv__intern_prefetch(const gv_arena *a, uint64_t hash) {
  if (a->nslots) __builtin_prefetch(&a->slots[gv__slot_start(a, hash)]);
}

void gv__intern_add(gv_arena *a, const gv_node *n) {
  size_t idx = a->nentries++;
  uint64_t h2;
  a->entries[idx] = n;
  /* the slot a lookup just ended on is still the first empty one of the probe
   * path if the table has not been resized since and nothing filled it */
  if (a->probe_hash == n->hash && a->probe_nslots == a->nslots && a->slots[a->probe_slot] == 0) {
    a->slots[a->probe_slot] = gv__slot(n->hash, idx, 0);
    a->probe_nslots = 0;
  } else {
    gv__place(a, n->hash, idx, 0);
  }
  if (gv__secondary(n, &h2)) {
    gv__place(a, h2, idx, GV__SLOT_SEC);
    a->nsecondary++;
  }
}

/* Clears the slot of entry idx under hash (its last-placed slot there). */
static void gv__unplace(gv_arena *a, uint64_t hash, size_t idx, uint32_t sec) {
  size_t mask = a->nslots - 1, i = gv__slot_start(a, hash);
  uint64_t want = gv__slot(hash, idx, sec);
  while (a->slots[i] != want)
    i = (i + 1) & mask;
  a->slots[i] = 0;
}

void gv__intern_rollback(gv_arena *a, const gv_mark *m) {
  a->probe_nslots = 0;
  while (a->nentries > m->nodes) {
    size_t idx = --a->nentries;
    const gv_node *n = a->entries[idx];
    uint64_t h2;
    int sec = gv__secondary(n, &h2);
    if (sec) a->nsecondary--;
    if (a->nslots > m->table_slots) continue; /* rehashed below */
    if (sec) gv__unplace(a, h2, idx, GV__SLOT_SEC);
    gv__unplace(a, n->hash, idx, 0);
  }
  if (a->nslots > m->table_slots) {
    /* shrink back (a shrink never fails), then rebuild the old layout */
    if (m->table_slots == 0) {
      gv__raw_free(a, a->slots, a->nslots * sizeof *a->slots);
      a->slots = NULL;
      a->nslots = 0;
    } else {
      a->slots = gv__raw_realloc(a, a->slots, a->nslots * sizeof *a->slots,
                                 m->table_slots * sizeof *a->slots);
      a->nslots = m->table_slots;
      gv__rehash(a);
    }
  }
  if (a->entries_cap > m->entries_cap) {
    if (m->entries_cap == 0) {
      gv__raw_free(a, (void *)a->entries, a->entries_cap * sizeof *a->entries);
      a->entries = NULL;
    } else {
      a->entries = gv__raw_realloc(a, (void *)a->entries, a->entries_cap * sizeof *a->entries,
                                   m->entries_cap * sizeof *a->entries);
    }
    a->entries_cap = m->entries_cap;
  }
}

uint64_t gv__intern_digest(const gv_arena *a) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, &a->nentries, sizeof a->nentries);
  if (a->nentries) XXH3_64bits_update(&st, a->entries, a->nentries * sizeof *a->entries);
  XXH3_64bits_update(&st, &a->nslots, sizeof a->nslots);
  if (a->nslots) XXH3_64bits_update(&st, a->slots, a->nslots * sizeof *a->slots);
  XXH3_64bits_update(&st, &a->nsecondary, sizeof a->nsecondary);
  return XXH3_64bits_digest(&st);
}

void gv__intern_free(gv_arena *a) {
  gv__raw_free(a, (void *)a->entries, a->entries_cap * sizeof *a->entries);
  gv__raw_free(a, a->slots, a->nslots * sizeof *a->slots);
  a->entries = NULL;
  a->slots = NULL;
  a->nentries = a->entries_cap = a->nslots = a->nsecondary = 0;
}
