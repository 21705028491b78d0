/* SPDX-License-Identifier: MIT */
/* util.c -- grove-bench's floor: failures, allocation, the text buffer. */
#include "bench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int g_exit = 0; /* becomes 1 on any failure; the run goes on */

void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("grove-bench: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  g_exit = 1;
}

void die(const char *what) {
  fprintf(stderr, "grove-bench: fatal: %s\n", what);
  exit(2);
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) die("out of memory");
  return q;
}

void sb_put(sbuf *b, const char *s, size_t len) {
  if (b->n + len + 1 > b->cap) {
    size_t c = b->cap ? b->cap : 256;
    while (c < b->n + len + 1)
      c *= 2;
    b->p = xrealloc(b->p, c);
    b->cap = c;
  }
  memcpy(b->p + b->n, s, len);
  b->n += len;
  b->p[b->n] = '\0';
}

void sb_puts(sbuf *b, const char *s) {
  sb_put(b, s, strlen(s));
}

void sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (k < 0) die("vsnprintf");
  sb_put(b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}

/* JSON string escaping for the results file */
void sb_json_str(sbuf *b, const char *s) {
  sb_puts(b, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      sb_put(b, e, 2);
    } else if (c < 0x20) {
      sb_printf(b, "\\u%04x", c);
    } else {
      sb_put(b, (const char *)&c, 1);
    }
  }
  sb_puts(b, "\"");
}

volatile size_t g_sink; /* defeats dead-code elimination */
