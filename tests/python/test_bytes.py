# SPDX-License-Identifier: MIT
"""TreeSpec.from_bytes and unpickling under attack: every object decoded
from bytes is checked for kind and type before use (a malformed encoding
raises ValueError, never crashes), and the outputs that follow a structure
written out (repr, paths) stay linear and refuse, with ValueError naming the
limit, what is over the output limit."""

import collections
import pickle

import grove
import optree
import pytest
from grove import _grove
from trees import NS, Box, Color, Point, register_all, spec_repr, struct_time
from wirekit import Wire, payload, unpack

register_all()


class Meta:
    """A registered class whose metadata is a str and whose entries are named."""

    def __init__(self, kids):
        self.kids = list(kids)


grove.register_pytree_node(Meta, lambda m: (m.kids, 'meta', tuple(f'e{i}' for i in range(len(m.kids)))),
                           lambda meta, kids: Meta(kids), namespace=grove.GLOBAL_NAMESPACE)


def every_use(spec):
    """What a loaded spec is used for; each must answer or raise cleanly."""
    repr(spec)
    spec.paths()
    spec.type
    spec.kind
    spec.num_nodes
    spec.children()
    spec.entries()
    hash(spec)
    assert spec == spec
    leaves = list(range(spec.num_leaves))
    tree = spec.unflatten(leaves)
    assert spec.flatten_up_to(tree) == leaves
    assert pickle.loads(pickle.dumps(spec)) == spec


def refused(data, match, **kw):
    with pytest.raises(ValueError, match=match):
        grove.TreeSpec.from_bytes(data, **kw)


# ---------------------------------------------------------------- C5, C6


def test_c5_a_scalar_root_is_refused():
    # b'GRV\x01\x01\x01': one record, None, as the whole structure
    for wire in (b'GRV\x01\x01\x01', b'GRV\x01\x01\x04\x02', b'GRV\x01\x01\x03'):
        refused(payload(wire), 'malformed TreeSpec encoding: (None|an int|a bool) where the structure has a node')
    # the same below a valid node
    w = Wire()
    s, n = w.star(), w.none()
    w.list_([s, n])
    refused(payload(w.encode()), 'None where')


def test_c6_metadata_of_the_wrong_type_is_refused():
    tree = Meta([1, [2, 3]])
    good = grove.tree_structure(tree).to_bytes()
    every_use(grove.TreeSpec.from_bytes(good))
    magic, wire, objs, classes, nil, ns = unpack(good)
    assert len(objs) == 1
    (h, obj), = objs.items()
    assert obj == ('meta', ('e0', 'e1'))
    for bad in (7, ('meta',), ('meta', ('e0', 'e1', 'e2')), ('meta', ['e0', 'e1']),
                ('meta', 'e0'), [obj[0], obj[1]]):
        refused(payload(wire, {h: bad}, classes, nil, ns), 'metadata handle holds|entries')
    # through pickle.loads too (the same decoder)
    data = pickle.dumps(grove.tree_structure(tree)).replace(b'\x8c\x04meta', b'\x8c\x04ateM')
    back = pickle.loads(data)  # another str is still valid metadata
    assert back.unflatten([1, 2, 3]).kids == [1, [2, 3]]


def test_valid_encodings_still_load():
    trees = [
        [1, (2,), {'b': 3, 'a': None}],
        collections.OrderedDict([('z', 1), ('a', (2, 3))]),
        collections.defaultdict(list, {(1, 'x'): 1, (0,): 2}),
        collections.defaultdict(None, {1: 2}),
        collections.deque([1, 2], maxlen=3),
        collections.deque([]),
        Point(1, [2]),
        struct_time([1, 2]),
        Box([1, 2], {'m': 1}),
        {1.5: 1, b'k': 2, True: 3, None: 4},
        {Color.RED: 1, 2 ** 70: 2, (1, (2,)): 3},
        Meta([]),
    ]
    for tree in trees:
        for nil in (False, True):
            spec = grove.tree_structure(tree, none_is_leaf=nil, namespace=NS)
            back = grove.TreeSpec.from_bytes(spec.to_bytes())
            assert back == spec and repr(back) == repr(spec) and back.paths() == spec.paths()
            every_use(back)


# ---------------------------------------------------------------- the payload


