# SPDX-License-Identifier: MIT
"""Threads: 8 threads run every public function (canonicalize included) on
shared trees while a ninth changes the memory limit (each change starts a new
generation and lets the current one go) and the registry, with the switch
interval at 1 microsecond so that threads change at nearly every bytecode.
The run is bounded in time: GROVE_STRESS_SECONDS (default 3) in a child
process (a crash shows as a signal). Every result is checked against the
answer computed before the threads start; errors other than the ones the
registry changes explain fail the run."""

import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r'''
import collections, enum, itertools, sys, threading, time, traceback
import grove, grove.keras as gk

SECONDS = float(sys.argv[1])
sys.setswitchinterval(1e-6)


class Color(enum.IntEnum):
    RED = 1


class Box:
    def __init__(self, v, m):
        self.v, self.m = v, m

    def __eq__(self, o):
        return isinstance(o, Box) and self.v == o.v and self.m == o.m


class Flip:  # registered and unregistered over and over by the changer
    def __init__(self, v):
        self.v = v


grove.register_pytree_node(Box, lambda b: ([b.v], b.m), lambda m, c: Box(c[0], m),
                           namespace='stress')
grove.register_pytree_node(Box, lambda b: ([b.v], b.m), lambda m, c: Box(c[0], m),
                           namespace=gk.NAMESPACE)
Point = collections.namedtuple('Point', 'x y')


def make_tree(i):
    return {
        'b': [i, (i + 1, None)],
        'a': collections.OrderedDict(z=i, y=[i, i]),
        (i, 'k'): collections.deque([i], maxlen=3),
        'd': collections.defaultdict(list, {'q': i, 'p': Point(i, [i])}),
        'box': Box([i, {'n': i}], ('meta', i)),
        'e': {Color.RED: i, 10**20: i},
    }


TREES = [make_tree(i) for i in range(6)]
KW = {'namespace': 'stress'}
EXPECT = {}
for i, t in enumerate(TREES):
    leaves, spec = grove.tree_flatten(t, **KW)
    EXPECT[i] = (leaves, spec, grove.canonicalize(t)[0], gk.flatten(t), spec.paths())

errors = []
stop = time.monotonic() + SECONDS
counts = collections.Counter()


def check(cond, what):
    if not cond:
        errors.append(what)


def worker(seed):
    rng = itertools.count(seed)
    while time.monotonic() < stop:
        i = next(rng) % len(TREES)
        t = TREES[i]
        leaves0, spec0, canon0, kflat0, paths0 = EXPECT[i]
        try:
            leaves, spec = grove.tree_flatten(t, **KW)
            check(leaves == leaves0, 'tree_flatten')
            check(grove.tree_leaves(t, **KW) == leaves0, 'tree_leaves')
            check(grove.tree_structure(t, **KW) == spec0, 'tree_structure')
            # a Flip is a leaf or a node, as the changer registers it
            f = Flip(i)
            fl, fs = grove.tree_flatten([f, i], **KW)
            check(fl in ([f, i], [i, i]), 'flip')
            check(type(fs.unflatten([0, 0])[0]) in (int, Flip), 'flip unflatten')
            back = grove.tree_unflatten(spec, leaves)
            check(grove.tree_leaves(back, **KW) == leaves, 'tree_unflatten')
            check(grove.tree_map(lambda x: x, t, **KW)['a'] == t['a'], 'tree_map')
            check(grove.tree_map(lambda x, y: x, t, t, **KW)['b'] == t['b'], 'tree_map two')
            out, changed = grove.canonicalize(t)
            check(list(out) == list(canon0) and changed, 'canonicalize')
            check(hash(spec) == hash(spec0), 'hash')
            check(spec.paths() == paths0, 'paths')
            check(spec.flatten_up_to(t) == leaves0, 'flatten_up_to')
            repr(spec)
            grove.TreeSpec.from_bytes(grove.tree_structure(t['b']).to_bytes())
            grove.tree_flatten_with_path(t, **KW)
            grove.tree_map_with_path(lambda p, x: x, t['d'], **KW)
            grove.tree_is_leaf(t, **KW)
            grove.tree_flatten_one_level(t, **KW)
            grove.tree_reduce(lambda a, b: 0, t['b'], 0)
            grove.tree_all(t['b']), grove.tree_any(t['b']), list(grove.tree_iter(t['b']))
            grove.tree_broadcast_prefix([1, 2], [[1, 2], (3,)])
            grove.tree_transpose(grove.tree_structure([0, 0]), grove.tree_structure((0, 0)),
                                 [(1, 2), (3, 4)])
            check(gk.flatten(t) == kflat0, 'keras flatten')
            gk.flatten_with_path(t)
            gk.map_structure(lambda x: x, t)
            gk.map_structure(lambda x, y: x, t['b'], t['b'])
            gk.map_structure_up_to(t['a'], lambda x: x, t['a'])
            gk.assert_same_structure(t, t)
            gk.assert_same_paths(t, t)
            gk.pack_sequence_as(t['b'], [1, 2, None])
            gk.traverse(lambda x: None, t)
            gk.lists_to_tuples(t)
            gk.map_shape_structure(lambda x: x, t['b'])
            gk.is_nested(t)
            gk.canonicalize(t)
            counts['rounds'] += 1
        except (ValueError, TypeError) as e:
            # the changer unregisters Flip between a flatten and its use
            if 'Flip' not in str(e) and 'registered' not in str(e) and 'mismatch' not in str(e):
                errors.append(traceback.format_exc())
        except Exception:
            errors.append(traceback.format_exc())


def changer():
    limits = itertools.cycle([1 << 20, 4 << 20, 128 << 20, 2 << 20])
    registered = False
    while time.monotonic() < stop:
        grove.set_memory_limit(next(limits))
        if registered:
            grove.unregister_pytree_node(Flip, namespace='stress')
        else:
            grove.register_pytree_node(Flip, lambda f: ([f.v], None), lambda m, c: Flip(c[0]),
                                       namespace='stress')
        registered = not registered
        grove.memory_stats()
        counts['changes'] += 1
        time.sleep(0.001)


threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
threads.append(threading.Thread(target=changer))
for th in threads:
    th.start()
for th in threads:
    th.join()
grove.set_memory_limit(128 << 20)
if errors:
    print(len(errors), 'errors; the first kinds:')
    for e in sorted(set(e.splitlines()[-1] for e in errors))[:5]:
        print(e)
    print(errors[0])
    sys.exit(1)
print('ok', counts['rounds'], counts['changes'])
'''


def test_threads_stress():
    seconds = float(os.environ.get('GROVE_STRESS_SECONDS', '3'))
    p = subprocess.run([sys.executable, '-c', textwrap.dedent(CHILD), str(seconds)],
                       capture_output=True, text=True, timeout=120 + 3 * seconds, cwd=HERE)
    assert p.returncode == 0, f'child exited {p.returncode}\n{p.stdout}\n{p.stderr[-3000:]}'
    words = p.stdout.split()
    assert words[0] == 'ok' and int(words[1]) > 0 and int(words[2]) > 0, p.stdout
