/* SPDX-License-Identifier: MIT */
/*
 * grove.h -- nested data structures ("pytrees") as interned, immutable nodes.
 *
 * ===========================================================================
 * OWNERSHIP: the one rule
 * ===========================================================================
 * Everything lives in its arena; nothing is freed one by one. Every node, every
 * string a function hands back, and every result of an operation is owned by
 * the gv_arena it was built in and stays valid until gv_arena_free() (or until a
 * gv_arena_rollback() to a mark taken before it was built).
 *
 * Nodes are hash-consed: building a node equal to one already in the arena
 * returns the existing one, so structural equality of two trees of one arena is
 * pointer equality. Nodes are immutable; any number of threads may read them.
 * One writer at a time per arena (see THREADS below).
 *
 * Children given to a constructor must be nodes of the same arena or of its
 * parents (or immediates, which belong to every arena): a node of arena A used
 * as a child in arena B would dangle once A is freed. Constructors refuse such
 * a child (and such a key, keyset, name or metadata) with GV_EINVAL, "child 0
 * is a node of another arena": every node carries a 16-bit tag of its arena,
 * compared per child (one compare per arena of the chain; immediates need
 * none). A node of an arena whose tag happens to equal the builder's (about 1
 * in 65,536 pairs of arenas) is not caught; builds configured with
 * GROVE_CHECKED (the asan preset) also check the arena's chunks exactly.
 * gv_copy is the way across. Comparisons, printers and the encoder accept
 * nodes of any arenas and compare them by value.
 *
 * A `const gv_node *` is an opaque handle, never to be dereferenced: small
 * leaves (None, bools, *, ints within +-2^55, floats whose low 8 mantissa
 * bits are 0 such as 1.0 or 0.5, handles below 2^56) are immediates, held in
 * the handle itself and not allocated. The same value always gets the same
 * handle, so pointer equality still means equality, and an immediate is valid
 * in every arena and forever.
 *
 * Every public operation is atomic: on any failure (budget exceeded, bad input,
 * a callback's error) the arena is rolled back to what it held before the call,
 * byte for byte, and every node the caller already had stays valid.
 *
 * Every function that can fail returns gv_status and fills an optional
 * gv_error * (NULL is allowed) with a message naming the path of the failure.
 * Accessors are NULL-tolerant: given NULL (or a node of another kind) they
 * return 0, NULL or false.
 *
 * No function recurses on the C stack: depth is bounded by the arena's budget
 * and its max_depth, never by the machine stack.
 *
 * Text in and out: docs/notation.md (the literal notation gv_parse reads and
 * gv_print writes); binary: docs/wire-format.md (gv_encode, gv_decode).
 * grove is MIT-licensed; CHANGELOG.md says what is stable between versions.
 *
 * ===========================================================================
 * MEMORY AND TIME: what bounds a call
 * ===========================================================================
 * What an input costs. An arena holds 50 to 58 bytes per byte of text read
 * at worst (deep '[' nesting: a list node for every two bytes), and reading
 * takes more while it runs (its stack of open containers counts in max_bytes).
 * Measured with gv_arena_stats on inputs of 100 KB to 4 MB, the smallest
 * max_bytes that reads the input, per input byte:
 *     shape                              text (gv_parse)   binary (gv_decode)
 *     deep [ nesting                     74 to 92          35 to 41
 *     deep {"a": nesting                 31 to 39          21 to 34
 *     a dict of distinct short keys      19 to 24          20 to 24
 *     a list of distinct one-int lists   14 to 17          14 to 16
 *     a list of distinct short strs       9 to 13           8 to 11
 * (wider and flatter inputs cost less). So a max_bytes of 16 KiB + 96 bytes
 * per byte of text (48 per byte of binary) reads every input of that size,
 * and a host that sets max_bytes can take that as the input limit; an input
 * that does not fit fails with GV_ENOMEM, the arena as it was. max_depth
 * bounds nesting too (GV_EDEPTH).
 *
 * Shared subtrees: a small input can describe a huge tree (a list holding one
 * list twice, 63 times over, has 2^63 leaves). Every operation whose work is
 * per node and whose result is a node or a yes/no -- key checks and the key
 * order, structure, lists_to_tuples, order, the shape test of map_shape,
 * same_structure, is_prefix, same_paths, hashing, encoding, fingerprints,
 * copies -- is linear in the distinct nodes, not in the tree written out
 * (plus at most 2^21 steps before it starts remembering what it did). The
 * operations that follow the tree written out (printing, walk_paths,
 * flatten_with_path, traverse, map, map_up_to, map_shape, pack_sequence_as)
 * check gv_expanded_size() first against the arena's max_output: set it for
 * trees from outside. gv_flatten takes no arena; its time is
 * O(gv_expanded_size) too, so check that before it.
 *
 * Comparing nodes of two arenas. Within one arena (and its parents) equal
 * values are one node; nodes of two arenas (gv_key_cmp, gv_get, the
 * comparisons, gv_map of several trees) are compared by value, and each call
 * remembers the pairs it found equal, so its work is linear in the distinct
 * nodes of the two trees (at most 32 steps per distinct pair of subtrees,
 * plus the steps before it starts remembering: 4,096 in gv_key_cmp and
 * gv_get, the 2^21 above in the others): keys that repeat their own subtuples
 * cost no more than others (measured: the key family of issue 25, 45 KB of
 * wire decoded into two arenas, 0.2 to 0.3 ms in gv_key_cmp and gv_get, about
 * 1 ms in same_structure, same_paths and is_prefix). The memo holds at most
 * one pair per distinct node of the smaller tree (about 50 bytes each). Its
 * memory: the readers' from the arena's allocator hook (GV_ENOMEM if it
 * fails), gv_map's from its budget, gv_key_cmp's and gv_get's from the
 * default allocator (mimalloc; never for keys of one arena, nor before those
 * 4,096 steps); if that fails they stay correct, with a small fixed memo that
 * no longer bounds the work.
 *
 * Scratch. max_bytes counts what the arena owns: nodes, chunks, its intern
 * table (a table that grows is charged its growth, not the old and new tables
 * together), the reusable scratch of constructors, and the stacks of writers
 * while they run. Readers (THREADS below), gv_copy and gv_arena_compact take
 * their scratch (stacks, memos, the copy map) from the allocator hook and free
 * it before they return: it is not counted, so a copy needs room for what it
 * adds and a compaction succeeds whenever its result fits max_bytes (it sizes
 * the fresh arena's table first; an arena holding only its roots compacts
 * with its own size as max_bytes).
 *
 * Out of memory is GV_ENOMEM, and the message says which: "out of memory
 * budget (max_bytes N)" when the budget refused, "out of memory (allocation of
 * N bytes failed)" when the allocator did (no budget set, or the machine ran
 * out before it).
 *
 * ===========================================================================
 * THREADS: who writes an arena
 * ===========================================================================
 * Writers -- every call that takes a `gv_arena *` (all constructors, gv_parse,
 * gv_decode, gv_structure, gv_walk_paths, gv_flatten_with_path,
 * gv_pack_sequence_as, gv_traverse, gv_map, gv_map_up_to, gv_map_shape,
 * gv_lists_to_tuples, gv_order, gv_print_str, gv_arena_rollback,
 * gv_arena_free, and the callbacks these run) -- may change the arena: one
 * writer at a time per arena. gv_arena_stats, gv_arena_mark and
 * gv_arena_node_at read the arena's own counters and table: call them only
 * where no writer runs.
 * Readers -- gv_same_structure, gv_same_paths, gv_is_prefix, gv_print,
 * gv_print_json, gv_encode and gv_fingerprint, which take a `const gv_arena *`
 * -- never write the arena: they read its configuration (and its size, an
 * atomic hint) and take their scratch straight from its allocator hook (not counted in max_bytes;
 * at most in proportion to the depth and distinct nodes of their input; small inputs use none).
 * gv_arena_compact only reads its arena (as readers do) and builds in the fresh arena it makes.
 * Node functions -- accessors, gv_get, gv_key_cmp, gv_is_key, gv_expanded_size, gv_flatten -- touch
 * no arena at all (gv_get and gv_key_cmp on keys of two arenas may take scratch from the default
 * allocator: MEMORY AND TIME above). So any number of threads may run readers and node functions
 * on nodes already built while one writer builds in the same arena, as long as the nodes reach
 * those threads with the usual synchronization (a mutex, or a release store
 * and an acquire load) and the writer does not roll back or free past them.
 * The allocator hook must then be thread-safe (the default, mimalloc or malloc, is).
 *
 * Frozen arenas (gv_arena_freeze) are never written again: any number of
 * threads may run readers and node functions on their nodes, call
 * gv_arena_stats, gv_arena_mark, gv_arena_node_at, gv_arena_frozen and
 * gv_arena_parent on them, make children of them (gv_arena_new with
 * cfg.parent) and free those children, all at once. Each child is an arena of
 * its own with one writer at a time; builds in it look the parent up without
 * writing it, so threads building in their own children of one parent need no
 * lock. What must be ordered: freeze an arena before another thread uses it
 * (hand it over after the freeze, as any pointer, with a mutex, a thread start
 * or a release store and an acquire load), and use a parent's nodes only while
 * its owner or one of its children holds it (the last gv_arena_free of the
 * parent and its children releases it, whichever thread calls it). A child's
 * nodes belong to the child: other threads read them under the rules above.
 * `make test-tsan` runs both under ThreadSanitizer: tests/threads.c (one
 * writer, readers) and tests/threads_children.c (builders in children of one
 * frozen parent, readers of the parent, the parent let go while they run).
 */
