/* SPDX-License-Identifier: MIT */
/* test_wire.c -- gv_encode / gv_decode / gv_fingerprint. */
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

typedef struct buf {
  unsigned char *p;
  size_t len, cap;
} buf;

static gv_status buf_sink(void *ctx, const char *data, size_t len) {
  buf *b = ctx;
  if (b->len + len > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + len)
      cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) return GV_ENOMEM;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, data, len);
  b->len += len;
  return GV_OK;
}

static buf enc(gv_arena *a, const gv_node *n) {
  buf b = {NULL, 0, 0};
  gv_error e;
  gv_status s = gv_encode(a, n, buf_sink, &b, &e);
  cr_assert_eq(s, GV_OK, "encode: %s", e.msg);
  return b;
}

static const gv_node *dec(gv_arena *a, const buf *b) {
  const gv_node *n = NULL;
  gv_error e;
  gv_status s = gv_decode(a, b->p, b->len, &n, &e);
  cr_assert_eq(s, GV_OK, "decode: %s", e.msg);
  cr_assert_not_null(n);
  return n;
}

static void hex(const unsigned char *p, size_t n, char *out) {
  for (size_t i = 0; i < n; i++)
    sprintf(out + 2 * i, "%02x", p[i]);
  out[2 * n] = '\0';
}

/* Expects a decode failure with the given status, offset and message part, and
 * checks that the arena is unchanged. */
static void expect_bad(const void *data, size_t len, gv_status st, size_t offset,
                       const char *part) {
  gv_arena *a = t_arena();
  const gv_node *x;
  cr_assert_eq(gv_int(a, 5, &x, NULL), GV_OK);
  t_snapshot before = t_snap(a);
  const gv_node *out = (const gv_node *)(uintptr_t)1;
  gv_error e;
  memset(&e, 0, sizeof e);
  gv_status s = gv_decode(a, data, len, &out, &e);
  cr_assert_eq(s, st, "status %s, wanted %s (%s)", gv_status_name(s), gv_status_name(st), e.msg);
  cr_assert_eq(e.status, st);
  cr_assert_eq(e.offset, offset, "offset %zu, wanted %zu (%s)", e.offset, offset, e.msg);
  char at[64];
  snprintf(at, sizeof at, "at byte %zu: ", offset);
  cr_assert(strncmp(e.msg, at, strlen(at)) == 0, "message %s", e.msg);
  if (part) cr_assert(strstr(e.msg, part) != NULL, "message '%s' lacks '%s'", e.msg, part);
  cr_assert_eq(out, (const gv_node *)(uintptr_t)1, "out written on failure");
  t_snapshot after = t_snap(a);
  cr_assert(t_snap_eq(&before, &after), "arena changed by a failed decode");
  gv_arena_free(a);
}

static const gv_node *I(gv_arena *a, int64_t v) {
  const gv_node *n;
  cr_assert_eq(gv_int(a, v, &n, NULL), GV_OK);
  return n;
}
static const gv_node *S(gv_arena *a, const char *s) {
  const gv_node *n;
  cr_assert_eq(gv_str(a, s, strlen(s), &n, NULL), GV_OK);
  return n;
}
static const gv_node *L(gv_arena *a, const gv_node *const *k, size_t n) {
  const gv_node *o;
  gv_error e;
  cr_assert_eq(gv_list(a, k, n, &o, &e), GV_OK, "%s", e.msg);
  return o;
}
static const gv_node *T(gv_arena *a, const gv_node *const *k, size_t n) {
  const gv_node *o;
  gv_error e;
  cr_assert_eq(gv_tuple(a, k, n, &o, &e), GV_OK, "%s", e.msg);
  return o;
}
static const gv_node *D(gv_arena *a, const gv_node *const *k, const gv_node *const *v, size_t n) {
  const gv_node *o;
  gv_error e;
  cr_assert_eq(gv_dict(a, k, v, n, &o, &e), GV_OK, "%s", e.msg);
  return o;
}

