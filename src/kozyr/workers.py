"""Worker processes that do not outlive the process that started them.

A process pool's workers wait on their queue, or keep playing the chunk they
were given, after their parent has died — killed with SIGKILL, or with SIGTERM
that skips Python's clean-up.  Each worker therefore watches its parent and
exits when it is gone.  Used by the server's bot pool and by ``kozyr arena``;
imports nothing from the rest of kozyr.
"""

from __future__ import annotations

import os
import threading
import time


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, killed but not yet reaped, counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _watch(parent: int, interval: float) -> None:
    while True:
        time.sleep(interval)
        if not alive(parent):
            os._exit(0)


def exit_with(parent: int, interval: float = 1.0) -> None:
    """Exit this process (at once, without clean-up) soon after ``parent`` dies."""
    threading.Thread(target=_watch, args=(parent, interval), daemon=True).start()