#ifndef GROVE_H
#define GROVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
 * Version and attributes
 * =========================================================================== */

/* The version of this header (SemVer; CHANGELOG.md says what is stable). */
#define GV_VERSION_MAJOR 0
#define GV_VERSION_MINOR 1
#define GV_VERSION_PATCH 0
#define GV_VERSION_STRING "0.1.0"
/* One number for comparisons in #if: MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is 100). */
#define GV_VERSION_NUMBER (GV_VERSION_MAJOR * 10000 + GV_VERSION_MINOR * 100 + GV_VERSION_PATCH)

#if defined(__GNUC__) || defined(__clang__)
#define GV_NODISCARD __attribute__((warn_unused_result))
#define GV_PURE __attribute__((pure))
#define GV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GV_NODISCARD
#define GV_PURE
#define GV_PRINTF(f, a)
#endif

/* GV_API marks the public functions, the only symbols a shared libgrove exports (the
 * library is compiled with -fvisibility=hidden). On Windows: GROVE_BUILDING while building the
 * DLL (dllexport), nothing for a program using the DLL (dllimport), and GROVE_STATIC for one
 * linking the static library. CMake's grove::grove and grove.pc define GROVE_STATIC for you. */
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(GROVE_STATIC)
#define GV_API
#elif defined(GROVE_BUILDING)
#define GV_API __declspec(dllexport)
#else
#define GV_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define GV_API __attribute__((visibility("default")))
#else
#define GV_API
#endif