/* A tree holding every node kind and every key type. */
static const gv_node *every_kind(gv_arena *a) {
  const gv_node *none, *t, *f, *star, *fl[5], *by, *h, *emp_l, *emp_t, *emp_d;
  gv_error e;
  cr_assert_eq(gv_none(a, &none, NULL), GV_OK);
  cr_assert_eq(gv_bool(a, true, &t, NULL), GV_OK);
  cr_assert_eq(gv_bool(a, false, &f, NULL), GV_OK);
  cr_assert_eq(gv_star(a, &star, NULL), GV_OK);
  cr_assert_eq(gv_float(a, 1.5, &fl[0], NULL), GV_OK);
  cr_assert_eq(gv_float(a, -0.0, &fl[1], NULL), GV_OK);
  cr_assert_eq(gv_float(a, NAN, &fl[2], NULL), GV_OK);
  cr_assert_eq(gv_float(a, -INFINITY, &fl[3], NULL), GV_OK);
  cr_assert_eq(gv_float(a, 0.0, &fl[4], NULL), GV_OK);
  cr_assert_eq(gv_bytes(a, "\0\xff\x01", 3, &by, NULL), GV_OK);
  cr_assert_eq(gv_handle(a, UINT64_MAX, &h, NULL), GV_OK);
  emp_l = L(a, NULL, 0);
  emp_t = T(a, NULL, 0);
  emp_d = D(a, NULL, NULL, 0);
  const gv_node *ints[] = {I(a, 0), I(a, -1), I(a, INT64_MIN), I(a, INT64_MAX), I(a, 300)};
  const gv_node *uni = S(a, "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x8c\xb3");
  const gv_node *tk_items[] = {I(a, 1), S(a, "x")};
  const gv_node *tkey = T(a, tk_items, 2);
  /* dict with every key type, unsorted, mixed */
  const gv_node *dk[] = {S(a, "z"), I(a, 3), fl[0], by, none, tkey, S(a, "a")};
  const gv_node *dv[] = {ints[0], ints[1], ints[2], ints[3], ints[4], uni, star};
  const gv_node *d = D(a, dk, dv, 7);
  const gv_node *od, *dd, *nt, *dq[3], *cu[4];
  const gv_node *ok[] = {S(a, "b"), S(a, "a")};
  const gv_node *ov[] = {t, f};
  cr_assert_eq(gv_odict(a, ok, ov, 2, &od, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_ddict(a, S(a, "list"), ok, ov, 2, &dd, &e), GV_OK, "%s", e.msg);
  const gv_node *fields[] = {S(a, "x"), S(a, "y")};
  const gv_node *nv[] = {fl[1], fl[2]};
  cr_assert_eq(gv_namedtuple(a, S(a, "Point"), fields, nv, 2, &nt, &e), GV_OK, "%s", e.msg);
  const gv_node *qv[] = {fl[3], fl[4], h};
  cr_assert_eq(gv_deque(a, qv, 3, -1, &dq[0], &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_deque(a, qv, 3, 5, &dq[1], &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_deque(a, NULL, 0, 0, &dq[2], &e), GV_OK, "%s", e.msg);
  const gv_node *ck[] = {S(a, "w"), I(a, 7)};
  const gv_node *cv[] = {d, od};
  cr_assert_eq(gv_custom(a, S(a, "Pos"), NULL, cv, 2, NULL, &cu[0], &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_custom(a, S(a, "Pos"), NULL, cv, 2, S(a, "m"), &cu[1], &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_custom(a, S(a, "Key"), ck, cv, 2, NULL, &cu[2], &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_custom(a, S(a, "Key"), ck, cv, 2, emp_d, &cu[3], &e), GV_OK, "%s", e.msg);
  /* shared subtree and a shared keyset */
  const gv_node *dv2[] = {ints[4], ints[3], ints[2], ints[1], ints[0], emp_l, emp_t};
  const gv_node *d2 = D(a, dk, dv2, 7);
  const gv_node *all[] = {none,  t,     f,     star,  fl[0], fl[1], fl[2], fl[3], fl[4], by,
                          h,     emp_l, emp_t, emp_d, d,     d2,    od,    dd,    nt,    dq[0],
                          dq[1], dq[2], cu[0], cu[1], cu[2], cu[3], d,     nt,    cu[2]};
  const gv_node *lst = L(a, all, sizeof all / sizeof *all);
  const gv_node *top[] = {lst, T(a, all, 5)};
  return L(a, top, 2);
}

/* ---------------------------------------------------------------------------
 * Round trips
 * ------------------------------------------------------------------------- */

Test(wire, roundtrip_every_kind) {
  gv_arena *a = t_arena();
  const gv_node *root = every_kind(a);
  buf b = enc(a, root);
  gv_stats st0, st1;
  gv_arena_stats(a, &st0);
  cr_assert_eq(dec(a, &b), root, "decode into the same arena is the same node");
  gv_arena_stats(a, &st1);
  cr_assert_eq(st0.nodes, st1.nodes, "decoding an existing tree adds no node");

  /* every single node on its own */
  for (size_t i = 0; i < st0.nodes; i++) {
    const gv_node *n = gv_arena_node_at(a, i);
    gv_node_kind k = gv_kind(n);
    if (k >= GV_KEYSET) continue;
    buf bi = enc(a, n);
    cr_assert_eq(dec(a, &bi), n, "node %zu (%s)", i, gv_type_name(n, NULL));
    free(bi.p);
  }

  gv_arena *b2 = t_arena();
  const gv_node *r2 = dec(b2, &b);
  cr_assert_eq(gv_hash(r2), gv_hash(root));
  cr_assert_eq(gv_num_leaves(r2), gv_num_leaves(root));
  buf c = enc(b2, r2);
  cr_assert_eq(c.len, b.len);
  cr_assert(memcmp(c.p, b.p, b.len) == 0, "re-encoding is byte-identical");
  uint8_t f1[16], f2[16];
  cr_assert_eq(gv_fingerprint(a, root, f1, NULL), GV_OK);
  cr_assert_eq(gv_fingerprint(b2, r2, f2, NULL), GV_OK);
  cr_assert(memcmp(f1, f2, 16) == 0);

  /* built a second time, in another order: same bytes */
  gv_arena *b3 = t_arena();
  const gv_node *pre;
  cr_assert_eq(gv_int(b3, 12345, &pre, NULL), GV_OK);
  const gv_node *r3 = every_kind(b3);
  buf c3 = enc(b3, r3);
  cr_assert_eq(c3.len, b.len);
  cr_assert(memcmp(c3.p, b.p, b.len) == 0);

  /* the decoded tree's metadata survived */
  const gv_node *dd = gv_child(gv_child(r2, 0), 17);
  cr_assert_eq(gv_kind(dd), GV_DDICT);
  size_t fl;
  cr_assert_str_eq(gv_get_str(gv_ddict_factory(dd), &fl), "list");
  const gv_node *dq = gv_child(gv_child(r2, 0), 20);
  cr_assert_eq(gv_deque_maxlen(dq), 5);
  cr_assert_eq(gv_deque_maxlen(gv_child(gv_child(r2, 0), 19)), -1);
  cr_assert_eq(gv_deque_maxlen(gv_child(gv_child(r2, 0), 21)), 0);
  const gv_node *cu = gv_child(gv_child(r2, 0), 24);
  cr_assert(gv_custom_keyed(cu));
  cr_assert_eq(gv_kind(gv_custom_meta(cu)), GV_TUPLE);
  cr_assert_eq(gv_kind(gv_custom_meta(gv_child(gv_child(r2, 0), 25))), GV_DICT);
  cr_assert(!gv_custom_keyed(gv_child(gv_child(r2, 0), 22)));
  cr_assert_null(gv_custom_meta(gv_child(gv_child(r2, 0), 22)));
  free(b.p);
  free(c.p);
  free(c3.p);
  gv_arena_free(a);
  gv_arena_free(b2);
  gv_arena_free(b3);
}

Test(wire, sharing_costs_once) {
  gv_arena *a = t_arena();
  const gv_node *k[64];
  for (int i = 0; i < 64; i++)
    k[i] = I(a, 1000 + i);
  const gv_node *x = L(a, k, 64);
  buf one = enc(a, x);
  const gv_node *xs[] = {x, x, x, x};
  buf four = enc(a, L(a, xs, 4));
  cr_assert_lt(four.len, one.len + 8, "one %zu, four %zu", one.len, four.len);
  /* a keyset shared by many dicts is written once */
  const gv_node *keys[] = {S(a, "alpha"), S(a, "beta")};
  const gv_node *ds[100];
  for (int i = 0; i < 100; i++) {
    const gv_node *v[] = {I(a, i), I(a, -i)};
    ds[i] = D(a, keys, v, 2);
  }
  const gv_node *lst = L(a, ds, 100);
  buf many = enc(a, lst);
  size_t nalpha = 0;
  for (size_t i = 0; i + 5 <= many.len; i++)
    nalpha += memcmp(many.p + i, "alpha", 5) == 0;
  cr_assert_eq(nalpha, 1);
  const gv_node *back = dec(a, &many);
  cr_assert_eq(back, lst);
  free(one.p);
  free(four.p);
  free(many.p);
  gv_arena_free(a);
}

Test(wire, deep_million) {
  gv_arena *a = t_arena();
  const gv_node *n = I(a, 0);
  for (int i = 0; i < 1000000; i++)
    n = L(a, &n, 1);
  cr_assert_eq(gv_depth(n), 1000000);
  buf b = enc(a, n);
  cr_assert_eq(dec(a, &b), n);
  gv_arena *b2 = t_arena();
  const gv_node *m = dec(b2, &b);
  cr_assert_eq(gv_depth(m), 1000000);
  cr_assert_eq(gv_hash(m), gv_hash(n));
  uint8_t f1[16], f2[16];
  cr_assert_eq(gv_fingerprint(a, n, f1, NULL), GV_OK);
  cr_assert_eq(gv_fingerprint(b2, m, f2, NULL), GV_OK);
  cr_assert(memcmp(f1, f2, 16) == 0);
  free(b.p);
  gv_arena_free(a);
  gv_arena_free(b2);
}

Test(wire, depth_limit) {
  gv_arena *a = t_arena();
  const gv_node *n = I(a, 0);
  for (int i = 0; i < 100; i++)
    n = L(a, &n, 1);
  buf b = enc(a, n);
  gv_arena_config cfg = {0, 50, NULL, 0, 0, NULL};
  gv_arena *sh;
  cr_assert_eq(gv_arena_new(&cfg, &sh), GV_OK);
  t_snapshot s0 = t_snap(sh);
  const gv_node *out;
  gv_error e;
  cr_assert_eq(gv_decode(sh, b.p, b.len, &out, &e), GV_EDEPTH, "%s", e.msg);
  cr_assert_gt(e.offset, 4);
  t_snapshot s1 = t_snap(sh);
  cr_assert(t_snap_eq(&s0, &s1));
  free(b.p);
  gv_arena_free(a);
  gv_arena_free(sh);
}

/* ---------------------------------------------------------------------------
 * Golden bytes and a pinned fingerprint
 * ------------------------------------------------------------------------- */

static void expect_bytes(gv_arena *a, const gv_node *n, const char *want) {
  buf b = enc(a, n);
  char got[512];
  cr_assert_lt(b.len, 250);
  hex(b.p, b.len, got);
  cr_assert_str_eq(got, want);
  cr_assert_eq(dec(a, &b), n);
  free(b.p);
}

Test(wire, golden) {
  gv_arena *a = t_arena();
  /* 1 */
  expect_bytes(a, I(a, 1),
               "47525601"
               "01"
               "0402");
  /* [1, 'a'] */
  const gv_node *k1[] = {I(a, 1), S(a, "a")};
  expect_bytes(a, L(a, k1, 2),
               "47525601"
               "03"
               "0402"       /* #0 int 1 */
               "060161"     /* #1 str 'a' */
               "10020100"); /* #2 list, 2 refs: #0 (delta 2), #1 (delta 1) */
  /* {'b': None, 'a': (True,)} */
  const gv_node *none, *tr;
  cr_assert_eq(gv_none(a, &none, NULL), GV_OK);
  cr_assert_eq(gv_bool(a, true, &tr, NULL), GV_OK);
  const gv_node *keys[] = {S(a, "b"), S(a, "a")};
  const gv_node *vals[] = {none, T(a, &tr, 1)};
  expect_bytes(a, D(a, keys, vals, 2),
               "47525601"
               "07"
               "060162"     /* #0 str 'b' */
               "060161"     /* #1 str 'a' */
               "20020100"   /* #2 keyset of 2: #0, #1 */
               "01"         /* #3 None */
               "03"         /* #4 True */
               "110100"     /* #5 tuple of 1: #4 */
               "12030200"); /* #6 dict: keyset #2, values #3, #5 */
  /* -3 (zigzag 5), 1.0, b'\x00', deque((), maxlen=2), *, &7 */
  expect_bytes(a, I(a, -3), "47525601010405");
  const gv_node *f;
  cr_assert_eq(gv_float(a, 1.0, &f, NULL), GV_OK);
  expect_bytes(a, f,
               "4752560101"
               "05000000000000f03f");
  const gv_node *q;
  cr_assert_eq(gv_deque(a, NULL, 0, 2, &q, NULL), GV_OK);
  expect_bytes(a, q,
               "4752560101"
               "160300");
  gv_arena_free(a);
}

Test(wire, fingerprint_pinned) {
  gv_arena *a = t_arena();
  const gv_node *none, *tr;
  cr_assert_eq(gv_none(a, &none, NULL), GV_OK);
  cr_assert_eq(gv_bool(a, true, &tr, NULL), GV_OK);
  const gv_node *keys[] = {S(a, "b"), S(a, "a")};
  const gv_node *vals[] = {none, T(a, &tr, 1)};
  const gv_node *d = D(a, keys, vals, 2);
  uint8_t fp[16];
  gv_error e;
  cr_assert_eq(gv_fingerprint(a, d, fp, &e), GV_OK, "%s", e.msg);
  char got[33];
  hex(fp, 16, got);
  cr_assert_str_eq(got, "33fcf95005d6fb8d108e7b9abda53c5c");
  /* the same as XXH3-128 of the encoding, big-endian */
  buf b = enc(a, d);
  XXH128_hash_t h = XXH3_128bits(b.p, b.len);
  uint8_t be[16];
  for (int i = 0; i < 8; i++) {
    be[i] = (uint8_t)(h.high64 >> (56 - 8 * i));
    be[8 + i] = (uint8_t)(h.low64 >> (56 - 8 * i));
  }
  cr_assert(memcmp(be, fp, 16) == 0);
  /* distinct trees, distinct fingerprints; key order matters */
  const gv_node *keys2[] = {S(a, "a"), S(a, "b")};
  const gv_node *vals2[] = {T(a, &tr, 1), none};
  uint8_t fp2[16];
  cr_assert_eq(gv_fingerprint(a, D(a, keys2, vals2, 2), fp2, NULL), GV_OK);
  cr_assert(memcmp(fp, fp2, 16) != 0);
  free(b.p);
  gv_arena_free(a);
}

/* ---------------------------------------------------------------------------
 * Hostile input
 * ------------------------------------------------------------------------- */

Test(wire, truncated_every_length) {
  gv_arena *a = t_arena();
  const gv_node *root = every_kind(a);
  buf b = enc(a, root);
  gv_arena *o = t_arena();
  const gv_node *x;
  cr_assert_eq(gv_int(o, 99, &x, NULL), GV_OK);
  t_snapshot s0 = t_snap(o);
  for (size_t n = 0; n < b.len; n++) {
    const gv_node *out = NULL;
    gv_error e;
    memset(&e, 0, sizeof e);
    gv_status s = gv_decode(o, b.p, n, &out, &e);
    cr_assert_eq(s, GV_EWIRE, "length %zu: %s (%s)", n, gv_status_name(s), e.msg);
    cr_assert_leq(e.offset, n, "length %zu: offset %zu", n, e.offset);
    cr_assert(strncmp(e.msg, "at byte ", 8) == 0);
    cr_assert_null(out);
    t_snapshot s1 = t_snap(o);
    cr_assert(t_snap_eq(&s0, &s1), "length %zu left the arena changed", n);
  }
  /* the same into the arena that holds the tree */
  t_snapshot a0 = t_snap(a);
  for (size_t n = 0; n < b.len; n += 7) {
    const gv_node *out = NULL;
    cr_assert_eq(gv_decode(a, b.p, n, &out, NULL), GV_EWIRE);
    t_snapshot a1 = t_snap(a);
    cr_assert(t_snap_eq(&a0, &a1));
  }
  free(b.p);
  gv_arena_free(a);
  gv_arena_free(o);
}

static uint64_t xs64(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

/* Decode must fail cleanly or give a tree whose encoding is stable. */
static void try_input(gv_arena *o, const unsigned char *p, size_t n) {
  t_snapshot s0 = t_snap(o);
  const gv_node *out = NULL;
  gv_error e;
  gv_status s = gv_decode(o, p, n, &out, &e);
  if (s != GV_OK) {
    cr_assert(s == GV_EWIRE || s == GV_ENOMEM || s == GV_EDEPTH, "%s", gv_status_name(s));
    cr_assert_leq(e.offset, n);
    t_snapshot s1 = t_snap(o);
    cr_assert(t_snap_eq(&s0, &s1));
    return;
  }
  buf b = enc(o, out);
  cr_assert_eq(dec(o, &b), out);
  buf c = enc(o, out);
  cr_assert(c.len == b.len && memcmp(b.p, c.p, b.len) == 0);
  free(b.p);
  free(c.p);
}

Test(wire, random_garbage) {
  gv_arena *o = t_arena();
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  unsigned char g[256];
  for (int round = 0; round < 3000; round++) {
    size_t n = (size_t)(xs64(&seed) % sizeof g);
    for (size_t i = 0; i < n; i++)
      g[i] = (unsigned char)xs64(&seed);
    if (n >= 4 && (round & 1)) memcpy(g, "GRV\x01", 4); /* get past the header */
    if (n >= 5 && (round & 2)) g[4] = (unsigned char)(xs64(&seed) % 8);
    try_input(o, g, n);
  }
  /* mutations of a valid encoding */
  gv_arena *a = t_arena();
  buf b = enc(a, every_kind(a));
  unsigned char *m = malloc(b.len);
  for (int round = 0; round < 3000; round++) {
    memcpy(m, b.p, b.len);
    int flips = 1 + (int)(xs64(&seed) % 3);
    for (int k = 0; k < flips; k++) {
      size_t at = (size_t)(xs64(&seed) % b.len);
      m[at] = (unsigned char)(round & 4 ? xs64(&seed) : m[at] ^ (1u << (xs64(&seed) % 8)));
    }
    try_input(o, m, b.len);
  }
  free(m);
  free(b.p);
  gv_arena_free(a);
  gv_arena_free(o);
}

Test(wire, hostile_arity) {
  /* a list claiming 2^31 children */
  static const unsigned char l31[] = {'G',  'R',  'V',  1,    2,    0x04, 0x02,
                                      0x10, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00};
  expect_bad(l31, sizeof l31, GV_EWIRE, 8, "2147483648 children claimed");
  /* 2^63 */
  static const unsigned char l63[] = {'G',  'R',  'V',  1,    1,    0x11, 0x80, 0x80,
                                      0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  expect_bad(l63, sizeof l63, GV_EWIRE, 6, "claimed");
  /* a keyset of 2^32 + 1 keys */
  static const unsigned char k32[] = {'G', 'R', 'V', 1, 2, 0x20, 0x81, 0x80, 0x80, 0x80, 0x10};
  expect_bad(k32, sizeof k32, GV_EWIRE, 6, "keys claimed");
  /* a record count of 2^40 */
  static const unsigned char r40[] = {'G', 'R', 'V', 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 1};
  expect_bad(r40, sizeof r40, GV_EWIRE, 4, "records claimed");
  /* a huge string length */
  static const unsigned char s62[] = {'G',  'R',  'V',  1,    1,    0x06, 0xff, 0xff,
                                      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f, 'a'};
  expect_bad(s62, sizeof s62, GV_EWIRE, 6, "str length 4611686018427387903 exceeds");
  static const unsigned char b9[] = {'G', 'R', 'V', 1, 1, 0x07, 0x09, 'a', 'b'};
  expect_bad(b9, sizeof b9, GV_EWIRE, 6, "bytes length 9 exceeds the 2 bytes left");
}

Test(wire, bad_references) {
  /* a ref past the first record */
  static const unsigned char r[] = {'G', 'R', 'V', 1, 2, 0x04, 0x02, 0x10, 0x01, 0x01};
  expect_bad(r, sizeof r, GV_EWIRE, 9, "back-reference 1 from record 1");
  /* a self/forward reference in the first record */
  static const unsigned char r0[] = {'G', 'R', 'V', 1, 1, 0x10, 0x01, 0x00};
  expect_bad(r0, sizeof r0, GV_EWIRE, 7, "back-reference 0 from record 0");
  /* a list holding a keyset */
  static const unsigned char ks[] = {'G', 'R',  'V',  1,    3,    0x06, 0x01,
                                     'a', 0x20, 0x01, 0x00, 0x10, 0x01, 0x00};
  expect_bad(ks, sizeof ks, GV_EWIRE, 13, "(a keyset) where a value is expected");
  /* a dict whose keyset ref is a str */
  static const unsigned char dk[] = {'G', 'R', 'V', 1, 2, 0x06, 0x01, 'a', 0x12, 0x00};
  expect_bad(dk, sizeof dk, GV_EWIRE, 9, "where a keyset is expected");
  /* an unreferenced record */
  static const unsigned char un[] = {'G', 'R', 'V', 1, 2, 0x04, 0x02, 0x01};
  expect_bad(un, sizeof un, GV_EWIRE, 4, "record 0 is never referenced");
  /* a metadata root */
  static const unsigned char mr[] = {'G', 'R', 'V', 1, 1, 0x20, 0x00};
  expect_bad(mr, sizeof mr, GV_EWIRE, 4, "root record 0 is a keyset");
}

Test(wire, bad_header_and_framing) {
  expect_bad("", 0, GV_EWIRE, 0, "truncated header");
  expect_bad("GR", 2, GV_EWIRE, 2, "truncated header");
  expect_bad("GRX\x01\x01\x01", 6, GV_EWIRE, 2, "bad magic");
  expect_bad("XRV\x01\x01\x01", 6, GV_EWIRE, 0, "bad magic");
  expect_bad("GRV", 3, GV_EWIRE, 3, "truncated header");
  expect_bad("GRV\x02\x01\x01", 6, GV_EWIRE, 3, "unsupported format version 2");
  expect_bad("GRV\x00\x01\x01", 6, GV_EWIRE, 3, "unsupported format version 0");
  expect_bad("GRV\x01", 4, GV_EWIRE, 4, "truncated varint");
  expect_bad("GRV\x01\x00", 5, GV_EWIRE, 4, "no records");
  expect_bad("GRV\x01\x01\x01\x01", 7, GV_EWIRE, 6, "1 trailing bytes");
  expect_bad("GRV\x01\x01\x30", 6, GV_EWIRE, 5, "unknown record tag 0x30");
  expect_bad("GRV\x01\x01\x04\x82\x00", 8, GV_EWIRE, 6, "overlong varint");
  /* the same, and 64-bit overflow, with ten bytes or more left (the reader's
   * inline path hands them to the checked one) */
  expect_bad("GRV\x01\x01\x04\x82\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01", 18, GV_EWIRE, 6,
             "overlong varint");
  expect_bad("GRV\x01\x01\x04\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02\x01\x01", 18, GV_EWIRE, 6,
             "overflows 64 bits");
  expect_bad("GRV\x01\x01\x05\x00\x00", 8, GV_EWIRE, 6, "truncated float");
  /* maxlen + 1 = 2^63 + 1 (2^63 is maxlen=2^63-1, which decodes) */
  expect_bad("GRV\x01\x01\x16\x81\x80\x80\x80\x80\x80\x80\x80\x80\x01\x00", 17, GV_EWIRE, 6,
             "maxlen");
  /* bad UTF-8 and other constructor refusals name the record */
  expect_bad("GRV\x01\x01\x06\x02\xc3\x28", 9, GV_EWIRE, 5, "record 0 (str)");
  expect_bad("GRV\x01\x01\x06\x03\xed\xa0\x80", 10, GV_EWIRE, 5, "record 0 (str)");
  /* a repeated key */
  static const unsigned char rk[] = {'G',  'R',  'V',  1,    4,    0x06, 0x01, 'a', 0x20,
                                     0x02, 0x00, 0x00, 0x01, 0x12, 0x01, 0x00, 0x00};
  expect_bad(rk, sizeof rk, GV_EWIRE, 13, "record 3 (dict)");
  /* 1 and True are the same key */
  static const unsigned char tk[] = {'G',  'R',  'V',  1,    4,    0x04, 0x02, 0x03,
                                     0x20, 0x02, 0x01, 0x00, 0x12, 0x00, 0x02, 0x02};
  expect_bad(tk, sizeof tk, GV_EWIRE, 12, "record 3 (dict)");
  /* a list as a key */
  static const unsigned char lk[] = {'G',  'R',  'V',  1,    3,    0x10, 0x00,
                                     0x20, 0x01, 0x00, 0x12, 0x00, 0x01};
  expect_bad(lk, sizeof lk, GV_EWIRE, 10, "record 2 (dict)");
  /* a custom node whose child count disagrees with its keys */
  static const unsigned char ck[] = {'G',  'R',  'V',  1,    5,    0x06, 0x01, 'K',  0x20, 0x01,
                                     0x00, 0x22, 0x01, 0x01, 0x00, 0x17, 0x00, 0x02, 0x03, 0x03};
  expect_bad(ck, sizeof ck, GV_EWIRE, 17, "custom node has 2 children but its ctype has 1 keys");
  static const unsigned char cf[] = {'G', 'R', 'V', 1, 1, 0x22, 0x04};
  expect_bad(cf, sizeof cf, GV_EWIRE, 6, "bad ctype flags");
  /* a namedtuple with a bad type name */
  static const unsigned char nt[] = {'G', 'R',  'V',  1,    3,    0x06, 0x01,
                                     '1', 0x21, 0x00, 0x00, 0x15, 0x00};
  expect_bad(nt, sizeof nt, GV_EWIRE, 11, "record 2 (namedtuple)");
}

/* ---------------------------------------------------------------------------
 * Budget, allocator failure, sink failure
 * ------------------------------------------------------------------------- */

Test(wire, budget_rollback) {
  gv_arena *a = t_arena();
  const gv_node *items[2000];
  for (int i = 0; i < 2000; i++)
    items[i] = I(a, i * 7919);
  const gv_node *big = L(a, items, 2000);
  buf b = enc(a, big);
  int failed = 0, ok = 0;
  for (size_t mb = 2048; mb < (size_t)1 << 20; mb += mb / 4) {
    gv_arena_config cfg = {mb, 0, NULL, 0, 0, NULL};
    gv_arena *t;
    if (gv_arena_new(&cfg, &t) != GV_OK) continue;
    const gv_node *x;
    if (gv_int(t, 1, &x, NULL) != GV_OK) {
      gv_arena_free(t);
      continue;
    }
    t_snapshot s0 = t_snap(t);
    const gv_node *out = NULL;
    gv_error e;
    gv_status s = gv_decode(t, b.p, b.len, &out, &e);
    if (s == GV_OK) {
      ok++;
      cr_assert_eq(gv_hash(out), gv_hash(big));
    } else {
      failed++;
      cr_assert_eq(s, GV_ENOMEM, "%s", e.msg);
      cr_assert(strncmp(e.msg, "at byte ", 8) == 0, "%s", e.msg);
      t_snapshot s1 = t_snap(t);
      cr_assert(t_snap_eq(&s0, &s1), "budget %zu: arena changed", mb);
    }
    gv_arena_free(t);
  }
  cr_assert_gt(failed, 0);
  cr_assert_gt(ok, 0);
  free(b.p);
  gv_arena_free(a);
}

typedef struct failing {
  int fail;
} failing;
static void *failing_realloc(void *ctx, void *p, size_t old, size_t n) {
  failing *f = ctx;
  (void)old;
  if (n == 0) {
    free(p);
    return NULL;
  }
  if (f->fail && n > old) return NULL;
  return realloc(p, n);
}

Test(wire, encode_oom_and_sink_failure) {
  failing f = {0};
  gv_allocator al = {failing_realloc, &f};
  gv_arena_config cfg = {0, 0, &al, 0, 0, NULL};
  gv_arena *a;
  cr_assert_eq(gv_arena_new(&cfg, &a), GV_OK);
  const gv_node *items[100];
  for (int i = 0; i < 100; i++)
    items[i] = I(a, i);
  const gv_node *l = L(a, items, 100);
  t_snapshot s0 = t_snap(a);
  f.fail = 1;
  buf b = {NULL, 0, 0};
  gv_error e;
  cr_assert_eq(gv_encode(a, l, buf_sink, &b, &e), GV_ENOMEM);
  cr_assert_eq(b.len, 0);
  uint8_t fp[16];
  cr_assert_eq(gv_fingerprint(a, l, fp, &e), GV_ENOMEM);
  t_snapshot s1 = t_snap(a);
  cr_assert(t_snap_eq(&s0, &s1));
  f.fail = 0;
  free(b.p);
  gv_arena_free(a);
}

static gv_status user_sink(void *ctx, const char *data, size_t len) {
  (void)data;
  size_t *n = ctx;
  *n += len;
  return (gv_status)(GV_EUSER + 3);
}

Test(wire, sink_error_and_args) {
  gv_arena *a = t_arena();
  const gv_node *x = I(a, 4);
  size_t n = 0;
  gv_error e;
  cr_assert_eq(gv_encode(a, x, user_sink, &n, &e), GV_EUSER + 3);
  cr_assert_eq(e.status, GV_EUSER + 3);
  cr_assert_gt(n, 0);
  cr_assert_eq(gv_encode(a, NULL, user_sink, &n, &e), GV_EINVAL);
  cr_assert_eq(gv_encode(NULL, x, user_sink, &n, &e), GV_EINVAL);
  const gv_node *d = D(a, &x, &x, 1);
  cr_assert_eq(gv_encode(a, gv_meta(d), user_sink, &n, &e), GV_EINVAL, "keysets are not values");
  const gv_node *out;
  cr_assert_eq(gv_decode(a, NULL, 3, &out, &e), GV_EINVAL);
  cr_assert_eq(gv_decode(a, "GRV", 3, NULL, &e), GV_EINVAL);
  cr_assert_eq(gv_fingerprint(a, x, NULL, &e), GV_EINVAL);
  gv_arena_free(a);
}

Test(wire, keyed_custom_without_keys_stays_keyed) {
  /* found by fuzz_ops: D({}) came back as D([]) */
  gv_arena *a = t_arena();
  const gv_node *t = t_parse(a, "[D({}), D([]), E({}, meta=1)]");
  cr_assert(gv_custom_keyed(gv_child(t, 0)));
  cr_assert(!gv_custom_keyed(gv_child(t, 1)));
  buf b = enc(a, t);
  cr_assert_eq(dec(a, &b), t);
  gv_arena *other = t_arena();
  const gv_node *t2 = dec(other, &b);
  cr_assert(gv_custom_keyed(gv_child(t2, 0)));
  cr_assert_str_eq(t_repr(other, t2), "[D({}), D([]), E({}, meta=1)]");
  free(b.p);
  gv_arena_free(other);
  gv_arena_free(a);
}

/* Many records: the encoder's numbers and the decoder's references take every
 * varint length, and the result is exactly one record per distinct node. The
 * encoder sizes its map from a guess that reads the call's arena: from an
 * empty arena it guesses one record, so its map grows many times over and the
 * record bytes come in many chunks, and the bytes must be the same. */
static int cmp_i64(const void *x, const void *y) {
  int64_t u = *(const int64_t *)x, v = *(const int64_t *)y;
  return (u > v) - (u < v);
}

Test(wire, many_records) {
  gv_arena *a = t_arena();
  enum { N = 30000 };
  static int64_t vals[N], sorted[N];
  static const gv_node *items[N];
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < N; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int shift = (int)(x % 64);
    int64_t v = (int64_t)(x >> shift);
    if (x & 1) v = -v;
    if (i % 7 == 3) v = vals[i / 2]; /* some repeated */
    if (i == 10) v = INT64_MIN;
    if (i == 11) v = INT64_MAX;
    vals[i] = v;
    items[i] = I(a, v);
  }
  const gv_node *t = L(a, items, N);
  memcpy(sorted, vals, sizeof vals);
  qsort(sorted, N, sizeof *sorted, cmp_i64);
  size_t distinct = 0;
  for (size_t i = 0; i < N; i++)
    distinct += i == 0 || sorted[i] != sorted[i - 1];
  buf b = enc(a, t);
  /* header: magic, version, varint(records) */
  uint64_t nrec = 0;
  for (size_t i = 4, sh = 0; i < b.len; i++, sh += 7) {
    nrec |= (uint64_t)(b.p[i] & 0x7f) << sh;
    if (!(b.p[i] & 0x80)) break;
  }
  cr_assert_eq(nrec, distinct + 1);
  cr_assert_eq(dec(a, &b), t);
  gv_arena *a2 = t_arena();
  const gv_node *t2 = dec(a2, &b);
  for (size_t i = 0; i < N; i += 997)
    cr_assert_eq(gv_get_int(gv_child(t2, i)), vals[i]);
  buf b2 = enc(a2, t2);
  cr_assert(b2.len == b.len && memcmp(b2.p, b.p, b.len) == 0);
  gv_arena *empty = t_arena();
  buf b3 = enc(empty, t);
  cr_assert(b3.len == b.len && memcmp(b3.p, b.p, b.len) == 0, "encoded from an empty arena");
  free(b3.p);
  gv_arena_free(empty);
  uint8_t f1[16], f2[16];
  cr_assert_eq(gv_fingerprint(a, t, f1, NULL), GV_OK);
  cr_assert_eq(gv_fingerprint(a2, t2, f2, NULL), GV_OK);
  cr_assert(memcmp(f1, f2, 16) == 0);
  free(b.p);
  free(b2.p);
  gv_arena_free(a2);
  gv_arena_free(a);
}

/* An empty host-ordered keyset (found by fuzz_wire: a host keyset record of no
 * keys reached memcpy with a NULL keys array); seeds
 * fuzz/corpus/wire/regress-empty-host-keyset (the bare record) and
 * regress-host-keyset-empty (a longer input holding one). */
Test(wire, empty_host_keyset) {
  gv_arena *a = t_arena();
  buf b = {(unsigned char *)"GRV\x01\x02\x23\x00\x12\x00", 9, 0};
  const gv_node *dd = dec(a, &b);
  cr_assert_eq(gv_kind(dd), GV_DICT);
  cr_assert_eq(gv_arity(dd), 0);
  const gv_node *ks = NULL, *d = NULL, *back = NULL;
  gv_error e;
  cr_assert_eq(gv_keyset_ordered(a, NULL, 0, NULL, &ks, &e), GV_OK);
  cr_assert(gv_keyset_host_ordered(ks));
  cr_assert_eq(gv_arity(ks), 0);
  cr_assert_eq(gv_dict_with_keyset(a, GV_ODICT, ks, NULL, NULL, 0, &d, &e), GV_OK);
  cr_assert_str_eq(t_repr(a, d), "OrderedDict()");
  cr_assert_eq(gv_num_leaves(d), 0);
  buf m = {NULL, 0, 0};
  cr_assert_eq(gv_encode(a, d, buf_sink, &m, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(gv_decode(a, m.p, m.len, &back, &e), GV_OK, "%s", e.msg);
  cr_assert_eq(back, d);
  free(m.p);
  gv_arena_free(a);
}
