"""Bot tournaments (``kozyr arena``): duplicate deals, durak rates with intervals, Elo.

* :mod:`.spec` — bot specs (``random``, levels ``1``..``10``, the frozen flat Monte
  Carlo bots ``mc5``..``mc10``) and the bot factory;
* :mod:`.schedule` — pairings, duplicate deals, seat rotation and derived seeds;
* :mod:`.match` — one refereed game between bots;
* :mod:`.runner` — playing a schedule, in parallel worker processes if asked;
* :mod:`.stats` — Wilson intervals and Bradley–Terry (Elo) ratings;
* :mod:`.summary` — counting results per pairing and per bot.
"""

from .spec import ArenaError

__all__ = ["ArenaError"]
