# SPDX-License-Identifier: MIT
"""grove.mutate's private copy of a tree: its nodes (kinds, children, keys), the walks and
measures over it, and the keys equal across types that key-collide uses."""

import decimal
import fractions
import math

_LEAF, _NONE, _LIST, _TUPLE, _DICT, _ODICT, _DDICT, _DEQUE, _NT, _SS, _CUSTOM = range(11)
_VAR = frozenset({_LIST, _TUPLE, _DICT, _ODICT, _DDICT, _DEQUE})  # any number of children
_DICTS = frozenset({_DICT, _ODICT, _DDICT})


class _N:
    """A node of the private copy. k: kind; v: the leaf, a defaultdict's factory, a deque's
    maxlen, a namedtuple's or structseq's class, or (class, metadata, unflatten) of a
    registered class; keys: a dict's keys (a list); kids: the children (None for leaves)."""

    __slots__ = ('k', 'v', 'keys', 'kids')

    def __init__(self, k, v=None, keys=None, kids=None):
        self.k, self.v, self.keys, self.kids = k, v, keys, kids


def _copy(root):
    top = _N(root.k, root.v, None if root.keys is None else list(root.keys))
    stack = [(root, top)]
    while stack:
        a, b = stack.pop()
        if a.kids is None:
            continue
        b.kids = []
        for c in a.kids:
            d = _N(c.k, c.v, None if c.keys is None else list(c.keys))
            b.kids.append(d)
            stack.append((c, d))
    return top


def _walk(holder):
    """Preorder (node, parent, index, containers above) of the tree under holder."""
    out = []
    stack = [(holder.kids[0], holder, 0, 0)]
    while stack:
        e = stack.pop()
        out.append(e)
        n, d = e[0], e[3]
        if n.kids:
            for j in range(len(n.kids) - 1, -1, -1):
                stack.append((n.kids[j], n, j, d + 1))
    return out


def _measure(entries, start=0, end=None):
    """(nodes, depth) of entries[start:end] (a subtree in preorder), depth counted from it."""
    end = len(entries) if end is None else end
    base = entries[start][3]
    depth = 0
    for n, _, _, d in entries[start:end]:
        if n.kids is not None and d - base + 1 > depth:
            depth = d - base + 1
    return end - start, depth


def _spans(entries):
    """The end of every subtree of entries (in preorder), in one pass."""
    ends = [len(entries)] * len(entries)
    open_ = []
    for y, e in enumerate(entries):
        while open_ and entries[open_[-1]][3] >= e[3]:
            ends[open_.pop()] = y
        open_.append(y)
    return ends


def _eq(a, b):
    """a == b for keys, where a key's own __eq__ raising counts as equal (the candidate is
    dropped rather than risk a dict that merges keys)."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:
        return True


def _twins(k):
    """Keys equal to k (and hashing alike) of another type: 1 / 1.0 / True / Fraction(1) /
    Decimal(1) / (1+0j), 0 / -0.0 / False, tuples holding them."""
    t = type(k)
    out = []
    if t in (bool, int):
        if t is int and k in (0, 1):
            out.append(bool(k))
        if t is bool:
            out.append(int(k))
        if abs(k) <= 2**53:
            out += [float(k), complex(k)]
            if k == 0:
                out.append(-0.0)
        out += [fractions.Fraction(int(k)), decimal.Decimal(int(k))]
    elif t is float and math.isfinite(k):
        if k.is_integer():
            out += [int(k)] + ([bool(k)] if k in (0.0, 1.0) else [])
        if k == 0:
            out.append(-k)
        out.append(fractions.Fraction(k))
    elif t is complex and k.imag == 0 and math.isfinite(k.real):
        out.append(k.real)
    elif t is tuple:
        for j, x in enumerate(k):
            for y in _twins(x)[:2]:
                out.append(k[:j] + (y,) + k[j + 1:])
    return out
