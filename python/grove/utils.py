# SPDX-License-Identifier: MIT
"""Small helpers optree exposes in optree.utils: the total order dict keys are sorted by,
a zip that checks lengths, and unzip2."""

__all__ = ['total_order_sorted', 'safe_zip', 'unzip2']


def total_order_sorted(iterable, /, *, key=None, reverse=False):
    """sorted() that never fails on mixed types: items sorted if they compare, else by their
    class's module.qualname and then themselves, else left in their order (key runs once per
    item; only a TypeError of a comparison falls back)."""
    items = list(iterable)
    keys = items if key is None else [key(x) for x in items]
    idx = range(len(items))
    try:
        order = sorted(idx, key=keys.__getitem__, reverse=reverse)
    except TypeError:
        try:
            order = sorted(idx, key=lambda i: (
                f'{type(keys[i]).__module__}.{type(keys[i]).__qualname__}', keys[i]),
                reverse=reverse)
        except TypeError:
            order = idx
    return [items[i] for i in order]


def safe_zip(*args):
    """zip() of sequences of one length (ValueError 'length mismatch' otherwise), as a list."""
    seqs = [list(a) for a in args]
    if any(len(s) != len(seqs[0]) for s in seqs[1:]):
        raise ValueError(f'length mismatch: {list(map(len, seqs))}')
    return list(zip(*seqs))


def unzip2(pairs):
    """Two tuples from an iterable of pairs."""
    firsts, seconds = [], []
    for a, b in pairs:
        firsts.append(a)
        seconds.append(b)
    return tuple(firsts), tuple(seconds)
