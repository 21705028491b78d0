#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the DAG-shaped seeds of fuzz/corpus/wire (dag-*): binary inputs where
shared subtrees make a few hundred bytes describe a tree of up to 2^63 nodes,
in every container kind, plus the reproducers of issue 15; and the keys of
issue 25's N1 (n1-*: keys whose comparison across arenas doubled per level)
into fuzz/corpus/wire and fuzz/corpus/cross.

usage: python3 fuzz/dag_seeds.py [OUTDIR]   (default: fuzz/corpus/wire and cross; with OUTDIR
all of them there)"""
import os
import struct
import sys


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zigzag(v):
    return (v << 1) ^ (-1 if v < 0 else 0) if v < 0 else v << 1


class W:
    """Records in order; each method returns the new record's index."""

    def __init__(self):
        self.recs = []

    def _add(self, body):
        self.recs.append(body)
        return len(self.recs) - 1

    def ref(self, idx):
        return varint(len(self.recs) - 1 - idx)

    def none(self):
        return self._add(b"\x01")

    def boolean(self, v):
        return self._add(b"\x03" if v else b"\x02")

    def int(self, v):
        return self._add(b"\x04" + varint(zigzag(v) & (2**64 - 1)))

    def float(self, v):
        return self._add(b"\x05" + struct.pack("<d", v))

    def str(self, s):
        b = s.encode()
        return self._add(b"\x06" + varint(len(b)) + b)

    def bytes(self, b):
        return self._add(b"\x07" + varint(len(b)) + b)

    def star(self):
        return self._add(b"\x09")

    def _refs(self, idxs):
        # refs are relative to the record being written (the next index)
        n = len(self.recs)
        return b"".join(varint(n - 1 - i) for i in idxs)

    def seq(self, tag, items, maxlen=None):
        body = bytes([tag])
        if tag == 0x16:
            body += varint(0 if maxlen is None else maxlen + 1)
        return self._add(body + varint(len(items)) + self._refs(items))

    def keyset(self, keys):
        return self._add(b"\x20" + varint(len(keys)) + self._refs(keys))

    def dict(self, tag, ks, values, factory=None):
        body = bytes([tag])
        if factory is not None:
            body += self._refs([factory])
        return self._add(body + self._refs([ks]) + self._refs(values))

    def schema(self, name, fields):
        return self._add(b"\x21" + self._refs([name]) + varint(len(fields)) + self._refs(fields))

    def namedtuple(self, sc, values):
        return self._add(b"\x15" + self._refs([sc]) + self._refs(values))

    def ctype(self, name, ks=None, meta=None):
        flags = (1 if ks is not None else 0) | (2 if meta is not None else 0)
        refs = [name] + ([ks] if ks is not None else []) + ([meta] if meta is not None else [])
        return self._add(b"\x22" + bytes([flags]) + self._refs(refs))

    def custom(self, ct, kids):
        return self._add(b"\x17" + self._refs([ct]) + varint(len(kids)) + self._refs(kids))

    def data(self):
        return b"GRV\x01" + varint(len(self.recs)) + b"".join(self.recs)


def doubling(w, leaf, k, tag=0x11):
    t = leaf
    for _ in range(k):
        t = w.seq(tag, [t, t])
    return t


