/* SPDX-License-Identifier: MIT */
/* decode.c -- the binary wire format's decoder (docs/wire-format.md). The
 * encoder is encode.c.
 *
 * Decoding reads the records in order and rebuilds every value through the
 * public constructors, so all the usual validation and interning applies;
 * metadata records (keysets, schemas, ctypes) are kept pending until a value
 * record uses them. */
#include "wire.h"

#include <stdio.h>

static int w_is_value_tag(unsigned t) {
  return t >= W_NONE && t <= W_CUSTOM;
}

static const char *w_tag_name(unsigned t) {
  switch (t) {
  case W_NONE:
    return "None";
  case W_FALSE:
  case W_TRUE:
    return "bool";
  case W_INT:
    return "int";
  case W_FLOAT:
    return "float";
  case W_STR:
    return "str";
  case W_BYTES:
    return "bytes";
  case W_HANDLE:
    return "handle";
  case W_STAR:
    return "star";
  case W_LIST:
    return "list";
  case W_TUPLE:
    return "tuple";
  case W_DICT:
    return "dict";
  case W_ODICT:
    return "OrderedDict";
  case W_DDICT:
    return "defaultdict";
  case W_NAMEDTUPLE:
    return "namedtuple";
  case W_DEQUE:
    return "deque";
  case W_CUSTOM:
    return "custom";
  case W_KEYSET:
    return "keyset";
  case W_HKEYSET:
    return "host keyset";
  case W_SCHEMA:
    return "schema";
  case W_CTYPE:
    return "ctype";
  default:
    return "?";
  }
}

/* What the decoder keeps of a record: its tag (with D_USED once referred
 * to) and its node, for value records; for metadata records (few, but kept
 * until the end) an index into a table of d_slot. A big encoding is mostly
 * value records: nine bytes each. */
typedef struct d_slot {
  const gv_node *node; /* once materialized */
  const gv_node *name; /* schema, ctype: the type name */
  const gv_node *meta; /* ctype: explicit metadata or NULL */
  size_t pos;          /* keyset, schema: offset of the first key/field ref;
                          ctype: keyset record index + 1, or 0 */
  uint32_t n;          /* keyset: keys; schema: fields */
  size_t opos;         /* host keyset: offset of its order */
} d_slot;

typedef union d_rec {
  const gv_node *node; /* value records */
  size_t meta;         /* metadata records: their d_slot */
} d_rec;

#define D_USED 0x80u

typedef struct w_dec {
  gv_arena *a;
  gv_error *err;
  const unsigned char *p;
  size_t len, pos;
  d_rec *recs;
  uint8_t *tags; /* tag | D_USED */
  size_t nrecs, recs_cap, tags_cap;
  gv__vec metas; /* d_slot */
  gv__vec kids;  /* const gv_node * */
  gv__vec keys;  /* const gv_node * */
  gv__vec order; /* uint32_t: a host keyset's order */
} w_dec;

static unsigned d_tag(const w_dec *d, size_t i) {
  return d->tags[i] & ~D_USED;
}
/* The d_slot of metadata record i. */
static d_slot *d_sl(const w_dec *d, size_t i) {
  return &GV__VEC_AT(&d->metas, d_slot, d->recs[i].meta);
}

static gv_status d_fail(w_dec *d, gv_status s, size_t off, const char *fmt, ...) GV_PRINTF(4, 5);
static gv_status d_fail(w_dec *d, gv_status s, size_t off, const char *fmt, ...) {
  if (!d->err) return s;
  char buf[sizeof d->err->msg];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  gv__err(d->err, s, "at byte %zu: %s", off, buf);
  if (n >= (int)sizeof buf) gv__err_cut(d->err);
  d->err->offset = off;
  return s;
}

/* GV_ENOMEM at off, with why the arena's allocation failed. */
static gv_status d_oom(w_dec *d, size_t off) {
  gv_error e;
  gv__oom(d->a, &e);
  return d_fail(d, GV_ENOMEM, off, "%s", e.msg);
}

/* Minimal LEB128, at most 10 bytes, value < 2^64. */
static gv_status d_varint_slow(w_dec *d, size_t *pos, uint64_t *out) {
  size_t start = *pos;
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (*pos >= d->len) return d_fail(d, GV_EWIRE, start, "truncated varint");
    unsigned b = d->p[(*pos)++];
    if (shift == 63 && b > 1) return d_fail(d, GV_EWIRE, start, "varint overflows 64 bits");
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      if (b == 0 && shift > 0) return d_fail(d, GV_EWIRE, start, "overlong varint");
      *out = v;
      return GV_OK;
    }
  }
}

