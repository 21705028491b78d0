/* SPDX-License-Identifier: MIT */
/* output.c -- what the tool writes. Results go to standard output, or are kept in the cli's
 * buffer: under --json and -o (written at the end, so a failing run leaves no half document and
 * no half file behind) and in a --lines worker (the stream writes them in input order). Error
 * lines go to standard error, or are kept for a --lines worker. report() turns a failed
 * gv_status into its message and exit code. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes *p (*cap elements of elem bytes) hold need elements, doubling; 0 when out of memory
 * (*p is then as it was). */
int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 1;
  size_t ncap = *cap ? *cap : 16;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2 / elem) return 0;
    ncap *= 2;
  }
  void *np = realloc(*p, ncap * elem);
  if (!np) return 0;
  *p = np;
  *cap = ncap;
  return 1;
}

/* An error line (or part of one) for stderr, or kept under capture. */
void errf(cli *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!c || !c->capture) {
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    return;
  }
  char tmp[1024];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t len = (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1;
  if (!grow((void **)&c->ebuf, &c->ecap, c->elen + len + 1, 1)) return;
  memcpy(c->ebuf + c->elen, tmp, len);
  c->elen += len;
  c->ebuf[c->elen] = '\0';
}

void put(cli *c, const char *data, size_t len) {
  if (len == 0) return;
  c->out_bytes += len;
  if (c->buffered) {
    if (c->buf_oom) return;
    if (len > SIZE_MAX - c->len || !grow((void **)&c->buf, &c->cap, c->len + len, 1)) {
      c->buf_oom = 1;
      return;
    }
    memcpy(c->buf + c->len, data, len);
    c->len += len;
    return;
  }
  if (fwrite(data, 1, len, stdout) != len) c->io->write_failed = 1;
}

void put_s(cli *c, const char *s) {
  put(c, s, strlen(s));
}

gv_status w_out(void *ctx, const char *data, size_t len) {
  cli *c = ctx;
  put(c, data, len);
  return (c->io->write_failed || c->buf_oom) ? GV_EINVAL : GV_OK;
}

/* s as a JSON string; invalid UTF-8 bytes (a message cut short) become U+FFFD. */
void put_json_string(cli *c, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  put_s(c, "\"");
  while (*p) {
    unsigned ch = *p;
    char esc[8];
    if (ch == '"' || ch == '\\') {
      esc[0] = '\\', esc[1] = (char)ch, esc[2] = 0;
      put_s(c, esc);
      p++;
    } else if (ch < 0x20) {
      snprintf(esc, sizeof esc, "\\u%04x", ch);
      put_s(c, esc);
      p++;
    } else if (ch < 0x80) {
      put(c, (const char *)p, 1);
      p++;
    } else {
      size_t n = ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc2 ? 2 : 0;
      size_t k = 1;
      while (n && k < n && (p[k] & 0xc0) == 0x80)
        k++;
      if (n && k == n) {
        put(c, (const char *)p, n);
        p += n;
      } else {
        put_s(c, "\\ufffd");
        p++;
      }
    }
  }
  put_s(c, "\"");
}

/* Reports a failed status; returns the exit code. what names the step. */
int report(cli *c, gv_status s, const gv_error *e, const char *what) {
  const char *msg = (e && e->msg[0]) ? e->msg : gv_status_name(s);
  if (c->io->write_failed) {
    errf(c, "grove: error: cannot write output\n");
    return 2;
  }
  if (c->buf_oom) {
    errf(c, "grove: error: out of memory (output)\n");
    return 2;
  }
  if (s == GV_EUSER && c->fnmsg[0]) {
    errf(c, "grove: error: %s\n", c->fnmsg);
    return 2;
  }
  if (s == GV_ENOMEM) {
    errf(c, "grove: error: %s%sout of memory budget\n", what ? what : "", what ? ": " : "");
    return 2;
  }
  if (s == GV_EMISMATCH || s == GV_ECOUNT) {
    errf(c, "grove: %s\n", msg);
    return 1;
  }
  errf(c, "grove: error: %s%s", what ? what : "", what ? ": " : "");
  if (s == GV_EPARSE && e && e->line && !strstr(msg, "line "))
    errf(c, "line %zu, column %zu: ", e->line, e->column);
  errf(c, "%s%s\n", msg, s == GV_ERANGE && strstr(msg, "max_output") ? " (see --max-output)" : "");
  return 2;
}

/* Prints a tree (JSON under --json); no newline. */
gv_status print_node(cli *c, const gv_node *n, gv_error *e) {
  return c->json ? gv_print_json(c->a, n, w_out, c, e) : gv_print(c->a, n, w_out, c, e);
}

int oom(void) {
  fprintf(stderr, "grove: error: out of memory\n");
  return 2;
}
