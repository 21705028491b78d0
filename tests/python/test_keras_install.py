# SPDX-License-Identifier: MIT
"""grove.keras.install() / uninstall(): with keras imported already (in this
process) and with keras imported afterwards (fresh subprocesses), idempotence,
the registrations keras made going to grove, and uninstall putting back
exactly what keras had."""

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip('keras', reason='keras is in tests/python/requirements-keras.txt')

import grove  # noqa: E402
import grove.keras as gk  # noqa: E402

TRACKED = ('TrackedList', 'TrackedDict', 'TrackedOrderedDict', 'TrackedSet')


def run(code):
    """Run code in a fresh interpreter (same environment, same sys.path); its stdout."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_importing_grove_keras_does_not_import_keras():
    out = run("""
        import sys
        import grove.keras
        print('keras' in sys.modules, any(m.startswith('keras.') for m in sys.modules))
    """)
    assert out.split() == ['False', 'False']


def test_install_before_keras_is_imported():
    out = run("""
        import sys
        import grove, grove.keras, optree
        grove.keras.install()
        grove.keras.install()  # idempotent
        def keras_finders():  # (grove's other finder waits for torch._dynamo)
            return [f for f in sys.meta_path if type(f).__name__ == '_Finder'
                    and f.fullname == 'keras.src.tree.tree_api']
        assert len(keras_finders()) == 1
        import keras
        from keras.src.tree import tree_api
        from keras.src.utils import tracking
        assert tree_api.tree_impl is grove.keras
        # keras registered its wrappers through tree_api: with grove only
        mine = grove._REGISTRY['keras']
        assert all(getattr(tracking, n) in mine for n in %r)
        theirs = optree.register_pytree_node.get(namespace='keras')
        assert not any(getattr(tracking, n) in theirs for n in %r)
        d = tracking.TrackedDict({'b': [1], 'a': tracking.TrackedList([2, 3])})
        print(keras.tree.flatten(d), keras.tree.map_structure(lambda x: x * 2, d))
        # keras itself on grove: a small model, built and run
        import numpy as np
        inp = keras.Input((3,), name='x')
        model = keras.Model({'x': inp}, {'y': keras.layers.Dense(2, name='d')(inp)})
        out = model.predict({'x': np.ones((4, 3), 'float32')}, verbose=0)
        print(sorted(out), out['y'].shape)
        grove.keras.uninstall()
        from keras.src.tree import optree_impl
        assert tree_api.tree_impl is optree_impl and not grove.keras.installed()
        assert not keras_finders()
        # uninstall gave keras's implementation the classes registered meanwhile
        theirs = optree.register_pytree_node.get(namespace='keras')
        assert all(getattr(tracking, n) in theirs for n in %r)
        print(keras.tree.flatten(d))
        grove.keras.uninstall()  # idempotent
    """ % (TRACKED, TRACKED, TRACKED))
    lines = out.splitlines()
    assert lines[0] == "[2, 3, 1] {'a': [4, 6], 'b': [2]}"
    assert lines[1] == "['y'] (4, 2)"
    assert lines[2] == '[2, 3, 1]'


def test_install_then_uninstall_before_import_leaves_keras_alone():
    out = run("""
        import sys
        import grove.keras
        grove.keras.install()
        grove.keras.uninstall()
        import keras
        from keras.src.tree import tree_api
        print(tree_api.tree_impl.__name__)
    """)
    assert out.split() == ['keras.src.tree.optree_impl']


def test_install_after_import_in_a_fresh_process():
    out = run("""
        import keras
        from keras.src.tree import tree_api, optree_impl
        import grove, grove.keras
        from keras.src.utils import tracking

        @keras.src.tree.register_tree_node_class
        class Before:
            def __init__(self, v): self.v = v
            def tree_flatten(self): return [self.v], None
            @classmethod
            def tree_unflatten(cls, m, c): return cls(*c)

        grove.keras.install()
        assert tree_api.tree_impl is grove.keras
        mine = grove._REGISTRY['keras']
        assert Before in mine and all(getattr(tracking, n) in mine for n in %r)
        print(keras.tree.flatten([Before(5), tracking.TrackedSet([7])]))

        @keras.src.tree.register_tree_node_class
        class During:
            def __init__(self, v): self.v = v
            def tree_flatten(self): return [self.v], None
            @classmethod
            def tree_unflatten(cls, m, c): return cls(*c)

        grove.keras.uninstall()
        assert tree_api.tree_impl is optree_impl
        print(keras.tree.flatten([During(6)]))  # optree got it at uninstall
    """ % (TRACKED,))
    assert out.split('\n')[:2] == ['[5, 7]', '[6]']


def test_install_uninstall_in_this_process():
    import keras  # noqa: F401 -- imported before install here
    from keras.src.tree import optree_impl, tree_api
    from keras.src.utils import tracking

    was = gk.installed()
    before = tree_api.tree_impl
    try:
        gk.uninstall()
        assert tree_api.tree_impl is optree_impl and not gk.installed()
        gk.install()
        gk.install()
        assert tree_api.tree_impl is gk and gk.installed()
        assert all(getattr(tracking, n) in grove._REGISTRY['keras'] for n in TRACKED)
        d = tracking.TrackedOrderedDict([('b', 1), ('a', 2)])
        assert keras.tree.flatten(d) == [1, 2]
        gk.uninstall()
        gk.uninstall()
        assert tree_api.tree_impl is optree_impl
        assert keras.tree.flatten(d) == [1, 2]
    finally:
        if was:
            gk.install()
        assert tree_api.tree_impl is before
