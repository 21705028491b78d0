/* SPDX-License-Identifier: MIT */
/*
 * grove_mutate.h -- structure-aware mutation of trees, for fuzzers.
 *
 * ===========================================================================
 * WHAT IT DOES
 * ===========================================================================
 * gv_mutate() takes a tree and a 64-bit seed and builds, in the same arena, a
 * tree that differs from it by one mutation: a leaf changed by its kind, a
 * structural change (insert, delete, duplicate, swap, move, change a
 * container's kind, reorder or rename dict keys, deepen, flatten), or a
 * crossover (a subtree of a second tree spliced in). It is the engine under
 * the libFuzzer glue of grove_fuzz.h and under a host binding's mutate().
 *
 *   - Deterministic: the same tree (by value, in any arena), seed and options
 *     give the same result, on every machine.
 *   - Bounded: the result never exceeds the options' max_size, max_leaves,
 *     max_depth and max_wire. A mutation whose result is over a bound (or
 *     equal to the tree, or refused by a constructor: a repeated key, a name
 *     that is no identifier) is rolled back and another is drawn, up to
 *     max_tries times. A tree that is itself over the bounds is shrunk
 *     instead (GV_MUT_SHRINK: replaced by one of its subtrees that fits).
 *   - Valid: every result is a tree of the arena built by the public
 *     constructors, so it prints, encodes and decodes like any other.
 *   - Atomic, as every writer: on failure the arena is rolled back to what
 *     it held before the call and *out is unchanged.
 *
 * It lives in its own header, beside grove.h, because it is a tool built on
 * the library rather than part of the tree engine: a program that only
 * builds and reads trees never needs it, and its option block and kind list
 * would be the longest section of grove.h. Linking libgrove is enough; it
 * needs no other library.
 */
#ifndef GROVE_MUTATE_H
#define GROVE_MUTATE_H

#include "grove.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * Mutation kinds
 * =========================================================================== */

typedef enum gv_mutation_kind {
  GV_MUT_NONE = 0, /* nothing applied: no mutation fit in max_tries (*out is the tree) */
  /* --- leaves, by kind --- */
  GV_MUT_INT,        /* an int: a boundary (0, +-1, +-2^7 ... +-2^63, 2^53, the immediate limit
                        2^55, powers of ten) or one near it, +-a little, a bit flipped, negated */
  GV_MUT_FLOAT,      /* a float: NaN, +-inf, +-0.0, subnormals, DBL_MIN/MAX/EPSILON, 2^53, 0.1,
                        the next float up or down, a bit flipped, halved, doubled, negated */
  GV_MUT_STR,        /* a str, edited by code points (never a broken character): one inserted
                        (1 to 4 bytes, U+0000, U+FFFF, U+10FFFF, quotes, backslash, controls),
                        deleted, replaced or swapped, a run repeated, cut, emptied */
  GV_MUT_BYTES,      /* bytes: a byte inserted, deleted, set or flipped, a run repeated, cut */
  GV_MUT_BOOL,       /* a bool flipped */
  GV_MUT_HANDLE,     /* a handle: a boundary (0, 2^56 - 1, 2^56, 2^64 - 1) or +-1, a bit flipped */
  GV_MUT_LEAF_KIND,  /* a leaf becomes one of another kind: 1 -> 1.0, True, '1', b'1', None... */
  GV_MUT_DICTIONARY, /* a subtree replaced by an entry of the options' dictionary */
  GV_MUT_HOST_LEAF,  /* a leaf replaced by what the options' leaf callback returns */
  /* --- structure --- */
  GV_MUT_INSERT,         /* a child added to a container: a new leaf, an empty container or a
                            copy of a subtree of the tree (dict kinds: under a new key) */
  GV_MUT_DELETE,         /* a child removed from its container */
  GV_MUT_DUPLICATE,      /* a child repeated next to itself (dict kinds: under a new key) */
  GV_MUT_SWAP,           /* two children of a container exchanged (dict kinds: two values) */
  GV_MUT_MOVE,           /* a subtree taken out of its container and put into another */
  GV_MUT_CONTAINER_KIND, /* list, tuple, deque, dict, OrderedDict, defaultdict, namedtuple and
                            custom into one another; a deque's maxlen changed */
  GV_MUT_KEY_ORDER,      /* a dict kind's keys (with their values) in another insertion order */
  GV_MUT_KEY_RENAME,     /* a key renamed: a new key, a key of another type, the key edited, a
                            key found elsewhere in the tree */
  GV_MUT_KEY_COLLIDE,    /* a key replaced by one equal to it in Python but of another type
                            (1 <-> 1.0 <-> True, 0 <-> -0.0 <-> False, tuples holding them) */
  GV_MUT_DEEPEN,         /* a subtree wrapped in a new container, or (one time in four) in 2 to
                            2048 nested ones at once, as deep as max_depth allows */
  GV_MUT_FLATTEN,        /* a container replaced by one of its children, or a child sequence
                            (dict) spliced into its parent sequence (dict) */
  GV_MUT_SHRINK,         /* the tree was over the bounds: replaced by a subtree within them */
  /* --- crossover (options.other) --- */
  GV_MUT_CROSS_REPLACE, /* a subtree replaced by a subtree of the second tree */
  GV_MUT_CROSS_INSERT,  /* a subtree of the second tree added to a container (under its own key
                           when it came from a dict kind) */
  GV_MUT_COUNT
} gv_mutation_kind;

