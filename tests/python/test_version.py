# SPDX-License-Identifier: MIT
"""The version is written once, in include/grove.h (GV_VERSION_STRING, which
gv_version() returns: tests/test_version.c). grove.__version__ and, when grove
is installed as the grove-pytree distribution (the wheel check runs this file
in a venv with the wheel installed), the distribution's metadata say the same."""

import importlib.metadata
import os
import re

import grove
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def header_version():
    with open(os.path.join(ROOT, 'include', 'grove.h'), encoding='utf-8') as f:
        text = f.read()
    parts = {}
    for name in ('MAJOR', 'MINOR', 'PATCH', 'STRING'):
        m = re.search(rf'^#define GV_VERSION_{name} (\S+)$', text, re.MULTILINE)
        assert m, f'include/grove.h has no GV_VERSION_{name}'
        parts[name] = m.group(1)
    string = parts['STRING'].strip('"')
    assert string == f"{parts['MAJOR']}.{parts['MINOR']}.{parts['PATCH']}"
    return string


def test_package_version_is_the_headers():
    assert grove.__version__ == header_version()


def test_distribution_version_is_the_headers():
    try:
        dist = importlib.metadata.distribution('grove-pytree')
    except importlib.metadata.PackageNotFoundError:
        pytest.skip('grove-pytree is not installed here (a build-tree run)')
    imported = os.path.realpath(grove.__file__)
    if os.path.realpath(dist.locate_file('grove/__init__.py')) != imported:
        pytest.skip('the grove imported is not the installed grove-pytree')
    assert dist.version == header_version()
    assert dist.metadata['Name'] == 'grove-pytree'
    assert dist.metadata['Requires-Python'] == '>=3.10'
