"""Play in Telegram: a bot (``kozyr telegram``) and the browser client as a Mini App.

* :mod:`.initdata` checks a Mini App's launch data the way Telegram documents
  (pure Python, no Telegram library: the game server uses it to log players in).
* :mod:`.identity` turns a Telegram user into a Kozyr player (a token derived
  from the user id, so every device of one user is the same player).
* :mod:`.texts` holds the bot's messages in English, Russian, Chinese and Japanese.
* :mod:`.bot` is the bot itself (aiogram 3, the ``telegram`` extra), run in the
  game server's event loop by ``kozyr telegram``.

docs/telegram.md describes the whole: setup, settings, commands, privacy.
"""