/* The same, without a call or a bounds check per byte where ten bytes are
 * left (a varint of nine bytes or fewer, minimal); the rest, and every error,
 * take d_varint_slow. */
static inline gv_status d_varint_at(w_dec *d, size_t *pos, uint64_t *out) {
  size_t at = *pos;
  if (d->len - at >= 10) {
    const unsigned char *q = d->p + at;
    uint64_t v = 0;
    for (unsigned i = 0; i < 9; i++) {
      unsigned b = q[i];
      v |= (uint64_t)(b & 0x7f) << (7 * i);
      if (!(b & 0x80)) {
        if (b == 0 && i > 0) break; /* overlong: the slow path says so */
        *out = v;
        *pos = at + i + 1;
        return GV_OK;
      }
    }
  }
  return d_varint_slow(d, pos, out);
}

static gv_status d_varint(w_dec *d, uint64_t *out) {
  return d_varint_at(d, &d->pos, out);
}

static size_t d_left(const w_dec *d) {
  return d->len - d->pos;
}

/* A back-reference from record cur to an earlier record; marks it used. */
static gv_status d_ref(w_dec *d, size_t cur, size_t *idx) {
  size_t off = d->pos;
  uint64_t v = 0;
  gv_status s = d_varint(d, &v);
  if (s != GV_OK) return s;
  if (v >= (uint64_t)cur)
    return d_fail(d, GV_EWIRE, off, "back-reference %llu from record %zu points before the first",
                  (unsigned long long)v, cur);
  *idx = cur - 1 - (size_t)v;
  d->tags[*idx] |= D_USED;
  return GV_OK;
}

static gv_status d_ref_value(w_dec *d, size_t cur, const gv_node **out) {
  size_t off = d->pos, idx = 0;
  gv_status s = d_ref(d, cur, &idx);
  if (s != GV_OK) return s;
  if (!w_is_value_tag(d_tag(d, idx)))
    return d_fail(d, GV_EWIRE, off, "reference to record %zu (a %s) where a value is expected", idx,
                  w_tag_name(d_tag(d, idx)));
  *out = d->recs[idx].node;
  return GV_OK;
}

static gv_status d_ref_tag(w_dec *d, size_t cur, unsigned tag, size_t *idx) {
  size_t off = d->pos;
  gv_status s = d_ref(d, cur, idx);
  if (s != GV_OK) return s;
  if (d_tag(d, *idx) != tag)
    return d_fail(d, GV_EWIRE, off, "reference to record %zu (a %s) where a %s is expected", *idx,
                  w_tag_name(d_tag(d, *idx)), w_tag_name(tag));
  return GV_OK;
}

/* d_ref_value, inlined for a valid reference (any other: d_ref_value says
 * what is wrong). */
static inline gv_status d_ref_value_fast(w_dec *d, size_t cur, const gv_node **out) {
  size_t at = d->pos;
  uint64_t r;
  if (d_varint_at(d, &at, &r) == GV_OK && r < (uint64_t)cur) {
    size_t idx = cur - 1 - (size_t)r;
    if (w_is_value_tag(d_tag(d, idx))) {
      d->pos = at;
      d->tags[idx] |= D_USED;
      *out = d->recs[idx].node;
      return GV_OK;
    }
  }
  return d_ref_value(d, cur, out);
}

/* A reference to a keyset record of either kind. */
static gv_status d_ref_keyset(w_dec *d, size_t cur, size_t *idx) {
  size_t off = d->pos;
  gv_status s = d_ref(d, cur, idx);
  if (s != GV_OK) return s;
  unsigned t = d_tag(d, *idx);
  if (t != W_KEYSET && t != W_HKEYSET)
    return d_fail(d, GV_EWIRE, off, "reference to record %zu (a %s) where a keyset is expected",
                  *idx, w_tag_name(t));
  return GV_OK;
}

