"""Kozyr: the Russian card game Durak — rules engine, bots, server and clients.

The rules engine lives in :mod:`kozyr.engine` and imports nothing from the
rest of the package; everything else is built on it.
"""

__version__ = "0.1.0"
