# SPDX-License-Identifier: MIT
"""A fuzz target for TreeSpec.from_bytes and unpickling.

An input is two selector bytes and a wire encoding: byte 0 picks a seed
payload (the handle objects, classes, none_is_leaf and namespace that
to_bytes wrote for one of the seed trees), byte 1 a change to that payload
(an object swapped for another, a class dropped or added, a flag flipped,
...), and the rest is the wire. The seeds are the current to_bytes outputs
of a varied set of trees. Each input is loaded with from_bytes, and what
loads is used every way there is: repr, paths, entries, children, type,
num_nodes, unflatten, flatten_up_to, ==, hash, a pickle round trip, and
tree_structure of the unflattened tree, which must give the same
structure back (from_bytes accepts exactly what to_bytes writes), but for
registered classes' path entries, which their flatten functions make. The
outcome must be a result or a clean exception (any Exception but
SystemError); a crash, a SystemError or a broken invariant is a finding.

Two engines:
  python fuzz_from_bytes.py [--seconds S | --runs N] [--seed N] [--last FILE]
      a seeded mutation loop (no dependencies): byte flips, interesting
      bytes (the wire's tags, varint edges), insertions, truncations,
      deletions, repeats and splices of other seeds, over a pool of the
      seeds and of the mutants that loaded. --last FILE keeps the input
      being run there, so that after a crash it holds the culprit.
  python fuzz_from_bytes.py --atheris [libFuzzer flags] [corpus dirs]
      coverage-guided by atheris (tests/python/requirements-fuzz.txt) over
      the same inputs (Python coverage of the package; run it under the
      ASan build for the C side: make fuzz-python).
  python fuzz_from_bytes.py --replay FILE...   runs saved inputs.
Exit status 0: no finding. Run from tests/python (or with it on sys.path)
with the grove package importable (PYTHONPATH=build-py/python)."""

import argparse
import collections
import enum
import os
import pickle
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import grove  # noqa: E402
from wirekit import MAGIC, unpack  # noqa: E402

NS = 'fuzz'
MAX_SIZE = 100_000  # from_bytes's max_size here: keeps every use of a spec fast
MAX_LEAVES = 5_000  # unflatten only specs up to this many leaves


class Shade(enum.IntEnum):
    DARK = 1
    LIGHT = 2


Pair = collections.namedtuple('Pair', 'left right')
Empty = collections.namedtuple('Empty', '')


class Node:
    """Registered in NS: metadata and named entries."""

    def __init__(self, kids, meta):
        self.kids, self.meta = list(kids), meta


class Flat:
    """Registered globally: no entries; metadata None (kept when it is another)."""

    def __init__(self, kids, meta=None):
        self.kids, self.meta = list(kids), meta


class Keyed:
    """Registered in NS: entries that are objects (a handle of the entries tuple);
    metadata None (kept when it is another)."""

    def __init__(self, kids, meta=None):
        self.kids, self.meta = list(kids), meta


def _register():
    if Node not in grove._REGISTRY.get(NS, {}):
        grove.register_pytree_node(
            Node, lambda n: (n.kids, n.meta, tuple(f'k{i}' for i in range(len(n.kids)))),
            lambda meta, kids: Node(kids, meta), namespace=NS)
    if Keyed not in grove._REGISTRY.get(NS, {}):
        grove.register_pytree_node(
            Keyed, lambda k: (k.kids, k.meta, tuple(Shade(1 + i % 2) for i in range(len(k.kids)))),
            lambda meta, kids: Keyed(kids, meta), namespace=NS)
    if Flat not in grove._REGISTRY['']:
        grove.register_pytree_node(Flat, lambda f: (f.kids, f.meta),
                                   lambda meta, kids: Flat(kids, meta),
                                   namespace=grove.GLOBAL_NAMESPACE)


def seed_trees():
    """A varied set of trees: every kind of node, every kind of key."""
    deep_list, deep_dict = 0, 0
    for i in range(40):
        deep_list = [deep_list, i] if i % 3 else [deep_list]
        deep_dict = {'d': deep_dict, i: None}
    return [
        0, None, [], (), {}, [1, (2,), [3, [4]]], (1, None, (None,)),
        {'b': 1, 'a': [2, 3], 'c': {}}, {1: 'x', -2: 'y', 2 ** 40: 'z'},
        {1.5: 1, b'k': 2, True: 3, None: 4}, {(1, 'a'): 1, (0,): 2, (): 3},
        {Shade.DARK: 1, Shade.LIGHT: [2]}, {2 ** 70: 1, 'x': 2},
        collections.OrderedDict([('z', 1), ('a', (2, 3))]),
        collections.OrderedDict([(Shade.LIGHT, 1), ((2, 'x'), 2)]),
        collections.defaultdict(list, {'y': 1, 'x': [2]}), collections.defaultdict(None, {1: 2}),
        collections.deque([1, [2]], maxlen=5), collections.deque(), collections.deque(maxlen=0),
        Pair(1, [2, Pair(3, 4)]), Empty(), time.struct_time((1, 2, 3, 4, 5, 6, 7, 8, 9)),
        Node([1, [2, 3]], {'m': 1}), Node([], 'empty'), Flat([1, Flat([2])]),
        Node(range(70), [Shade.DARK]), Keyed([1, [2], Keyed([])]), Node([Keyed([1])], 2 ** 70),
        [Node([1], ('a', 1)), Flat([None]), {'k': Pair(None, 1)}],
        [[1, 2]] * 8, deep_list, deep_dict,
    ]


