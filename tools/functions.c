/* SPDX-License-Identifier: MIT */
/* functions.c -- the built-in functions: the FN of map, map-up-to and map-shape (id, add, type,
 * str, none) and the rules of traverse (--replace, --to-none), which go by a node's Python type
 * name. */
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const FN_NAMES[] = {"id", "add", "type", "str", "none"};

/* The Python type name of a node (leaves by kind, containers by gv_type_name). */
static const char *type_name(const gv_node *n, size_t *len) {
  const char *s = NULL;
  switch (gv_kind(n)) {
  case GV_NONE:
    s = "NoneType";
    break;
  case GV_BOOL:
    s = "bool";
    break;
  case GV_INT:
    s = "int";
    break;
  case GV_FLOAT:
    s = "float";
    break;
  case GV_STR:
    s = "str";
    break;
  case GV_BYTES:
    s = "bytes";
    break;
  case GV_HANDLE:
    s = "handle";
    break;
  case GV_STAR:
    s = "star";
    break;
  default: {
    size_t l = 0;
    const char *t = gv_type_name(n, &l);
    if (t) {
      *len = l;
      return t;
    }
    s = "?";
  }
  }
  *len = strlen(s);
  return s;
}

/* ---------------------------------------------------------------------------
 * Built-in functions for map, map-up-to, map-shape
 * ------------------------------------------------------------------------- */

int parse_fn(const char *name) {
  for (int i = 0; i < (int)(sizeof FN_NAMES / sizeof FN_NAMES[0]); i++)
    if (strcmp(name, FN_NAMES[i]) == 0) return i;
  return -1;
}

static gv_status fn_fail_value(cli *c, gv_arena *a, const char *pre, const gv_node *v) {
  const char *repr = NULL;
  size_t rlen = 0, tlen = 0;
  const char *t = type_name(v, &tlen);
  gv_status s = gv_print_str(a, v, false, &repr, &rlen, NULL);
  if (s != GV_OK) repr = "?", rlen = 1;
  if (rlen > 200) rlen = 200;
  snprintf(c->fnmsg, sizeof c->fnmsg, "%s%.*s (of type %.*s)", pre, (int)rlen, repr, (int)tlen, t);
  return GV_EUSER;
}

static gv_status fn_add(cli *c, gv_arena *a, const gv_node *const *v, size_t n,
                        const gv_node **out) {
  int64_t acc = 0;
  double facc = 0.0;
  int isf = 0;
  for (size_t i = 0; i < n; i++) {
    gv_node_kind k = gv_kind(v[i]);
    if (k == GV_INT || k == GV_BOOL) {
      int64_t x = gv_get_int(v[i]);
      if (isf) {
        facc += (double)x;
      } else if ((x > 0 && acc > INT64_MAX - x) || (x < 0 && acc < INT64_MIN - x)) {
        snprintf(c->fnmsg, sizeof c->fnmsg,
                 "add: integer overflow: the sum leaves the 64-bit range");
        return GV_EUSER;
      } else {
        acc += x;
      }
    } else if (k == GV_FLOAT) {
      if (!isf) {
        facc = (double)acc;
        isf = 1;
      }
      facc += gv_get_float(v[i]);
    } else {
      return fn_fail_value(c, a, "add: not a number: ", v[i]);
    }
  }
  return isf ? gv_float(a, facc, out, NULL) : gv_int(a, acc, out, NULL);
}

gv_status map_fn(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                 const gv_node **out) {
  cli *c = ctx;
  if (n == 0 && c->fn != FN_ADD && c->fn != FN_NONE) {
    snprintf(c->fnmsg, sizeof c->fnmsg, "function called with no values");
    return GV_EUSER;
  }
  switch (c->fn) {
  case FN_ID:
    *out = values[0];
    return GV_OK;
  case FN_ADD:
    return fn_add(c, a, values, n, out);
  case FN_TYPE: {
    size_t len = 0;
    const char *t = type_name(values[0], &len);
    return gv_str(a, t, len, out, NULL);
  }
  case FN_STR: {
    const char *s = NULL;
    size_t len = 0;
    gv_status st = gv_print_str(a, values[0], false, &s, &len, NULL);
    if (st != GV_OK) return st;
    return gv_str(a, s, len, out, NULL);
  }
  default:
    return gv_none(a, out, NULL);
  }
}

/* ---------------------------------------------------------------------------
 * traverse rules
 * ------------------------------------------------------------------------- */

gv_status traverse_fn(void *ctx, gv_arena *a, const gv_node *node, gv_visit *action,
                      const gv_node **replacement) {
  cli *c = ctx;
  (void)a;
  size_t len = 0;
  const char *t = type_name(node, &len);
  *action = GV_VISIT_KEEP;
  for (size_t i = 0; i < c->nrules; i++) {
    const rule *r = &c->rules[i];
    if (r->kind_len == len && memcmp(r->kind, t, len) == 0) {
      if (r->node) {
        *action = GV_VISIT_REPLACE;
        *replacement = r->node;
      } else {
        *action = GV_VISIT_NONE;
      }
      break;
    }
  }
  return GV_OK;
}
