/* SPDX-License-Identifier: MIT */
/* dictfill.c -- the values of a freshly copied dict written in place.
 *
 * Rebuilding a dict (unflatten, tree_map) copies a template of its keys
 * (PyDict_Copy: one memcpy of the hash table) and then sets the n values.
 * PyDict_SetItem looks every key up again although the i-th entry of the copy
 * is known to be the i-th key. Where CPython's dict layout is visible (its
 * internal header, the versions checked below), the values are written into
 * the entries directly; elsewhere dict_fill returns 0 and the caller sets the
 * values through the public API. Nothing else in the extension sees CPython's
 * internals: this file is the only one built with Py_BUILD_CORE.
 *
 * The layout read here (PyDictKeysObject, PyDictKeyEntry and
 * PyDictUnicodeEntry, DK_ENTRIES) is the same in CPython 3.11, 3.12 and 3.13's
 * default (GIL) build, the versions allowed below; a free-threaded build (its
 * keys have a lock and its dicts are shared between threads) is left to the
 * public API.
 *
 * Whether the layout is known is decided before <Python.h>, because the
 * internal headers need Py_BUILD_CORE defined before <Python.h> is read
 * (3.12's public headers define macros, _PyGC_FINALIZED among them, that its
 * internal ones define differently). PY_VERSION_HEX comes from patchlevel.h,
 * Py_GIL_DISABLED (a free-threaded build) from pyconfig.h. */
#include <patchlevel.h>
#include <pyconfig.h>
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030E0000 && !defined(Py_LIMITED_API) &&     \
    !defined(Py_GIL_DISABLED) && defined(__has_include)
#if __has_include(<internal/pycore_dict.h>)
#define GROVE_DICT_FILL 1
#ifndef Py_BUILD_CORE
#define Py_BUILD_CORE 1
#endif
#endif
#endif

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tables.h"

/* dict_items through the public API */
static Py_ssize_t items_next(PyObject *d, PyObject **keys, PyObject **vals, Py_ssize_t n) {
  Py_ssize_t pos = 0, j = 0;
  PyObject *k, *v;
  while (j < n && PyDict_Next(d, &pos, &k, &v)) {
    keys[j] = k;
    vals[j++] = v;
  }
  return j;
}

#ifdef GROVE_DICT_FILL
#include <internal/pycore_dict.h>
#include <internal/pycore_gc.h>

/* Whether the dict must be tracked by the cycle collector once v is in it:
 * CPython's own rule for dict inserts. The type's flag is tested first so
 * that most values (numbers, str) skip the call to PyObject_IS_GC the rule
 * makes. */
static inline int needs_tracking(PyObject *v) {
  return PyType_HasFeature(Py_TYPE(v), Py_TPFLAGS_HAVE_GC) && _PyObject_GC_MAY_BE_TRACKED(v);
}

/* Slot indices of the hash table: entry r becomes entry perm[r]. */
#define REMAP(T)                                                                                   \
  do {                                                                                             \
    T *ix = (T *)(void *)k->dk_indices;                                                            \
    for (size_t s = 0; s < nslots; s++)                                                            \
      if (ix[s] >= 0) ix[s] = (T)perm[ix[s]];                                                      \
  } while (0)

/* values are often spread over memory (leaves made in another order): their
 * reference counts are fetched a few entries ahead */
#define PREFETCH 16

#define FILL(E, ENTRIES, HASH)                                                                     \
  do {                                                                                             \
    E *e = ENTRIES(k);                                                                             \
    const E *te = ENTRIES(tk);                                                                     \
    for (Py_ssize_t r = 0; r < n; r++) {                                                           \
      Py_ssize_t at = perm ? (Py_ssize_t)perm[r] : r;                                              \
      if (r + PREFETCH < n) __builtin_prefetch(vals[r + PREFETCH], 1);                             \
      HASH;                                                                                        \
      PyObject *key = te[r].me_key;                                                                \
      if (keys && keys[r] != key) { /* an equal key (the same hash): the caller's object */        \
        Py_INCREF(keys[r]);                                                                        \
        Py_DECREF(key); /* (the template still holds it) */                                        \
        key = keys[r];                                                                             \
      }                                                                                            \
      e[at].me_key = key;                                                                          \
      Py_INCREF(vals[r]);                                                                          \
      e[at].me_value = vals[r];                                                                    \
      track |= needs_tracking(vals[r]);                                                            \
    }                                                                                              \
  } while (0)

const int dict_fill_works = 1;

