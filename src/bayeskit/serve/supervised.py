"""Worker processes that stop with their supervisor.

``bayeskit serve --workers N`` runs N worker processes under uvicorn's supervisor. When the
supervisor dies without stopping them (SIGKILL, a crash, the out-of-memory killer), the workers
would go on serving on their own: still bound to the port, so a restarted server shares it
with orphans answering from an older model, and out of reach of whoever stops the server by
its process ID. Each worker therefore watches its parent and stops, as on SIGTERM, when the
parent is gone.
"""

from __future__ import annotations

import os
import signal
import threading

__all__ = ["SUPERVISOR_ENV", "stop_with_supervisor"]

#: The supervisor's process ID, set by the supervisor for the workers it starts.
SUPERVISOR_ENV = "BAYESKIT_SERVE_SUPERVISOR"

#: How often a worker looks for its supervisor (seconds): an orphan stops within this.
POLL = 0.25


def stop_with_supervisor(poll: float = POLL) -> None:
    """In a worker started by the supervisor named in :data:`SUPERVISOR_ENV`: send this
    process SIGTERM (uvicorn's graceful stop, or the default end before uvicorn handles it)
    once the supervisor is no longer its parent. A process not started so is left alone."""
    try:
        supervisor = int(os.environ[SUPERVISOR_ENV])
    except (KeyError, ValueError):
        return

    def watch() -> None:
        # a dead parent's children are adopted (by init or a subreaper): the parent ID changes
        while os.getppid() == supervisor:
            threading.Event().wait(poll)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="bayeskit-supervisor-watch", daemon=True).start()