def test_payload_shape_and_types():
    spec = grove.tree_structure([1, {'a': Point(1, 2)}])
    parts = unpack(spec.to_bytes())
    for bad in (-1, 1.5, '10'):
        refused(spec.to_bytes(), 'max_size must be', max_size=bad)
    refused(pickle.dumps(7), 'not a grove TreeSpec encoding')
    refused(pickle.dumps(tuple(parts[:5])), 'not a grove TreeSpec encoding')
    refused(pickle.dumps(('grove-treespec-1', *parts[1:])), 'not a grove TreeSpec encoding')
    for i, bad in ((1, bytearray(parts[1])), (2, list(parts[2].items())), (3, None), (4, 1),
                   (5, b'')):
        p = list(parts)
        p[i] = bad
        refused(pickle.dumps(tuple(p)), 'malformed TreeSpec encoding: its')
    p = list(parts)
    p[3] = {**parts[3], 'NoneType': type(None)}
    refused(pickle.dumps(tuple(p)), "a class name is 'NoneType'")
    p[3] = {k: 7 for k in parts[3]}
    refused(pickle.dumps(tuple(p)), 'neither a class nor a default factory')


def test_classes_and_handles_must_match_what_the_wire_names():
    spec = grove.tree_structure({Point(1, 2): Point(3, 4), 'x': collections.defaultdict(int)})
    magic, wire, objs, classes, nil, ns = unpack(spec.to_bytes())
    assert len(objs) == 1 and len(classes) == 2
    name = next(n for n, c in classes.items() if c is Point)
    refused(payload(wire, objs, {k: v for k, v in classes.items() if k != name}),
            'not among the classes it carries')
    refused(payload(wire, objs, {**classes, _grove._name_for(Box): Box}),
            'carries classes that it does not name')
    refused(payload(wire, {}, classes), 'carries no object for')
    refused(payload(wire, {**objs, 99: 'spare'}, classes), 'handles that it does not hold')
    refused(payload(wire, {1: 'x', 2: 'y'}, classes), 'carries no object for|does not hold')


# ---------------------------------------------------------------- node by node


def _name(cls):
    return _grove._name_for(cls)


def test_nodes_flatten_never_builds_are_refused():
    # a namedtuple record (grove's own namedtuple kind: the binding makes custom nodes)
    w = Wire()
    nm, fx, fy, s = w.str_('P'), w.str_('x'), w.str_('y'), w.star()
    w.namedtuple(w.schema(nm, [fx, fy]), [s, s])
    refused(payload(w.encode()), 'a namedtuple where')
    # leaves other than *: str, handle, float
    for add in (lambda w: w.str_('x'), lambda w: w.handle(1), lambda w: w.float_(1.5)):
        w = Wire()
        x = add(w)
        w.list_([x])
        refused(payload(w.encode(), {1: 'obj'}), r'(a str|a handle|a float) where')
    # a deque longer than its maxlen
    w = Wire()
    s = w.star()
    w.deque([s, s, s], maxlen=2)
    refused(payload(w.encode()), 'deque of 3 items with maxlen=2')


def test_none_nodes():
    w = Wire()
    nt = w.str_('NoneType')
    w.custom(w.ctype(nt), [])
    none_spec = grove.TreeSpec.from_bytes(payload(w.encode()))
    assert none_spec == grove.tree_structure(None) and repr(none_spec) == 'TreeSpec(None)'
    refused(payload(w.encode(), none_is_leaf=True), 'a None node, where None is a leaf')
    w = Wire()
    nt, s = w.str_('NoneType'), w.star()
    w.custom(w.ctype(nt), [s])
    refused(payload(w.encode()), 'None node with children')


