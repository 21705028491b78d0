# SPDX-License-Identifier: MIT
"""The stand-in's `optree.registry`: the names optree's tests import from it, taken from grove
(the global namespace, a read-only view of the node types registered there, the dict metadata
class)."""

import grove as _grove

globals()['__GLOBAL_NAMESPACE'] = _grove.GLOBAL_NAMESPACE
_NODETYPE_REGISTRY = _grove._global_registry_view()
DictMetaData = _grove._DictMetaData
