# SPDX-License-Identifier: MIT
# Types of grove's public API for mypy, pyright and editors. Every function is generic
# over the leaf type: a tree annotated PyTree[int] flattens to list[int]. The parameter
# names, kinds and defaults are the runtime's (tests/python/test_typing_api.py checks
# them against inspect.signature); tests/typing/ runs mypy --strict and pyright over a
# typed user module and a file of mistakes they must report.

import builtins
from collections import deque
from contextlib import AbstractContextManager
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping
from typing import Any, Final, Generic, Literal, NamedTuple, Protocol, SupportsIndex, TypeVar, overload

from typing_extensions import Self, TypeAlias

from grove.accessors import (
    AutoEntry as AutoEntry,
    DataclassEntry as DataclassEntry,
    FlattenedEntry as FlattenedEntry,
    GetAttrEntry as GetAttrEntry,
    GetItemEntry as GetItemEntry,
    MappingEntry as MappingEntry,
    NamedTupleEntry as NamedTupleEntry,
    PyTreeAccessor as PyTreeAccessor,
    PyTreeEntry as PyTreeEntry,
    PyTreeKind as PyTreeKind,
    SequenceEntry as SequenceEntry,
    StructSequenceEntry as StructSequenceEntry,
)

__version__: str
__all__: list[str]

_T = TypeVar('_T')
_S = TypeVar('_S')
_U = TypeVar('_U')
_C = TypeVar('_C', bound=type)

# A tree whose leaves are _T: _T itself or a container of such trees, where a child may
# also be None (a node without children unless none_is_leaf). A namedtuple is a tuple; an
# OrderedDict or defaultdict a dict. Registered classes are leaves to the type checker
# unless the tree is annotated with them.
PyTree: TypeAlias = (
    _T
    | tuple['PyTree[_T] | None', ...]
    | list['PyTree[_T] | None']
    | dict[Any, 'PyTree[_T] | None']
    | deque['PyTree[_T] | None']
)

FlattenFunc: TypeAlias = Callable[
    [Any],
    tuple[Iterable[Any], Hashable | None]
    | tuple[Iterable[Any], Hashable | None, Iterable[Any] | None],
]
UnflattenFunc: TypeAlias = Callable[[Any, Iterable[Any]], Any]

class CustomTreeNode(Protocol):
    """A class registered through its own methods (register_pytree_node_class)."""

    def tree_flatten(
        self,
    ) -> (
        tuple[Iterable[Any], Hashable | None]
        | tuple[Iterable[Any], Hashable | None, Iterable[Any] | None]
    ): ...
    @classmethod
    def tree_unflatten(cls, metadata: Any, children: Any) -> Self: ...

class _GlobalNamespace: ...

GLOBAL_NAMESPACE: Final[_GlobalNamespace]
NONE_IS_NODE: Final[bool]
NONE_IS_LEAF: Final[bool]
MAX_RECURSION_DEPTH: Final[int]

_IsLeaf: TypeAlias = Callable[[Any], bool] | None

class TreeSpec:
    """The structure of a pytree, interned: == and hash() are O(1)."""

    @property
    def num_leaves(self) -> int: ...
    @property
    def num_nodes(self) -> int: ...
    @property
    def num_children(self) -> int: ...
    @property
    def none_is_leaf(self) -> bool: ...
    @property
    def namespace(self) -> str: ...
    @property
    def type(self) -> builtins.type | None: ...
    @property
    def kind(self) -> PyTreeKind: ...
    def unflatten(self, leaves: Iterable[_T], /) -> PyTree[_T]: ...
    def flatten_up_to(self, tree: PyTree[_T], /) -> list[PyTree[_T]]: ...
    def children(self, /) -> list[TreeSpec]: ...
    def child(self, index: SupportsIndex, /) -> TreeSpec: ...
    def is_leaf(self, /, strict: bool = True) -> bool: ...
    def paths(self, /) -> list[tuple[Any, ...]]: ...
    def fingerprint(self, /) -> bytes: ...
    def entries(self) -> list[Any]: ...
    def entry(self, index: SupportsIndex, /) -> Any: ...
    def accessors(self, /) -> list[PyTreeAccessor]: ...
    def one_level(self, /) -> TreeSpec | None: ...
    def is_one_level(self, /) -> bool: ...
    def is_prefix(self, other: TreeSpec, strict: bool = False) -> bool: ...
    def is_suffix(self, other: TreeSpec, strict: bool = False) -> bool: ...
    def compose(self, inner: TreeSpec) -> TreeSpec: ...
    def transform(
        self,
        /,
        f_node: Callable[[TreeSpec], TreeSpec] | None = None,
        f_leaf: Callable[[TreeSpec], TreeSpec] | None = None,
    ) -> TreeSpec: ...
    def traverse(
        self,
        leaves: Iterable[_T],
        /,
        f_node: Callable[[Any], Any] | None = None,
        f_leaf: Callable[[_T], Any] | None = None,
    ) -> Any: ...
    def walk(
        self,
        leaves: Iterable[_T],
        /,
        f_node: Callable[[builtins.type, Any, tuple[Any, ...]], Any] | None = None,
        f_leaf: Callable[[_T], Any] | None = None,
    ) -> Any: ...
    def broadcast_to_common_suffix(self, other: TreeSpec, /) -> TreeSpec: ...
    def to_bytes(self) -> bytes: ...
    @staticmethod
    def from_bytes(data: bytes, *, max_size: int | None = 100000000) -> TreeSpec: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __lt__(self, other: TreeSpec, /) -> bool: ...
    def __le__(self, other: TreeSpec, /) -> bool: ...
    def __gt__(self, other: TreeSpec, /) -> bool: ...
    def __ge__(self, other: TreeSpec, /) -> bool: ...
    def __hash__(self, /) -> int: ...
    def __len__(self) -> int: ...