def test_custom_nodes():
    pname = _name(Point)

    def one(kids_n, meta=None, keyed=False, name=pname, objs=None, classes=None):
        w = Wire()
        nm, s = w.str_(name), w.star()
        ks = None
        if keyed:
            ks = w.keyset([w.str_(f'k{i}') for i in range(kids_n)])
        md = w.handle(1) if meta is not None else None
        w.custom(w.ctype(nm, ks, md), [s] * kids_n)
        objs = {1: meta} if meta is not None else {}
        return payload(w.encode(), objs, classes or {name: Point})

    assert grove.TreeSpec.from_bytes(one(2)) == grove.tree_structure(Point(1, 2))
    refused(one(3), 'node of 3 children, not 2')
    refused(one(2, keyed=True), 'custom node with keys')
    # a name for something that is no namedtuple class, or no class
    refused(one(2, name=_name(Box), classes={_name(Box): Box}), 'neither a namedtuple nor')
    refused(one(1, name=_name(len), classes={_name(len): len}), 'not a class')
    # registered classes: metadata (metadata, entries)
    mname = _name(Meta)
    ok = one(2, ('meta', ('e0', 'e1')), name=mname, classes={mname: Meta})
    assert grove.TreeSpec.from_bytes(ok) == grove.tree_structure(Meta([1, 2]))
    assert grove.TreeSpec.from_bytes(ok).paths() == [('e0',), ('e1',)]
    assert grove.TreeSpec.from_bytes(one(2, ('meta', None), name=mname, classes={mname: Meta}))
    refused(one(2, ('meta', ('e0',)), name=mname, classes={mname: Meta}), 'entries of another length')
    refused(one(2, 7, name=mname, classes={mname: Meta}), 'holds an object of type int')
    # metadata that is no handle
    w = Wire()
    nm, s, md = w.str_(mname), w.star(), w.int_(3)
    w.custom(w.ctype(nm, None, md), [s])
    refused(payload(w.encode(), {}, {mname: Meta}), "metadata is an int")


def test_defaultdict_factories():
    def one(name, obj):
        w = Wire()
        fac, k, s = w.str_(name), w.str_('a'), w.star()
        w.ddict(fac, w.keyset([k]), [s])
        return payload(w.encode(), {}, {name: obj})

    spec = grove.TreeSpec.from_bytes(one(_name(list), list))
    assert spec == grove.tree_structure(collections.defaultdict(list, {'a': 1}))
    assert grove.TreeSpec.from_bytes(one(_name(None), None)).unflatten([1]).default_factory is None
    seven = _grove._name_for(7)
    with pytest.raises(ValueError, match='neither a class nor a default factory'):
        grove.TreeSpec.from_bytes(one(seven, 7))
    # a name this process knows for a non-callable object, though not carried as such
    w = Wire()
    fac, k, s = w.str_(seven), w.str_('a'), w.star()
    w.ddict(fac, w.keyset([k]), [s])
    refused(payload(w.encode()), 'not among the classes it carries')


def test_keysets():
    def dict_of(keys, host=None, objs=None, odict=False):
        w = Wire()
        nodes = [k(w) for k in keys]
        ks = w.keyset(nodes) if host is None else w.host_keyset(nodes, host)
        s = w.star()
        w.dict_(ks, [s] * len(keys), odict=odict)
        return payload(w.encode(), objs or {})

    ok = grove.TreeSpec.from_bytes(dict_of([lambda w: w.str_('b'), lambda w: w.int_(1)]))
    assert ok == grove.tree_structure({'b': 1, 1: 2})
    # scalar keys in a host's order, handles or tuples in grove's
    refused(dict_of([lambda w: w.str_('b'), lambda w: w.str_('a')], host=[1, 0]),
            'scalar keys is in a host')
    refused(dict_of([lambda w: w.tuple_([w.int_(1)])]), 'not in the host')
    # a host's order is Python's: (0,) sorts before (1,)
    one, zero = (lambda w: w.tuple_([w.int_(1)])), (lambda w: w.tuple_([w.int_(0)]))
    spec = grove.TreeSpec.from_bytes(dict_of([one, zero], host=[1, 0]))
    assert spec == grove.tree_structure({(1,): 1, (0,): 2})
    assert spec.paths() == [((0,),), ((1,),)]
    refused(dict_of([one, zero], host=[0, 1]), 'not in the order Python gives them')
    # a NaN key node (the binding keeps NaN keys as handles), a nested tuple key
    refused(dict_of([lambda w: w.float_(float('nan'))]), 'a dict key is a float')
    refused(dict_of([lambda w: w.tuple_([w.tuple_([])])], host=[0]), 'a tuple key holds a tuple')
    # handles: objects that are keys themselves are no handles; others load
    h = lambda w: w.handle(1)  # noqa: E731
    for obj in ('a', 1, None, (1, 'x'), 2.5, b'x', True):
        refused(dict_of([h], host=[0], objs={1: obj}), 'no handle')
    for obj in (2 ** 70, float('nan'), (1, (2,)), '\ud800', Color.RED, frozenset()):
        spec = grove.TreeSpec.from_bytes(dict_of([h], host=[0], objs={1: obj}))
        assert list(spec.unflatten([5]).values()) == [5]
    # handles whose objects are equal, or unhashable
    two = [lambda w: w.handle(1), lambda w: w.handle(2)]
    refused(dict_of(two, host=[0, 1], objs={1: 1.5 + 0j, 2: (1.5 + 0j, 1)[0]}),
            'malformed TreeSpec encoding: repeated key')
    refused(dict_of([h], host=[0], objs={1: [1]}), 'not hashable')
    # an OrderedDict's handle keys in insertion order only
    a = lambda w: w.handle(1)  # noqa: E731
    b = lambda w: w.handle(2)  # noqa: E731
    objs = {1: 2 ** 70, 2: 2 ** 71}
    assert grove.TreeSpec.from_bytes(dict_of([a, b], host=[0, 1], objs=objs, odict=True))
    refused(dict_of([a, b], host=[1, 0], objs=objs, odict=True), 'not in insertion order')


