# SPDX-License-Identifier: MIT
"""Shared setup for grove's Python tests.

Hypothesis profiles: "ci" (the default: derandomized, no deadline, sized so
that the differential tests check >= 10,000 generated trees per function in
well under a minute) and "long" (GROVE_HYPOTHESIS_PROFILE=long: 10x more,
random seeds) for a local soak run; "quick" (300) for debug-build runs."""

import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

settings.register_profile(
    'ci',
    derandomize=True,
    deadline=None,
    max_examples=10_000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    'long',
    derandomize=False,
    deadline=None,
    max_examples=100_000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    'quick',
    derandomize=True,
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get('GROVE_HYPOTHESIS_PROFILE', 'ci'))

# grove.keras's tests against keras: keras's numpy backend (the lightest; keras's
# tree functions do not depend on it, except on the torch backend, whose own
# implementation test_keras_torch.py tests in a run of its own with
# GROVE_TEST_KERAS_BACKEND=torch), and its config file (keras writes
# $KERAS_HOME/keras.json on import) in a temporary folder rather than ~/.keras.
os.environ['KERAS_BACKEND'] = os.environ.get('GROVE_TEST_KERAS_BACKEND', 'numpy')
if 'KERAS_HOME' not in os.environ:
    _keras_home = tempfile.mkdtemp(prefix='grove-keras-home-')
    os.environ['KERAS_HOME'] = _keras_home
    atexit.register(shutil.rmtree, _keras_home, True)
