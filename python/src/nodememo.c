/* SPDX-License-Identifier: MIT */
/* nodememo.c -- the small-node memos of a generation (state.h: smemo,
 * cmemo): the flatten walk's lists, tuples and small records interned by the
 * identities of their children before hashing or the intern table. */
#include "state.h"

#include <string.h>

gv_status memo_seq(GenObject *g, size_t depth, unsigned kind, const gv_node *const *kids, size_t n,
                   const gv_node **out, gv_error *e) {
  smemo *m = NULL;
  if (n <= 2) {
    /* 4-way buckets: a tree's few hundred small nodes rarely evict each other */
    const gv_node *k0 = n ? kids[0] : NULL, *k1 = n > 1 ? kids[1] : NULL;
    uintptr_t tag = (uintptr_t)kind * 4 + n;
    if (!g->memo) g->memo = PyMem_Calloc(SMEMO_SLOTS + SMEMO_DEPTHS, sizeof *g->memo);
    smemo *dm = NULL;
    if (g->memo && depth <= SMEMO_DEPTHS) {
      /* first the slot of this depth: a structure flattened again meets
       * its nodes there in order (deep chains read it sequentially) */
      dm = &g->memo[SMEMO_SLOTS + depth - 1];
      if (dm->tag == tag && dm->k0 == k0 && dm->k1 == k1) {
        *out = dm->node;
        return GV_OK;
      }
    }
    if (g->memo) {
      uint64_t h = ((uint64_t)(uintptr_t)k0 * 0x9E3779B97F4A7C15u) ^
                   ((uint64_t)(uintptr_t)k1 * 0xC2B2AE3D27D4EB4Fu) ^ tag;
      smemo *b = &g->memo[((h ^ (h >> 29)) & (SMEMO_SLOTS / 4 - 1)) * 4];
      for (int q = 0; q < 4; q++)
        if (b[q].tag == tag && b[q].k0 == k0 && b[q].k1 == k1) {
          *out = b[q].node;
          if (dm) *dm = (smemo){k0, k1, *out, tag};
          return GV_OK;
        }
      memmove(b + 1, b, 3 * sizeof *b); /* the newest first, the oldest out */
      m = b;
    }
  }
  gv_status s = gv__seq(g->a, kind, kids, n, NULL, out, e);
  if (s == GV_OK && m) {
    *m = (smemo){n ? kids[0] : NULL, n > 1 ? kids[1] : NULL, *out, (uintptr_t)kind * 4 + n};
    if (depth <= SMEMO_DEPTHS) g->memo[SMEMO_SLOTS + depth - 1] = *m;
  } else if (m) {
    m->tag = 0;
  }
  return s;
}

gv_status memo_record(GenObject *g, unsigned kind, const gv_node *meta, const gv_node *aux,
                      const gv_node *const *kids, size_t n, const gv_node **out, gv_error *e) {
  cmemo *b = NULL;
  uint64_t h = 0;
  if (n <= CMEMO_KIDS && (g->cmemo || (g->cmemo = PyMem_Calloc(CMEMO_SLOTS, sizeof *g->cmemo)))) {
    h = ((uint64_t)(uintptr_t)meta * 0x9E3779B97F4A7C15u) ^ (uint64_t)(uintptr_t)aux ^ kind;
    for (size_t i = 0; i < n; i++)
      h = (h ^ (uint64_t)(uintptr_t)kids[i]) * 0xC2B2AE3D27D4EB4Fu;
    h = (h ^ (h >> 29)) | 1u;
    b = &g->cmemo[(h & (CMEMO_SLOTS / 4 - 1)) * 4];
    for (int q = 0; q < 4; q++) {
      const gv_node *nd = b[q].node;
      if (b[q].h == h && b[q].meta == meta && nd->kind == kind && nd->arity == n &&
          GV__CONT(nd)->aux == aux && (!n || !memcmp(GV__CONT(nd)->kids, kids, n * sizeof *kids))) {
        *out = nd;
        return GV_OK;
      }
    }
    memmove(b + 1, b, 3 * sizeof *b); /* the newest first, the oldest out */
    b[0] = (cmemo){meta, NULL, 0};    /* (empty until the node is made) */
  }
  gv_status s = gv__make_node(g->a, kind, meta, aux, kids, n, out, e);
  if (s == GV_OK && b) b[0] = (cmemo){meta, *out, h};
  return s;
}
