/* SPDX-License-Identifier: MIT */
/* mutate.h -- private to the mutator (mutate_leaf.c, mutate_tree.c, mutate.c): its random
 * numbers, the leaf mutations, a container taken apart and rebuilt, places in a tree. */
#ifndef GROVE_MUTATE_PRIVATE_H
#define GROVE_MUTATE_PRIVATE_H

#include "grove_mutate.h"
#include "internal.h"

/* ---- random numbers: splitmix64, the whole state in one word (deterministic everywhere) ---- */
typedef struct gv__rng {
  uint64_t s;
} gv__rng;
static inline uint64_t gv__rng_next(gv__rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}
/* Uniform in [0, n) (0 for n 0); the modulo bias is irrelevant here. */
static inline uint64_t gv__rng_below(gv__rng *r, uint64_t n) {
  return n ? gv__rng_next(r) % n : 0;
}
static inline size_t gv__rng_idx(gv__rng *r, size_t n) {
  return (size_t)gv__rng_below(r, n);
}
/* true one time in n */
static inline int gv__rng_one_in(gv__rng *r, uint64_t n) {
  return gv__rng_below(r, n) == 0;
}

/* ---- one call's context ---- */
typedef struct gv__mut {
  gv_arena *a;
  gv__rng rng;
  gv_mutate_options o;
  const gv_node *root; /* the tree being mutated */
  gv_status cb_status; /* a leaf callback's failure (returned as given) */
  gv_error *err;       /* the caller's (messages of attempts that fail are overwritten) */
} gv__mut;

/* Scratch of the call, counted in the arena's budget while held. */
static inline void *gv__mut_alloc(gv__mut *m, size_t size) {
  return gv__mem_realloc(gv__mem_writer(m->a), NULL, 0, size ? size : 1);
}
static inline void gv__mut_free(gv__mut *m, void *p, size_t size) {
  if (p) gv__mem_realloc(gv__mem_writer(m->a), p, size ? size : 1, 0);
}

/* ---- leaves (mutate_leaf.c); each sets *out to a node of m->a ---- */
/* The leaf changed within its kind (int, float, str, bytes, bool, handle). GV_EINVAL for a
 * kind it does not change (None, *). */
gv_status gv__mut_leaf(gv__mut *m, const gv_node *leaf, const gv_node **out);
/* A leaf of another kind, its value carried over where it can be. */
gv_status gv__mut_leaf_kind(gv__mut *m, const gv_node *leaf, const gv_node **out);
/* A new leaf of any kind (only JSON's under GV_MUTATE_JSON). */
gv_status gv__mut_fresh_leaf(gv__mut *m, const gv_node **out);
/* A new key: mostly short strs; numbers, None, bytes and tuples unless JSON. */
gv_status gv__mut_fresh_key(gv__mut *m, const gv_node **out);
/* A key equal to key in Python but another node (1.0 for 1, True for 1, -0.0 for 0, a tuple
 * holding one), or *out NULL when it has none. */
gv_status gv__mut_key_twin(gv__mut *m, const gv_node *key, const gv_node **out);
/* An identifier str (field and type names). */
gv_status gv__mut_ident(gv__mut *m, const char *prefix, size_t i, const gv_node **out);

/* ---- containers taken apart (mutate_tree.c) ---- */
typedef struct gv__parts {
  unsigned kind;        /* the kind to build */
  const gv_node *tmpl;  /* the original: type name, factory, maxlen, metadata, host order */
  const gv_node **keys; /* dict kinds and keyed custom: keys; namedtuple: field names; or NULL */
  const gv_node **vals;
  size_t n, cap;
} gv__parts;
/* c's children (and keys) into scratch with room for extra more. */
gv_status gv__parts_of(gv__mut *m, const gv_node *c, size_t extra, gv__parts *p);
void gv__parts_free(gv__mut *m, gv__parts *p);
/* A container of p->kind with p's children; missing keys or names made up. */
gv_status gv__parts_build(gv__mut *m, gv__parts *p, const gv_node **out);
/* Insert (key, val) at i; a key or field name is made when key is NULL and one is needed. */
gv_status gv__parts_insert(gv__mut *m, gv__parts *p, size_t i, const gv_node *key,
                           const gv_node *val);
void gv__parts_remove(gv__parts *p, size_t i);

/* A place in the tree: the containers from the root down and the child index taken in each. */
typedef struct gv__step {
  const gv_node *c;
  size_t i;
} gv__step;
typedef struct gv__place {
  gv__step *steps;
  size_t depth, cap;
  const gv_node *node; /* the subtree at the place */
} gv__place;
/* A random place in t (weighted by written-out size, or a uniform walk). */
gv_status gv__place_pick(gv__mut *m, const gv_node *t, gv__place *p);
void gv__place_free(gv__mut *m, gv__place *p);
/* t with the subtree at p's first `depth` steps replaced by node (the containers above it
 * rebuilt). */
gv_status gv__place_set(gv__mut *m, const gv__place *p, size_t depth, const gv_node *node,
                        const gv_node **out);

/* The structural mutations at a place (mutate_tree.c): *out the new tree, or GV_EINVAL when
 * the kind does not apply there (another is drawn). *depth: where the change was. */
gv_status gv__mut_structure(gv__mut *m, gv_mutation_kind k, gv__place *p, const gv_node **out,
                            size_t *depth);
/* Whether kind k may apply at p (cheap conditions only). */
int gv__mut_applies(const gv__mut *m, gv_mutation_kind k, const gv__place *p);

#endif
