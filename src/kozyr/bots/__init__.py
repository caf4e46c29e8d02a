"""Computer opponents.  Bots see only views (kozyr.engine.view), never the state."""

from .base import Bot, RandomBot

__all__ = ["Bot", "RandomBot"]