int dict_fill(PyObject *d, PyObject *tm, PyObject *const *keys, PyObject *const *vals,
              const uint32_t *perm, Py_ssize_t n) {
  PyDictObject *mp = (PyDictObject *)d, *tp = (PyDictObject *)tm;
  PyDictKeysObject *k = mp->ma_keys, *tk = tp->ma_keys;
  /* combined tables of the same shape whose n entries are the n keys (no
   * deleted entries), the copy's own, its values all None: what PyDict_Copy
   * makes of a template built by n inserts of None; with no keys version
   * (the specializer keys its caches by it: a permuted copy must not share
   * the template's) */
  if (mp->ma_values || tp->ma_values || mp->ma_used != n || tp->ma_used != n || k == tk ||
      k->dk_refcnt != 1 || k->dk_version != 0 || k->dk_nentries != n || tk->dk_nentries != n ||
      k->dk_kind != tk->dk_kind || k->dk_log2_size != tk->dk_log2_size ||
      k->dk_log2_index_bytes != tk->dk_log2_index_bytes || k->dk_kind == DICT_KEYS_SPLIT)
    return 0;
  if (perm) {
    size_t nslots = (size_t)1 << k->dk_log2_size;
    switch (k->dk_log2_index_bytes - k->dk_log2_size) {
    case 0:
      REMAP(int8_t);
      break;
    case 1:
      REMAP(int16_t);
      break;
    case 2:
      REMAP(int32_t);
      break;
    default:
      REMAP(int64_t);
      break;
    }
  }
  int track = 0;
  if (DK_IS_UNICODE(k))
    FILL(PyDictUnicodeEntry, DK_UNICODE_ENTRIES, (void)0);
  else
    FILL(PyDictKeyEntry, DK_ENTRIES, e[at].me_hash = te[r].me_hash);
  /* the copy's n references to None (its values before) */
  for (Py_ssize_t r = 0; r < n; r++)
    Py_DECREF(Py_None);
  if (track && !PyObject_GC_IsTracked(d)) PyObject_GC_Track(d);
  return 1;
}

PyObject *dict_copy_fill(PyObject *orig, PyObject *const *keys, PyObject *const *vals,
                         Py_ssize_t n) {
  PyDictObject *op = (PyDictObject *)orig;
  PyDictKeysObject *ok = op->ma_keys;
  /* a compact combined table (PyDict_Copy clones it: no hashing, no compare)
   * whose entries are keys[0..n), by identity */
  if (!n || op->ma_values || op->ma_used != n || ok->dk_nentries != n ||
      ok->dk_kind == DICT_KEYS_SPLIT)
    return NULL;
  if (DK_IS_UNICODE(ok)) {
    const PyDictUnicodeEntry *e = DK_UNICODE_ENTRIES(ok);
    for (Py_ssize_t i = 0; i < n; i++)
      if (e[i].me_key != keys[i]) return NULL;
  } else {
    const PyDictKeyEntry *e = DK_ENTRIES(ok);
    for (Py_ssize_t i = 0; i < n; i++)
      if (e[i].me_key != keys[i]) return NULL;
  }
  PyObject *d = PyDict_Copy(orig);
  if (!d) return NULL;
  PyDictKeysObject *k = ((PyDictObject *)d)->ma_keys;
  if (((PyDictObject *)d)->ma_values || k == ok || k->dk_refcnt != 1 || k->dk_nentries != n ||
      k->dk_kind != ok->dk_kind) {
    Py_DECREF(d);
    return NULL;
  }
  int track = 0;
  /* the copy's references to orig's values are dropped (orig holds them) */
#define SWAP(E, ENTRIES)                                                                           \
  do {                                                                                             \
    E *e = ENTRIES(k);                                                                             \
    for (Py_ssize_t i = 0; i < n; i++) {                                                           \
      if (i + PREFETCH < n) __builtin_prefetch(vals[i + PREFETCH], 1);                             \
      PyObject *old = e[i].me_value;                                                               \
      Py_INCREF(vals[i]);                                                                          \
      e[i].me_value = vals[i];                                                                     \
      Py_DECREF(old);                                                                              \
      track |= needs_tracking(vals[i]);                                                            \
    }                                                                                              \
  } while (0)
  if (DK_IS_UNICODE(k))
    SWAP(PyDictUnicodeEntry, DK_UNICODE_ENTRIES);
  else
    SWAP(PyDictKeyEntry, DK_ENTRIES);
#undef SWAP
  if (track && !PyObject_GC_IsTracked(d)) PyObject_GC_Track(d);
  return d;
}

Py_ssize_t dict_items(PyObject *d, PyObject **keys, PyObject **vals, Py_ssize_t n) {
  PyDictObject *mp = (PyDictObject *)d;
  PyDictKeysObject *k = mp->ma_keys;
  if (mp->ma_values || mp->ma_used != n || k->dk_kind == DICT_KEYS_SPLIT)
    return items_next(d, keys, vals, n);
  Py_ssize_t j = 0, ne = k->dk_nentries;
  if (DK_IS_UNICODE(k)) {
    const PyDictUnicodeEntry *e = DK_UNICODE_ENTRIES(k);
    for (Py_ssize_t i = 0; i < ne && j < n; i++)
      if (e[i].me_value) {
        keys[j] = e[i].me_key;
        vals[j++] = e[i].me_value;
      }
  } else {
    const PyDictKeyEntry *e = DK_ENTRIES(k);
    for (Py_ssize_t i = 0; i < ne && j < n; i++)
      if (e[i].me_value) {
        keys[j] = e[i].me_key;
        vals[j++] = e[i].me_value;
      }
  }
  return j;
}

#else

const int dict_fill_works = 0;

PyObject *dict_copy_fill(PyObject *orig, PyObject *const *keys, PyObject *const *vals,
                         Py_ssize_t n) {
  (void)orig;
  (void)keys;
  (void)vals;
  (void)n;
  return NULL;
}

Py_ssize_t dict_items(PyObject *d, PyObject **keys, PyObject **vals, Py_ssize_t n) {
  return items_next(d, keys, vals, n);
}

int dict_fill(PyObject *d, PyObject *tm, PyObject *const *keys, PyObject *const *vals,
              const uint32_t *perm, Py_ssize_t n) {
  (void)d;
  (void)tm;
  (void)keys;
  (void)vals;
  (void)perm;
  (void)n;
  return 0;
}

#endif
