"""The network edge: what faces the internet.

* :mod:`.app` builds the ASGI app: HTTP routes, the ``/ws`` endpoint, the
  browser client's files (:mod:`.static`), and what extensions add
  (:mod:`.extension`).
* :mod:`.connection` is one WebSocket: its outbox, written in one system call
  per event-loop turn.
* :mod:`.http` is what every HTTP route answers with; :mod:`.ratelimit` the
  token buckets against floods.
* :mod:`.run` serves the app with uvicorn; :mod:`.supervisor` runs
  ``--workers N`` processes on one port.

The edge sits on top: it may import every other layer of the server, and
none of them imports it.
"""