/* A set of kinds, for gv_mutate_options.kinds. */
#define GV_MUT_BIT(kind) ((uint64_t)1 << (kind))
#define GV_MUT_LEAVES                                                                              \
  (GV_MUT_BIT(GV_MUT_INT) | GV_MUT_BIT(GV_MUT_FLOAT) | GV_MUT_BIT(GV_MUT_STR) |                    \
   GV_MUT_BIT(GV_MUT_BYTES) | GV_MUT_BIT(GV_MUT_BOOL) | GV_MUT_BIT(GV_MUT_HANDLE) |                \
   GV_MUT_BIT(GV_MUT_LEAF_KIND) | GV_MUT_BIT(GV_MUT_DICTIONARY) | GV_MUT_BIT(GV_MUT_HOST_LEAF))
#define GV_MUT_STRUCTURE                                                                           \
  (GV_MUT_BIT(GV_MUT_INSERT) | GV_MUT_BIT(GV_MUT_DELETE) | GV_MUT_BIT(GV_MUT_DUPLICATE) |          \
   GV_MUT_BIT(GV_MUT_SWAP) | GV_MUT_BIT(GV_MUT_MOVE) | GV_MUT_BIT(GV_MUT_CONTAINER_KIND) |         \
   GV_MUT_BIT(GV_MUT_KEY_ORDER) | GV_MUT_BIT(GV_MUT_KEY_RENAME) | GV_MUT_BIT(GV_MUT_KEY_COLLIDE) | \
   GV_MUT_BIT(GV_MUT_DEEPEN) | GV_MUT_BIT(GV_MUT_FLATTEN))
#define GV_MUT_CROSSOVER (GV_MUT_BIT(GV_MUT_CROSS_REPLACE) | GV_MUT_BIT(GV_MUT_CROSS_INSERT))

/* A static name for a kind ("int", "key-collide", "cross-insert", ...; "?" if unknown). */
GV_API const char *gv_mutation_name(gv_mutation_kind k);

/* ===========================================================================
 * Options
 * =========================================================================== */

/* Host leaves (GV_MUT_HOST_LEAF): called with a leaf of the tree and a seed; sets *out to its
 * replacement, a value node of a (or to leaf itself to decline: another mutation is drawn).
 * A non-OK status ends gv_mutate, which rolls back and returns it as given, with "leaf
 * callback failed with status N (NAME)" in err. A binding uses it for the leaves only it
 * understands (a Python object behind a handle: mutated by its Python type). */
typedef gv_status (*gv_mutate_leaf_fn)(void *ctx, gv_arena *a, const gv_node *leaf, uint64_t seed,
                                       const gv_node **out);

/* flags */
/* Keep a JSON form: the mutator makes only None, bools, ints, finite floats, strs, lists and
 * dicts with str keys (a tree that has other kinds keeps them). gv_print_json prints every
 * result of a tree that had a JSON form. */
