/* SPDX-License-Identifier: MIT */
/*
 * engine-cjson.c -- cJSON's side: the builder, the leaves in sorted-key order and
 * sorting a copy by key (explicit stacks; scratch kept across calls, like grove's
 * caller array), and the operations.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* --- cJSON builder (NULL on failure) ---
 * j_build's recipe (engine-jansson.c) call for call in cJSON's API. The two stay
 * apart on purpose: each peer's build row times what a user of that library
 * writes, with no indirect call per node and no macro between the reader and
 * the library's calls. */
cJSON *c_build(const workload *w) {
  cJSON *r = NULL;
  bool ok = true;
#define CSET(o, k, v) ok = ok && cJSON_AddItemToObject((o), (k), (v))
#define CAPP(arr, v) ok = ok && cJSON_AddItemToArray((arr), (v))
  switch (w->kind) {
  case WK1: {
    cJSON *a = cJSON_CreateArray(), *d = cJSON_CreateObject(), *t = cJSON_CreateArray();
    r = cJSON_CreateArray();
    CAPP(a, cJSON_CreateNumber(2));
    CAPP(a, cJSON_CreateNumber(3));
    CSET(d, "b", cJSON_CreateNumber(1));
    CSET(d, "a", a);
    CAPP(t, cJSON_CreateNumber(4));
    CAPP(t, cJSON_CreateNumber(5));
    CAPP(r, d);
    CAPP(r, t);
    CAPP(r, cJSON_CreateNumber(6));
    break;
  }
  case WK2:
    r = cJSON_CreateObject();
    for (size_t i = 0; i < 1000; i++)
      CSET(r, g_w2key[w->perm[i]], cJSON_CreateNumber(w->perm[i]));
    break;
  case WK3:
    r = cJSON_CreateObject();
    for (size_t l = 0; l < 100; l++) {
      cJSON *layer = cJSON_CreateObject(), *norm = cJSON_CreateObject();
      for (size_t i = 0; i < 4; i++)
        CSET(norm, g_w3norm[i], cJSON_CreateNumber(3.0 + (double)i));
      CSET(layer, "kernel", cJSON_CreateNumber(1.0));
      CSET(layer, "bias", cJSON_CreateNumber(2.0));
      CSET(layer, "norm", norm);
      CSET(r, g_w3key[l], layer);
    }
    break;
  case WK4:
  case WK4X:
    r = cJSON_CreateNumber(0);
    for (size_t d = 0; d < w->n && ok; d++) {
      cJSON *a = cJSON_CreateArray();
      CAPP(a, r);
      r = a;
    }
    break;
  case WK5:
  case WK5S:
    r = cJSON_CreateArray();
    for (size_t i = 0; i < w->n && ok; i++) {
      cJSON *d = cJSON_CreateObject();
      const uint16_t *p = w->perm ? w->perm + i * 100 : NULL;
      for (size_t j = 0; j < 100; j++) {
        size_t jj = p ? p[j] : j;
        CSET(d, g_w5key[jj], cJSON_CreateNumber((double)(i * 100 + jj)));
      }
      CAPP(r, d);
    }
    break;
  }
#undef CSET
#undef CAPP
  if (!ok || !r) {
    cJSON_Delete(r);
    return NULL;
  }
  return r;
}

typedef struct cframe {
  cJSON *v;
  cJSON *next; /* arrays: next child */
  size_t i, n, base;
} cframe;

static cJSON **g_cpool;
static size_t g_cpool_cap;
static cframe *g_cstack;
static size_t g_cstack_cap;

static int cptr_cmp(const void *x, const void *y) {
  return strcmp((*(cJSON *const *)x)->string, (*(cJSON *const *)y)->string);
}

static void cpool_need(size_t n) {
  if (n > g_cpool_cap) {
    g_cpool_cap = n * 2;
    g_cpool = xrealloc(g_cpool, g_cpool_cap * sizeof *g_cpool);
  }
}

static void cstack_push(size_t *sp, cJSON *v) {
  if (*sp == g_cstack_cap) {
    g_cstack_cap = g_cstack_cap ? g_cstack_cap * 2 : 64;
    g_cstack = xrealloc(g_cstack, g_cstack_cap * sizeof *g_cstack);
  }
  g_cstack[(*sp)++] = (cframe){v, NULL, 0, SIZE_MAX, 0};
}

static bool c_container(const cJSON *c) {
  return cJSON_IsArray(c) || cJSON_IsObject(c);
}

