# SPDX-License-Identifier: MIT
"""Generations: a budget per arena, new generations when full, old ones freed
when no TreeSpec holds them."""

import grove
import pytest


@pytest.fixture
def limit_16mib():
    old = grove.set_memory_limit(16 << 20)
    yield
    grove.set_memory_limit(old)


def test_a_million_distinct_structures_stay_under_the_limit(limit_16mib):
    peak = 0
    made0 = grove.memory_stats()['generations_made']
    for i in range(1_000_000):
        spec = grove.tree_structure({f'k{i}': 0, 'v': [i % 7]})
        if i % 5_000 == 0:
            st = grove.memory_stats()
            peak = max(peak, st['bytes_reserved'])
            assert st['generations'] <= 2  # the current one and the one `spec` may hold
    st = grove.memory_stats()
    assert peak <= 2 * (16 << 20)  # at most two live generations, each within the budget
    assert st['current_bytes_reserved'] <= 16 << 20
    assert st['generations_made'] - made0 >= 2  # it did roll over
    assert spec == grove.tree_structure({'k999999': 1, 'v': [0]})


def test_the_same_structure_allocates_nothing(limit_16mib):
    tree = {'a': [1, 2], 'b': {'c': 3}}
    grove.tree_structure(tree)
    before = grove.memory_stats()
    for _ in range(100_000):
        grove.tree_flatten(tree)
    after = grove.memory_stats()
    assert after['current_nodes'] == before['current_nodes']
    assert after['current_bytes_used'] == before['current_bytes_used']
    assert after['generation'] == before['generation']


def test_old_generations_are_freed():
    s = grove.tree_structure({'a': 1})
    old = grove.set_memory_limit(1 << 20)
    try:
        assert grove.memory_stats()['generations'] == 2
        t = grove.tree_structure({'a': 1})
        assert s == t and hash(s) == hash(t)
        del s
        assert grove.memory_stats()['generations'] == 1
    finally:
        grove.set_memory_limit(old)


def test_one_structure_bigger_than_the_limit(limit_16mib):
    grove.set_memory_limit(1 << 16)
    with pytest.raises(MemoryError, match='memory limit'):
        grove.tree_structure({f'key{i}': i for i in range(20_000)})
    # still usable afterwards
    assert grove.tree_leaves({'a': 1}) == [1]


def test_set_memory_limit_rejects_tiny():
    with pytest.raises(ValueError):
        grove.set_memory_limit(10)


# ---- recycling: a generation that only grows with structures nobody keeps ----


def test_one_off_structures_are_recycled(limit_16mib):
    """A stream of structures seen once, none kept: the generation is dropped and
    restarted small, long before the budget."""
    r0 = grove.memory_stats()['generations_recycled']
    peak = 0
    for i in range(20_000):
        leaves, spec = grove.tree_flatten([{f'b{i}': j, f'a{i}': i} for j in range(i % 7 + 1)])
        assert leaves[:2] == [i, 0]
        del spec
        peak = max(peak, grove.memory_stats()['current_bytes_used'])
    st = grove.memory_stats()
    assert st['generations_recycled'] - r0 > 10
    assert peak < 1 << 20  # the budget is 16 MiB; a recycled generation stays near 32 KiB
    assert st['generations'] == 1


def test_a_kept_spec_keeps_its_generation(limit_16mib):
    """One-off structures move on to new generations even while a kept spec holds
    the current one: that one lives on with the spec, nothing else accumulates."""
    keep = [grove.tree_structure({f'x{i}': [i]}) for i in range(3)]
    gen = grove.memory_stats()['generation']
    for i in range(20_000):
        grove.tree_flatten({f'k{i}': i, f'j{i}': [i]})
    st = grove.memory_stats()
    assert st['generation'] != gen and st['generations'] == 2  # the kept one and the current
    assert st['bytes_used'] < 1 << 20
    assert keep[1] == grove.tree_structure({'x1': [5]})
    assert [s.num_leaves for s in keep] == [1, 1, 1]
    del keep
    assert grove.memory_stats()['generations'] == 1


def test_reused_structures_are_not_recycled(limit_16mib):
    """Structures flattened again and again add nothing: no recycling however
    many times; a big one survives a stream of small one-offs between its uses."""
    big = [{f'f{j:02d}': j for j in range(100)} for _ in range(50)]
    small = [{'a': 1}, {'b': [2, 3]}]
    for t in [big] + small:
        grove.tree_flatten(t)
    gen = grove.memory_stats()['generation']
    for _ in range(2_000):
        for t in small:
            grove.tree_flatten(t)
    assert grove.memory_stats()['generation'] == gen
    nodes = grove.memory_stats()['current_nodes']
    for i in range(200):
        grove.tree_flatten(big)
        grove.tree_flatten([{f'n{i}': 1}])
        grove.tree_flatten([{f'm{i}': 2}])
    st = grove.memory_stats()
    assert st['generation'] == gen and st['current_nodes'] > nodes