/* The version of the library linked in ("0.1.0"); with a shared library it may be newer than
 * GV_VERSION_STRING, the header's. */
GV_API const char *gv_version(void);

/* ===========================================================================
 * Status and errors
 * =========================================================================== */

typedef enum gv_status {
  GV_OK = 0,
  GV_ENOMEM = 1,    /* allocation failed or the arena's max_bytes was exceeded */
  GV_EINVAL = 2,    /* bad argument (wrong kind, invalid UTF-8, bad key, ...) */
  GV_EPARSE = 3,    /* bad literal text; line and column in gv_error */
  GV_EDEPTH = 4,    /* nesting deeper than the arena's max_depth */
  GV_ERANGE = 5,    /* number out of range, too many children or leaves, small buffer */
  GV_EKEY = 6,      /* a key repeated in one dict or custom node */
  GV_EMISMATCH = 7, /* structures do not match (same_structure, map, ...) */
  GV_ECOUNT = 8,    /* leaf count wrong (pack_sequence_as) */
  GV_EWIRE = 9,     /* malformed binary input; byte offset in gv_error */
  GV_EUSER = 64     /* first code free for callbacks; returned as given */
} gv_status;

typedef struct gv_error {
  gv_status status;
  size_t line;   /* GV_EPARSE: 1-based line, else 0 */
  size_t column; /* GV_EPARSE: 1-based column (bytes), else 0 */
  size_t offset; /* GV_EPARSE / GV_EWIRE: byte offset, else 0 */
  char msg[512]; /* NUL-terminated message; truncated with "..." if long */
} gv_error;

/* A static name for a status: "GV_ENOMEM", ... */
GV_API const char *gv_status_name(gv_status s);

/* ===========================================================================
 * Arena
 * =========================================================================== */

/* One realloc-style hook: ptr NULL allocates, new_size 0 frees (and returns
 * NULL), otherwise resizes. Returned memory must be aligned for max_align_t.
 * As in Lua, grove assumes that a call with new_size <= old_size never fails. */
typedef struct gv_allocator {
  void *(*realloc)(void *ctx, void *ptr, size_t old_size, size_t new_size);
  void *ctx;
} gv_allocator;

typedef struct gv_arena_config {
  size_t max_bytes;          /* 0 = unlimited; counts everything the arena owns */
  size_t max_depth;          /* 0 = GV_DEFAULT_MAX_DEPTH */
  const gv_allocator *alloc; /* NULL = mimalloc (malloc if built without); copied */
  uint64_t seed;             /* intern-table probing seed (not the stable hash) */
  /* 0 = unlimited. The operations whose work follows the tree written out
   * (shared subtrees once per occurrence) refuse, with GV_ERANGE and before
   * doing anything, a tree whose gv_expanded_size() is larger: gv_print,
   * gv_print_json, gv_print_str, gv_walk_paths, gv_flatten_with_path (which
   * also counts the entries of every leaf's path), gv_traverse, gv_map,
   * gv_map_up_to, gv_map_shape and gv_pack_sequence_as. A small input can
   * describe a huge tree (a list holding one list twice, 64 times over, is
   * 2^64 nodes written out): set this when trees come from outside. */
  uint64_t max_output;
  /* NULL, or a frozen arena (gv_arena_freeze; GV_EINVAL otherwise) whose
   * child this arena is: see "Frozen arenas and children" below. */
  struct gv_arena *parent;
} gv_arena_config;

#define GV_DEFAULT_MAX_DEPTH ((size_t)1 << 24)

typedef struct gv_arena gv_arena;

typedef struct gv_arena_stats {
  size_t bytes_used;     /* bytes handed out by the arena's bump allocator */
  size_t bytes_reserved; /* bytes the arena holds from its allocator, all included */
  size_t max_bytes;      /* the budget (0 = unlimited) */
  size_t nodes;          /* interned nodes (metadata nodes included; immediates are not) */
  size_t chunks;         /* bump chunks */
  size_t table_slots;    /* intern index slots */
  uint64_t lookups;      /* intern lookups */
  uint64_t hits;         /* lookups that found an existing node */
} gv_stats;

/* A position in an arena's history (see gv_arena_rollback). Treat it as
 * opaque: copy it, never edit it. */
typedef struct gv_mark {
  const struct gv_arena *arena; /* the arena it was taken of */
  uint64_t gen;                 /* the arena's rollback count when it was taken */
  size_t nodes;
  size_t used;
  const void *chunk;
  size_t chunk_used;
  uint64_t lookups, hits;
  size_t table_slots, entries_cap, tmp_cap;
} gv_mark;

/* cfg may be NULL for the defaults. GV_EINVAL for a parent that is not frozen. */
GV_API GV_NODISCARD gv_status gv_arena_new(const gv_arena_config *cfg, gv_arena **out);
/* Frees every node at once; NULL is fine. A frozen arena that still has
 * children is released with the last of them: the caller must not use it
 * again, but its children stay valid (and so do their nodes that point at
 * its nodes). */
GV_API void gv_arena_free(gv_arena *a);
/* A child arena's stats count its own nodes and bytes only (not its parents'). */
GV_API void gv_arena_stats(const gv_arena *a, gv_stats *out);