def seed_inputs():
    """(input bytes, payload) of every seed tree, both none_is_leaf values."""
    out = []
    for tree in seed_trees():
        for nil in (False, True):
            data = grove.tree_structure(tree, none_is_leaf=nil, namespace=NS).to_bytes()
            out.append(unpack(data))
    return out


# objects swapped into a payload: what a hostile pickle of plain data may hold
ODD = [7, None, (), ('m',), ('m', 1), ('m', None, None), ('m', ('k0',)), [1], 'a', 2 ** 70,
       float('nan'), (1, 'x'), Shade.DARK, b'', frozenset(), list, len, Pair, tuple(range(65))]


def payload_for(sel, change, wire, payloads):
    """The pickled payload of input (sel, change, wire)."""
    magic, _, objs, classes, nil, ns = payloads[sel % len(payloads)]
    objs, classes = dict(objs), dict(classes)
    kind, arg = change % 10, change // 10
    if kind == 1 and objs:
        objs[sorted(objs)[arg % len(objs)]] = ODD[arg % len(ODD)]
    elif kind == 2 and classes:
        del classes[sorted(classes)[arg % len(classes)]]
    elif kind == 3:
        extra = [Pair, Node, Flat, list, None][arg % 5]
        classes[grove._grove._name_for(extra)] = extra
    elif kind == 4:
        nil = not nil
    elif kind == 5:
        ns = '' if ns else NS
    elif kind == 6:
        magic = b'grove-treespec-2'
    elif kind == 7 and objs:
        del objs[sorted(objs)[arg % len(objs)]]
    elif kind == 8:
        objs[max(objs, default=0) + 1 + arg % 3] = ODD[arg % len(ODD)]
    elif kind == 9 and classes:
        name = sorted(classes)[arg % len(classes)]
        classes[name] = ODD[arg % len(ODD)]
    return pickle.dumps((magic, wire, objs, classes, nil, ns), protocol=pickle.HIGHEST_PROTOCOL)


class Finding(Exception):
    """A broken invariant (not a clean refusal)."""


def check_spec(spec):
    """Every use of a loaded spec; Finding when an invariant breaks."""
    text = repr(spec)
    if not (isinstance(text, str) and text.startswith('PyTreeSpec(')):
        raise Finding(f'repr gave {text[:80]!r}')
    paths = spec.paths()
    if len(paths) != spec.num_leaves:
        raise Finding(f'{len(paths)} paths for {spec.num_leaves} leaves')
    spec.entries()
    spec.children()
    spec.type
    spec.kind
    if spec.num_nodes < spec.num_leaves:
        raise Finding('fewer nodes than leaves')
    if not (spec == spec and hash(spec) == hash(spec)):
        raise Finding('spec != spec')
    back = pickle.loads(pickle.dumps(spec))
    # a NaN in a key or in metadata is another object after the round trip, not equal to
    # the first, so the spec is another too (as in optree, which compares them with ==)
    if repr(back) != text or (back != spec and 'nan' not in text):
        raise Finding('pickle round trip changed the spec')
    if spec.num_leaves > MAX_LEAVES:
        return
    leaves = list(range(spec.num_leaves))
    tree = spec.unflatten(leaves)
    if spec.flatten_up_to(tree) != leaves:
        raise Finding('flatten_up_to(unflatten(leaves)) != leaves')
    again = grove.tree_structure(tree, none_is_leaf=spec.none_is_leaf, namespace=spec.namespace)
    if again == spec:
        return
    # A registered class's path entries are in the wire, as values or a handle, and its flatten
    # function makes them anew: a wire with other entries is one to_bytes writes for another
    # flatten function, and tree_structure gives back the function's. Everything else must come
    # back as loaded: kinds, classes, keys and metadata (the seed classes keep it), which repr
    # and flatten_up_to (metadata compared with ==) see both ways.
    if (repr(again) != text or again.flatten_up_to(tree) != leaves
            or spec.flatten_up_to(again.unflatten(leaves)) != leaves):
        raise Finding(f'tree_structure(unflatten) gives {again!r}, loaded {text}')


def run_one(data, payloads):
    """One input: 'used' (loaded, every use answered), 'loaded' (a use refused
    cleanly), 'refused' (from_bytes refused it); Finding for a finding."""
    if len(data) < 2:
        return 'refused'
    blob = payload_for(data[0], data[1], bytes(data[2:]), payloads)
    try:
        spec = grove.TreeSpec.from_bytes(blob, max_size=MAX_SIZE)
    except SystemError as e:
        raise Finding(f'SystemError: {e}') from e
    except Exception:  # noqa: BLE001 -- a clean refusal
        return 'refused'
    try:
        check_spec(spec)
    except (Finding, SystemError) as e:
        raise Finding(f'{type(e).__name__}: {e}') from e
    except Exception:  # noqa: BLE001 -- a clean refusal of a use (a registration gone, ...)
        return 'loaded'
    return 'used'