PyTreeSpec = TreeSpec
PyTreeDef = TreeSpec

# ---- flatten, unflatten ----

def tree_flatten(
    tree: PyTree[_T], is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> tuple[list[_T], TreeSpec]: ...
def tree_flatten_with_path(
    tree: PyTree[_T], is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> tuple[list[tuple[Any, ...]], list[_T], TreeSpec]: ...
def tree_flatten_with_accessor(
    tree: PyTree[_T], /, is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> tuple[list[PyTreeAccessor], list[_T], TreeSpec]: ...
def tree_unflatten(treespec: TreeSpec, leaves: Iterable[_T]) -> PyTree[_T]: ...
def tree_iter(
    tree: PyTree[_T], /, is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> Iterator[_T]: ...
def tree_leaves(
    tree: PyTree[_T], is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> list[_T]: ...
def tree_structure(
    tree: PyTree[_T], is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> TreeSpec: ...
def tree_paths(
    tree: PyTree[_T], is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> list[tuple[Any, ...]]: ...
def tree_accessors(
    tree: PyTree[_T], /, is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> list[PyTreeAccessor]: ...
def tree_is_leaf(
    tree: PyTree[_T], is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> bool: ...
def all_leaves(
    iterable: Iterable[PyTree[_T]],
    is_leaf: _IsLeaf = None,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> bool: ...
def tree_flatten_one_level(
    tree: PyTree[_T], /, is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> FlattenOneLevelOutputEx[_T]: ...

class FlattenOneLevelOutputEx(NamedTuple, Generic[_T]):
    children: list[PyTree[_T]]
    metadata: Any
    entries: tuple[Any, ...]
    unflatten_func: Callable[[Any, list[Any]], PyTree[_T]]

# ---- map ----

def tree_map(
    func: Callable[..., _U],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_U]: ...
def tree_map_(
    func: Callable[..., Any],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_T]: ...
def tree_map_with_path(
    func: Callable[..., _U],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_U]: ...
def tree_map_with_path_(
    func: Callable[..., Any],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_T]: ...
def tree_map_with_accessor(
    func: Callable[..., _U],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_U]: ...
def tree_map_with_accessor_(
    func: Callable[..., Any],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_T]: ...
def tree_replace_nones(
    sentinel: _S, tree: PyTree[_T] | None, /, namespace: str = ''
) -> PyTree[_T | _S]: ...
def tree_partition(
    predicate: Callable[[_T], bool],
    tree: PyTree[_T],
    /,
    is_leaf: _IsLeaf = None,
    *,
    fillvalue: Any = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> tuple[PyTree[Any], PyTree[Any]]: ...
def tree_transpose(
    outer_treespec: TreeSpec, inner_treespec: TreeSpec, tree: PyTree[_T], is_leaf: _IsLeaf = None
) -> PyTree[_T]: ...
def tree_transpose_map(
    func: Callable[..., PyTree[_U]],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    inner_treespec: TreeSpec | None = None,
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_U]: ...
def tree_transpose_map_with_path(
    func: Callable[..., PyTree[_U]],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    inner_treespec: TreeSpec | None = None,
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_U]: ...
def tree_transpose_map_with_accessor(
    func: Callable[..., PyTree[_U]],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    inner_treespec: TreeSpec | None = None,
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_U]: ...

# ---- broadcast ----

def tree_broadcast_prefix(
    prefix_tree: PyTree[_T],
    full_tree: PyTree[_S],
    is_leaf: _IsLeaf = None,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_T]: ...
def broadcast_prefix(
    prefix_tree: PyTree[_T],
    full_tree: PyTree[_S],
    /,
    is_leaf: _IsLeaf = None,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> list[_T]: ...
def tree_broadcast_common(
    tree: PyTree[_T],
    other_tree: PyTree[_T],
    /,
    is_leaf: _IsLeaf = None,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> tuple[PyTree[_T], PyTree[_T]]: ...
def broadcast_common(
    tree: PyTree[_T],
    other_tree: PyTree[_T],
    /,
    is_leaf: _IsLeaf = None,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> tuple[list[_T], list[_T]]: ...
def tree_broadcast_map(
    func: Callable[..., _U],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_U]: ...
def tree_broadcast_map_with_path(
    func: Callable[..., _U],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_U]: ...
def tree_broadcast_map_with_accessor(
    func: Callable[..., _U],
    tree: PyTree[_T],
    /,
    *rests: PyTree[Any],
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> PyTree[_U]: ...
def prefix_errors(
    prefix_tree: PyTree[_T],
    full_tree: PyTree[_S],
    /,
    is_leaf: _IsLeaf = None,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> list[Callable[[str], ValueError]]: ...

# ---- reductions ----

def tree_reduce(
    func: Callable[[_T, _T], _T],
    tree: PyTree[_T],
    initial: _T = ...,
    *,
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> _T: ...
def tree_sum(
    tree: PyTree[_T],
    /,
    start: _T = ...,
    *,
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> _T: ...
def tree_max(
    tree: PyTree[_T],
    /,
    *,
    default: _T = ...,
    key: Callable[[_T], Any] | None = None,
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> _T: ...
def tree_min(
    tree: PyTree[_T],
    /,
    *,
    default: _T = ...,
    key: Callable[[_T], Any] | None = None,
    is_leaf: _IsLeaf = None,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> _T: ...
def tree_all(
    tree: PyTree[_T], is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> bool: ...
def tree_any(
    tree: PyTree[_T], is_leaf: _IsLeaf = None, *, none_is_leaf: bool = False, namespace: str = ''
) -> bool: ...

# ---- TreeSpec functions ----

def treespec_paths(treespec: TreeSpec, /) -> list[tuple[Any, ...]]: ...
def treespec_accessors(treespec: TreeSpec, /) -> list[PyTreeAccessor]: ...
def treespec_entries(treespec: TreeSpec, /) -> list[Any]: ...
def treespec_entry(treespec: TreeSpec, index: SupportsIndex, /) -> Any: ...
def treespec_children(treespec: TreeSpec, /) -> list[TreeSpec]: ...
def treespec_child(treespec: TreeSpec, index: SupportsIndex, /) -> TreeSpec: ...
def treespec_one_level(treespec: TreeSpec, /) -> TreeSpec | None: ...
def treespec_transform(
    treespec: TreeSpec,
    /,
    f_node: Callable[[TreeSpec], TreeSpec] | None = None,
    f_leaf: Callable[[TreeSpec], TreeSpec] | None = None,
) -> TreeSpec: ...
def treespec_is_leaf(treespec: TreeSpec, /, *, strict: bool = True) -> bool: ...
def treespec_is_strict_leaf(treespec: TreeSpec, /) -> bool: ...
def treespec_is_one_level(treespec: TreeSpec, /) -> bool: ...
def treespec_is_prefix(
    treespec: TreeSpec, other_treespec: TreeSpec, /, *, strict: bool = False
) -> bool: ...
def treespec_is_suffix(
    treespec: TreeSpec, other_treespec: TreeSpec, /, *, strict: bool = False
) -> bool: ...
def treespec_leaf(*, none_is_leaf: bool = False, namespace: str = '') -> TreeSpec: ...
def treespec_none(*, none_is_leaf: bool = False, namespace: str = '') -> TreeSpec: ...
def treespec_tuple(
    iterable: Iterable[TreeSpec] = (), /, *, none_is_leaf: bool = False, namespace: str = ''
) -> TreeSpec: ...
def treespec_list(
    iterable: Iterable[TreeSpec] = (), /, *, none_is_leaf: bool = False, namespace: str = ''
) -> TreeSpec: ...
def treespec_dict(
    mapping: Mapping[Any, TreeSpec] | Iterable[tuple[Any, TreeSpec]] = (),
    /,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
    **kwargs: TreeSpec,
) -> TreeSpec: ...
def treespec_namedtuple(
    namedtuple: tuple[TreeSpec, ...], /, *, none_is_leaf: bool = False, namespace: str = ''
) -> TreeSpec: ...
def treespec_ordereddict(
    mapping: Mapping[Any, TreeSpec] | Iterable[tuple[Any, TreeSpec]] = (),
    /,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
    **kwargs: TreeSpec,
) -> TreeSpec: ...
def treespec_defaultdict(
    default_factory: Callable[[], Any] | None = None,
    mapping: Mapping[Any, TreeSpec] | Iterable[tuple[Any, TreeSpec]] = (),
    /,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
    **kwargs: TreeSpec,
) -> TreeSpec: ...
def treespec_deque(
    iterable: Iterable[TreeSpec] = (),
    /,
    maxlen: int | None = None,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
) -> TreeSpec: ...
def treespec_structseq(
    structseq: tuple[TreeSpec, ...], /, *, none_is_leaf: bool = False, namespace: str = ''
) -> TreeSpec: ...
def treespec_frozendict(
    mapping: Mapping[Any, TreeSpec] | Iterable[tuple[Any, TreeSpec]] = (),
    /,
    *,
    none_is_leaf: bool = False,
    namespace: str = '',
    **kwargs: TreeSpec,
) -> TreeSpec: ...
def treespec_from_collection(
    collection: Collection[TreeSpec], /, *, none_is_leaf: bool = False, namespace: str = ''
) -> TreeSpec: ...

# ---- registry ----

def register_pytree_node(
    cls: _C,
    flatten_func: FlattenFunc,
    unflatten_func: UnflattenFunc,
    *,
    path_entry_type: builtins.type[PyTreeEntry] | None = None,
    namespace: str | _GlobalNamespace,
) -> _C: ...
@overload
def register_pytree_node_class(
    cls: _C,
    *,
    path_entry_type: builtins.type[PyTreeEntry] | None = None,
    namespace: str | _GlobalNamespace | None = None,
) -> _C: ...
@overload
def register_pytree_node_class(
    cls: str | _GlobalNamespace | None = None,
    *,
    path_entry_type: builtins.type[PyTreeEntry] | None = None,
    namespace: str | _GlobalNamespace | None = None,
) -> Callable[[_C], _C]: ...
def unregister_pytree_node(cls: builtins.type, *, namespace: str | _GlobalNamespace) -> Any: ...
def dict_insertion_ordered(
    mode: bool, /, *, namespace: str | _GlobalNamespace
) -> AbstractContextManager[None]: ...

# ---- typing helpers ----

def PyTreeTypeVar(name: str, param: Any) -> Any: ...  # noqa: N802 (optree's name)

def is_namedtuple(obj: object) -> bool: ...
def is_namedtuple_class(cls: object) -> bool: ...
def is_namedtuple_instance(obj: object) -> bool: ...
def namedtuple_fields(obj: tuple[Any, ...] | builtins.type[tuple[Any, ...]]) -> tuple[str, ...]: ...
def is_structseq(obj: object) -> bool: ...
def is_structseq_class(cls: object) -> bool: ...
def is_structseq_instance(obj: object) -> bool: ...
def structseq_fields(obj: tuple[Any, ...] | builtins.type[tuple[Any, ...]]) -> tuple[str, ...]: ...

# ---- grove's own ----

def canonicalize(tree: PyTree[_T]) -> tuple[PyTree[_T], bool]: ...
def memory_stats() -> dict[str, int]: ...
def set_memory_limit(limit: int, /) -> int: ...
def set_output_limit(limit: int, /) -> int: ...
def install_as_optree() -> Any: ...

MUTATIONS: Final[tuple[str, ...]]

@overload
def mutate(
    tree: Any,
    seed: int,
    other: Any | None = None,
    *,
    kinds: Iterable[str] | None = None,
    max_nodes: int = 1000,
    max_depth: int = 32,
    max_leaf_size: int = 256,
    is_leaf: Callable[[Any], bool] | None = None,
    none_is_leaf: bool = False,
    namespace: str = '',
    json: bool = False,
    return_kind: Literal[False] = False,
) -> Any: ...
@overload
def mutate(
    tree: Any,
    seed: int,
    other: Any | None = None,
    *,
    kinds: Iterable[str] | None = None,
    max_nodes: int = 1000,
    max_depth: int = 32,
    max_leaf_size: int = 256,
    is_leaf: Callable[[Any], bool] | None = None,
    none_is_leaf: bool = False,
    namespace: str = '',
    json: bool = False,
    return_kind: Literal[True],
) -> tuple[Any, str | None]: ...
