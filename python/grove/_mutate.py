# SPDX-License-Identifier: MIT
"""grove.mutate: a structure-aware mutator of Python pytrees, for fuzzers.

One call makes one mutation, drawn from a seed: a leaf changed by its Python type, the
structure changed (a subtree inserted, deleted, duplicated, swapped, moved, wrapped or
unwrapped; a container's kind changed; dict keys reordered, renamed or replaced by equal keys
of another type), or a subtree of a second tree spliced in. The tree is read as grove reads
it (the registry of `namespace`, `none_is_leaf`, `is_leaf`) into a private copy, mutated
there and built anew: registered classes through their unflatten functions, the input never
touched. Every walk is a loop (no recursion), and the result never has more than max_nodes
nodes nor more than max_depth containers on one path. docs/python.md describes it."""

import collections
import fractions
import math
import random
import sys

from grove import _grove
from grove._mutate_nodes import (  # noqa: F401 (the private copy; all its kinds)
    _CUSTOM, _DDICT, _DEQUE, _DICT, _DICTS, _LEAF, _LIST, _NONE, _NT, _ODICT, _SS, _TUPLE, _VAR,
    _N, _copy, _walk, _measure, _spans, _eq, _twins)

LEAF_MUTATIONS = ('int', 'float', 'str', 'bytes', 'bool', 'none', 'leaf-kind')
STRUCTURE_MUTATIONS = ('insert', 'delete', 'duplicate', 'swap', 'move', 'container-kind',
                       'key-order', 'key-rename', 'key-collide', 'deepen', 'flatten')
CROSSOVER_MUTATIONS = ('cross-replace', 'cross-insert')
MUTATIONS = LEAF_MUTATIONS + STRUCTURE_MUTATIONS + CROSSOVER_MUTATIONS
_LEAF_KINDS = frozenset(LEAF_MUTATIONS)

_MAX_TRIES = 16
_MAX_NT_ARITY = 16  # container-kind makes namedtuples of up to this many fields

# values at and around boundaries
from grove._mutate_values import (  # noqa: E402
    _BYTES, _CODEPOINTS, _FLOATS, _INTERESTING_BYTES, _INTS, _STRS, _bits_float, _float_bits)


# namedtuple classes for container-kind, one per arity (module attributes, so that a
# TreeSpec holding one pickles)
_NT_CLASSES = {}


def _nt_class(arity):
    cls = _NT_CLASSES.get(arity)
    if cls is None:
        name = f'Mutant{arity}'
        cls = collections.namedtuple(name, [f'f{i}' for i in range(arity)], module=__name__)
        globals()[name] = cls
        cls = _NT_CLASSES.setdefault(arity, cls)
    return cls


def __getattr__(name):
    """grove._mutate.MutantN, made on first use (so that pickles of them load anywhere)."""
    if name.startswith('Mutant') and name[6:].isdigit() and int(name[6:]) <= _MAX_NT_ARITY:
        return _nt_class(int(name[6:]))
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


