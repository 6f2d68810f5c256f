"""Shared test configuration: Hypothesis profiles.

With ``CI=true`` the ``ci`` profile is loaded: derandomized (the same examples on every run) and
without the example database, so a CI run is deterministic.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")
