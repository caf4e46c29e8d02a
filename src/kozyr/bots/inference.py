"""What the opponents' play says about their hands (placeholder until the view
carries the public history: every weight is 1)."""

from __future__ import annotations

from kozyr.engine.view import View


def card_weights(view: View) -> list[list[float]] | None:
    """Per seat and card, how much likelier the card is in that hand than a
    uniform deal says; None when nothing is known beyond the uniform deal."""
    return None