/* The keyset node of host keyset record k with keys items (materialized once). */
static gv_status d_host_keyset(w_dec *d, size_t k, const gv_node *const *items, const gv_node **ks,
                               gv_error *e) {
  d_slot *sl = d_sl(d, k);
  if (sl->node) {
    *ks = sl->node;
    return GV_OK;
  }
  d->order.len = 0;
  if (gv__vec_reserve(d->a, &d->order, sl->n) != GV_OK) return gv__oom(d->a, e);
  size_t pos = sl->opos;
  for (size_t i = 0; i < sl->n; i++) {
    uint64_t v;
    gv_status s = d_varint_at(d, &pos, &v);
    if (s != GV_OK) return s;
    GV__VEC_AT(&d->order, uint32_t, i) = (uint32_t)v; /* < n, checked when read */
  }
  return gv_keyset_ordered(d->a, items, sl->n, (const uint32_t *)d->order.p, ks, e);
}

/* A count that claims n items of at least one byte each. */
static gv_status d_count(w_dec *d, const char *what, uint64_t *n) {
  size_t off = d->pos;
  gv_status s = d_varint(d, n);
  if (s != GV_OK) return s;
  if (*n > d_left(d))
    return d_fail(d, GV_EWIRE, off, "%llu %s claimed but only %zu bytes left",
                  (unsigned long long)*n, what, d_left(d));
  if (*n > UINT32_MAX)
    return d_fail(d, GV_EWIRE, off, "%llu %s: too many", (unsigned long long)*n, what);
  return GV_OK;
}

/* Reads n value refs of record cur into v (replacing its contents). */
static gv_status d_values(w_dec *d, size_t cur, size_t n, gv__vec *v) {
  v->len = 0;
  if (gv__vec_reserve(d->a, v, n) != GV_OK) return d_oom(d, d->pos);
  const gv_node **out = (const gv_node **)v->p;
  for (size_t i = 0; i < n; i++) {
    gv_status s = d_ref_value_fast(d, cur, &out[i]);
    if (s != GV_OK) return s;
  }
  v->len = n;
  return GV_OK;
}

/* The keys of keyset record k (or the fields of schema record k): from the
 * materialized node, else by re-reading its (already checked) refs. */
static gv_status d_meta_items(w_dec *d, size_t k, const gv_node *const **items) {
  d_slot *sl = d_sl(d, k);
  if (sl->node) {
    *items = GV__CONT(sl->node)->kids + (d_tag(d, k) == W_SCHEMA ? 1 : 0);
    return GV_OK;
  }
  d->keys.len = 0;
  if (gv__vec_reserve(d->a, &d->keys, sl->n) != GV_OK) return d_oom(d, d->pos);
  const gv_node **out = (const gv_node **)d->keys.p;
  size_t pos = sl->pos;
  for (size_t i = 0; i < sl->n; i++) {
    uint64_t v = 0; /* set by d_varint_at; gcc -O3 cannot see it */
    gv_status s = d_varint_at(d, &pos, &v);
    if (s != GV_OK) return s;
    out[i] = d->recs[k - 1 - (size_t)v].node;
  }
  d->keys.len = sl->n;
  *items = out;
  return GV_OK;
}

/* The values of a dict or namedtuple record, as many as its keyset or schema
 * record kidx has keys or fields (their count into *n, the values into
 * d->kids), then that record's keys or fields. */
static gv_status d_meta_values(w_dec *d, size_t cur, size_t kidx, uint64_t *n,
                               const gv_node *const **items) {
  gv_status s;
  *n = d_sl(d, kidx)->n;
  if (*n > d_left(d))
    return d_fail(d, GV_EWIRE, d->pos, "%llu values claimed but only %zu bytes left",
                  (unsigned long long)*n, d_left(d));
  if ((s = d_values(d, cur, (size_t)*n, &d->kids)) != GV_OK) return s;
  return d_meta_items(d, kidx, items);
}

/* A constructor's failure, tied to the record's offset. */
static gv_status d_ctor(w_dec *d, gv_status s, size_t off, size_t cur, unsigned tag,
                        const gv_error *e) {
  gv_status out = (s == GV_ENOMEM || s == GV_EDEPTH) ? s : GV_EWIRE;
  return d_fail(d, out, off, "record %zu (%s): %s", cur, w_tag_name(tag), e->msg);
}

