"""What the server tells its operators: JSON log lines (:mod:`.log`, written
without blocking the event loop by :mod:`.logsink`) and the figures of
``/health`` and ``/metrics`` (:mod:`.metrics`).  The bottom layer: it imports
nothing else of the server."""