size_t c_sorted_leaves(cJSON *t, cJSON **out, size_t cap) {
  size_t nl = 0, sp = 0, top = 0;
  if (!c_container(t)) {
    if (cap) out[0] = t;
    return 1;
  }
  cstack_push(&sp, t);
  while (sp) {
    cframe *f = &g_cstack[sp - 1];
    if (f->n == SIZE_MAX) {
      if (cJSON_IsObject(f->v)) {
        size_t n = 0;
        for (cJSON *c = f->v->child; c; c = c->next)
          n++;
        cpool_need(top + n);
        size_t k = 0;
        for (cJSON *c = f->v->child; c; c = c->next)
          g_cpool[top + k++] = c;
        qsort(g_cpool + top, n, sizeof *g_cpool, cptr_cmp);
        f->base = top;
        f->n = n;
        top += n;
      } else {
        f->base = SIZE_MAX;
        f->next = f->v->child;
        f->n = 0; /* arrays use next */
      }
    }
    cJSON *c = NULL;
    if (f->base != SIZE_MAX) {
      if (f->i < f->n) c = g_cpool[f->base + f->i++];
    } else if (f->next) {
      c = f->next;
      f->next = c->next;
    }
    if (c) {
      if (c_container(c)) {
        cstack_push(&sp, c); /* may move g_cstack; f is not used after this */
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

/* Sort the members of every object of t by key, in place. */
static void c_sort_all(cJSON *t) {
  size_t sp = 0;
  if (!c_container(t)) return;
  cstack_push(&sp, t);
  while (sp) {
    cJSON *v = g_cstack[--sp].v;
    if (cJSON_IsObject(v) && v->child) {
      size_t n = 0;
      for (cJSON *c = v->child; c; c = c->next)
        n++;
      cpool_need(n);
      size_t k = 0;
      for (cJSON *c = v->child; c; c = c->next)
        g_cpool[k++] = c;
      qsort(g_cpool, n, sizeof *g_cpool, cptr_cmp);
      for (size_t i = 0; i < n; i++) {
        g_cpool[i]->next = i + 1 < n ? g_cpool[i + 1] : NULL;
        g_cpool[i]->prev = i ? g_cpool[i - 1] : g_cpool[n - 1];
      }
      v->child = g_cpool[0];
    }
    for (cJSON *c = v->child; c; c = c->next)
      if (c_container(c)) cstack_push(&sp, c);
  }
}

/* --- the operations --- */
cJSON **g_cleaves; /* flatten's output, sized by run_workload */
int c_op_build(workload *w, rep *r) {
  r->cres = c_build(w);
  PEER_NULL(r->cres, "cJSON build");
  return 0;
}
int c_op_parse(workload *w, rep *r) {
  r->cres = cJSON_ParseWithLength(w->text.p, w->text.n);
  PEER_NULL(r->cres, "cJSON_ParseWithLength");
  return 0;
}
int c_op_flatten(workload *w, rep *r) {
  size_t n = c_sorted_leaves(w->ct, g_cleaves, (size_t)w->leaves);
  g_sink = n;
  if (n != w->leaves) {
    snprintf(r->msg, sizeof r->msg, "cJSON leaves %zu", n);
    return -1;
  }
  return 0;
}
int c_op_sorted_dump(workload *w, rep *r) {
  cJSON *copy = cJSON_Duplicate(w->ct, 1);
  PEER_NULL(copy, "cJSON_Duplicate");
  c_sort_all(copy);
  char *s = cJSON_PrintUnformatted(copy);
  cJSON_Delete(copy);
  PEER_NULL(s, "cJSON_PrintUnformatted");
  g_sink = (size_t)s[0];
  cJSON_free(s);
  return 0;
}
int c_op_equal(workload *w, rep *r) {
  if (!cJSON_Compare(w->ct, w->ct2, 1)) {
    snprintf(r->msg, sizeof r->msg, "cJSON_Compare: copies differ");
    return -1;
  }
  return 0;
}
int c_op_dump(workload *w, rep *r) {
  char *s = cJSON_PrintUnformatted(w->ct);
  PEER_NULL(s, "cJSON_PrintUnformatted");
  g_sink = (size_t)s[0];
  cJSON_free(s);
  return 0;
}
int c_op_copy(workload *w, rep *r) {
  r->cres = cJSON_Duplicate(w->ct, 1);
  PEER_NULL(r->cres, "cJSON_Duplicate");
  return 0;
}

void c_free_scratch(void) {
  free(g_cleaves);
  free(g_cpool);
  free(g_cstack);
}