/* --- Frozen arenas and children ---
 * gv_arena_freeze(a) makes a immutable for good: every writer (see THREADS)
 * given a from then on fails with GV_EINVAL ("the arena is frozen ...") and
 * changes nothing, gv_arena_rollback on it is refused, and any number of
 * threads may read it and its nodes. Freezing twice is fine; GV_EINVAL for
 * NULL. Freeze before the arena is shared (freezing is a write).
 *
 * An arena made with cfg.parent = P (P frozen) is a child of P:
 *   - it interns through P first: building a tree equal to one P holds gives
 *     P's node (pointer-equal; nothing is copied), and only what P lacks is
 *     built in the child, so equality is still pointer equality across the
 *     child and P. Keysets, their sorted twins and key twins that P holds are
 *     used as they are (a child's shuffled keyset of P's keys finds P's sorted
 *     twin and needs no sort);
 *   - its nodes may point at P's (checked builds accept P's nodes, and those
 *     of P's own parents, as children);
 *   - max_bytes, gv_arena_stats, marks and gv_arena_node_at see its own nodes
 *     and bytes only; freeing it frees only its own memory; its config (budget,
 *     max_depth, allocator, seed, max_output) is its own;
 *   - children of one parent never see one another's nodes; a child may itself
 *     be frozen and have children (lookups then walk the whole chain).
 * Interning into P from a child only reads P: any number of threads may build
 * in their own children of one P at once. P must outlive its children's use:
 * gv_arena_free(P) while children live only drops the owner's hold, and P's
 * memory goes with its last child. gv_copy and gv_arena_compact (below, with
 * the nodes) share what a parent holds. */
GV_API gv_status gv_arena_freeze(gv_arena *a);
GV_API bool gv_arena_frozen(const gv_arena *a);            /* false for NULL */
GV_API const gv_arena *gv_arena_parent(const gv_arena *a); /* NULL: none (or NULL a) */
/* Marks nest. Rolling back to a mark drops every node built since it was taken
 * (their pointers become invalid) and restores the arena exactly; the same
 * mark may be used again, and so may every mark taken before it. A rollback
 * to a later mark is then refused: it went stale when the arena went back
 * past it. gv_arena_rollback returns GV_EINVAL and changes nothing for a NULL
 * mark, a mark of another arena, a stale mark, and a mark that does not fit
 * the arena (edited or garbage). Stale marks are recognized among the last 16
 * rollbacks that dropped something (each failed operation is one); an older
 * stale mark is only checked for fitting the arena, which keeps it memory
 * safe but may roll back to a point the caller did not mean: keep marks
 * nested, as the library does. */
GV_API gv_mark gv_arena_mark(const gv_arena *a);
GV_API gv_status gv_arena_rollback(gv_arena *a, const gv_mark *m);
/* The i-th interned node in creation order (i < stats.nodes), or NULL.
 * Immediate leaves are not interned and never listed. */
GV_API const struct gv_node *gv_arena_node_at(const gv_arena *a, size_t i);

/* ===========================================================================
 * Nodes
 * =========================================================================== */

typedef struct gv_node gv_node;

typedef enum gv_node_kind {
  GV_INVALID = 0, /* what gv_kind(NULL) says */
  /* leaves */
  GV_NONE,
  GV_BOOL,
  GV_INT,
  GV_FLOAT,
  GV_STR,
  GV_BYTES,
  GV_HANDLE, /* opaque 64-bit host handle, printed &17 */
  GV_STAR,   /* the placeholder of a structure, printed * */
  /* containers */
  GV_LIST,
  GV_TUPLE,
  GV_DICT,
  GV_ODICT, /* OrderedDict */
  GV_DDICT, /* defaultdict */
  GV_NAMEDTUPLE,
  GV_DEQUE,
  GV_CUSTOM,
  /* metadata nodes: never children of a value, reachable through accessors */
  GV_KEYSET, /* a dict's keys in insertion order + the cached sorted order */
  GV_SCHEMA, /* a namedtuple's type name and field names */
  GV_CTYPE   /* a custom node's type name, path keys and metadata */
} gv_node_kind;

/* Node flags, computed once when a node is interned. */
#define GV_F_CANONICAL 0x01u /* every dict/defaultdict below has sorted insertion order */
#define GV_F_HAS_LIST 0x02u  /* some list in the subtree (the node itself included) */
#define GV_F_STRUCTURE 0x04u /* every leaf is * */
#define GV_F_SHAPE 0x08u     /* list/tuple whose children are all int, bool or None */
#define GV_F_HAS_NONE 0x10u  /* some None in the subtree */

/* Key order (dict and defaultdict traversal; optree's rule):
 * if all keys are mutually comparable in Python's sense -- numbers (bool, int,
 * float) together, or all str (by code point), or all bytes, or tuples that
 * Python can compare (by their first pair of elements that are not equal, a
 * shorter prefix first) -- they go in natural ascending order; otherwise by the
 * Python type name of the key (NoneType < bool < bytes < float < int < str <
 * tuple), then by value, and tuples element by element by that same rule (type
 * name, then value) at every level: the first elements that are not the same
 * value of the same type decide, and there -0.0 sorts before 0.0. So
 * {(1,): .., (b'x',): ..} has (b'x',)
 * first, as {1: .., b'x': ..} has b'x' first, and the order is always total
 * and deterministic. optree differs where its own sort gives up (tuples whose
 * first unequal elements are incomparable): it then keeps the dict's insertion
 * order, which is not canonical. NaN sorts after every other number.
 * Keys are None, bool, int, float, str, bytes, or tuples of keys (nested at most
 * GV_MAX_KEY_DEPTH deep). Keys equal in Python (1, 1.0 and True) are the same
 * key: repeating one in a dict is GV_EKEY. Key checks are O(1) (a flag set when
 * a node is made) and comparing two keys of one arena is O(depth x arity)
 * however much they share: a key tuple holding a bool or an int-valued float
 * keeps a canonical twin (the same key with ints there), an extra node of the
 * arena, so that equal keys are found equal by one pointer compare. */