class _Mutator:
    def __init__(self, seed, kinds, max_nodes, max_depth, max_leaf_size, is_leaf, none_is_leaf,
                 namespace, json):
        self.rng = random.Random(seed * 2 if seed >= 0 else -seed * 2 - 1)
        self.kinds, self.max_nodes, self.max_depth = kinds, max_nodes, max_depth
        self.restricted = len(kinds) < len(MUTATIONS)
        self.max_leaf = max_leaf_size
        self.is_leaf, self.none_is_leaf, self.namespace, self.json = (is_leaf, none_is_leaf,
                                                                     namespace, json)
        self.templates = []  # (kind, v, arity) of namedtuples, structseqs, registered classes
        self.factories = [list, int, dict, None]

    # ---- reading a tree into the private copy, within the bounds ----

    def load(self, tree):
        """The tree as _N nodes under a holder; and whether it had to be cut to the bounds
        (a container deeper than max_depth, or one whose children would pass max_nodes, is
        None; a list, tuple, dict or deque loses the children past max_nodes)."""
        budget = self.max_nodes - 1
        holder = _N(_LIST, kids=[None])
        cut = False
        work = [(holder, 0, tree, 0)]
        while work:
            parent, j, obj, depth = work.pop()
            kind = _grove._is_leaf(obj, self.is_leaf, none_is_leaf=self.none_is_leaf,
                                   namespace=self.namespace)
            if kind == _LEAF:
                parent.kids[j] = _N(_LEAF, obj)
                continue
            if kind == _NONE or depth >= self.max_depth:
                cut |= kind != _NONE
                parent.kids[j] = _N(_NONE)
                continue
            kids, keys, v = self._children(obj, kind)
            if len(kids) > budget:
                cut = True
                if kind not in _VAR:
                    parent.kids[j] = _N(_NONE)
                    continue
                kids = kids[:budget]
                keys = None if keys is None else keys[:budget]
            budget -= len(kids)
            n = parent.kids[j] = _N(kind, v, keys, [None] * len(kids))
            if kind in (_NT, _SS, _CUSTOM):
                self.templates.append((kind, v, len(kids)))
            elif kind == _DDICT and v not in self.factories:
                self.factories.append(v)
            for i in range(len(kids) - 1, -1, -1):
                work.append((n, i, kids[i], depth + 1))
        return holder, cut

    def _children(self, obj, kind):
        if kind in (_LIST, _TUPLE):
            return list(obj), None, None
        if kind in _DICTS:
            items = list(obj.items() if kind == _ODICT else dict.items(obj))
            return ([v for _, v in items], [k for k, _ in items],
                    obj.default_factory if kind == _DDICT else None)
        if kind == _DEQUE:
            return list(obj), None, obj.maxlen
        if kind in (_NT, _SS):
            return list(obj), None, type(obj)
        import grove  # (the package imports this module)
        kids, meta, _, unflatten = grove._flatten_one_level(obj, None, self.none_is_leaf,
                                                            self.namespace)
        return list(kids), None, (type(obj), meta, unflatten)

    # ---- building the result ----

    @staticmethod
    def build(root):
        order = []
        stack = [root]
        while stack:
            n = stack.pop()
            if n.kids is not None:
                order.append(n)
                stack.extend(n.kids)
        vals = {}
        for n in reversed(order):
            kids = [vals[id(c)] if c.kids is not None else c.v for c in n.kids]
            k = n.k
            if k == _LIST:
                val = kids
            elif k == _TUPLE:
                val = tuple(kids)
            elif k == _DICT:
                val = dict(zip(n.keys, kids))
            elif k == _ODICT:
                val = collections.OrderedDict(zip(n.keys, kids))
            elif k == _DDICT:
                val = collections.defaultdict(n.v, zip(n.keys, kids))
            elif k == _DEQUE:
                val = collections.deque(kids, n.v)
            elif k == _NT:
                val = n.v(*kids)
            elif k == _SS:
                val = n.v(kids)
            else:
                val = n.v[2](n.v[1], kids)
            vals[id(n)] = val
        return vals[id(root)] if root.kids is not None else root.v

    # ---- new values ----

    def _fits(self, s):
        return len(s) <= self.max_leaf

    def new_int(self, v=None):
        r = self.rng
        c = r.randrange(8) if v is not None else 0
        if c <= 2:
            out = r.choice(_INTS)
            out = out + r.choice((0, 0, 0, 1, -1)) if abs(out) < 10**4000 else out
        elif c == 3:
            out = v + r.choice((1, -1)) * r.randint(1, 16)
        elif c == 4:
            out = v ^ (1 << r.randrange(max(64, v.bit_length() + 1)))
        elif c == 5:
            out = -v
        elif c == 6:
            out = v * 2 if v.bit_length() < 4096 else v // 2
        else:
            out = (1 << max(0, v.bit_length() - r.choice((0, 1)))) * r.choice((1, -1))
        return out

    @staticmethod
    def new_bool(v):
        return not v

    def new_float(self, v=None):
        r = self.rng
        c = r.randrange(7) if v is not None else 0
        if c <= 2:
            out = r.choice(_FLOATS)
        elif c == 3:
            out = math.nextafter(v, r.choice((math.inf, -math.inf)))
        elif c == 4:
            out = _bits_float(_float_bits(v) ^ (1 << r.randrange(64)))
        else:
            out = r.choice((v * 2, v / 2, -v))
        if self.json and not math.isfinite(out):  # (JSON has no NaN nor inf)
            out = r.choice((0.5, -0.0, 1e300, 5e-324, sys.float_info.max))
        return out

    def new_str(self, v=None):
        r = self.rng
        c = r.randrange(9) if v else r.randrange(2) * 8
        if c == 0:
            out = r.choice(_STRS)
        elif c == 1:  # cut
            out = v[:r.randrange(len(v))] if r.random() < 0.5 else v[r.randrange(len(v)) + 1:]
        elif c == 2:  # a code point deleted
            i = r.randrange(len(v))
            out = v[:i] + v[i + 1:]
        elif c == 3:  # replaced
            i = r.randrange(len(v))
            out = v[:i] + r.choice(_CODEPOINTS) + v[i + 1:]
        elif c == 4 and len(v) > 1:  # swapped with its neighbour
            i = r.randrange(len(v) - 1)
            out = v[:i] + v[i + 1] + v[i] + v[i + 2:]
        elif c == 5:  # a run repeated
            i = r.randrange(len(v))
            j = r.randint(i + 1, len(v))
            out = v[:j] + v[i:j] * r.randint(1, 8) + v[j:]
        elif c == 6:
            out = r.choice((v.upper(), v.lower(), v.swapcase(), v[::-1]))
        else:  # inserted
            i = r.randint(0, len(v or ''))
            out = (v or '')[:i] + r.choice(_CODEPOINTS) + (v or '')[i:]
        if not self._fits(out):
            out = out[:self.max_leaf]
        if self.json:  # a surrogate pair is one code point in JSON text: make it one here
            out = out.encode('utf-16-le', 'surrogatepass').decode('utf-16-le', 'surrogatepass')
        return out

    def new_bytes(self, v=None):
        r = self.rng
        c = r.randrange(8) if v else r.randrange(2) * 7
        if c == 0:
            out = r.choice(_BYTES)
        elif c == 1:
            out = v[:r.randrange(len(v))]
        elif c == 2:
            i = r.randrange(len(v))
            out = v[:i] + v[i + 1:]
        elif c == 3:
            i = r.randrange(len(v))
            out = v[:i] + bytes([r.choice(_INTERESTING_BYTES + (r.randrange(256),))]) + v[i + 1:]
        elif c == 4:
            i = r.randrange(len(v))
            out = v[:i] + bytes([v[i] ^ (1 << r.randrange(8))]) + v[i + 1:]
        elif c == 5:
            i = r.randrange(len(v))
            j = r.randint(i + 1, len(v))
            out = v[:j] + v[i:j] * r.randint(1, 8) + v[j:]
        else:
            i = r.randint(0, len(v or b''))
            out = (v or b'')[:i] + bytes([r.choice(_INTERESTING_BYTES)]) + (v or b'')[i:]
        return out[:self.max_leaf]

    def new_scalar(self):
        r = self.rng
        make = r.choice((self.new_int, self.new_float, self.new_str, r.random, None, None)
                        + (() if self.json else (self.new_bytes,)))
        if make is None:
            return r.choice((None, True, False, 0, 1, -1, '', 'a', 1.5))
        return make() if make is not r.random else r.random() < 0.5

    def new_key(self, keys, avoid=()):
        """A key equal to none of keys (the json option: a str)."""
        r = self.rng
        for _ in range(8):
            c = 0 if self.json else r.randrange(8)
            if c <= 2:
                k = r.choice(('a', 'b', 'k', '', 'key', '0')) + (str(r.randrange(100))
                                                                if r.random() < 0.5 else '')
                if r.random() < 0.3:
                    k = self.new_str(k)
            elif c == 3:
                k = self.new_int()
            elif c == 4:
                k = r.choice((0.5, -0.0, math.nan, math.inf, 1e-300))
            elif c == 5:
                k = r.choice((None, True, False, b'k', (), (1, 'a'), frozenset({1})))
            elif c == 6:
                k = (self.new_int(), 'x')
            else:
                k = self.new_bytes(b'k')
            if not any(_eq(k, o) for o in keys) and not any(_eq(k, o) for o in avoid):
                return k
        return None

    def new_container(self, kind, kids, keys=None):
        """A container of kind holding kids (keys made up for a dict kind without them), or None
        if kind cannot hold that many."""
        r = self.rng
        if kind in _DICTS:
            if keys is None:
                keys = []
                for _ in kids:
                    k = self.new_key(keys)
                    if k is None:
                        return None
                    keys.append(k)
            v = r.choice(self.factories) if kind == _DDICT else None
            return _N(kind, v, keys, kids)
        if kind == _DEQUE:
            return _N(kind, r.choice((None, None, len(kids), len(kids) + 1, 8)), None, kids)
        if kind == _NT:
            if len(kids) > _MAX_NT_ARITY:
                return None
            return _N(kind, _nt_class(len(kids)), None, kids)
        if kind in (_LIST, _TUPLE):
            return _N(kind, None, None, kids)
        return None

    def container_kinds(self):
        return (_LIST, _DICT) if self.json else (_LIST, _TUPLE, _DICT, _ODICT, _DDICT, _DEQUE,
                                                 _NT)

    # ---- choosing and making one mutation ----

    def options(self, e, entries, holder, other):
        n, p = e[0], e[1]
        k = n.k
        top = p is holder
        out = []
        if k == _LEAF:
            own = {int: 'int', float: 'float', str: 'str', bytes: 'bytes',
                   bool: 'bool'}.get(type(n.v), 'none' if n.v is None else None)
            out += [own, 'leaf-kind'] if own else ['leaf-kind']
        elif k == _NONE:
            out.append('none')
        if not top and p.k in _VAR:
            out += ['delete', 'duplicate', 'move']
        if not top:
            out.append('swap')
        if k in _VAR:
            out.append('insert')
            if other is not None:
                out.append('cross-insert')
        if k != _LEAF:
            out.append('container-kind')
        if k in _DICTS and n.kids:
            out += ['key-rename'] + (['key-order'] if len(n.kids) > 1 else [])
        if (k in _DICTS and any(map(_twins, n.keys))) or (not top and p.k in _DICTS
                                                          and _twins(p.keys[e[2]])):
            out.append('key-collide')
        if not top and p.k in _DICTS and 'key-rename' not in out:
            out.append('key-rename')
        out.append('deepen')
        if n.kids:
            out.append('flatten')
        if other is not None:
            out.append('cross-replace')
        return [m for m in out if m in self.kinds]

    def mutate(self, rep, other):
        """(holder, kind): a mutated copy of the holder rep; (None, None) if none was found."""
        r = self.rng
        other_entries = _walk(other) if other is not None else None
        for _ in range(_MAX_TRIES):
            holder = _copy(rep)
            entries = _walk(holder)
            if self.restricted:  # a node where a kind of the few applies
                xs = [y for y in range(len(entries))
                      if self.options(entries[y], entries, holder, other)]
                if not xs:
                    return None, None
                x = r.choice(xs)
            else:
                x = r.randrange(len(entries))
            opts = self.options(entries[x], entries, holder, other)
            if not opts:
                continue
            weights = [4 if m in _LEAF_KINDS else 1 for m in opts]
            kind = r.choices(opts, weights)[0]
            if kind in ('int', 'float', 'str', 'bytes', 'bool'):
                if not self.leaf(kind, entries[x][0]):
                    continue
            elif not getattr(self, 'm_' + kind.replace('-', '_'))(x, entries, other_entries):
                continue
            nodes, depth = _measure(_walk(holder))
            if nodes <= self.max_nodes and depth <= self.max_depth:
                return holder, kind
        return None, None

    @staticmethod
    def _put(e, new):
        e[1].kids[e[2]] = new

    def leaf(self, kind, n):
        """n's leaf changed by its type (int, float, str, bytes, bool); whether it changed."""
        new = getattr(self, 'new_' + kind)(n.v)
        if type(new) is float and _float_bits(new) == _float_bits(n.v):
            return False
        if type(new) is not float and new == n.v:
            return False
        n.v = new
        return True

    def m_none(self, x, entries, _o):
        r = self.rng
        choices = (0, False, '', 0.0) if self.json else (0, False, '', b'', 0.0, Ellipsis, 0j)
        if r.random() < 0.3:
            new = self.new_container(r.choice(self.container_kinds()), [])
        else:
            new = _N(_LEAF, r.choice(choices))
        self._put(entries[x], new)
        return True

    def m_leaf_kind(self, x, entries, _o):
        r = self.rng
        v = entries[x][0].v
        cands = [None, True, False, 0, 1, -1, 1.0, 0.5, '', '1', 'None']
        if not self.json:
            cands += [b'', b'1', 1j, Ellipsis, math.nan, fractions.Fraction(1, 3)]
        for conv in (int, float, str, bool) + (() if self.json else (complex, bytes)):
            try:
                c = conv(v) if conv is not bytes else str(v).encode('utf-8', 'surrogatepass')
                if type(c) not in (str, bytes) or self._fits(c):
                    cands.append(c)
            except Exception:
                pass
        cands = [c for c in cands if type(c) is not type(v)
                 and (not self.json or type(c) is not float or math.isfinite(c))
                 and (type(c) not in (str, bytes) or self._fits(c))]
        entries[x][0].v = r.choice(cands)
        return True

    def m_insert(self, x, entries, _o):
        r = self.rng
        n = entries[x][0]
        c = r.random()
        if c < 0.5:
            sub = _N(_LEAF, self.new_scalar())
        elif c < 0.7:
            sub = self.new_container(r.choice(self.container_kinds()), [])
        else:
            sub = _copy(entries[r.randrange(len(entries))][0])
        return self._insert_into(n, sub, r.randint(0, len(n.kids)))

    def _insert_into(self, n, sub, i, key=None):
        if n.k in _DICTS:
            if key is None or any(_eq(key, o) for o in n.keys):
                key = self.new_key(n.keys)
                if key is None:
                    return False
            n.keys.insert(i, key)
        n.kids.insert(i, sub)
        return True

    def m_delete(self, x, entries, _o):
        _, p, i, _ = entries[x]
        del p.kids[i]
        if p.keys is not None:
            del p.keys[i]
        return True

    def m_duplicate(self, x, entries, _o):
        n, p, i, _ = entries[x]
        return self._insert_into(p, _copy(n), i + 1)

    def m_swap(self, x, entries, _o):
        r = self.rng
        n, p, i, _ = entries[x]
        if len(p.kids) > 1 and r.random() < 0.5:
            j = r.choice([j for j in range(len(p.kids)) if j != i])
            m = p.kids[j]
            p.kids[i], p.kids[j] = m, n
        else:  # with a subtree elsewhere, neither inside the other
            ends = _spans(entries)
            cands = [y for y in range(len(entries))
                     if (y < x or y >= ends[x]) and not y < x < ends[y]]
            if not cands:
                return False
            m, q, j, _ = entries[r.choice(cands)]
            p.kids[i], q.kids[j] = m, n
        return not (m.k == n.k == _LEAF and type(m.v) is type(n.v) and _eq(m.v, n.v))

    def m_move(self, x, entries, _o):
        r = self.rng
        n, p, i, _ = entries[x]
        end = _spans(entries)[x]
        cands = [y for y in range(len(entries)) if (y < x or y >= end)
                 and entries[y][0].k in _VAR]
        if not cands:
            return False
        q = entries[r.choice(cands)][0]
        key = p.keys[i] if p.keys is not None else None
        self.m_delete(x, entries, None)
        return self._insert_into(q, n, r.randint(0, len(q.kids)), key) and (q is not p
                                                                             or len(q.kids) > 1)

    def m_container_kind(self, x, entries, _o):
        r = self.rng
        e = entries[x]
        n = e[0]
        kids = n.kids or []
        targets = [k for k in self.container_kinds() if k != n.k or k == _DEQUE]
        targets += [None] if n.k != _NONE else []
        if not self.json:
            targets += [t for t in self.templates if t[2] == len(kids)]
        t = r.choice(targets)
        if t is None:
            new = _N(_NONE)
        elif isinstance(t, tuple):
            new = _N(t[0], t[1], None, kids)
        else:
            new = self.new_container(t, kids, n.keys if t in _DICTS else None)
            if new is None or (new.k == n.k and new.v == n.v):
                return False
        self._put(e, new)
        return True

    def m_key_order(self, x, entries, _o):
        n = entries[x][0]
        order = list(range(len(n.kids)))
        self.rng.shuffle(order)
        if order == sorted(order):
            order = order[1:] + order[:1]
        n.keys = [n.keys[j] for j in order]
        n.kids = [n.kids[j] for j in order]
        return True

    def _rekey(self, n, j, new):
        if new is None or any(_eq(new, o) for i, o in enumerate(n.keys) if i != j):
            return False
        if type(new) is type(n.keys[j]) and _eq(new, n.keys[j]):
            return False
        n.keys[j] = new
        return True

    def _key_site(self, x, entries, ok=lambda k: True):
        """(dict, index) of a key of the dict at x, or else of x's own key in its parent."""
        n, p, i, _ = entries[x]
        js = [j for j in range(len(n.keys)) if ok(n.keys[j])] if n.k in _DICTS else []
        if js and (p.k not in _DICTS or x == 0 or self.rng.random() < 0.5 or not ok(p.keys[i])):
            return n, self.rng.choice(js)
        return p, i

    def m_key_rename(self, x, entries, _o):
        r = self.rng
        n, j = self._key_site(x, entries)
        old = n.keys[j]
        c = r.randrange(3)
        if c == 0:
            new = self.new_key(n.keys)
        elif c == 1:
            make = {int: self.new_int, str: self.new_str, bytes: self.new_bytes,
                    float: self.new_float}.get(type(old))
            new = make(old) if make is not None else self.new_key(n.keys)
        else:
            pool = [k for e in entries if e[0].keys for k in e[0].keys]
            new = r.choice(pool)
        if self.json and type(new) is not str:
            return False
        return self._rekey(n, j, new)

    def m_key_collide(self, x, entries, _o):
        if self.json:
            return False
        n, j = self._key_site(x, entries, _twins)
        twin = self.rng.choice(_twins(n.keys[j]))
        if any(_eq(twin, o) for i, o in enumerate(n.keys) if i != j):
            return False
        n.keys[j] = twin
        return True

    def m_deepen(self, x, entries, _o):
        r = self.rng
        e = entries[x]
        end = _spans(entries)[x]
        nodes, depth = _measure(entries, x, end)
        room = min(self.max_depth - e[3] - depth, self.max_nodes - len(entries))
        if room < 1:
            return False
        levels = 1 if r.random() < 0.75 else r.randint(1, room)
        wrappers = list(self.container_kinds())
        if not self.json:
            wrappers += [t for t in self.templates if t[2] == 1]
        w = r.choice(wrappers)
        sub = e[0]
        for _ in range(levels):
            if isinstance(w, tuple):
                sub = _N(w[0], w[1], None, [sub])
            else:
                sub = self.new_container(w, [sub])
                if sub is None:
                    return False
        self._put(e, sub)
        return True

    def m_flatten(self, x, entries, _o):
        r = self.rng
        n, p, i, _ = entries[x]
        if n.k in _VAR and p.k in _VAR and p is not entries[0][1] and r.random() < 0.5:
            # n's children spliced into p in its place
            keys = None
            if p.k in _DICTS:
                keys = []
                others = p.keys[:i] + p.keys[i + 1:]
                for j in range(len(n.kids)):
                    k = n.keys[j] if n.keys is not None else None
                    if k is None or any(_eq(k, o) for o in others + keys):
                        k = self.new_key(others, keys)
                        if k is None:
                            return False
                    keys.append(k)
                p.keys[i:i + 1] = keys
            p.kids[i:i + 1] = n.kids
            return True
        self._put(entries[x], r.choice(n.kids))
        return True

    def _donor(self, other_entries):
        return _copy(other_entries[self.rng.randrange(len(other_entries))][0])

    def m_cross_replace(self, x, entries, other_entries):
        self._put(entries[x], self._donor(other_entries))
        return True

    def m_cross_insert(self, x, entries, other_entries):
        n = entries[x][0]
        return self._insert_into(n, self._donor(other_entries), self.rng.randint(0, len(n.kids)))


