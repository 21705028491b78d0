# SPDX-License-Identifier: MIT
"""The stubs (python/grove/*.pyi) against the runtime: they cover every public name, and
every function and method they declare has the runtime's parameters (names, kinds,
defaults) as inspect.signature reports them. The extension's functions have text
signatures, so inspect.signature works on all of them."""

import ast
import inspect
import pathlib

import pytest

import grove
import grove.accessors
import grove.keras

PKG = pathlib.Path(grove.__file__).parent
STUBS = {
    'grove': (grove, PKG / '__init__.pyi'),
    'grove.keras': (grove.keras, PKG / 'keras.pyi'),
    'grove.accessors': (grove.accessors, PKG / 'accessors.pyi'),
}

_KINDS = {
    'posonly': inspect.Parameter.POSITIONAL_ONLY,
    'args': inspect.Parameter.POSITIONAL_OR_KEYWORD,
    'vararg': inspect.Parameter.VAR_POSITIONAL,
    'kwonly': inspect.Parameter.KEYWORD_ONLY,
    'kwarg': inspect.Parameter.VAR_KEYWORD,
}
_NO_DEFAULT = object()
_ANY_DEFAULT = object()  # `...` in a stub: the runtime's default is a private sentinel


def _stub_params(fn):
    """[(name, kind, default)] of a stub's def."""
    a = fn.args
    out = []
    positional = [(p, 'posonly') for p in a.posonlyargs] + [(p, 'args') for p in a.args]
    defaults = [_NO_DEFAULT] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for (p, kind), d in zip(positional, defaults):
        out.append((p.arg, _KINDS[kind], d))
    if a.vararg:
        out.append((a.vararg.arg, _KINDS['vararg'], _NO_DEFAULT))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, _KINDS['kwonly'], _NO_DEFAULT if d is None else d))
    if a.kwarg:
        out.append((a.kwarg.arg, _KINDS['kwarg'], _NO_DEFAULT))
    result = []
    for name, kind, d in out:
        if d is _NO_DEFAULT:
            value = _NO_DEFAULT
        elif isinstance(d, ast.Constant) and d.value is Ellipsis:
            value = _ANY_DEFAULT
        else:
            value = ast.literal_eval(d)
        result.append((name, kind, value))
    return result


def _runtime_params(obj):
    sig = inspect.signature(obj)
    return [(p.name, p.kind, _NO_DEFAULT if p.default is inspect.Parameter.empty else p.default)
            for p in sig.parameters.values()]


def _decorators(fn):
    return {ast.unparse(d) for d in fn.decorator_list}


def _stub_tree(path):
    return ast.parse(path.read_text(), filename=str(path))


def _bound_names(tree):
    """The names a stub's top level binds: defs, classes, assignments, imports."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname for a in node.names if a.asname)  # explicit re-exports only
    return names


def _checks():
    """(id, stub def node, runtime object, is method) for every def the stubs declare."""
    out = []
    for modname, (mod, path) in STUBS.items():
        tree = _stub_tree(path)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                out.append((f'{modname}.{node.name}', node, getattr(mod, node.name), False))
            elif isinstance(node, ast.ClassDef):
                cls = getattr(mod, node.name, None)
                if not isinstance(cls, type):
                    continue
                for sub in node.body:
                    if not isinstance(sub, ast.FunctionDef) or sub.name.startswith('__'):
                        continue
                    out.append((f'{modname}.{node.name}.{sub.name}', sub,
                                inspect.getattr_static(cls, sub.name), True))
    return out


CHECKS = _checks()


@pytest.mark.parametrize('modname', list(STUBS))
def test_stub_covers_every_public_name(modname):
    mod, path = STUBS[modname]
    bound = _bound_names(_stub_tree(path))
    missing = sorted(set(mod.__all__) - bound)
    assert not missing, f'{path.name} lacks {missing}'


@pytest.mark.parametrize('modname', list(STUBS))
def test_stub_names_exist_at_run_time(modname):
    mod, path = STUBS[modname]
    extra = sorted(n for n in _bound_names(_stub_tree(path))
                   if not n.startswith('_') and not hasattr(mod, n))
    assert not extra, f'{path.name} declares {extra}, which {modname} does not have'


def test_stubs_ship_with_the_package():
    assert (PKG / 'py.typed').is_file()
    for _, path in STUBS.values():
        assert path.is_file(), path


@pytest.mark.parametrize('name,node,obj,method', CHECKS, ids=[c[0] for c in CHECKS])
def test_stub_signature_is_the_runtime_one(name, node, obj, method):
    decorators = _decorators(node)
    if 'property' in decorators:
        assert isinstance(obj, property) or inspect.isgetsetdescriptor(obj) \
            or inspect.ismemberdescriptor(obj), f'{name}: not a property at run time'
        return
    if isinstance(obj, staticmethod):
        assert 'staticmethod' in decorators, name
        obj = obj.__func__
    elif isinstance(obj, classmethod):
        assert 'classmethod' in decorators, name
        obj = obj.__func__
    runtime = _runtime_params(obj)
    stub = _stub_params(node)
    if 'overload' in decorators:
        # one of several: its parameters are runtime parameters of the same kind
        kinds = {n: k for n, k, _ in runtime}
        for n, k, _ in stub:
            assert kinds.get(n) == k, f'{name}: overload parameter {n} is not the runtime one'
        return
    assert [(n, k) for n, k, _ in stub] == [(n, k) for n, k, _ in runtime], (
        f'{name}: stub {[(n, k.name) for n, k, _ in stub]} vs. runtime '
        f'{[(n, k.name) for n, k, _ in runtime]}')
    for (n, _, sd), (_, _, rd) in zip(stub, runtime):
        if sd is _ANY_DEFAULT:
            assert rd is not _NO_DEFAULT, f'{name}: {n} has no default at run time'
        else:
            assert sd == rd and type(sd) is type(rd), f'{name}: {n}={sd!r} vs. {rd!r}'


def test_every_public_function_has_a_signature():
    """inspect.signature works on every public function and TreeSpec method, C or Python."""
    objs = [getattr(grove, n) for n in grove.__all__]
    objs += [getattr(grove.keras, n) for n in grove.keras.__all__]
    objs += [getattr(grove.TreeSpec, n) for n in dir(grove.TreeSpec) if not n.startswith('_')]
    failed = []
    for obj in objs:
        if not inspect.isroutine(obj):  # classes, typing aliases, properties
            continue
        try:
            inspect.signature(obj)
        except (ValueError, TypeError):
            failed.append(getattr(obj, '__qualname__', repr(obj)))
    assert len(objs) > 100
    assert not failed


@pytest.mark.parametrize('name,params', [
    ('tree_flatten', "(tree, is_leaf=None, *, none_is_leaf=False, namespace='')"),
    ('tree_map', "(func, tree, /, *rests, is_leaf=None, none_is_leaf=False, namespace='')"),
    ('tree_unflatten', '(treespec, leaves)'),
])
def test_c_text_signatures(name, params):
    assert str(inspect.signature(getattr(grove, name))) == params
    assert inspect.signature(grove.TreeSpec.is_leaf).parameters['strict'].default is True
