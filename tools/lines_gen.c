/* SPDX-License-Identifier: MIT */
/* lines_gen.c -- the --lines stream's generations (frozen parents holding the fixed trees and
 * the templates) and the statistics that choose the templates; main thread only. The design is
 * told in lines.c. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

void gen_release(gen *g) {
  if (!g || --g->refs) return;
  if (g->own) gv_arena_free(g->p);
  if (g->live) --*g->live;
  free(g->thash);
  free((void *)g->tmpl);
  free(g);
}

/* The budget of the templates: each generation's and the staging arena's. */
static size_t tmpl_budget(const stream *st) {
  size_t m = st->c->max_bytes;
  return m ? (m / 4 ? m / 4 : 1) : 0;
}

/* A new generation holding the templates tmpl[0..n) over the frozen arena of the fixed trees
 * (the cli's: they are never copied). NULL when out of memory. */
gen *gen_make(stream *st, const uint64_t *hashes, const gv_node *const *tmpl, size_t n) {
  cli *c = st->c;
  gv_arena *base = c->a;
  gen *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->thash = calloc(n + 1, sizeof *g->thash);
  g->tmpl = calloc(n + 1, sizeof *g->tmpl);
  g->refs = 1;
  g->fixed = st->fixed;
  g->rules = st->rules;
  g->p = base;
  if (!g->thash || !g->tmpl) {
    gen_release(g);
    return NULL;
  }
  if (n) {
    gv_arena_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_bytes = tmpl_budget(st);
    cfg.max_output = c->max_output;
    cfg.parent = base;
    if (gv_arena_new(&cfg, &g->p) != GV_OK) {
      g->p = NULL;
      gen_release(g);
      return NULL;
    }
    g->own = 1;
    for (size_t i = 0; i < n; i++) { /* a template that does not fit is left out */
      if (gv_copy(g->p, tmpl[i], &g->tmpl[g->ntmpl], NULL) != GV_OK) break;
      g->thash[g->ntmpl++] = hashes[i];
    }
    (void)gv_arena_freeze(g->p);
  }
  g->live = &st->live_gens;
  st->live_gens++;
  return g;
}

/* ---- the stream: statistics and new parents (main thread) ---- */

/* An arena for the templates staged until the next parent (their budget). */
gv_status staging_new(stream *st, gv_arena **out) {
  gv_arena_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_bytes = tmpl_budget(st);
  return gv_arena_new(&cfg, out);
}

kcount *count_slot(stream *st, uint64_t h, int add) {
  size_t mask = LN_COUNT_CAP - 1, i = (size_t)(h * UINT64_C(0x9E3779B97F4A7C15) >> 40) & mask;
  while (st->counts[i].hash && st->counts[i].hash != h)
    i = (i + 1) & mask;
  if (st->counts[i].hash) return &st->counts[i];
  if (!add || st->ncounts >= LN_COUNT_CAP * 3 / 4) return NULL; /* full: not counted */
  st->counts[i].hash = h;
  st->counts[i].count = 0;
  st->counts[i].state = 0;
  st->ncounts++;
  return &st->counts[i];
}

/* A template for the keyset with hash h found in text: parsed again in the scratch arena,
 * its keys copied into the staging arena as a dict {k: None, ...}. */
int make_template(stream *st, uint64_t h, const char *text, size_t len) {
  if (st->npend + (st->cur ? st->cur->ntmpl : 0) >= LN_TEMPLATES) return 0;
  gv_arena_config cfg; /* the line again, in an arena of the line's budget, freed at once */
  memset(&cfg, 0, sizeof cfg);
  cfg.max_bytes = st->c->max_bytes;
  gv_arena *scratch = NULL;
  if (gv_arena_new(&cfg, &scratch) != GV_OK) return 0;
  gv_stats s1;
  const gv_node *t = NULL, *tmpl = NULL;
  int ok = 0;
  if (gv_parse(scratch, text, len, &t, NULL) == GV_OK) {
    gv_arena_stats(scratch, &s1);
    for (size_t i = 0; i < s1.nodes && !tmpl; i++) {
      const gv_node *d = gv_arena_node_at(scratch, i);
      gv_node_kind k = gv_kind(d);
      if (k != GV_DICT && k != GV_ODICT && k != GV_DDICT) continue;
      const gv_node *ks = gv_meta(d); /* a keyset's children are its keys, in its order */
      if (gv_hash(ks) != h) ks = gv_keyset_twin(ks);
      if (!ks || gv_hash(ks) != h) continue;
      size_t n = gv_arity(ks);
      const gv_node **keys = malloc(2 * n * sizeof *keys + 1);
      if (!keys) break;
      const gv_node **nones = keys + n;
      gv_status s = GV_OK;
      for (size_t j = 0; j < n && s == GV_OK; j++) {
        s = gv_copy(st->staging, gv_child(ks, j), &keys[j], NULL);
        if (s == GV_OK) s = gv_none(st->staging, &nones[j], NULL);
      }
      if (s == GV_OK) s = gv_dict(st->staging, keys, nones, n, &tmpl, NULL);
      free(keys);
      if (s != GV_OK) tmpl = NULL;
      break;
    }
  }
  if (tmpl && grow((void **)&st->pend, &st->npendcap, st->npend + 1, sizeof *st->pend) &&
      grow((void **)&st->phash, &st->phashcap, st->npend + 1, sizeof *st->phash)) {
    st->pend[st->npend] = tmpl;
    st->phash[st->npend++] = h;
    ok = 1;
  }
  gv_arena_free(scratch);
  return ok;
}

static void reset_counts(stream *st) {
  memset(st->counts, 0, LN_COUNT_CAP * sizeof *st->counts);
  st->ncounts = 0;
  for (size_t i = 0; i < st->cur->ntmpl; i++) {
    kcount *k = count_slot(st, st->cur->thash[i], 1);
    if (k) k->state = 1;
  }
}

/* The end of a window: a new parent if its templates would change. Not while an older
 * generation is still in use by batches in flight: then at the next batch written, so that at
 * most two are held. */
void window_end(stream *st) {
  gen *g = st->cur;
  if (st->live_gens > 1) {
    st->next_window = st->lines_done + 1;
    return;
  }
  size_t n = 0, cap = g->ntmpl + st->npend;
  const gv_node **t = malloc(cap * sizeof *t + 1);
  uint64_t *h = malloc(cap * sizeof *h + 1);
  if (t && h) {
    for (size_t i = 0; i < g->ntmpl; i++) {
      kcount *k = count_slot(st, g->thash[i], 0);
      if (k && k->count) { /* still in use */
        t[n] = g->tmpl[i];
        h[n++] = g->thash[i];
      }
    }
    size_t kept = n;
    for (size_t i = 0; i < st->npend; i++) {
      t[n] = st->pend[i];
      h[n++] = st->phash[i];
    }
    if (kept < g->ntmpl || st->npend) {
      gen *ng = gen_make(st, h, t, n);
      if (ng) {
        gen_release(st->cur);
        st->cur = ng;
        st->rebuilds++;
      }
    }
  }
  free((void *)t);
  free(h);
  /* a fresh staging arena, and fresh counts */
  gv_arena *ns = NULL;
  if (staging_new(st, &ns) == GV_OK) {
    gv_arena_free(st->staging);
    st->staging = ns;
  }
  st->npend = 0;
  reset_counts(st);
  if (st->window < LN_WINDOW_MAX) st->window *= 2;
  st->next_window = st->lines_done + st->window;
}