#define GV_MAX_KEY_DEPTH 64

/* --- leaves (each returns the one interned node for its value) --- */
GV_API GV_NODISCARD gv_status gv_none(gv_arena *a, const gv_node **out, gv_error *err);
GV_API GV_NODISCARD gv_status gv_bool(gv_arena *a, bool v, const gv_node **out, gv_error *err);
GV_API GV_NODISCARD gv_status gv_int(gv_arena *a, int64_t v, const gv_node **out, gv_error *err);
/* Every NaN is the same node. -0.0 and 0.0 are different nodes. */
GV_API GV_NODISCARD gv_status gv_float(gv_arena *a, double v, const gv_node **out, gv_error *err);
/* s must be valid UTF-8 (no surrogates); it is copied. */
GV_API GV_NODISCARD gv_status gv_str(gv_arena *a, const char *s, size_t len, const gv_node **out,
                                     gv_error *err);
GV_API GV_NODISCARD gv_status gv_bytes(gv_arena *a, const void *p, size_t len, const gv_node **out,
                                       gv_error *err);
GV_API GV_NODISCARD gv_status gv_handle(gv_arena *a, uint64_t h, const gv_node **out,
                                        gv_error *err);
GV_API GV_NODISCARD gv_status gv_star(gv_arena *a, const gv_node **out, gv_error *err);

/* --- containers: children are nodes of the same arena, given in insertion
 * order; n may be 0 (items/keys/values may then be NULL) --- */
GV_API GV_NODISCARD gv_status gv_list(gv_arena *a, const gv_node *const *items, size_t n,
                                      const gv_node **out, gv_error *err);
GV_API GV_NODISCARD gv_status gv_tuple(gv_arena *a, const gv_node *const *items, size_t n,
                                       const gv_node **out, gv_error *err);
GV_API GV_NODISCARD gv_status gv_dict(gv_arena *a, const gv_node *const *keys,
                                      const gv_node *const *values, size_t n, const gv_node **out,
                                      gv_error *err);
GV_API GV_NODISCARD gv_status gv_odict(gv_arena *a, const gv_node *const *keys,
                                       const gv_node *const *values, size_t n, const gv_node **out,
                                       gv_error *err);
/* factory: a str node (the factory's name, e.g. "list"). */
GV_API GV_NODISCARD gv_status gv_ddict(gv_arena *a, const gv_node *factory,
                                       const gv_node *const *keys, const gv_node *const *values,
                                       size_t n, const gv_node **out, gv_error *err);
/* type_name and every field name: str nodes, names distinct. */
GV_API GV_NODISCARD gv_status gv_namedtuple(gv_arena *a, const gv_node *type_name,
                                            const gv_node *const *fields,
                                            const gv_node *const *values, size_t n,
                                            const gv_node **out, gv_error *err);
/* maxlen < 0 means None. */
GV_API GV_NODISCARD gv_status gv_deque(gv_arena *a, const gv_node *const *items, size_t n,
                                       int64_t maxlen, const gv_node **out, gv_error *err);
/* type_name: str node. keys: NULL for positional children, else n distinct keys
 * (paths use them; the default metadata is then the tuple of keys).
 * meta: NULL for none, else any node. */
GV_API GV_NODISCARD gv_status gv_custom(gv_arena *a, const gv_node *type_name,
                                        const gv_node *const *keys, const gv_node *const *children,
                                        size_t n, const gv_node *meta, const gv_node **out,
                                        gv_error *err);
/* A container of the same kind and metadata as tmpl (keys, factory, maxlen,
 * type, ...) with new children in insertion order (n must be tmpl's arity). */
GV_API GV_NODISCARD gv_status gv_rebuild(gv_arena *a, const gv_node *tmpl,
                                         const gv_node *const *children, const gv_node **out,
                                         gv_error *err);

/* --- keysets of their own, and host-ordered dicts ---
 * A keyset is the metadata node of a dict kind: its keys in insertion order
 * and their traversal order. gv_keyset interns the keyset of keys[0..n) with
 * grove's key order (above), as gv_dict would. gv_keyset_ordered interns a
 * keyset whose traversal order the host gives instead: order[r] is the
 * insertion index of the r-th key in traversal order (a permutation of
 * 0..n-1). Its keys may be any key or GV_HANDLE (distinct; GV_EKEY otherwise).
 * A host-ordered keyset's identity, and its hash, include the order; its
 * "sorted twin" (gv_keyset_twin) is its keys in the host's order, so the
 * ordering pass (gv_order) puts a dict in the host's order and two dicts of
 * the same keys in the same host order share one twin. gv_get scans a
 * host-ordered keyset linearly. The wire format records the order. */
GV_API GV_NODISCARD gv_status gv_keyset(gv_arena *a, const gv_node *const *keys, size_t n,
                                        const gv_node **out, gv_error *err);
GV_API GV_NODISCARD gv_status gv_keyset_ordered(gv_arena *a, const gv_node *const *keys, size_t n,
                                                const uint32_t *order, const gv_node **out,
                                                gv_error *err);
