/* SPDX-License-Identifier: MIT */
/* intern.c -- the hash-cons table: open addressing over a compact,
 * creation-ordered entries array. A slot holds the high 32 bits of a hash
 * (its fragment) and, in its low 32 bits, the entry index + 1 (0 = empty),
 * with bit 31 set on a secondary slot. Every entry has a primary slot under
 * its node hash; an indexed sorted keyset also has a secondary slot under its
 * set hash (see gv__secondary).
 *
 * Linear probing kept in order (Robin Hood with a tie-break): along a run of
 * full slots, homes never decrease, and slots with one home are in rank order
 * (entry index, primary before secondary). So the layout is a function of
 * the slots the table holds and its size, never of the order they came in:
 * rollback removes an entry's slots (shifting the rest of their run back) and
 * the table is exactly what it was; a table grown since the mark is rebuilt
 * at its old size and comes out the same. A lookup stops at the first slot
 * whose home lies past its own (a miss costs a few slots, not a whole run).
 *
 * A slot's home is the top bits of a mix of the fragment it holds, so a slot
 * alone says where it belongs: growing the table reads the old slots in
 * order, not the entries, and writes the new table nearly in order.
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

static inline unsigned gv__bits(size_t nslots) {
  return (unsigned)__builtin_ctzll((unsigned long long)nslots);
}

/* The home of fragment frag in a table of 2^bits slots. */
static inline size_t gv__home(const gv_arena *a, uint64_t frag, unsigned bits) {
  uint64_t x = (frag ^ a->seed) * 0x9E3779B97F4A7C15ull;
  return bits ? (size_t)(x >> (64 - bits)) : 0;
}

static inline size_t gv__slot_start(const gv_arena *a, uint64_t hash) {
  return gv__home(a, hash >> 32, gv__bits(a->nslots));
}

/* How far the full slot s at position i sits from its home. */
static inline size_t gv__dist(const gv_arena *t, uint64_t s, size_t i, unsigned bits, size_t mask) {
  return (i - gv__home(t, s >> 32, bits)) & mask;
}

static inline uint64_t gv__slot(uint64_t hash, size_t idx, uint32_t sec) {
  return ((hash >> 32) << 32) | (uint64_t)((uint32_t)(idx + 1) | sec);
}

