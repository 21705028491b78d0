/* SPDX-License-Identifier: MIT */
/* output.c -- what the tool writes. Results go to standard output, or are kept in the cli's
 * buffer: under --json and -o (written at the end, so a failing run leaves no half document and
 * no half file behind) and in a --lines worker (the stream writes them in input order). Error
 * lines go to standard error, or are kept for a --lines worker. report() turns a failed
 * gv_status into its message and exit code. */
#include "cli.h"

#include <inttypes.h>
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

/* text[0..n) made safe for a terminal into out (at most cap bytes, NUL-terminated): valid UTF-8
 * is kept; C0 and C1 control characters, DEL and bytes that are not UTF-8 become \xNN; a newline is
 * kept only as the last byte. Returns the length written. */
size_t escape_text(const char *text, size_t n, char *out, size_t cap) {
  const unsigned char *p = (const unsigned char *)text;
  size_t o = 0;
  for (size_t i = 0; i < n && o + 5 < cap;) {
    unsigned ch = p[i];
    size_t k = 1; /* the bytes of a valid character starting at i */
    if (ch >= 0x80) {
      size_t want = ch >= 0xf5 ? 0 : ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc2 ? 2 : 0;
      k = 1;
      while (want && k < want && i + k < n && (p[i + k] & 0xc0) == 0x80)
        k++;
      if (!want || k != want)
        k = 0;
      else if (want == 3 && ((ch == 0xe0 && p[i + 1] < 0xa0) || (ch == 0xed && p[i + 1] >= 0xa0)))
        k = 0; /* overlong, or a surrogate */
      else if (want == 4 && ((ch == 0xf0 && p[i + 1] < 0x90) || (ch == 0xf4 && p[i + 1] >= 0x90)))
        k = 0;
      else if (want == 2 && ch == 0xc2 && p[i + 1] < 0xa0)
        k = 0; /* a C1 control character, U+0080..U+009F */
    } else if (ch < 0x20 || ch == 0x7f) {
      k = (ch == '\n' && i + 1 == n) ? 1 : 0;
    }
    if (k) {
      memcpy(out + o, p + i, k);
      o += k;
      i += k;
    } else {
      o += (size_t)snprintf(out + o, cap - o, "\\x%02x", ch);
      i++;
    }
  }
  out[o] = '\0';
  return o;
}

/* An error line (or part of one) for stderr, or kept under capture; escaped (escape_text). */
void errf(cli *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[1024], safe[4 * sizeof tmp + 8];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t len = (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1;
  size_t flen = strlen(fmt);
  if ((size_t)n >= sizeof tmp && flen && fmt[flen - 1] == '\n') tmp[len - 1] = '\n'; /* cut */
  len = escape_text(tmp, len, safe, sizeof safe);
  if (!c || !c->capture) {
    fwrite(safe, 1, len, stderr);
    return;
  }
  if (!grow((void **)&c->ebuf, &c->ecap, c->elen + len + 1, 1)) return;
  memcpy(c->ebuf + c->elen, safe, len);
  c->elen += len;
  c->ebuf[c->elen] = '\0';
}

void put(cli *c, const char *data, size_t len) {
  if (len == 0) return;
  c->out_bytes += len;
  if (c->dry) return; /* only measured */
  if (c->buffered) {
    if (c->buf_oom) return;
    if (c->out_limit && (len > c->out_limit || c->len > c->out_limit - len)) {
      c->buf_oom = c->out_over = 1; /* over the line's budget (--lines) */
      return;
    }
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

/* The one wording of a refused output. */
void too_large(cli *c) {
  errf(c, "grove: error: output too large: more than --max-output %" PRIu64 "\n", c->max_output);
}

/* The one wording of a failed allocation. The library's message (e, when there is one) tells
 * the budget ("out of memory budget (max_bytes N)") from a failed allocation ("out of memory
 * (allocation of N bytes failed)"): the budget is told in the tool's terms, --max-bytes (or its
 * default); a failed allocation as the library words it. Without a message: the budget when one
 * is set, else "out of memory". */
void out_of_memory(cli *c, const char *what, const gv_error *e) {
  const char *lib = e ? strstr(e->msg, "out of memory (") : NULL;
  if (lib && !strstr(e->msg, "out of memory budget"))
    errf(c, "grove: error: %s%s%s\n", what ? what : "", what ? ": " : "", lib);
  else if (c && c->max_bytes)
    errf(c, "grove: error: %s%sout of memory budget (--max-bytes %zu)\n", what ? what : "",
         what ? ": " : "", c->max_bytes);
  else
    errf(c, "grove: error: %s%sout of memory\n", what ? what : "", what ? ": " : "");
}

/* Reports a failed status; returns the exit code. what names the step. */
int report(cli *c, gv_status s, const gv_error *e, const char *what) {
  const char *msg = (e && e->msg[0]) ? e->msg : gv_status_name(s);
  if (c->io->write_failed) {
    errf(c, "grove: error: cannot write output\n");
    return 2;
  }
  if (c->buf_oom) {
    if (c->out_over)
      out_of_memory(c, "output", NULL);
    else
      errf(c, "grove: error: out of memory (output)\n");
    return 2;
  }
  if (s == GV_EUSER && c->fnmsg[0]) {
    errf(c, "grove: error: %s\n", c->fnmsg);
    return 2;
  }
  if (s == GV_ENOMEM) {
    out_of_memory(c, what, e);
    return 2;
  }
  if (s == GV_ERANGE && strstr(msg, "output too large")) {
    too_large(c);
    return 2;
  }
  if (s == GV_EMISMATCH || s == GV_ECOUNT) { /* a negative answer; under --lines a failed line */
    errf(c, c->capture ? "grove: error: %s\n" : "grove: %s\n", msg);
    return 1;
  }
  errf(c, "grove: error: %s%s", what ? what : "", what ? ": " : "");
  if (s == GV_EPARSE && e && e->line && strncmp(msg, "line ", 5) != 0)
    errf(c, "line %zu, column %zu: ", e->line, e->column);
  errf(c, "%s\n", msg);
  return 2;
}

/* Prints a tree (JSON under --json); no newline. */
gv_status print_node(cli *c, const gv_node *n, gv_error *e) {
  return c->json ? gv_print_json(c->a, n, w_out, c, e) : gv_print(c->a, n, w_out, c, e);
}

int oom(void) {
  errf(NULL, "grove: error: out of memory\n");
  return 2;
}