# ---------------------------------------------------------------- the mutation loop

INTERESTING = bytes([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x10, 0x11,
                     0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x20, 0x21, 0x22, 0x23, 0x40, 0x7F,
                     0x80, 0xFF])


def mutate(rng, data, pool):
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3, 5))):
        lo = 6 if len(b) > 6 and rng.random() < 0.9 else 0  # mostly past the selectors and magic
        pos = rng.randrange(lo, len(b)) if len(b) > lo else len(b)
        op = rng.randrange(9)
        if op == 0 and pos < len(b):
            b[pos] ^= 1 << rng.randrange(8)
        elif op == 1 and pos < len(b):
            b[pos] = rng.choice(INTERESTING)
        elif op == 2:
            b[pos:pos] = bytes(rng.choice(INTERESTING) for _ in range(rng.randint(1, 3)))
        elif op == 3:
            del b[pos:]
        elif op == 4 and pos < len(b):
            del b[pos:pos + rng.randint(1, 8)]
        elif op == 5 and pos < len(b):
            end = min(len(b), pos + rng.randint(1, 16))
            b[end:end] = b[pos:end]
        elif op == 6:
            other = rng.choice(pool)
            if len(other) > 6:
                i = rng.randrange(6, len(other))
                j = min(len(other), i + rng.randint(1, 32))
                b[pos:pos + rng.randint(0, 8)] = other[i:j]
        elif op == 7 and len(b) >= 2:
            b[rng.randrange(2)] = rng.randrange(256)
        elif op == 8 and len(b) > 4:
            b[4] = rng.randrange(1, 64)  # the record count
    return bytes(b)


def loop(args, inputs, payloads):
    rng = random.Random(args.seed)
    pool = list(inputs)
    counts = collections.Counter()
    last = os.open(args.last, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) if args.last else None
    start = time.monotonic()
    findings = []
    n = 0
    while True:
        if args.runs is not None and n >= args.runs:
            break
        if args.seconds is not None and n % 64 == 0 and time.monotonic() - start > args.seconds:
            break
        data = inputs[n] if n < len(inputs) else mutate(rng, rng.choice(pool), pool)
        if last is not None:
            os.ftruncate(last, 0)
            os.pwrite(last, data, 0)
        n += 1
        try:
            outcome = run_one(data, payloads)
        except Finding as e:
            findings.append((data, str(e)))
            counts['finding'] += 1
            print(f'finding: {e}\n  input: {data.hex()}', flush=True)
            continue
        counts[outcome] += 1
        if outcome != 'refused' and n > len(inputs) and len(pool) < 5000:
            pool.append(data)
    elapsed = time.monotonic() - start
    print(f'fuzz_from_bytes: {n} execs in {elapsed:.1f} s ({n / max(elapsed, 1e-9):.0f}/s), '
          f'seed {args.seed}: {counts["used"]} used, {counts["loaded"]} loaded but a use refused, '
          f'{counts["refused"]} refused, '
          f'{counts["finding"]} findings; pool {len(pool)}')
    return 1 if findings else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seconds', type=float)
    ap.add_argument('--runs', type=int)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--last', help='file that holds the input being run')
    ap.add_argument('--atheris', action='store_true', help='atheris; the rest goes to libFuzzer')
    ap.add_argument('--replay', nargs='+', metavar='FILE')
    args, rest = ap.parse_known_args(argv)
    _register()
    old = grove.set_output_limit(10_000_000)
    try:
        return _run(args, rest)
    finally:
        grove.set_output_limit(old)


def _run(args, rest):
    payloads = seed_inputs()
    inputs = [bytes([i % 256, 0]) + p[1] for i, p in enumerate(payloads)]
    if args.replay:
        bad = 0
        for f in args.replay:
            with open(f, 'rb') as fh:
                try:
                    print(f, run_one(fh.read(), payloads))
                except Finding as e:
                    print(f, 'finding:', e)
                    bad = 1
        return bad
    if args.atheris:
        import atheris

        def one(data):
            try:
                run_one(data, payloads)
            except Finding as e:
                raise RuntimeError(str(e)) from None

        corpus = [a for a in rest if not a.startswith('-')]
        if corpus and not os.listdir(corpus[0]):
            for i, data in enumerate(inputs):  # the seeds, for an empty corpus
                with open(os.path.join(corpus[0], f'seed-{i:03d}'), 'wb') as fh:
                    fh.write(data)
        atheris.instrument_all()  # the package, pickle and this harness: Python coverage
        atheris.Setup([sys.argv[0], *rest], one)
        atheris.Fuzz()
        return 0
    if args.runs is None and args.seconds is None:
        args.runs = 2000
    return loop(args, inputs, payloads)


if __name__ == '__main__':
    sys.exit(main())
