"""Turns in the event loop, so that a learn is not kept waiting behind the checks.

An event loop runs, in each of its iterations, every request whose bytes it read when it
last looked at its sockets, in the order they came. Under load every keep-alive
connection has a request waiting, so an iteration runs one request per connection, and
a learn that arrives while it runs waits for the rest of that iteration and its place in
the next one. With 32 busy clients that is tens of milliseconds, for every request alike,
as Little's law says it must be (32 requests in the server at 2,000 a second is 16 ms
each).

A learn is a person's action (the mail client's "this is spam" button), rare next to the
checks an MDA sends for every message. So the read-only requests (``/check``,
``/verdict``, ``/invocations``) take turns, in the order they came, in rounds of about
``budget`` seconds (a round is as many checks as the last ones' duration says fit): each
round runs in its own loop iteration, and the loop reads its sockets between two rounds.
A learn takes no turn: it begins in the iteration after its bytes arrive, behind at most
one round. The default round is half a millisecond: under the load test a learn waited
about 2 ms less at the median than with rounds of one millisecond, and the checks were
served as fast (the loop's extra iterations cost less than the noise of a shared machine).
A check that must wait costs one wake-up (a future resolved in the next
iteration, a few microseconds), and it waits no longer than before, since the checks
still run one after the other, in order. A request that arrives while no check waits and
the round has room begins at once, as before.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

__all__ = ["Turns"]

#: The first guess of a check's duration, before any was measured (seconds).
_FIRST_GUESS = 0.0005


class Turns:
    """First come, first served, in rounds of about ``budget`` seconds, one round per
    event-loop iteration (see the module docstring).

    ``await take()`` waits for the turn; ``give_back()`` (always, in a ``finally``) ends it.

    Examples
    --------
    >>> import asyncio
    >>> turns, order = Turns(), []
    >>> async def request(name):
    ...     await turns.take()
    ...     try:
    ...         order.append(name)
    ...     finally:
    ...         turns.give_back()
    >>> async def main():
    ...     await asyncio.gather(*(request(n) for n in "abc"))
    >>> asyncio.run(main())
    >>> order
    ['a', 'b', 'c']
    """

    __slots__ = (
        "_began",
        "_budget",
        "_clock",
        "_loop",
        "_mean",
        "_open",
        "_round_began",
        "_scheduled",
        "_waiting",
    )

    def __init__(
        self, budget: float = 0.0005, *, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self._budget, self._clock = budget, clock
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._open = True  # this iteration admits a check at once (no round is queued)
        self._scheduled = False  # the next round is scheduled (for the loop's next iteration)
        self._round_began = 0.0
        self._began = 0.0  # when the check under way took its turn
        self._mean = _FIRST_GUESS  # a running mean of how long a check takes
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the rounds run in

    @property
    def waiting(self) -> int:
        """How many requests wait for their turn (cancelled ones included until skipped)."""
        return len(self._waiting)

    async def take(self) -> None:
        """Wait for this request's turn (at once while the round has room and no one
        waits)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # Another event loop (a test client may run one per request): what the last one
            # left scheduled or waiting never runs there, and must not hold this one up.
            self._loop, self._waiting, self._open, self._scheduled = loop, deque(), True, False
        now = self._clock()
        if not self._scheduled:
            self._round_began = now
            self._schedule()
        if self._open and now - self._round_began < self._budget:
            self._began = now
            return
        self._open = False  # from now on, every check waits for a round, in order
        turn = loop.create_future()
        self._waiting.append(turn)
        # A request cancelled while it waits (its client gone) is skipped; one cancelled
        # after it was called up just leaves its round a check shorter.
        await turn
        self._began = self._clock()

    def give_back(self) -> None:
        """End this request's turn."""
        took = self._clock() - self._began
        self._mean += 0.1 * (min(took, 10 * self._budget) - self._mean)

    def _schedule(self) -> None:
        assert self._loop is not None
        self._scheduled = True
        self._loop.call_soon(self._next_round)

    def _next_round(self) -> None:
        """At the start of the loop's next iteration: call up the next round of waiting
        checks (they run in the iteration after this one)."""
        self._scheduled = False
        self._round_began = self._clock()
        room = max(1, int(self._budget / max(self._mean, 1e-6)))
        while room and self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():  # skip requests cancelled while they waited
                turn.set_result(None)
                room -= 1
        self._open = not self._waiting
        if self._waiting or not self._open:
            self._schedule()