GV_API GV_PURE bool gv_keyset_host_ordered(const gv_node *keyset);
/* A dict kind (GV_DICT, GV_ODICT or GV_DDICT with its str factory; NULL
 * factory otherwise) of an interned keyset and n = its arity values in
 * insertion order. The fast path for hosts that cache keysets. */
GV_API GV_NODISCARD gv_status gv_dict_with_keyset(gv_arena *a, gv_node_kind kind,
                                                  const gv_node *keyset, const gv_node *factory,
                                                  const gv_node *const *values, size_t n,
                                                  const gv_node **out, gv_error *err);
/* gv_dict with the host's order (gv_keyset_ordered, then a dict of it). */
GV_API GV_NODISCARD gv_status gv_dict_ordered(gv_arena *a, const gv_node *const *keys,
                                              const gv_node *const *values, size_t n,
                                              const uint32_t *order, const gv_node **out,
                                              gv_error *err);

/* --- copying between arenas ---
 * The tree n (of any arena) rebuilt in dst: *out is dst's node equal to n.
 * What dst or its parents already hold is shared (interning): a subtree that
 * is one of their nodes is used as it is, without walking it (a tree of dst's
 * parent costs O(1)); a DAG costs O(distinct nodes), immediates are their own
 * copies, and the copy is atomic under dst's budget (on failure dst is
 * exactly as before); its scratch (the copy map, its stacks) comes from dst's
 * allocator hook, outside that budget. n's arena is only read. */
GV_API GV_NODISCARD gv_status gv_copy(gv_arena *dst, const gv_node *n, const gv_node **out,
                                      gv_error *err);
/* A fresh arena *fresh with a's configuration (the same parent, not frozen)
 * holding only what the roots reach: out_roots[i] is its node equal to
 * roots[i] (what a's parents hold stays theirs, shared, not copied). A
 * long-running host swaps to it and frees a. roots may be nodes of any arena;
 * out_roots may be roots itself. Atomic: on failure *fresh is NULL, out_roots
 * unchanged, a untouched (it is only read); GV_ENOMEM only when what the roots
 * reach does not fit a's max_bytes (the scratch is not counted, and the table
 * is sized for the nodes first). O(distinct nodes reached). */
GV_API GV_NODISCARD gv_status gv_arena_compact(const gv_arena *a, const gv_node *const *roots,
                                               size_t n, gv_arena **fresh,
                                               const gv_node **out_roots, gv_error *err);

/* --- inspection (O(1), NULL-tolerant) --- */
GV_API GV_PURE gv_node_kind gv_kind(const gv_node *n);
GV_API GV_PURE size_t gv_arity(const gv_node *n); /* children of a container, 0 for leaves */
/* Child i in insertion order. */
GV_API GV_PURE const gv_node *gv_child(const gv_node *n, size_t i);
/* Key of child i in insertion order (dicts, keyed custom nodes), else NULL. */
GV_API GV_PURE const gv_node *gv_key(const gv_node *n, size_t i);
/* Insertion index of the i-th child in traversal order (sorted keys for dict
 * and defaultdict, identity for everything else). */
GV_API GV_PURE size_t gv_order_index(const gv_node *n, size_t i);
GV_API GV_PURE uint64_t gv_num_leaves(const gv_node *n); /* a leaf counts 1; metadata 0 */
/* The size of n written out as a tree, shared subtrees once per occurrence:
 * one per node (dict keys, field names, type names, factories, maxlens and
 * custom metadata included) plus one per byte of str and bytes data. It
 * bounds the work and output of the operations that follow the written-out
 * tree (see max_output). O(1); saturates at UINT64_MAX; 0 for NULL and
 * metadata nodes. */
GV_API GV_PURE uint64_t gv_expanded_size(const gv_node *n);
GV_API GV_PURE size_t gv_depth(const gv_node *n);  /* leaf 0, container 1 + max child */
GV_API GV_PURE uint64_t gv_hash(const gv_node *n); /* stable Merkle hash */
GV_API GV_PURE unsigned gv_flags(const gv_node *n);
GV_API GV_PURE bool gv_is_nested(const gv_node *n); /* true for every container */
GV_API GV_PURE bool gv_is_leaf(const gv_node *n);
GV_API GV_PURE bool gv_is_key(const gv_node *n); /* may serve as a dict key */

GV_API GV_PURE bool gv_get_bool(const gv_node *n);
GV_API GV_PURE int64_t gv_get_int(const gv_node *n); /* bool gives 0/1 */
GV_API GV_PURE double gv_get_float(const gv_node *n);
GV_API GV_PURE uint64_t gv_get_handle(const gv_node *n);
/* str and bytes: the data (NUL-terminated for convenience) and its length. */
GV_API const char *gv_get_str(const gv_node *n, size_t *len);
GV_API const void *gv_get_bytes(const gv_node *n, size_t *len);

/* Python type name: "NoneType", "bool", ..., "list", "dict", "OrderedDict",
 * "defaultdict", "deque", and the type name of a namedtuple or custom node. */
GV_API const char *gv_type_name(const gv_node *n, size_t *len);
/* The metadata node: the keyset of a dict kind, the schema of a namedtuple,
 * the ctype of a custom node; NULL otherwise. */
GV_API GV_PURE const gv_node *gv_meta(const gv_node *n);
GV_API GV_PURE const gv_node *gv_ddict_factory(const gv_node *n); /* str node */
/* deque maxlen; -1 for None (and for non-deques). */
GV_API GV_PURE int64_t gv_deque_maxlen(const gv_node *n);
GV_API GV_PURE const gv_node *gv_field_name(const gv_node *n, size_t i); /* namedtuple */
/* A custom node's explicit metadata (or its tuple of keys when none was
 * given, or NULL); and whether its children are keyed. */