class AllEqual:
    """Keys that are all equal (one handle here however many there were)."""

    def __init__(self, v):
        self.v = v

    def __hash__(self):
        return 0

    def __eq__(self, other):
        return isinstance(other, AllEqual)


def test_keys_equal_by_eq_are_refused():
    w = Wire()
    k1, k2, s = w.handle(1), w.handle(2), w.star()
    w.dict_(w.host_keyset([k1, k2], [0, 1]), [s, s])
    refused(payload(w.encode(), {1: AllEqual(1), 2: AllEqual(2)}), 'repeated key')


def test_a_bad_node_deep_inside_is_found():
    inner = Meta([1])
    tree = [{'a': [inner, 2]}, (3, [4, inner])]
    magic, wire, objs, classes, nil, ns = unpack(grove.tree_structure(tree).to_bytes())
    (h, _), = objs.items()
    refused(payload(wire, {h: 'x'}, classes), 'metadata handle holds an object of type str')


# ---------------------------------------------------------------- H4


def _dag(levels):
    """The wire of [[*, *], [*, *]]...: each level one list of the level below twice."""
    w = Wire()
    x = w.star()
    for _ in range(levels):
        x = w.list_([x, x])
    return payload(w.encode())


def test_h4_a_small_blob_of_a_huge_structure():
    data = _dag(25)
    assert len(data) <= 160
    spec = grove.TreeSpec.from_bytes(data)  # 2^26 nodes written out: under max_size
    assert spec.num_leaves == 2 ** 25 and spec.num_nodes == 2 ** 26 - 1
    # repr: 2^25 stars, 2^25 - 1 lists of "[", "]" and ", " (optree writes the same)
    with pytest.raises(ValueError, match=r'repr\(\) of this TreeSpec would be 167772166 characters, '
                       r'more than the output limit of 100000000 \(grove.set_output_limit\)'):
        repr(spec)
    # paths: the nodes written out and 25 entries for each of the 2^25 leaves
    with pytest.raises(ValueError, match=r'paths\(\) of this TreeSpec would be 905969663 nodes and '
                       r'path entries, more than the output limit of 100000000'):
        spec.paths()
    with pytest.raises(ValueError, match='output limit'):
        str(spec)
    # what does not write it out answers at once
    assert spec == grove.TreeSpec.from_bytes(data) and hash(spec) == hash(spec)
    assert spec.is_prefix(spec) and not spec.is_prefix(spec, strict=True)
    assert len(spec.children()) == 2 and spec.children()[0].num_leaves == 2 ** 24
    assert pickle.loads(pickle.dumps(spec)) == spec
    with pytest.raises(ValueError, match='Too few leaves'):
        spec.unflatten([])
    with pytest.raises(ValueError):
        spec.flatten_up_to([1, 2])


def test_dag_outputs_equal_optree():
    spec = grove.TreeSpec.from_bytes(_dag(10))
    tree = spec.unflatten(range(2 ** 10))
    ospec = optree.tree_structure(tree)
    assert spec_repr(spec) == spec_repr(ospec)
    assert spec.paths() == ospec.paths() == optree.tree_paths(tree)
    assert spec.num_nodes == ospec.num_nodes


# ---------------------------------------------------------------- the fuzzer


def test_fuzz_smoke():
    """A fixed-seed run of the from_bytes fuzzer (make fuzz-python runs it for minutes)."""
    import fuzz_from_bytes
    assert fuzz_from_bytes.main(['--runs', '5000', '--seed', '1']) == 0
