"""Reinforcement learning: Durak as a PettingZoo environment (extra ``[rl]``).

    from kozyr.rl import durak_v0
    env = durak_v0.env(players=2, variant="podkidnoy")

Modules: :mod:`~kozyr.rl.durak_v0` (the environment's constructors),
:mod:`~kozyr.rl.env` (the AEC environment), :mod:`~kozyr.rl.actions` (the fixed
action space), :mod:`~kozyr.rl.observation` (the observation array),
:mod:`~kozyr.rl.opponents` (levels 1-10 as opponents inside the environment);
and :mod:`kozyr.bench.rl` (steps per second).  The engine never imports this
package; it needs ``pip install 'kozyr[rl]'`` (pettingzoo, gymnasium, numpy).
"""

from __future__ import annotations

try:
    from . import durak_v0
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(f"kozyr.rl needs the [rl] extra: pip install 'kozyr[rl]' ({exc})") from exc

__all__ = ["durak_v0"]
