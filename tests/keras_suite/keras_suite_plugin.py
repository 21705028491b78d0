# SPDX-License-Identifier: MIT
"""pytest plugin for run.py: puts grove in place of the keras implementation module that keras's
own tree_test.py imports and tests, and counts who answers.

keras/src/tree/tree_test.py does not go through keras.tree: it imports keras's implementation
module itself (`from keras.src.tree import optree_impl`, or `torchtree_impl` on the torch
backend) and calls its functions. So this plugin, before the test file is imported, installs
grove (grove.keras.install()), takes the module keras.tree now runs on, and makes a stand-in
module of it under the name of keras's implementation module (in sys.modules and on the
keras.src.tree package): the functions tree_test.py calls, each counting its calls, and nothing
else (a name grove lacks is an AttributeError, nothing falls back to keras). keras's own module
keeps working underneath (a grove implementation may hand a call to it); its functions count
their calls too. With GROVE_KERAS_SUITE_MODE=reference nothing is substituted: keras's own
implementation runs, counted, for the comparison column.

At the end the counts and the outcome of every test go to the JSON file
GROVE_KERAS_SUITE_REPORT names."""

import importlib
import json
import os
import sys
import types

# What keras's tree_test.py calls on its implementation module (and register_tree_node_class,
# which tree_api calls on it).
NAMES = ('is_nested', 'traverse', 'flatten', 'flatten_with_path', 'map_structure',
         'map_structure_up_to', 'assert_same_structure', 'assert_same_paths', 'pack_sequence_as',
         'lists_to_tuples', 'map_shape_structure', 'register_tree_node_class')

_calls = {'grove': 0, 'keras': 0}
_outcomes = {}
_info = {}


def _counted(fn, who):
    def call(*args, **kwargs):
        _calls[who] += 1
        return fn(*args, **kwargs)
    call.__name__ = getattr(fn, '__name__', 'call')
    call.__wrapped__ = fn
    return call


def pytest_configure(config):
    mode = os.environ.get('GROVE_KERAS_SUITE_MODE', 'grove')
    if mode == 'grove':
        import grove.keras
        grove.keras.install()
    import keras
    from keras.src.tree import tree_api
    backend = keras.backend.backend()
    keras_name = 'keras.src.tree.' + ('torchtree_impl' if backend == 'torch' else 'optree_impl')
    keras_impl = importlib.import_module(keras_name)
    impl = tree_api.tree_impl
    _info.update(mode=mode, backend=backend, keras_module=keras_name,
                 implementation=getattr(impl, '__name__', repr(impl)))
    if mode == 'grove':
        import grove
        if impl is keras_impl or not _info['implementation'].startswith('grove'):
            raise RuntimeError(f'grove.keras.install() left keras.tree on {impl!r}')
        _info['grove_file'] = grove.__file__
    # keras's own functions, counted in place (whoever calls them through the module)
    for name in NAMES:
        setattr(keras_impl, name, _counted(getattr(keras_impl, name), 'keras'))
    if mode == 'grove':
        standin = types.ModuleType(keras_name, f'grove ({_info["implementation"]}) in place of '
                                   f'{keras_name}, for keras/src/tree/tree_test.py')
        for name in NAMES:
            setattr(standin, name, _counted(getattr(impl, name), 'grove'))
        sys.modules[keras_name] = standin
        setattr(sys.modules['keras.src.tree'], keras_name.rsplit('.', 1)[1], standin)


def pytest_runtest_logreport(report):
    if report.when == 'call' or report.outcome != 'passed':
        if report.nodeid not in _outcomes or report.outcome != 'passed':
            _outcomes[report.nodeid] = report.outcome


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get('GROVE_KERAS_SUITE_REPORT')
    if path:
        with open(path, 'w', encoding='utf-8') as f:
            json.dump({'info': _info, 'calls': _calls, 'outcomes': _outcomes}, f, indent=1,
                      sort_keys=True)
