# SPDX-License-Identifier: MIT
"""TreeSpec.from_bytes and unpickling under attack: every object decoded
from bytes is checked for kind and type before use (a malformed encoding
raises ValueError, never crashes), and the outputs that follow a structure
written out (repr, paths) stay linear and refuse, with ValueError naming the
limit, what is over the output limit."""

import collections
import math
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


class Tagged:
    """A registered class whose metadata and entries are what it is given: objects
    that are no values make handles."""

    def __init__(self, kids, tag, names=None):
        self.kids, self.tag, self.names = list(kids), tag, names


grove.register_pytree_node(Tagged, lambda t: (t.kids, t.tag, t.names),
                           lambda tag, kids: Tagged(kids, tag), namespace=grove.GLOBAL_NAMESPACE)


class Unregistered:
    """A class registered nowhere."""


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
    # metadata and entries that are values are in the wire, the pair (metadata, entries)
    tree = Meta([1, [2, 3]])
    good = grove.tree_structure(tree).to_bytes()
    every_use(grove.TreeSpec.from_bytes(good))
    magic, wire, objs, classes, nil, ns = unpack(good)
    assert objs == {}
    # through pickle.loads too (the same decoder): another str is still valid metadata
    data = pickle.dumps(grove.tree_structure(tree)).replace(b'\x06\x04meta', b'\x06\x04ateM')
    back = pickle.loads(data)
    assert back.unflatten([1, 2, 3]).kids == [1, [2, 3]] and "Meta['ateM']" in repr(back)
    # objects that are no values are handles: the 7 in their place, and every
    # other object to_bytes never writes there, is refused
    tag, names = [1.5], (Color.RED, 'e1')
    spec = grove.tree_structure(Tagged([1, [2, 3]], tag, names))
    magic, wire, objs, classes, nil, ns = unpack(spec.to_bytes())
    assert len(objs) == 2
    hm = next(h for h, o in objs.items() if o == tag)
    he = next(h for h, o in objs.items() if o == names)
    back = grove.TreeSpec.from_bytes(payload(wire, objs, classes))
    every_use(back)
    assert back == spec and back.paths() == spec.paths() == [(Color.RED,), ('e1', 0), ('e1', 1)]
    for bad in (7, (Color.RED,), (Color.RED, 'e1', 'e2'), [Color.RED, 'e1'], 'e0', ('e0', 'e1'),
                None):
        refused(payload(wire, {**objs, he: bad}, classes), 'entries')
    for bad in (7, 'x', None, (1, 'a'), ()):
        refused(payload(wire, {**objs, hm: bad}, classes), "custom node's metadata is a handle")
    # another object that is no value is other metadata: that loads
    other = grove.TreeSpec.from_bytes(payload(wire, {**objs, hm: frozenset()}, classes))
    assert other.unflatten([1, 2, 3]).tag == frozenset() and other != spec


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



_ONE = Unregistered()


def _the_one():
    return _ONE


class BecomesOne:
    """Pickled as a reference to one shared object: two of these load as one object."""

    def __reduce__(self):
        return (_the_one, ())


class BecomesInt:
    """Pickled as the int 5: an object that loads as a value."""

    def __reduce__(self):
        return (int, (5,))


def test_handles_round_trip_by_identity():
    # one object as the metadata of three nodes and a tuple key holding an enum: one handle
    # each in the payload, and after reading one object again (numbered by identity in the
    # reader's generation), the key equal to the writer's
    tag = [1]
    spec = grove.tree_structure([Tagged([1], tag), Tagged([2], tag),
                                 {(Color.RED, 2): Tagged([3], tag)}])
    magic, wire, objs, classes, nil, ns = unpack(spec.to_bytes())
    assert sorted(map(repr, objs.values())) == ['(<Color.RED: 1>, 2)', '[1]']
    back = grove.TreeSpec.from_bytes(spec.to_bytes())
    every_use(back)
    a, b, d = back.unflatten([1, 2, 3])
    assert a.tag == [1] and a.tag is b.tag is d[(Color.RED, 2)].tag and a.tag is not tag
    assert back == spec and hash(back) == hash(spec) and back.paths() == spec.paths()
    # entries that are no value (65 of them) are a handle of an exact tuple; NaN metadata is
    # a handle too (a NaN is no value): both load, and NaN != NaN as in optree
    names = tuple(f'e{i}' for i in range(65))
    spec = grove.tree_structure(Tagged(range(65), float('nan'), names))
    back = grove.TreeSpec.from_bytes(spec.to_bytes())
    assert back.paths() == [(n,) for n in names] and back != spec and repr(back) == repr(spec)
    assert math.isnan(back.unflatten(range(65)).tag) and back.flatten_up_to(
        back.unflatten(range(65))) == list(range(65))
    # two objects that load as one: as metadata, one handle; as two keys, a repeated key
    spec = grove.tree_structure([Tagged([1], BecomesOne()), Tagged([2], BecomesOne())])
    a, b = grove.TreeSpec.from_bytes(spec.to_bytes()).unflatten([1, 2])
    assert a.tag is b.tag is _ONE
    refused(grove.tree_structure({BecomesOne(): 1, BecomesOne(): 2}).to_bytes(), 'repeated key')
    # an object that loads as a value grove would keep as itself is refused
    refused(grove.tree_structure(Tagged([1], BecomesInt())).to_bytes(),
            'metadata is a handle of an object of type int')


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
    refused(payload(wire, {**objs, max(objs) + 1: 'spare'}, classes), 'handles that it does not hold')
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
    assert none_spec == grove.tree_structure(None) and repr(none_spec) == 'PyTreeSpec(None)'
    refused(payload(w.encode(), none_is_leaf=True), 'a None node, where None is a leaf')
    w = Wire()
    nt, s = w.str_('NoneType'), w.star()
    w.custom(w.ctype(nt), [s])
    refused(payload(w.encode()), 'None node with children')


