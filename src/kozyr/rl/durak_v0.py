"""``durak_v0``: Durak as a PettingZoo AEC environment (PettingZoo's naming:
the module is the environment, its version in the name).

    from kozyr.rl import durak_v0
    env = durak_v0.env(players=2, variant="podkidnoy")

``env()`` and ``raw_env()`` both return the environment itself.  PettingZoo's
own environments come inside its ``OrderEnforcingWrapper``; this one checks
its call order itself (stepping or observing before ``reset`` is an error),
because that wrapper's attribute forwarding cost about a seventh of a step
(docs/performance.md).  docs/rl.md describes the observation, the action space
and the turn order.
"""

from __future__ import annotations

from typing import Any

from .env import DurakEnv

__all__ = ["env", "raw_env"]


def raw_env(**kwargs: Any) -> DurakEnv:
    """The environment without wrappers (keyword arguments: see :class:`DurakEnv`)."""
    return DurakEnv(**kwargs)


def env(**kwargs: Any) -> DurakEnv:
    """The environment (keyword arguments: see :class:`DurakEnv`)."""
    return DurakEnv(**kwargs)