def _check_int(name, value, low):
    if type(value) is not int:
        raise TypeError(f'{name} must be an int, got {value!r}.')
    if value < low:
        raise ValueError(f'{name} must be >= {low}, got {value!r}.')
    return value


def mutate(tree, seed, other=None, *, kinds=None, max_nodes=1000, max_depth=32,
           max_leaf_size=256, is_leaf=None, none_is_leaf=False, namespace='', json=False,
           return_kind=False):
    """A mutated copy of tree: one mutation drawn from seed (the same tree, seed and
    arguments give an equal result), of a kind in `kinds` (names of grove.MUTATIONS; all by
    default). `other`: a second tree for the crossover kinds. The result has at most
    max_nodes nodes (leaves and None included, as TreeSpec.num_nodes counts) and at most
    max_depth containers on one path; a str or bytes the mutation makes is at most
    max_leaf_size long. A tree over those bounds is cut to them instead (kind 'shrink').
    json=True makes only what JSON has (None, bools, ints, finite floats, strs, lists,
    dicts with str keys; `other`'s subtrees come as they are). The input is never changed.

    Args:
        tree: the pytree to mutate (read as grove reads it: namespace, none_is_leaf, is_leaf).
        seed: an int; the same tree, seed and arguments give an equal result.
        other: a second tree, the donor of the crossover kinds (or None).
        kinds: names from grove.MUTATIONS to draw from (all by default).
        max_nodes, max_depth, max_leaf_size: the bounds the result keeps.
        is_leaf, none_is_leaf, namespace: as in tree_flatten.
        json: make only JSON values.
        return_kind: return (result, kind name) instead of the result.

    Returns:
        The mutated tree, or (tree, kind) with return_kind=True; kind is None when no
        mutation applied (the result is then an equal copy).

    Raises:
        TypeError: seed is not an int, kinds is a str, is_leaf is not callable.
        ValueError: an unknown or empty kinds, a bound out of range.

    Example:
        >>> import grove
        >>> t = {'a': [1, 2], 'b': 'x'}
        >>> m, kind = grove.mutate(t, 7, return_kind=True)
        >>> kind in grove.MUTATIONS and m == grove.mutate(t, 7)
        True
        >>> t == {'a': [1, 2], 'b': 'x'}  # the input is not changed
        True
    """
    if type(seed) is not int:
        raise TypeError(f'seed must be an int, got {seed!r}.')
    _check_int('max_nodes', max_nodes, 1)
    _check_int('max_depth', max_depth, 0)
    _check_int('max_leaf_size', max_leaf_size, 0)
    if is_leaf is not None and not callable(is_leaf):
        raise TypeError(f'is_leaf must be callable or None, got {is_leaf!r}.')
    if kinds is None:
        kind_set = frozenset(MUTATIONS)
    else:
        if isinstance(kinds, (str, bytes)):
            raise TypeError(f'kinds must be an iterable of mutation names, got {kinds!r}.')
        kind_set = frozenset(kinds)
        bad = [k for k in kind_set if k not in MUTATIONS]
        if bad:
            raise ValueError(f'unknown mutation kind(s) {sorted(map(repr, bad))}; '
                             f'grove.MUTATIONS lists them.')
        if not kind_set:
            raise ValueError('kinds is empty.')
    import grove
    ns = grove._check_ns_arg(namespace)
    m = _Mutator(seed, kind_set, max_nodes, max_depth, max_leaf_size, is_leaf,
                 bool(none_is_leaf), ns, bool(json))
    holder, cut = m.load(tree)
    donor = m.load(other)[0] if other is not None else None
    if cut:
        result, kind = holder.kids[0], 'shrink'
    else:
        mutated, kind = m.mutate(holder, donor)
        result = mutated.kids[0] if mutated is not None else holder.kids[0]
    out = m.build(result)
    return (out, kind) if return_kind else out