#define GV_MUTATE_JSON 0x1u
/* Keep types: namedtuples and custom nodes keep their type, fields, keys and arity (their
 * children still mutate, and a whole one may be replaced), and nothing becomes one. For hosts
 * whose registered classes must unflatten from their children. */
#define GV_MUTATE_KEEP_TYPES 0x2u
/* Host leaves: handles and * belong to the host: never made, and changed only by the leaf
 * callback (GV_MUT_HANDLE never applies). */
#define GV_MUTATE_HOST_LEAVES 0x4u

/* Zero-initialize, then set what you need: {0} is every kind, no bounds, 16 tries. */
typedef struct gv_mutate_options {
  /* Bounds on the result; 0 = none. max_size: gv_expanded_size (nodes written out, plus the
   * bytes of strs and bytes); max_leaves: gv_num_leaves; max_depth: gv_depth (1 and up: a
   * depth of 0, leaves only, cannot be asked for); max_wire: the length of gv_encode's
   * output (measured by encoding each candidate: O(distinct nodes) a try). The arena's own
   * max_depth and max_bytes hold as always (a budget run out is GV_ENOMEM). */
  uint64_t max_size;
  uint64_t max_leaves;
  size_t max_depth;
  size_t max_wire;
  /* GV_MUT_BIT()s of the kinds that may be applied; 0 = all. A kind whose conditions no
   * place of the tree meets (a float mutation on a tree without floats, crossover without
   * other) is never drawn. GV_MUT_SHRINK applies whenever the tree is over the bounds. */
  uint64_t kinds;
  unsigned flags;     /* GV_MUTATE_* */
  unsigned max_tries; /* mutations drawn before giving up (GV_MUT_NONE); 0 = 16 */
  /* Crossover: the second tree (a value node of any arena; what is taken from it is copied
   * into the arena); NULL = no crossover. */
  const gv_node *other;
  /* Interesting subtrees (values of any arena, copied when used): GV_MUT_DICTIONARY puts one
   * in place of a subtree, and INSERT and KEY_RENAME draw from them too. */
  const gv_node *const *dict;
  size_t ndict;
  /* GV_MUT_HOST_LEAF; NULL = none. */
  gv_mutate_leaf_fn leaf_fn;
  void *leaf_ctx;
} gv_mutate_options;

/* What gv_mutate did (for logs, and tests that every kind is reached). */
typedef struct gv_mutation {
  gv_mutation_kind kind;
  size_t depth;   /* depth of the place changed below the root (0: the root; MOVE: where the
                     subtree went; DELETE, DUPLICATE, SWAP, KEY_*: the container's) */
  unsigned tries; /* mutations drawn, the one applied included */
} gv_mutation;

/* ===========================================================================
 * Mutate
 * =========================================================================== */

/* *out: t changed by one mutation drawn from seed (see above). opt may be NULL (all kinds,
 * no bounds); info may be NULL. GV_MUT_NONE with *out == t when no mutation drawn fit (a tree
 * too small for any enabled kind, or bounds it already fills). Errors: GV_EINVAL (a NULL or
 * frozen arena, t or other or a dictionary entry not a value node, NULL out),
 * GV_ERANGE (t is over the bounds and not even None fits them), GV_ENOMEM, a leaf callback's
 * status. Time: O(depth x widest container on the path) a try, plus the encoding for
 * max_wire, plus copying what crossover and the dictionary bring in. */
GV_API GV_NODISCARD gv_status gv_mutate(gv_arena *a, const gv_node *t, uint64_t seed,
                                        const gv_mutate_options *opt, const gv_node **out,
                                        gv_mutation *info, gv_error *err);

/* GV_OK if t is within opt's bounds (what every result of gv_mutate is), else GV_ERANGE with
 * the bound it breaks in err. A reader: only max_wire encodes (scratch from the hook). */
GV_API GV_NODISCARD gv_status gv_mutate_fits(const gv_arena *a, const gv_node *t,
                                             const gv_mutate_options *opt, gv_error *err);

#ifdef __cplusplus
}
#endif
#endif /* GROVE_MUTATE_H */