static gv_status d_record(w_dec *d, size_t cur) {
  size_t off = d->pos;
  d->recs[cur].node = NULL;
  d->tags[cur] = 0;
  if (d->pos >= d->len) return d_fail(d, GV_EWIRE, off, "truncated: record %zu missing", cur);
  unsigned tag = d->p[d->pos++];
  d->tags[cur] = (uint8_t)tag; /* < D_USED: checked below */
  d_slot *sl = NULL;
  if (tag >= W_KEYSET && tag <= W_HKEYSET) {
    d_slot z;
    memset(&z, 0, sizeof z);
    d->recs[cur].meta = d->metas.len;
    if (gv__vec_push(d->a, &d->metas, &z) != GV_OK) return d_oom(d, off);
    sl = d_sl(d, cur);
  }
  gv_error e;
  e.msg[0] = '\0';
  gv_status s = GV_OK;
  const gv_node *out = NULL;
  uint64_t u, n;
  size_t idx = 0, kidx = 0;
  const gv_node *const *items;
  switch (tag) {
  case W_NONE:
    s = gv_none(d->a, &out, &e);
    break;
  case W_FALSE:
  case W_TRUE:
    s = gv_bool(d->a, tag == W_TRUE, &out, &e);
    break;
  case W_STAR:
    s = gv_star(d->a, &out, &e);
    break;
  case W_INT:
    if ((s = d_varint(d, &u)) != GV_OK) return s;
    s = gv_int(d->a, (int64_t)((u >> 1) ^ (~(u & 1) + 1)), &out, &e);
    break;
  case W_HANDLE:
    if ((s = d_varint(d, &u)) != GV_OK) return s;
    s = gv_handle(d->a, u, &out, &e);
    break;
  case W_FLOAT: {
    if (d_left(d) < 8) return d_fail(d, GV_EWIRE, d->pos, "truncated float");
    u = 0;
    for (int k = 0; k < 8; k++)
      u |= (uint64_t)d->p[d->pos + (size_t)k] << (8 * k);
    d->pos += 8;
    double f;
    memcpy(&f, &u, sizeof f);
    s = gv_float(d->a, f, &out, &e);
    break;
  }
  case W_STR:
  case W_BYTES: {
    size_t loff = d->pos;
    if ((s = d_varint(d, &u)) != GV_OK) return s;
    if (u > d_left(d))
      return d_fail(d, GV_EWIRE, loff, "%s length %llu exceeds the %zu bytes left", w_tag_name(tag),
                    (unsigned long long)u, d_left(d));
    const char *data = (const char *)d->p + d->pos;
    d->pos += (size_t)u;
    s = tag == W_STR ? gv_str(d->a, data, (size_t)u, &out, &e)
                     : gv_bytes(d->a, data, (size_t)u, &out, &e);
    break;
  }
  case W_LIST:
  case W_TUPLE:
  case W_DEQUE: {
    uint64_t ml = 0;
    if (tag == W_DEQUE) {
      size_t moff = d->pos;
      if ((s = d_varint(d, &ml)) != GV_OK) return s;
      if (ml > (uint64_t)INT64_MAX + 1u) /* maxlen + 1, 0 for None */
        return d_fail(d, GV_EWIRE, moff, "deque maxlen out of range");
    }
    if ((s = d_count(d, "children", &n)) != GV_OK) return s;
    if ((s = d_values(d, cur, (size_t)n, &d->kids)) != GV_OK) return s;
    const gv_node *const *k = (const gv_node *const *)d->kids.p;
    if (tag == W_LIST)
      s = gv_list(d->a, k, (size_t)n, &out, &e);
    else if (tag == W_TUPLE)
      s = gv_tuple(d->a, k, (size_t)n, &out, &e);
    else
      s = gv_deque(d->a, k, (size_t)n, ml ? (int64_t)(ml - 1) : -1, &out, &e);
    break;
  }
  case W_DICT:
  case W_ODICT:
  case W_DDICT: {
    const gv_node *factory = NULL;
    if (tag == W_DDICT && (s = d_ref_value(d, cur, &factory)) != GV_OK) return s;
    if ((s = d_ref_keyset(d, cur, &kidx)) != GV_OK) return s;
    if ((s = d_meta_values(d, cur, kidx, &n, &items)) != GV_OK) return s;
    const gv_node *const *v = (const gv_node *const *)d->kids.p;
    if (d_tag(d, kidx) == W_HKEYSET) {
      const gv_node *ks = NULL;
      if ((s = d_host_keyset(d, kidx, items, &ks, &e)) == GV_OK)
        s = gv_dict_with_keyset(d->a,
                                tag == W_DICT    ? GV_DICT
                                : tag == W_ODICT ? GV_ODICT
                                                 : GV_DDICT,
                                ks, factory, v, (size_t)n, &out, &e);
    } else if (tag == W_DICT)
      s = gv_dict(d->a, items, v, (size_t)n, &out, &e);
    else if (tag == W_ODICT)
      s = gv_odict(d->a, items, v, (size_t)n, &out, &e);
    else
      s = gv_ddict(d->a, factory, items, v, (size_t)n, &out, &e);
    if (s == GV_OK) d_sl(d, kidx)->node = gv_meta(out);
    break;
  }
  case W_NAMEDTUPLE: {
    if ((s = d_ref_tag(d, cur, W_SCHEMA, &kidx)) != GV_OK) return s;
    if ((s = d_meta_values(d, cur, kidx, &n, &items)) != GV_OK) return s;
    s = gv_namedtuple(d->a, d_sl(d, kidx)->name, items, (const gv_node *const *)d->kids.p,
                      (size_t)n, &out, &e);
    if (s == GV_OK) d_sl(d, kidx)->node = gv_meta(out);
    break;
  }
  case W_CUSTOM: {
    if ((s = d_ref_tag(d, cur, W_CTYPE, &idx)) != GV_OK) return s;
    size_t coff = d->pos;
    if ((s = d_count(d, "children", &n)) != GV_OK) return s;
    d_slot *ct = d_sl(d, idx);
    items = NULL;
    if (ct->pos) {
      kidx = ct->pos - 1;
      if (n != d_sl(d, kidx)->n)
        return d_fail(d, GV_EWIRE, coff, "custom node has %llu children but its ctype has %u keys",
                      (unsigned long long)n, (unsigned)d_sl(d, kidx)->n);
    }
    if ((s = d_values(d, cur, (size_t)n, &d->kids)) != GV_OK) return s;
    if (ct->pos && (s = d_meta_items(d, ct->pos - 1, &items)) != GV_OK) return s;
    static const gv_node *const no_keys[1] = {NULL};
    if (ct->pos && !items) items = no_keys; /* keyed with no keys: still keyed */
    s = gv_custom(d->a, ct->name, items, (const gv_node *const *)d->kids.p, (size_t)n, ct->meta,
                  &out, &e);
    if (s == GV_OK) {
      ct->node = gv_meta(out);
      if (ct->pos) d_sl(d, ct->pos - 1)->node = GV__CONT(ct->node)->kids[1];
    }
    break;
  }
  case W_KEYSET:
  case W_HKEYSET:
  case W_SCHEMA: {
    if (tag == W_SCHEMA && (s = d_ref_value(d, cur, &sl->name)) != GV_OK) return s;
    if ((s = d_count(d, tag == W_SCHEMA ? "fields" : "keys", &n)) != GV_OK) return s;
    sl->pos = d->pos;
    sl->n = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
      const gv_node *k;
      if ((s = d_ref_value_fast(d, cur, &k)) != GV_OK) return s;
    }
    if (tag == W_HKEYSET) {
      sl->opos = d->pos;
      for (size_t i = 0; i < n; i++) {
        size_t ooff = d->pos;
        if ((s = d_varint(d, &u)) != GV_OK) return s;
        if (u >= n)
          return d_fail(d, GV_EWIRE, ooff, "host keyset order entry %llu out of range",
                        (unsigned long long)u);
      }
    }
    return GV_OK;
  }
  case W_CTYPE: {
    if (d->pos >= d->len) return d_fail(d, GV_EWIRE, d->pos, "truncated ctype");
    unsigned fl = d->p[d->pos];
    if (fl > 3) return d_fail(d, GV_EWIRE, d->pos, "bad ctype flags 0x%02x", fl);
    d->pos++;
    if ((s = d_ref_value(d, cur, &sl->name)) != GV_OK) return s;
    if (fl & 1) {
      if ((s = d_ref_tag(d, cur, W_KEYSET, &kidx)) != GV_OK) return s;
      sl->pos = kidx + 1;
    }
    if ((fl & 2) && (s = d_ref_value(d, cur, &sl->meta)) != GV_OK) return s;
    return GV_OK;
  }
  default:
    return d_fail(d, GV_EWIRE, off, "unknown record tag 0x%02x", tag);
  }
  if (s != GV_OK) return d_ctor(d, s, off, cur, tag, &e);
  d->recs[cur].node = out;
  return GV_OK;
}

