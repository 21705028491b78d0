# SPDX-License-Identifier: MIT
"""The floor row: for one tree, the least work any engine must do for
tree_leaves / tree_flatten, tree_unflatten and tree_map (bench/python/floor.c
says what that is). Floor(tree) compiles the plans from the tree in grove's
order and checks the floor's answers against grove's (leaves by identity and
order; the rebuilt tree equal, with the same container types and key order)
before anything is timed."""

import array
import collections

try:
    import grove_floor
except ImportError:  # built by `make bench-python` only (-DGROVE_PY_FLOOR=ON)
    grove_floor = None

# the instruction codes of floor.c
ENTER_SEQ, ENTER_DICT, LEAF, EXIT = 0, 1, 2, 3
U_LEAF, U_NONE, U_LIST, U_TUPLE, U_NT, U_DICT, U_ODICT = 16, 17, 18, 19, 20, 21, 22

OPS = ('tree_flatten', 'tree_leaves', 'tree_unflatten', 'tree_map')


class Unsupported(Exception):
    """A node the floor has no plan for (then the row is left out)."""


def _is_namedtuple(t):
    return issubclass(t, tuple) and hasattr(t, '_fields') and hasattr(t, '_make')


class Floor:
    def __init__(self, tree):
        if grove_floor is None:
            raise Unsupported('grove_floor is not built here')
        self.objs, ix = [], {}

        def obj(o):
            k = id(o)
            if k not in ix:
                ix[k] = len(self.objs)
                self.objs.append(o)
            return ix[k]

        lp, up = [], []  # the leaves plan, the unflatten plan
        templates = {}
        nleaves = 0
        depth = scratch = 0
        # an explicit stack: (node, index in its parent's children, depth, scratch in use)
        # entries: ('visit', node, idx) or ('exit', ops-after)
        stack = [('visit', tree, 0, 0, 0)]
        while stack:
            e = stack.pop()
            if e[0] == 'exit':
                lp.append((EXIT, 0, 0, 0))
                up.append(e[1])
                continue
            _, node, idx, d, sc = e
            depth, scratch = max(depth, d + 1), max(scratch, sc)
            t = type(node)
            if node is None:
                up.append((U_NONE, 0, 0, 0))
                continue
            if t is list or t is tuple or (t is not tuple and _is_namedtuple(t)):
                kids = list(node)
                if not kids:
                    raise Unsupported('empty containers')
                lp.append((ENTER_SEQ, idx, obj(t), 0))
                after = ((U_LIST if t is list else U_TUPLE if t is tuple else U_NT),
                         len(kids), obj(t) if t not in (list, tuple) else 0, 0)
                order = list(range(len(kids)))
                nsc = sc
            elif t is dict or t is collections.OrderedDict:
                keys = list(node)
                if not keys:
                    raise Unsupported('empty containers')
                if t is dict:
                    order = sorted(range(len(keys)), key=lambda i: keys[i])
                    # one template per key set, its keys sorted (values None); the r-th
                    # value in traversal order goes to the copy's entry order[r]
                    sk = tuple(keys[i] for i in order)
                    tm = templates.setdefault(sk, dict.fromkeys(sk))
                    perm = array.array('I', order).tobytes()
                    after = (U_DICT, len(keys), obj(tm), obj(perm))
                else:
                    order = list(range(len(keys)))
                    after = (U_ODICT, len(keys), obj(tuple(keys)), 0)
                lp.append((ENTER_DICT, idx, obj(t), len(keys)))
                kids = [node[keys[i]] for i in order]
                nsc = sc + 2 * len(keys)
            else:  # a leaf (check() finds out when grove thinks otherwise)
                lp.append((LEAF, idx, 0, 0))
                up.append((U_LEAF, 0, 0, 0))
                nleaves += 1
                continue
            stack.append(('exit', after))
            for r in reversed(range(len(kids))):
                stack.append(('visit', kids[r], order[r], d + 1, nsc))
        self.lcode = array.array('i', [w for x in lp for w in x]).tobytes()
        self.ucode = array.array('i', [w for x in up for w in x]).tobytes()
        self.objs = tuple(self.objs)
        self.nleaves, self.scratch, self.depth = nleaves, scratch, depth + 1
        h = self.height = 0  # the unflatten value stack's greatest height
        for op, a, _, _ in up:
            h = h + 1 if op in (U_LEAF, U_NONE) else h - a + 1
            self.height = max(self.height, h)
        self.tree = tree

    def leaves(self, t):
        return grove_floor.leaves(self.lcode, self.objs, t, self.nleaves, self.scratch, self.depth)

    def unflatten(self, leaves):
        return grove_floor.unflatten(self.ucode, self.objs, leaves, self.height)

    def map(self, f, t):
        return grove_floor.map(self.lcode, self.ucode, self.objs, f, t, self.nleaves,
                               self.scratch, self.depth, self.height)

    def check(self, grove):
        """The floor's answers are grove's (else Unsupported says where they differ)."""
        t = self.tree
        want = grove.tree_leaves(t)
        got = self.leaves(t)
        if len(got) != len(want) or any(a is not b for a, b in zip(got, want)):
            raise Unsupported('its leaves are not grove\'s')
        spec = grove.tree_structure(t)
        fresh = [object() for _ in want]
        a, b = self.unflatten(fresh), spec.unflatten(fresh)
        if not same(a, b):
            raise Unsupported('its unflatten is not grove\'s')
        f = lambda x: [x]  # noqa: E731
        if not same(self.map(f, t), grove.tree_map(f, t)):
            raise Unsupported('its map is not grove\'s')

    def ops(self):
        t = self.tree
        leaves = self.leaves(t)
        return {
            'tree_flatten': ('f(t)', {'f': self.leaves, 't': t}),
            'tree_leaves': ('f(t)', {'f': self.leaves, 't': t}),
            'tree_unflatten': ('f(l)', {'f': self.unflatten, 'l': leaves}),
            'tree_map': ('f(g, t)', {'f': self.map, 't': t, 'g': lambda x: x}),
        }


def same(a, b):
    """Equal trees of the same container types and key orders (by identity at the leaves);
    keras_torch.py and the canonicalize rows compare results with it too."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, (list, tuple)):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif x is not y:
            return False
    return True