/* The order of slots with one home: entry index, primary before secondary. */
static inline uint64_t gv__rank(uint64_t s) {
  return ((uint64_t)((uint32_t)s & ~GV__SLOT_SEC) << 1) | (((uint32_t)s & GV__SLOT_SEC) ? 1u : 0u);
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

/* A walk over the slots of t that may hold a given hash fragment: from its
 * home on, until an empty slot or one whose home lies past it (the run is
 * in home order). i ends where the walk stopped: where a new slot of that
 * fragment would go after the ones of its home. */
typedef struct gv__run {
  size_t i, d, mask;
  unsigned bits;
  uint64_t frag;
} gv__run;

static inline int gv__run_start(const gv_arena *t, uint64_t hash, gv__run *r) {
  if (t->nslots == 0) return 0;
  r->bits = gv__bits(t->nslots);
  r->mask = t->nslots - 1;
  r->frag = hash >> 32;
  r->i = gv__home(t, r->frag, r->bits);
  r->d = 0;
  return 1;
}

/* The next slot of the walk with its fragment, primary (sec 0) or secondary
 * (GV__SLOT_SEC); 0 when there is none. */
static inline uint64_t gv__run_next(const gv_arena *t, gv__run *r, uint32_t sec) {
  for (;;) {
    uint64_t s = t->slots[r->i];
    if (s == 0 || gv__dist(t, s, r->i, r->bits, r->mask) < r->d) return 0;
    r->i = (r->i + 1) & r->mask;
    r->d++;
    if ((s >> 32) == r->frag && ((uint32_t)s & GV__SLOT_SEC) == sec) return s;
  }
}

/* The entry a slot stands for. */
static inline const gv_node *gv__slot_node(const gv_arena *t, uint64_t s) {
  return t->entries[((uint32_t)s & ~GV__SLOT_SEC) - 1];
}

/* The node equal to c in t's own table, or NULL; reads t only (t may be a
 * frozen parent that other threads read at the same time). With at, where
 * the probe stopped (where c would go). */
static const gv_node *gv__probe(const gv_arena *t, const gv__cand *c, size_t *at) {
  gv__run r;
  if (!gv__run_start(t, c->hash, &r)) return NULL;
  for (uint64_t s; (s = gv__run_next(t, &r, 0)) != 0;) {
    const gv_node *n = gv__slot_node(t, s);
    if (gv__same(n, c)) return n;
  }
  if (at) *at = r.i;
  return NULL;
}

int gv__intern_has(const gv_arena *a, const gv_node *n) {
  if (!n || gv__is_imm(n)) return 1;
  for (const gv_arena *t = a; t; t = t->parent) {
    gv__run r;
    if (!gv__run_start(t, n->hash, &r)) continue;
    for (uint64_t s; (s = gv__run_next(t, &r, 0)) != 0;)
      if (gv__slot_node(t, s) == n) return 1;
  }
  return 0;
}

const gv_node *gv__intern_find(gv_arena *a, const gv__cand *c) {
  a->lookups++;
  /* a frozen parent first: what it holds is never built again below it */
  for (const gv_arena *p = a->parent; p; p = p->parent) {
    const gv_node *n = gv__probe(p, c, NULL);
    if (n) {
      a->hits++;
      return n;
    }
  }
  size_t at;
  const gv_node *n = gv__probe(a, c, &at);
  if (n) {
    a->hits++;
    return n;
  }
  if (a->nslots) { /* a new entry goes where the probe stopped (gv__intern_add) */
    a->probe_hash = c->hash;
    a->probe_slot = at;
    a->probe_nentries = a->nentries;
  }
  return NULL;
}

static const gv_node *gv__probe_set(const gv_arena *t, uint64_t sethash, size_t n) {
  gv__run r;
  if (!gv__run_start(t, sethash, &r)) return NULL;
  for (uint64_t s; (s = gv__run_next(t, &r, GV__SLOT_SEC)) != 0;) {
    const gv_node *e = gv__slot_node(t, s);
    uint64_t h2;
    if (e->arity == n && gv__secondary(e, &h2) && h2 == sethash) return e;
  }
  return NULL;
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

/* Puts slot s at position i, shifting the rest of the run one place on. */
static inline void gv__shift_in(uint64_t *slots, size_t mask, size_t i, uint64_t s) {
  while (s != 0) {
    uint64_t t = slots[i];
    slots[i] = s;
    s = t;
    i = (i + 1) & mask;
  }
}

/* Inserts slot s (absent) where the order puts it. */
static void gv__insert(gv_arena *a, uint64_t s) {
  unsigned bits = gv__bits(a->nslots);
  size_t mask = a->nslots - 1, i = gv__home(a, s >> 32, bits);
  uint64_t r = gv__rank(s);
  for (size_t d = 0;; i = (i + 1) & mask, d++) {
    uint64_t t = a->slots[i];
    if (t == 0) break;
    size_t dt = gv__dist(a, t, i, bits, mask);
    if (dt < d || (dt == d && gv__rank(t) > r)) break;
  }
  gv__shift_in(a->slots, mask, i, s);
}

/* Removes slot s (present), shifting the rest of its run back. */
static void gv__remove(gv_arena *a, uint64_t s) {
  unsigned bits = gv__bits(a->nslots);
  size_t mask = a->nslots - 1, i = gv__home(a, s >> 32, bits);
  while (a->slots[i] != s)
    i = (i + 1) & mask;
  for (;;) {
    size_t j = (i + 1) & mask;
    uint64_t t = a->slots[j];
    if (t == 0 || gv__dist(a, t, j, bits, mask) == 0) break;
    a->slots[i] = t;
    i = j;
  }
  a->slots[i] = 0;
}

static void gv__insert_entry(gv_arena *a, size_t idx) {
  const gv_node *n = a->entries[idx];
  uint64_t h2;
  gv__insert(a, gv__slot(n->hash, idx, 0));
  if (gv__secondary(n, &h2)) gv__insert(a, gv__slot(h2, idx, GV__SLOT_SEC));
}

/* Fills the (zeroed) table from the entries: the fallback of gv__relayout. */
static void gv__refill(gv_arena *a) {
  for (size_t i = 0; i < a->nentries; i++) {
    if (i + 8 < a->nentries)
      __builtin_prefetch(&a->slots[gv__slot_start(a, a->entries[i + 8]->hash)]);
    gv__insert_entry(a, i);
  }
}

/* Fills the (zeroed) table from old[0..on), another size of it, keeping the
 * slots of entries below keep. The old slots come in home order (from an
 * empty one on), so each lands at or near the end of its run. */
static void gv__refill_from(gv_arena *a, const uint64_t *old, size_t on, size_t keep) {
  size_t omask = on - 1, j0 = 0;
  while (old[j0] != 0)
    if (++j0 == on) break; /* never: the load stays under 3/4 */
  for (size_t step = 1; step <= on; step++) {
    uint64_t s = old[(j0 + step) & omask];
    if (s != 0 && ((uint32_t)s & ~GV__SLOT_SEC) <= keep) gv__insert(a, s);
  }
}

/* Fills the (zeroed) table from old[0..on), a table 2^k times smaller, by
 * streaming: the old slots, read from an empty one on, come in (home, rank)
 * order; a slot of old home h has its new home in h * 2^k .. h * 2^k + 2^k - 1,
 * so sorting each group of one old home by new home (ranks stay in order)
 * gives the new table's (home, rank) order, and each slot goes to its home or
 * right after the one before. No slot passes the new slot before the first
 * one written: that slot is empty, because the old slot before the scan's
 * start is (a range of homes ending there holds fewer slots than it is
 * long). Returns 0, having written only part, when a group is too big for
 * its buffer (the caller starts over slot by slot). */
static int gv__grow_stream(gv_arena *a, const uint64_t *old, size_t on) {
  unsigned nb = gv__bits(a->nslots), ob = gv__bits(on);
  size_t mask = a->nslots - 1, omask = on - 1, j0 = 0, k = 0, pos = 0;
  uint64_t grp[32], gold = 0;
  size_t gnew[32];
  uint64_t *nt = a->slots;
  while (old[j0] != 0)
    if (++j0 == on) return 0; /* never: the load stays under 3/4 */
  size_t base = ((j0 + 1) << (nb - ob)) & mask;
  for (size_t step = 1; step <= on; step++) {
    uint64_t s = old[(j0 + step) & omask];
    uint64_t x = s ? ((s >> 32) ^ a->seed) * 0x9E3779B97F4A7C15ull : 0;
    uint64_t oh = x >> (64 - ob);
    if (k && (s == 0 || oh != gold)) { /* place the group */
      for (size_t i = 0; i < k; i++) {
        size_t u = (gnew[i] - base) & mask;
        if (u > pos) pos = u;
        if (pos >= mask) return 0; /* never (see above) */
        nt[(base + pos) & mask] = grp[i];
        pos++;
      }
      k = 0;
    }
    if (s == 0) continue;
    if (k == 32) return 0;
    size_t nh = (size_t)(x >> (64 - nb)), y = k++;
    for (; y > 0 && gnew[y - 1] > nh; y--) { /* stable: ranks stay in order */
      grp[y] = grp[y - 1];
      gnew[y] = gnew[y - 1];
    }
    grp[y] = s;
    gnew[y] = nh;
    gold = oh;
  }
  return 1;
}

/* Gives the table ns slots (a power of two) holding the entries below keep
 * (the others are being rolled back); GV_ENOMEM leaves it as it was, except
 * that a shrink never fails. */
static gv_status gv__relayout(gv_arena *a, size_t ns, size_t keep) {
  /* the budget counts the table's growth, not both tables (the old one goes below) */
  uint64_t *old = a->slots, *p = gv__raw_alloc_replacing(a, ns * sizeof *p, a->nslots * sizeof *p);
  size_t on = a->nslots;
  a->probe_nentries = SIZE_MAX;
  if (!p) {
    if (ns > on) return GV_ENOMEM;
    /* a shrink in place, from the entries */
    a->slots = gv__raw_realloc(a, old, on * sizeof *old, ns * sizeof *old);
    a->nslots = ns;
    memset(a->slots, 0, ns * sizeof *a->slots);
    gv__refill(a);
    return GV_OK;
  }
  memset(p, 0, ns * sizeof *p);
  a->slots = p;
  a->nslots = ns;
  if (on && (ns < on || !gv__grow_stream(a, old, on))) {
    if (ns > on) memset(p, 0, ns * sizeof *p); /* a part was written */
    gv__refill_from(a, old, on, keep);
  }
  gv__raw_free(a, old, on * sizeof *old);
  return GV_OK;
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
  if ((a->nentries + a->nsecondary + 2) * 4 > a->nslots * 3)
    return gv__relayout(a, a->nslots ? a->nslots * 2 : 128, a->nentries);
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
  return ns == a->nslots ? GV_OK : gv__relayout(a, ns, a->nentries);
}

void gv__intern_prefetch(const gv_arena *a, uint64_t hash) {
  if (a->nslots) __builtin_prefetch(&a->slots[gv__slot_start(a, hash)]);
}

void gv__intern_add(gv_arena *a, const gv_node *n) {
  size_t idx = a->nentries++;
  uint64_t h2;
  a->entries[idx] = n;
  /* where the lookup that missed it stopped, unless the table changed since:
   * the newest entry goes after the slots of its home */
  if (a->probe_nentries == idx && a->probe_hash == n->hash) {
    gv__shift_in(a->slots, a->nslots - 1, a->probe_slot, gv__slot(n->hash, idx, 0));
    a->probe_nentries = SIZE_MAX;
  } else {
    gv__insert(a, gv__slot(n->hash, idx, 0));
  }
  if (gv__secondary(n, &h2)) {
    gv__insert(a, gv__slot(h2, idx, GV__SLOT_SEC));
    a->nsecondary++;
  }
}

void gv__intern_rollback(gv_arena *a, const gv_mark *m) {
  a->probe_nentries = SIZE_MAX;
  int relayout = a->nslots > m->table_slots;
  while (a->nentries > m->nodes) {
    size_t idx = --a->nentries;
    const gv_node *n = a->entries[idx];
    uint64_t h2;
    int sec = gv__secondary(n, &h2);
    if (sec) a->nsecondary--;
    if (relayout) continue; /* dropped below */
    if (sec) gv__remove(a, gv__slot(h2, idx, GV__SLOT_SEC));
    gv__remove(a, gv__slot(n->hash, idx, 0));
  }
  if (relayout) {
    if (m->table_slots == 0) {
      gv__raw_free(a, a->slots, a->nslots * sizeof *a->slots);
      a->slots = NULL;
      a->nslots = 0;
    } else {
      (void)gv__relayout(a, m->table_slots, a->nentries); /* a shrink: never fails */
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