def seeds():
    out = {}
    # the reproducers, byte for byte
    for k in (20, 40, 63):
        out[f"dag-issue-dict-key-k{k}"] = (
            b"GRV\x01" + bytes([k + 4]) + b"\x04\x02" + b"\x11\x02\x00\x00" * k
            + b"\x20\x01\x00\x01\x12\x01\x00")
    out["dag-issue-output-bomb-k63"] = (
        b"GRV\x01" + bytes([64]) + b"\x04\x02" + b"\x10\x02\x00\x00" * 63)
    # no leaf at all
    w = W()
    doubling(w, w.seq(0x10, []), 63, 0x10)
    out["dag-empty-lists"] = w.data()
    # two Python-equal keys sharing their subtuples: a repeated key
    w = W()
    x = doubling(w, w.int(1), 30)
    y = doubling(w, w.boolean(True), 30)
    ks = w.keyset([x, y])
    v = w.none()
    w.dict(0x12, ks, [v, v])
    out["dag-equal-keys"] = w.data()
    # the same with a difference at the far end: a good dict
    w = W()
    x = doubling(w, w.int(1), 30)
    a = doubling(w, w.float(1.0), 29)
    b = doubling(w, w.int(2), 29)
    y = w.seq(0x11, [a, b])
    ks = w.keyset([y, x])
    v = w.int(7)
    w.dict(0x12, ks, [v, v])
    out["dag-keys-differ-at-the-end"] = w.data()
    # dicts with unsorted keys, shared at every level
    w = W()
    kb, ka = w.str("b"), w.str("a")
    ks = w.keyset([kb, ka])
    d = w.int(1)
    for _ in range(40):
        d = w.dict(0x12, ks, [d, d])
    out["dag-unsorted-dicts"] = w.data()
    # OrderedDict and defaultdict
    w = W()
    kz, ky, fac = w.str("z"), w.str("y"), w.str("list")
    ks = w.keyset([kz, ky])
    d = w.none()
    for i in range(40):
        d = w.dict(0x13, ks, [d, d]) if i % 2 else w.dict(0x14, ks, [d, d], factory=fac)
    out["dag-odict-ddict"] = w.data()
    # namedtuples
    w = W()
    name, fx, fy = w.str("P"), w.str("x"), w.str("y")
    sc = w.schema(name, [fx, fy])
    n = w.float(0.5)
    for _ in range(40):
        n = w.namedtuple(sc, [n, n])
    out["dag-namedtuples"] = w.data()
    # custom nodes, keyed, with metadata that is itself a shared tree
    w = W()
    name, k1, k2 = w.str("C"), w.str("k"), w.str("j")
    ks = w.keyset([k1, k2])
    meta = doubling(w, w.int(3), 40)
    ct = w.ctype(name, ks, meta)
    c = w.star()
    for _ in range(30):
        c = w.custom(ct, [c, c])
    out["dag-custom"] = w.data()
    # deques with the largest maxlen
    w = W()
    d = w.bytes(b"\x00")
    for _ in range(40):
        d = w.seq(0x16, [d, d], maxlen=2**63 - 1)
    out["dag-deques"] = w.data()
    # tuples of bools and int-valued floats (keys with canonical twins)
    w = W()
    t = w.seq(0x11, [w.boolean(True), w.float(1.0), w.float(-0.0)])
    for _ in range(40):
        t = w.seq(0x11, [t, w.boolean(False), t])
    ks = w.keyset([t, w.seq(0x11, [w.bytes(b"x")]), w.seq(0x11, [w.int(1)])])
    v = w.none()
    w.dict(0x12, ks, [v, v, v])
    out["dag-key-twins-mixed"] = w.data()
    # one long str, a million times over
    w = W()
    s = w.str("x" * 1000)
    row = w.seq(0x10, [s] * 1000)
    w.seq(0x10, [row] * 1000)
    out["dag-repeated-string"] = w.data()
    # wide sharing: a wide list of one wide list
    w = W()
    one = w.int(1)
    inner = w.seq(0x10, [one] + [w.seq(0x10, [])] * 1)
    inner = w.seq(0x10, [inner] * 500)
    w.seq(0x11, [inner] * 500)
    out["dag-wide"] = w.data()
    return out


def n1_family(w, k, width, last_leaf=0):
    """T_0 = (0,), T_l = (T_l-1, S_l, T_l-1), S_l a tuple of width new pairs (l, j): every
    subtuple twice per level, and S_l flushed the small fixed memo that compared keys of two
    arenas before issue 25 (N1), so that compare doubled per level. With last_leaf, the last
    T_l-1 of each level is V_l-1, whose last leaf is last_leaf: V_k differs from T_k at its
    very end. Returns (T_k, V_k)."""
    t = v = w.seq(0x11, [w.int(0)])
    if last_leaf:
        v = w.seq(0x11, [w.int(last_leaf)])
    ints = {}

    def num(i):
        if i not in ints:
            ints[i] = w.int(i)
        return ints[i]

    for level in range(1, k + 1):
        s = w.seq(0x11, [w.seq(0x11, [num(level), num(j)]) for j in range(width)])
        v = w.seq(0x11, [t, s, v]) if last_leaf else None
        t = w.seq(0x11, [t, s, t])
        if not last_leaf:
            v = t
    return t, v


def n1_seeds():
    """Seeds of corpus/cross (and wire): dicts keyed by the N1 family."""
    out = {}
    for k, width in ((3, 200), (8, 70), (12, 70), (22, 200), (30, 200)):
        w = W()
        t, _ = n1_family(w, k, width)
        ks = w.keyset([t])
        w.dict(0x12, ks, [w.int(1)])
        out[f"n1-k{k}-w{width}"] = w.data()
        # T_k and V_k (the last leaf differs) in one dict, and a custom node whose metadata is T_k
        w = W()
        t, v = n1_family(w, k, width, last_leaf=1)
        ks = w.keyset([v, t, w.str("a")])
        one = w.int(1)
        d = w.dict(0x12, ks, [one, one, one])
        ct = w.ctype(w.str("C"), None, t)
        w.seq(0x10, [d, w.custom(ct, [one])])
        out[f"n1-pair-k{k}-w{width}"] = w.data()
    return out


def write(outdir, items):
    os.makedirs(outdir, exist_ok=True)
    for name, data in items.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
        print(f"{outdir}/{name}: {len(data)} bytes")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = os.path.join(here, "corpus")
    if len(sys.argv) > 1:
        write(sys.argv[1], {**seeds(), **n1_seeds()})
        return
    write(os.path.join(corpus, "wire"), seeds())
    write(os.path.join(corpus, "wire"), n1_seeds())
    write(os.path.join(corpus, "cross"), n1_seeds())


if __name__ == "__main__":
    main()