GV_API GV_PURE const gv_node *gv_custom_meta(const gv_node *n);
GV_API GV_PURE bool gv_custom_keyed(const gv_node *n);
/* Keysets: whether insertion order is already sorted; the sorted twin. */
GV_API GV_PURE bool gv_keyset_sorted(const gv_node *keyset);
GV_API GV_PURE const gv_node *gv_keyset_twin(const gv_node *keyset);
/* The child under key k of a dict kind or keyed custom node, or NULL. Keys
 * match as in Python (1, 1.0 and True find one another). O(log n) key
 * comparisons (a number, or a tuple, looked up among keys of mixed types:
 * O(n)); key may be of another arena (see gv_key_cmp for what that costs). */
GV_API const gv_node *gv_get(const gv_node *n, const gv_node *key);
/* Compare two keys by the key order above, as a dict of just x and y orders
 * them (<0, 0, >0; 0 when equal in Python). Like Python's own comparison of
 * mixed types this is not transitive across incomparable keys. Nodes that are
 * not keys sort after every key, by hash. No recursion.
 * Keys of two different arenas compare exactly as well, by value: see
 * "Comparing nodes of two arenas" in MEMORY AND TIME above for the cost (linear in
 * their distinct nodes); such a comparison may take memory from the default
 * allocator (never for keys of one arena, nor for small keys). */
GV_API int gv_key_cmp(const gv_node *x, const gv_node *y);

/* ===========================================================================
 * Flatten, structure, paths, pack
 * =========================================================================== */

/* Leaves of t in traversal order into out[0..cap); *n_out = gv_num_leaves(t).
 * Allocates nothing. GV_ERANGE (and nothing written past cap) if cap is small;
 * GV_EINVAL for a metadata node. Its time is O(gv_expanded_size(t)): check
 * that first for a tree from outside. */
GV_API GV_NODISCARD gv_status gv_flatten(const gv_node *t, const gv_node **out, size_t cap,
                                         size_t *n_out, gv_error *err);
/* t with every leaf replaced by *. O(1) if t has GV_F_STRUCTURE. */
GV_API GV_NODISCARD gv_status gv_structure(gv_arena *a, const gv_node *t, const gv_node **out,
                                           gv_error *err);

/* Called once per leaf in traversal order with its path: path[0..depth) are
 * the entries from the root (int nodes for positions, key nodes for keys). A
 * non-OK status from the callback ends the walk and is returned as given,
 * with "at PATH: callback failed with status N (NAME)" in err. */
typedef gv_status (*gv_path_fn)(void *ctx, const gv_node *const *path, size_t depth,
                                const gv_node *leaf);
GV_API GV_NODISCARD gv_status gv_walk_paths(gv_arena *a, const gv_node *t, gv_path_fn fn, void *ctx,
                                            gv_error *err);
/* A list of (path, leaf) tuples, path a tuple of entries. Under max_output,
 * the size checked is the tree's expanded size plus the entries of all its
 * paths (a tuple each). */
GV_API GV_NODISCARD gv_status gv_flatten_with_path(gv_arena *a, const gv_node *t,
                                                   const gv_node **out, gv_error *err);
/* structure rebuilt with leaves[0..n) in traversal order (its own leaf values
 * are ignored). GV_ECOUNT, "too few leaves: structure holds 2, got 1". */
GV_API GV_NODISCARD gv_status gv_pack_sequence_as(gv_arena *a, const gv_node *structure,
                                                  const gv_node *const *leaves, size_t n,
                                                  const gv_node **out, gv_error *err);

/* ===========================================================================
 * Transforms
 * =========================================================================== */

/* What a traverse callback decides for a subtree. */
typedef enum gv_visit {
  GV_VISIT_KEEP = 0, /* top-down: descend (a leaf stays); bottom-up: keep */
  GV_VISIT_NONE,     /* the subtree becomes None (top-down: not descended) */
  GV_VISIT_REPLACE   /* the subtree becomes *replacement (top-down: not descended) */
} gv_visit;

typedef gv_status (*gv_traverse_fn)(void *ctx, gv_arena *a, const gv_node *node, gv_visit *action,
                                    const gv_node **replacement);
GV_API GV_NODISCARD gv_status gv_traverse(gv_arena *a, const gv_node *t, bool top_down,
                                          gv_traverse_fn fn, void *ctx, const gv_node **out,
                                          gv_error *err);

/* f gets the n values found at one position of the n trees (leaves for map,
 * subtrees for map_up_to, shapes or leaves for map_shape) and sets *out. */
typedef gv_status (*gv_map_fn)(void *ctx, gv_arena *a, const gv_node *const *values, size_t n,
                               const gv_node **out);
GV_API GV_NODISCARD gv_status gv_map(gv_arena *a, gv_map_fn f, void *ctx,
                                     const gv_node *const *trees, size_t ntrees, bool none_is_leaf,
                                     const gv_node **out, gv_error *err);
GV_API GV_NODISCARD gv_status gv_map_up_to(gv_arena *a, const gv_node *shallow, gv_map_fn f,
                                           void *ctx, const gv_node *const *trees, size_t ntrees,
                                           const gv_node **out, gv_error *err);
GV_API GV_NODISCARD gv_status gv_map_shape(gv_arena *a, gv_map_fn f, void *ctx, const gv_node *t,
                                           const gv_node **out, gv_error *err);
