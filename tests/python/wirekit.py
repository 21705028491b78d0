# SPDX-License-Identifier: MIT
"""Hand-made TreeSpec.from_bytes input: a writer of grove's wire format
(docs/wire-format.md) and the pickled payload around it (what to_bytes
writes: magic, wire, handle objects, classes, none_is_leaf, namespace), for
the tests and the fuzzer to build encodings that to_bytes never would."""

import pickle
import struct

MAGIC = b'grove-treespec-1'


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class Wire:
    """Records in order; each method appends one and returns its number."""

    def __init__(self):
        self.recs = []

    def _add(self, tag, body=b''):
        self.recs.append(bytes([tag]) + body)
        return len(self.recs) - 1

    def _refs(self, items):
        cur = len(self.recs)
        return b''.join(varint(cur - 1 - i) for i in items)

    # scalars
    def none(self):
        return self._add(0x01)

    def bool_(self, v):
        return self._add(0x03 if v else 0x02)

    def int_(self, v):
        return self._add(0x04, varint((v << 1) ^ (v >> 63)))

    def float_(self, v):
        return self._add(0x05, struct.pack('<d', v))

    def str_(self, s):
        b = s.encode()
        return self._add(0x06, varint(len(b)) + b)

    def bytes_(self, b):
        return self._add(0x07, varint(len(b)) + b)

    def handle(self, h):
        return self._add(0x08, varint(h))

    def star(self):
        return self._add(0x09)

    # containers
    def list_(self, kids):
        return self._add(0x10, varint(len(kids)) + self._refs(kids))

    def tuple_(self, kids):
        return self._add(0x11, varint(len(kids)) + self._refs(kids))

    def dict_(self, keyset, values, odict=False):
        return self._add(0x13 if odict else 0x12, self._refs([keyset, *values]))

    def ddict(self, factory, keyset, values):
        return self._add(0x14, self._refs([factory, keyset, *values]))

    def namedtuple(self, schema, values):
        return self._add(0x15, self._refs([schema, *values]))

    def deque(self, kids, maxlen=None):
        return self._add(0x16, varint(0 if maxlen is None else maxlen + 1) + varint(len(kids))
                         + self._refs(kids))

    def custom(self, ctype, kids):
        cur = len(self.recs)
        return self._add(0x17, varint(cur - 1 - ctype) + varint(len(kids)) + self._refs(kids))

    # metadata
    def keyset(self, keys):
        return self._add(0x20, varint(len(keys)) + self._refs(keys))

    def host_keyset(self, keys, order):
        return self._add(0x23, varint(len(keys)) + self._refs(keys)
                         + b''.join(varint(i) for i in order))

    def schema(self, name, fields):
        cur = len(self.recs)
        return self._add(0x21, varint(cur - 1 - name) + varint(len(fields)) + self._refs(fields))

    def ctype(self, name, keyset=None, meta=None):
        flags = (1 if keyset is not None else 0) | (2 if meta is not None else 0)
        refs = [name] + ([keyset] if keyset is not None else []) + ([meta] if meta is not None else [])
        return self._add(0x22, bytes([flags]) + self._refs(refs))

    def encode(self):
        return b'GRV\x01' + varint(len(self.recs)) + b''.join(self.recs)


def payload(wire, objs=None, classes=None, none_is_leaf=False, namespace='', magic=MAGIC):
    """What to_bytes pickles around a wire encoding."""
    return pickle.dumps((magic, wire, objs or {}, classes or {}, none_is_leaf, namespace),
                        protocol=pickle.HIGHEST_PROTOCOL)


def unpack(data):
    """to_bytes output as a list: [magic, wire, objs, classes, none_is_leaf, namespace]."""
    return list(pickle.loads(data))