static gv_status d_run(w_dec *d, const gv_node **out) {
  static const unsigned char magic[3] = {'G', 'R', 'V'};
  for (size_t i = 0; i < 3; i++) {
    if (i >= d->len) return d_fail(d, GV_EWIRE, i, "truncated header");
    if (d->p[i] != magic[i]) return d_fail(d, GV_EWIRE, i, "bad magic (not a grove encoding)");
  }
  if (d->len < 4) return d_fail(d, GV_EWIRE, 3, "truncated header");
  if (d->p[3] != GV__WIRE_VERSION)
    return d_fail(d, GV_EWIRE, 3, "unsupported format version %u", (unsigned)d->p[3]);
  d->pos = 4;
  uint64_t nrec;
  gv_status s = d_count(d, "records", &nrec);
  if (s != GV_OK) return s;
  if (nrec == 0) return d_fail(d, GV_EWIRE, 4, "no records");
  /* grow the record table with the input actually read, not with the claim */
  for (size_t i = 0; i < nrec; i++) {
    if (i == d->recs_cap) {
      /* a canonical encoding has two bytes or more per record (but for
       * None, True, False and *): start there */
      size_t ncap = d->recs_cap ? d->recs_cap * 2 : d->len / 2 + 256;
      if (ncap > nrec) ncap = (size_t)nrec;
      d_rec *nr = gv__raw_realloc(d->a, d->recs, d->recs_cap * sizeof *nr, ncap * sizeof *nr);
      if (!nr) return d_oom(d, d->pos);
      d->recs = nr;
      d->recs_cap = ncap;
    }
    if (i == d->tags_cap) {
      uint8_t *nt = gv__raw_realloc(d->a, d->tags, d->tags_cap, d->recs_cap);
      if (!nt) return d_oom(d, d->pos);
      d->tags = nt;
      d->tags_cap = d->recs_cap;
    }
    d->nrecs = i + 1;
    if ((s = d_record(d, i)) != GV_OK) return s;
  }
  if (d->pos != d->len)
    return d_fail(d, GV_EWIRE, d->pos, "%zu trailing bytes after the last record", d->len - d->pos);
  size_t last = (size_t)nrec - 1;
  if (!w_is_value_tag(d_tag(d, last)))
    return d_fail(d, GV_EWIRE, 4, "the root record %zu is a %s, not a value", last,
                  w_tag_name(d_tag(d, last)));
  for (size_t i = 0; i < last; i++)
    if (!(d->tags[i] & D_USED)) return d_fail(d, GV_EWIRE, 4, "record %zu is never referenced", i);
  *out = d->recs[last].node;
  return GV_OK;
}