def _pair(m, e):
    """A wire writer of custom metadata: the pair (m, e) of two nodes' writers."""
    return lambda w: w.tuple_([m(w), e(w)])


def _strs(*xs):
    return lambda w: w.tuple_([w.str_(x) for x in xs])


def test_custom_nodes():
    pname = _name(Point)

    def one(kids_n, md=None, keyed=False, name=pname, objs=None, classes=None, namespace=''):
        w = Wire()
        nm, s = w.str_(name), w.star()
        ks = w.keyset([w.str_(f'k{i}') for i in range(kids_n)]) if keyed else None
        w.custom(w.ctype(nm, ks, md(w) if md else None), [s] * kids_n)
        return payload(w.encode(), objs, classes or {name: Point}, namespace=namespace)

    assert grove.TreeSpec.from_bytes(one(2)) == grove.tree_structure(Point(1, 2))
    refused(one(3), 'node of 3 children, not 2')
    refused(one(2, keyed=True), 'custom node with keys')
    # a name for something that is no namedtuple class, or no class
    refused(one(2, name=_name(Box), classes={_name(Box): Box}), 'neither a namedtuple nor')
    refused(one(1, name=_name(len), classes={_name(len): len}), 'not a class')
    # registered classes: metadata the pair (metadata, entries), each a value or a handle
    mname, tname = _name(Meta), _name(Tagged)

    def meta(md, n=2, objs=None):
        return one(n, md, name=mname, objs=objs, classes={mname: Meta})

    def tagged(md, n=2, objs=None):
        return one(n, md, name=tname, objs=objs, classes={tname: Tagged})

    meta_str = lambda w: w.str_('meta')  # noqa: E731
    ok = meta(_pair(meta_str, _strs('e0', 'e1')))
    assert grove.TreeSpec.from_bytes(ok) == grove.tree_structure(Meta([1, 2]))
    assert grove.TreeSpec.from_bytes(ok).paths() == [('e0',), ('e1',)]
    assert grove.TreeSpec.from_bytes(meta(_pair(meta_str, lambda w: w.none())))
    spec = grove.TreeSpec.from_bytes(tagged(_pair(lambda w: w.handle(1), lambda w: w.handle(2)),
                                            objs={1: [0], 2: (Color.RED, Color.GREEN)}))
    assert spec.paths() == [(Color.RED,), (Color.GREEN,)] and spec.unflatten([1, 2]).tag == [0]
    assert grove.TreeSpec.from_bytes(tagged(_pair(lambda w: w.tuple_([w.int_(1), w.none()]),
                                                  _strs(*'ab')))).unflatten([1, 2]).tag == (1, None)
    # the pair itself
    refused(meta(lambda w: w.int_(3)), 'metadata is an int, not the pair')
    refused(meta(lambda w: w.tuple_([w.str_('meta')])), 'a tuple of another length')
    refused(meta(lambda w: w.tuple_([w.str_('m'), w.none(), w.none()])), 'another length')
    # metadata: a value (a scalar, a tuple of at most 64 scalars) or a handle of no value
    for md, match in ((lambda w: w.star(), 'metadata is \\*'), (lambda w: w.list_([]), 'is a list'),
                      (lambda w: w.float_(float('nan')), 'metadata is a float'),
                      (lambda w: w.tuple_([w.tuple_([])]), 'tuple holding a tuple'),
                      (lambda w: w.tuple_([w.handle(1)]), 'tuple holding a handle'),
                      (lambda w: w.tuple_([w.int_(i) for i in range(65)]), 'tuple of 65 items')):
        refused(tagged(_pair(md, lambda w: w.none()), objs={1: [0]}), match)
    for obj in (7, 'x', None, (1, 'a'), (), 2.5, b'', True):
        refused(tagged(_pair(lambda w: w.handle(1), lambda w: w.none()), objs={1: obj}),
                "metadata is a handle of .*no handle")
    # entries: None, or one per child: a tuple value, or a handle of an exact tuple that is
    # no value
    for en, objs, match in ((_strs('e0'), None, 'of 2 children has 1 entries'),
                            (_strs('a', 'b', 'c'), None, 'has 3 entries'),
                            (lambda w: w.str_('e0'), None, 'entries are a str, not a tuple'),
                            (lambda w: w.handle(1), {1: ['a', Color.RED]}, 'entries are list'),
                            (lambda w: w.handle(1), {1: ('a', 'b')}, 'entries is a handle'),
                            (lambda w: w.handle(1), {1: (Color.RED,)}, 'has 1 entries'),
                            (lambda w: w.tuple_([w.handle(1), w.str_('b')]), {1: Color.RED},
                             'tuple holding a handle')):
        refused(tagged(_pair(lambda w: w.str_('m'), en), objs=objs), match)
    # a registered class must be registered here: in the payload's namespace or globally
    uname = _name(Unregistered)
    refused(one(1, _pair(meta_str, lambda w: w.none()), name=uname,
                classes={uname: Unregistered}), 'is not registered')
    bname = _name(Box)
    box = dict(name=bname, classes={bname: Box})
    refused(one(1, _pair(meta_str, _strs('k0')), **box), 'is not registered')
    assert grove.TreeSpec.from_bytes(one(1, _pair(meta_str, _strs('k0')), namespace=NS, **box))


