# SPDX-License-Identifier: MIT
"""Tree kinds shared by the tests: registered classes (in grove and in optree
alike), namedtuples, structseqs, and a deep structural comparison."""

import collections
import enum
import time

import grove

try:
    import optree
except ImportError:  # the refleak tool runs on a debug interpreter without it
    optree = None

NS = 'grove-test'


class Color(enum.Enum):
    RED = 1
    GREEN = 2


Point = collections.namedtuple('Point', ['x', 'y'])
Triple = collections.namedtuple('Triple', ['a', 'b', 'c'])


class Box:
    """A custom node with metadata and path entries (registered in NS)."""

    def __init__(self, kids, meta):
        self.kids = list(kids)
        self.meta = meta

    def __eq__(self, other):
        return type(other) is Box and self.kids == other.kids and self.meta == other.meta

    def __repr__(self):
        return f'Box({self.kids!r}, {self.meta!r})'


def box_flatten(b):
    return b.kids, b.meta, tuple(f'k{i}' for i in range(len(b.kids)))


def box_unflatten(meta, kids):
    return Box(kids, meta)


class Pod:
    """A custom node without entries (registered globally)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __eq__(self, other):
        return type(other) is Pod and (self.a, self.b) == (other.a, other.b)

    def __repr__(self):
        return f'Pod({self.a!r}, {self.b!r})'


def pod_flatten(p):
    return (p.a, p.b), None


def pod_unflatten(meta, kids):
    return Pod(*kids)


_registered = False


def register_all():
    global _registered
    if _registered:
        return
    _registered = True
    grove.register_pytree_node(Box, box_flatten, box_unflatten, namespace=NS)
    grove.register_pytree_node(Pod, pod_flatten, pod_unflatten, namespace=grove.GLOBAL_NAMESPACE)
    if optree is None:
        return
    optree.register_pytree_node(Box, box_flatten, box_unflatten, namespace=NS)
    optree.register_pytree_node(Pod, pod_flatten, pod_unflatten,
                                namespace=getattr(optree.registry, '__GLOBAL_NAMESPACE'))


def struct_time(vals):
    return time.struct_time(tuple(vals) + (0,) * (9 - len(vals)))


def deep_eq(a, b):
    """Structural equality that also checks exact types, dict insertion order,
    deque maxlen and defaultdict factory (iterative)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            if list(x.keys()) != list(y.keys()):
                return False
            if isinstance(x, collections.defaultdict) and x.default_factory != y.default_factory:
                return False
            stack.extend(zip(x.values(), y.values()))
        elif isinstance(x, (list, tuple)):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, collections.deque):
            if x.maxlen != y.maxlen or len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, Box):
            if x.meta != y.meta or len(x.kids) != len(y.kids):
                return False
            stack.extend(zip(x.kids, y.kids))
        elif isinstance(x, Pod):
            stack.extend([(x.a, y.a), (x.b, y.b)])
        elif x != y and not (x is y):
            return False
    return True


def spec_repr(spec):
    """A spec's repr (grove and optree both say PyTreeSpec(...))."""
    return repr(spec)
