/* SPDX-License-Identifier: MIT */
/*
 * engine-jansson.c -- jansson's side: the builder, the leaves in sorted-key order
 * (an explicit stack; scratch kept across calls, like grove's caller array) and
 * the operations.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* --- jansson builder (NULL on failure) --- */
json_t *j_build(const workload *w) {
  json_t *r = NULL;
  bool ok = true;
#define JSET(o, k, v) ok = ok && json_object_set_new((o), (k), (v)) == 0
#define JAPP(arr, v) ok = ok && json_array_append_new((arr), (v)) == 0
  switch (w->kind) {
  case WK1: {
    json_t *a = json_array(), *d = json_object(), *t = json_array();
    r = json_array();
    JAPP(a, json_integer(2));
    JAPP(a, json_integer(3));
    JSET(d, "b", json_integer(1));
    JSET(d, "a", a);
    JAPP(t, json_integer(4));
    JAPP(t, json_integer(5));
    JAPP(r, d);
    JAPP(r, t);
    JAPP(r, json_integer(6));
    break;
  }
  case WK2:
    r = json_object();
    for (size_t i = 0; i < 1000; i++)
      JSET(r, g_w2key[w->perm[i]], json_integer(w->perm[i]));
    break;
  case WK3:
    r = json_object();
    for (size_t l = 0; l < 100; l++) {
      json_t *layer = json_object(), *norm = json_object();
      for (size_t i = 0; i < 4; i++)
        JSET(norm, g_w3norm[i], json_real(3.0 + (double)i));
      JSET(layer, "kernel", json_real(1.0));
      JSET(layer, "bias", json_real(2.0));
      JSET(layer, "norm", norm);
      JSET(r, g_w3key[l], layer);
    }
    break;
  case WK4:
  case WK4X:
    r = json_integer(0);
    for (size_t d = 0; d < w->n && ok; d++) {
      json_t *a = json_array();
      JAPP(a, r);
      r = a;
    }
    break;
  case WK5:
  case WK5S:
    r = json_array();
    for (size_t i = 0; i < w->n && ok; i++) {
      json_t *d = json_object();
      const uint16_t *p = w->perm ? w->perm + i * 100 : NULL;
      for (size_t j = 0; j < 100; j++) {
        size_t jj = p ? p[j] : j;
        JSET(d, g_w5key[jj], json_integer((json_int_t)(i * 100 + jj)));
      }
      JAPP(r, d);
    }
    break;
  }
#undef JSET
#undef JAPP
  if (!ok || !r) {
    json_decref(r);
    return NULL;
  }
  return r;
}

typedef struct jpair {
  const char *k;
  json_t *v;
} jpair;

typedef struct jframe {
  json_t *v;
  size_t i, n, base;
} jframe;

static jpair *g_jpool;
static size_t g_jpool_cap;
static jframe *g_jstack;
static size_t g_jstack_cap;

static int jpair_cmp(const void *x, const void *y) {
  return strcmp(((const jpair *)x)->k, ((const jpair *)y)->k);
}

/* Leaves of t in sorted-key order into out (cap entries); returns the count. */
size_t j_sorted_leaves(json_t *t, json_t **out, size_t cap) {
  size_t nl = 0, sp = 0, top = 0;
  if (!json_is_object(t) && !json_is_array(t)) {
    if (cap) out[0] = t;
    return 1;
  }
  if (!g_jstack_cap) {
    g_jstack_cap = 64;
    g_jstack = xmalloc(g_jstack_cap * sizeof *g_jstack);
  }
  g_jstack[sp++] = (jframe){t, 0, SIZE_MAX, 0};
  while (sp) {
    jframe *f = &g_jstack[sp - 1];
    if (f->n == SIZE_MAX) { /* first visit */
      if (json_is_object(f->v)) {
        size_t n = json_object_size(f->v);
        if (top + n > g_jpool_cap) {
          g_jpool_cap = (top + n) * 2;
          g_jpool = xrealloc(g_jpool, g_jpool_cap * sizeof *g_jpool);
        }
        const char *key;
        json_t *val;
        size_t k = 0;
        json_object_foreach(f->v, key, val) {
          g_jpool[top + k].k = key;
          g_jpool[top + k].v = val;
          k++;
        }
        qsort(g_jpool + top, n, sizeof *g_jpool, jpair_cmp);
        f->base = top;
        f->n = n;
        top += n;
      } else {
        f->n = json_array_size(f->v);
        f->base = SIZE_MAX;
      }
    }
    if (f->i < f->n) {
      json_t *c = f->base != SIZE_MAX ? g_jpool[f->base + f->i].v : json_array_get(f->v, f->i);
      f->i++;
      if (json_is_object(c) || json_is_array(c)) {
        if (sp == g_jstack_cap) {
          g_jstack_cap *= 2;
          g_jstack = xrealloc(g_jstack, g_jstack_cap * sizeof *g_jstack);
        }
        g_jstack[sp++] = (jframe){c, 0, SIZE_MAX, 0};
      } else {
        if (nl < cap) out[nl] = c;
        nl++;
      }
    } else {
      if (f->base != SIZE_MAX) top = f->base;
      sp--;
    }
  }
  return nl;
}

/* --- the operations --- */
json_t **g_jleaves; /* flatten's output, sized by run_workload */
int j_op_build(workload *w, rep *r) {
  r->jres = j_build(w);
  PEER_NULL(r->jres, "jansson build");
  return 0;
}
int j_op_parse(workload *w, rep *r) {
  json_error_t e;
  r->jres = json_loadb(w->text.p, w->text.n, 0, &e);
  if (!r->jres) {
    snprintf(r->msg, sizeof r->msg, "json_loadb: %s", e.text);
    return -1;
  }
  return 0;
}
int j_op_flatten(workload *w, rep *r) {
  size_t n = j_sorted_leaves(w->jt, g_jleaves, (size_t)w->leaves);
  g_sink = n;
  if (n != w->leaves) {
    snprintf(r->msg, sizeof r->msg, "jansson leaves %zu", n);
    return -1;
  }
  return 0;
}
/* json_dumps(w->jt, flags): the text made and freed (sorted dump and dump) */
static int j_dumps(workload *w, rep *r, size_t flags) {
  char *s = json_dumps(w->jt, flags);
  PEER_NULL(s, "json_dumps");
  g_sink = (size_t)s[0];
  free(s);
  return 0;
}
int j_op_sorted_dump(workload *w, rep *r) {
  return j_dumps(w, r, JSON_SORT_KEYS);
}
int j_op_equal(workload *w, rep *r) {
  if (!json_equal(w->jt, w->jt2)) {
    snprintf(r->msg, sizeof r->msg, "json_equal: copies differ");
    return -1;
  }
  return 0;
}
int j_op_dump(workload *w, rep *r) {
  return j_dumps(w, r, JSON_ENCODE_ANY);
}
int j_op_copy(workload *w, rep *r) {
  r->jres = json_deep_copy(w->jt);
  PEER_NULL(r->jres, "json_deep_copy");
  return 0;
}

void j_free_scratch(void) {
  free(g_jleaves);
  free(g_jpool);
  free(g_jstack);
}