class Kept:
    """Registered and unregistered by the test below."""

    def __init__(self, kids):
        self.kids = list(kids)


def test_a_loaded_spec_keeps_the_registrations_it_was_loaded_with():
    ns = 'bytes-kept'
    grove.register_pytree_node(Kept, lambda k: (k.kids, None), lambda _m, kids: Kept(kids),
                               namespace=ns)
    try:
        data = grove.tree_structure(Kept([1, 2]), namespace=ns).to_bytes()
        spec = grove.TreeSpec.from_bytes(data)
        grove.unregister_pytree_node(Kept, namespace=ns)
        assert type(spec.unflatten([1, 2])) is Kept and spec.flatten_up_to(Kept([3, 4])) == [3, 4]
        with pytest.raises(ValueError, match='is not registered'):
            grove.TreeSpec.from_bytes(data)
        grove.register_pytree_node(Kept, lambda k: (k.kids, None), lambda _m, kids: ('new', kids),
                                   namespace=ns)
        assert type(spec.unflatten([1, 2])) is Kept
        again = grove.TreeSpec.from_bytes(data)
        assert again.unflatten([1, 2]) == ('new', (1, 2)) and again != spec
    finally:
        grove.unregister_pytree_node(Kept, namespace=ns)


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
    # ... or insertion order, what dict_insertion_ordered makes; nothing else
    spec = grove.TreeSpec.from_bytes(dict_of([one, zero], host=[0, 1]))
    with grove.dict_insertion_ordered(True, namespace=grove.GLOBAL_NAMESPACE):
        assert spec == grove.tree_structure({(1,): 1, (0,): 2})
    two = lambda w: w.tuple_([w.int_(2)])  # noqa: E731
    refused(dict_of([one, zero, two], host=[2, 0, 1]), 'not in the order Python gives them')
    # a NaN key node (the binding keeps NaN keys as handles), a nested tuple key
    refused(dict_of([lambda w: w.float_(float('nan'))]), 'a dict key is a float')
    refused(dict_of([lambda w: w.tuple_([w.tuple_([])])], host=[0]),
            'a dict key is a tuple holding a tuple')
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
    inner = Tagged([1], [0])
    tree = [{'a': [inner, 2]}, (3, [4, inner])]
    magic, wire, objs, classes, nil, ns = unpack(grove.tree_structure(tree).to_bytes())
    (h, _), = objs.items()
    refused(payload(wire, {h: 'x'}, classes), 'metadata is a handle of an object of type str')


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
    with pytest.raises(ValueError, match=r'repr\(\) of this TreeSpec would be 167772168 characters, '
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
