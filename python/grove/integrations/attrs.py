# SPDX-License-Identifier: MIT
"""optree.integrations.attrs needs the attrs package, which grove does not support yet."""

import attrs  # noqa: F401 (ImportError without it, as optree)

raise ImportError('grove.integrations.attrs is not implemented (docs/python.md)')
