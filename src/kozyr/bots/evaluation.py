"""The learned evaluations the search can score playouts with (issue 29).

``endgame_eval.json`` (next to this module) holds a small network trained on
exactly solved two-player endgames by ``scripts/train_endgame_eval.py`` (its
seed, sample counts and held-out accuracy are in the file; the same command
makes the same file).  The core (``core/eval.c``) computes the features and
runs the network; this module only reads the weights, once.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

#: The shipped network.
EVAL_PATH: Final = Path(__file__).with_name("endgame_eval.json")


@lru_cache(maxsize=4)
def load(path: Path = EVAL_PATH) -> dict[str, Any]:
    """The evaluation file: weights and how they were made."""
    with path.open(encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


@lru_cache(maxsize=4)
def endgame_weights(path: Path = EVAL_PATH) -> tuple[float, ...]:
    """The network's flat weights, as the core's search reads them."""
    return tuple(float(w) for w in load(path)["weights"])
