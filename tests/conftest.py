"""Shared pytest configuration for the Kozyr test suite.

Registers Hypothesis settings profiles: "ci" (more examples) is loaded when the
CI environment variable is set, otherwise "dev".
"""

import os

from hypothesis import settings

settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
