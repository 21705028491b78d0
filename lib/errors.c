/* SPDX-License-Identifier: MIT */
/* errors.c -- status names and error messages (their text of keys and paths: repr.c). */
#include "internal.h"

#include <stdio.h>

const char *gv_status_name(gv_status s) {
  switch (s) {
  case GV_OK:
    return "GV_OK";
  case GV_ENOMEM:
    return "GV_ENOMEM";
  case GV_EINVAL:
    return "GV_EINVAL";
  case GV_EPARSE:
    return "GV_EPARSE";
  case GV_EDEPTH:
    return "GV_EDEPTH";
  case GV_ERANGE:
    return "GV_ERANGE";
  case GV_EKEY:
    return "GV_EKEY";
  case GV_EMISMATCH:
    return "GV_EMISMATCH";
  case GV_ECOUNT:
    return "GV_ECOUNT";
  case GV_EWIRE:
    return "GV_EWIRE";
  default:
    return s >= GV_EUSER ? "GV_EUSER" : "GV_E?";
  }
}

gv_status gv__verr(gv_error *err, gv_status s, const char *fmt, va_list ap) {
  if (err) {
    err->status = s;
    err->line = err->column = err->offset = 0;
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    if (n >= (int)sizeof err->msg) memcpy(err->msg + sizeof err->msg - 4, "...", 4);
  }
  return s;
}

gv_status gv__err(gv_error *err, gv_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gv__verr(err, s, fmt, ap);
  va_end(ap);
  return s;
}

gv_status gv__oom_bytes(gv_error *err, size_t bytes) {
  if (!bytes) return gv__err(err, GV_ENOMEM, "out of memory (a size past what can be allocated)");
  return gv__err(err, GV_ENOMEM, "out of memory (allocation of %zu bytes failed)", bytes);
}

void gv__err_cut(gv_error *err) {
  if (!err) return;
  size_t len = strlen(err->msg);
  if (len + 3 >= sizeof err->msg) len = sizeof err->msg - 4;
  memcpy(err->msg + len, "...", 4);
}

gv_status gv__err_at(gv_error *err, gv_status s, gv__path_writer path, const void *ctx,
                     const char *msg, int msg_cut) {
  if (!err) return s;
  err->status = s;
  err->line = err->column = err->offset = 0;
  err->msg[0] = '\0';
  gv__sbuf b = {err->msg, sizeof err->msg, 0, 0};
  if (path) {
    char pb[GV__PATH_TEXT_MAX + 1];
    gv__sbuf p = {pb, sizeof pb, 0, 0};
    pb[0] = '\0';
    path(&p, ctx);
    size_t plen = p.len < sizeof pb ? p.len : sizeof pb - 1; /* always; says so to gcc -O3 */
    gv__sbuf_puts(&b, "at ");
    if (p.truncated) {
      gv__sbuf_put(&b, pb, plen > 3 ? plen - 3 : 0);
      gv__sbuf_puts(&b, "...)");
    } else {
      gv__sbuf_put(&b, pb, plen);
    }
    gv__sbuf_puts(&b, ": ");
  }
  gv__sbuf_puts(&b, msg);
  if (b.truncated || msg_cut) gv__err_cut(err);
  return s;
}

gv_status gv__tree_arg(const gv_arena *a, const gv_node *t, gv_error *err) {
  if (!a) return gv__err(err, GV_EINVAL, "NULL arena");
  if (!t) return gv__err(err, GV_EINVAL, "NULL tree");
  if (!gv__is_value(t))
    return gv__err(err, GV_EINVAL, "the tree is not a value node (a %s)", gv_type_name(t, NULL));
  return GV_OK;
}
