# SPDX-License-Identifier: MIT
"""The stand-in's `optree._C`: only what optree's test helpers and tests read of optree's C++
module, answered from grove (no optree code). Build facts describe grove's build: no pybind11,
no frozendict node, no subinterpreter support."""

import sys
import sysconfig

import grove as _grove
from grove import _grove as _ext

OPTREE_HAS_FROZENDICT = False
OPTREE_HAS_SUBINTERPRETER_SUPPORT = False
PYBIND11_HAS_NATIVE_ENUM = False
PYBIND11_HAS_SUBINTERPRETER_SUPPORT = False
Py_DEBUG = hasattr(sys, 'gettotalrefcount')
Py_GIL_DISABLED = bool(int(sysconfig.get_config_var('Py_GIL_DISABLED') or '0'))
InternalError = SystemError


def get_registry_size(namespace=None):
    """The node types registered: grove's built-in node types plus the global namespace's
    registrations, plus namespace's own."""
    return _grove._registry_size(namespace)


def is_dict_insertion_ordered(namespace='', inherit_global_namespace=True):
    return _grove._is_dict_insertion_ordered(namespace, inherit_global_namespace)


def get_num_interpreters_seen():
    return 1


def get_num_interpreters_alive():
    return 1


def get_alive_interpreter_ids():
    return {0}


def is_current_interpreter_main():
    return True


def get_current_interpreter_id():
    return 0


def get_main_interpreter_id():
    return 0


del _ext
