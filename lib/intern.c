/* intern.c -- the hash-cons table: open addressing (linear probing) over a
 * compact, creation-ordered entries array. A slot holds the high 32 bits of
 * the node's hash and its entry index + 1 (0 = empty). Because probing is
 * linear and rollback removes entries newest first, clearing a removed entry's
 * slot restores the table exactly; a table grown since the mark is shrunk back
 * and rehashed in creation order, which reproduces its earlier layout. */
#include "internal.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

static size_t gv__slot_start(const gv_arena *a, uint64_t hash) {
  uint64_t x = (hash ^ a->seed) * 0x9E3779B97F4A7C15ull;
  unsigned bits = (unsigned)__builtin_ctzll((unsigned long long)a->nslots);
  return bits ? (size_t)(x >> (64 - bits)) : 0;
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
    return k->meta == c->meta && k->aux == c->aux &&
           (c->arity == 0 || memcmp(k->kids, c->kids, c->arity * sizeof(gv_node *)) == 0);
  }
  }
}

const gv_node *gv__intern_find(gv_arena *a, const gv__cand *c) {
  a->lookups++;
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
    if ((s >> 32) == frag) {
      const gv_node *n = a->entries[(uint32_t)s - 1];
      if (gv__same(n, c)) {
        a->hits++;
        return n;
      }
    }
    i = (i + 1) & mask;
  }
}

static void gv__place(gv_arena *a, size_t idx) {
  const gv_node *n = a->entries[idx];
  size_t mask = a->nslots - 1, i = gv__slot_start(a, n->hash);
  while (a->slots[i] != 0)
    i = (i + 1) & mask;
  a->slots[i] = ((n->hash >> 32) << 32) | (uint64_t)(idx + 1);
}

static void gv__rehash(gv_arena *a) {
  memset(a->slots, 0, a->nslots * sizeof *a->slots);
  for (size_t i = 0; i < a->nentries; i++)
    gv__place(a, i);
}

gv_status gv__intern_reserve(gv_arena *a) {
  if (a->nentries >= 0xFFFFFFFEu) return GV_ERANGE;
  if (a->nentries == a->entries_cap) {
    size_t cap = a->entries_cap ? a->entries_cap * 2 : 64;
    void *p = gv__raw_realloc(a, (void *)a->entries, a->entries_cap * sizeof *a->entries,
                              cap * sizeof *a->entries);
    if (!p) return GV_ENOMEM;
    a->entries = p;
    a->entries_cap = cap;
  }
  /* load factor at most 3/4 after the next insert */
  if ((a->nentries + 1) * 4 > a->nslots * 3) {
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

void gv__intern_add(gv_arena *a, const gv_node *n) {
  size_t idx = a->nentries++;
  a->entries[idx] = n;
  /* the slot a lookup just ended on is still the first empty one of the probe
   * path if the table has not been resized since and nothing filled it */
  if (a->probe_hash == n->hash && a->probe_nslots == a->nslots && a->slots[a->probe_slot] == 0) {
    a->slots[a->probe_slot] = ((n->hash >> 32) << 32) | (uint64_t)(idx + 1);
    a->probe_nslots = 0;
    return;
  }
  gv__place(a, idx);
}

void gv__intern_rollback(gv_arena *a, const gv_mark *m) {
  a->probe_nslots = 0;
  if (a->nslots > m->table_slots) {
    /* shrink back (a shrink never fails), then rebuild the old layout */
    a->nentries = m->nodes;
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
  } else {
    size_t mask = a->nslots - 1;
    while (a->nentries > m->nodes) {
      size_t idx = --a->nentries;
      const gv_node *n = a->entries[idx];
      size_t i = gv__slot_start(a, n->hash);
      while ((uint32_t)a->slots[i] != idx + 1)
        i = (i + 1) & mask;
      a->slots[i] = 0;
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
  return XXH3_64bits_digest(&st);
}

void gv__intern_free(gv_arena *a) {
  gv__raw_free(a, (void *)a->entries, a->entries_cap * sizeof *a->entries);
  gv__raw_free(a, a->slots, a->nslots * sizeof *a->slots);
  a->entries = NULL;
  a->slots = NULL;
  a->nentries = a->entries_cap = a->nslots = 0;
}
