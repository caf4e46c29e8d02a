"""A trial (issue 29), not part of the package: scripts/ismcts_duel.py with a learned belief.

    KOZYR_TRIAL_BELIEF=MIN_ITERATIONS:docs/runs/issue29/belief_w.json \\
        python docs/runs/issue29/belief_trial.py '<A json>' '<B json>' --deals N --out X.jsonl

In two-player searches of at least MIN_ITERATIONS iterations, the opponent's
deal weight for each unseen card becomes the odds that the logistic fit of
scripts/belief_information.py gives it, over a uniform deal's odds (the fit's
features in the order of that script's ``rows_of``); other searches, and
every card the fit does not score, keep today's weights.  Giving one side
30,001 iterations and MIN_ITERATIONS 30,001 gives the belief to that side
alone.  The duel's worker processes are forked, so they inherit the patch.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import runpy
import sys
from pathlib import Path

import kozyr.bots.ismcts as ismcts

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("belief", ROOT / "scripts/belief_information.py")
assert _spec and _spec.loader
belief = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(belief)

setting = os.environ.get("KOZYR_TRIAL_BELIEF")
if setting:
    least, path = setting.split(":", 1)
    MIN_ITERATIONS = int(least)
    WEIGHTS = json.loads(Path(path).read_text())
    todays = ismcts._weights

    def _weights(view, config):  # type: ignore[no-untyped-def]
        weights = todays(view, config)
        if config.iterations < MIN_ITERATIONS or view.rules.players != 2 or not view.history:
            return weights
        found = belief.rows_of(view)
        if found is None:
            return weights
        cards, rows, base, _ = found
        out = [list(r) for r in weights] if weights else [[1.0] * 52 for _ in range(2)]
        for c, row in zip(cards, rows, strict=True):
            z = sum(x * w for x, w in zip(row, WEIGHTS, strict=True))
            out[1 - view.seat][c] = max(math.exp(z - base), 0.01)
        return out

    ismcts._weights = _weights

runpy.run_path(str(ROOT / "scripts/ismcts_duel.py"), run_name="__main__")