GV_API GV_NODISCARD gv_status gv_lists_to_tuples(gv_arena *a, const gv_node *t, const gv_node **out,
                                                 gv_error *err);
/* The ordering pass. changed may be NULL; *changed == (*out != t). */
GV_API GV_NODISCARD gv_status gv_order(gv_arena *a, const gv_node *t, const gv_node **out,
                                       bool *changed, gv_error *err);

/* ===========================================================================
 * Compare
 * =========================================================================== */

/* The match relation. y matches the reference x when, walking both from the root in
 * traversal order, every node of x and the node of y at the same place satisfy:
 *   - x a leaf: y is a leaf too; any leaf kind matches any other (1 matches 'a', None, *).
 *   - x a list, tuple or deque: y has the same kind and the same arity.
 *   - x a namedtuple: y a namedtuple of the same type (type name and field names), same arity.
 *   - x a dict, OrderedDict or defaultdict: y any of the three, with the same set of keys
 *     (order ignored); children pair by key.
 *   - x a custom node: y a custom node with the same type name, the same metadata (for a
 *     keyed one its keys, in order) and the same arity.
 * Not compared: leaf values, deque maxlen, defaultdict factory, the key order of dicts.
 * Several-tree gv_map uses the same relation with its first tree as x; gv_map_up_to applies it
 * down to the leaves of its shallow tree only.
 *
 * gv_same_structure: GV_OK if y matches x, else GV_EMISMATCH. The message starts with the path
 * of the first difference (omitted at the root), then says what x has ("expected") and what y
 * has ("got"): "at (1,): list arity mismatch: expected 2 items, got 3". The other messages
 * contain "don't have the same nested structure" (a leaf against a container), "expected
 * <kind>", "dictionary key mismatch" (with the missing and the extra keys), "namedtuple type
 * mismatch", "custom node type mismatch" or "custom node data mismatch". */
GV_API GV_NODISCARD gv_status gv_same_structure(const gv_arena *a, const gv_node *x,
                                                const gv_node *y, gv_error *err);
/* GV_OK if the path sets are equal, else GV_EMISMATCH listing both differences
 * (paths in traversal order, as many as the message holds). Entries compare
 * by identity: 0, 0.0 and False are three entries. Compared as shared
 * prefixes, never one tuple per leaf. */
GV_API GV_NODISCARD gv_status gv_same_paths(const gv_arena *a, const gv_node *x, const gv_node *y,
                                            gv_error *err);
/* *result: t matches shallow down to shallow's leaves (map_up_to would accept it). */
GV_API GV_NODISCARD gv_status gv_is_prefix(const gv_arena *a, const gv_node *shallow,
                                           const gv_node *t, bool *result, gv_error *err);

/* ===========================================================================
 * Text: literal notation (a superset of JSON) and printers
 * =========================================================================== */

/* A sink for printers and encoders; a non-OK status aborts. */
typedef gv_status (*gv_write_fn)(void *ctx, const char *data, size_t len);

/* Reads one tree written in the literal notation -- Python literals (None, True, 1, 2.5,
 * 'str', b'bytes', [list], (tuple,), {dict}, OrderedDict(...), defaultdict(...), deque(...),
 * Point(x=1, y=2), Name([...])) plus JSON, &17 handles and the placeholder *. docs/notation.md
 * is its full grammar, with what is rejected. On GV_EPARSE (and GV_ERANGE, GV_EKEY, GV_EDEPTH)
 * err holds the 1-based line and column: "line 1, column 9: expected ',' or ']'". */
GV_API GV_NODISCARD gv_status gv_parse(gv_arena *a, const char *text, size_t len,
                                       const gv_node **out, gv_error *err);
/* Python repr style: {'a': 1}, (1,), OrderedDict({'a': 1}), Point(x=1, y=2), shortest
 * round-trip floats; gv_parse reads it back to the same node. A reader (see THREADS): its
 * scratch memory comes from the arena's allocator hook and is freed before it returns.
 * GV_ERANGE before writing anything when the tree is over max_output. */
GV_API GV_NODISCARD gv_status gv_print(const gv_arena *a, const gv_node *n, gv_write_fn w,
                                       void *ctx, gv_error *err);
/* JSON; GV_EINVAL where the tree has no JSON form (bytes, handles, *, nan,
 * inf, non-str keys). Dicts print in insertion order. */
GV_API GV_NODISCARD gv_status gv_print_json(const gv_arena *a, const gv_node *n, gv_write_fn w,
                                            void *ctx, gv_error *err);
/* Either printer into a NUL-terminated string owned by the arena (a writer). */
GV_API GV_NODISCARD gv_status gv_print_str(gv_arena *a, const gv_node *n, bool json,
                                           const char **out, size_t *len, gv_error *err);

/* ===========================================================================
 * Wire: binary format and fingerprints
 * =========================================================================== */

GV_API GV_NODISCARD gv_status gv_encode(const gv_arena *a, const gv_node *n, gv_write_fn w,
                                        void *ctx, gv_error *err);
GV_API GV_NODISCARD gv_status gv_decode(gv_arena *a, const void *data, size_t len,
                                        const gv_node **out, gv_error *err);
/* XXH3-128 of the canonical encoding, stable across arenas, processes,
 * machines and releases of one format version. */
GV_API GV_NODISCARD gv_status gv_fingerprint(const gv_arena *a, const gv_node *n, uint8_t out[16],
                                             gv_error *err);

#ifdef __cplusplus
}
#endif
#endif /* GROVE_H */