gv_status gv_decode(gv_arena *a, const void *data, size_t len, const gv_node **out, gv_error *err) {
  if (!a) return gv__err(err, GV_EINVAL, "NULL arena");
  GV__WRITABLE(a);
  if (!out || (!data && len)) return gv__err(err, GV_EINVAL, "NULL argument");
  gv_mark m = gv_arena_mark(a);
  w_dec d;
  memset(&d, 0, sizeof d);
  d.a = a;
  d.err = err;
  d.p = data;
  d.len = len;
  gv__vec_init(&d.kids, sizeof(const gv_node *));
  gv__vec_init(&d.keys, sizeof(const gv_node *));
  gv__vec_init(&d.order, sizeof(uint32_t));
  gv__vec_init(&d.metas, sizeof(d_slot));
  const gv_node *res = NULL;
  gv_status s = d_run(&d, &res);
  gv__vec_free(a, &d.kids);
  gv__vec_free(a, &d.keys);
  gv__vec_free(a, &d.order);
  gv__raw_free(a, d.recs, d.recs_cap * sizeof *d.recs);
  gv__raw_free(a, d.tags, d.tags_cap);
  gv__vec_free(a, &d.metas);
  if (s != GV_OK) {
    gv__rollback(a, &m);
    return s;
  }
  *out = res;
  return GV_OK;
}
