# SPDX-License-Identifier: MIT
"""The stand-in's `optree.ops`: the one constant optree's test helpers import from it."""

import collections

STANDARD_DICT_TYPES = frozenset({dict, collections.OrderedDict, collections.defaultdict})
