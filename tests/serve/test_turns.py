"""The service's turns: checks in arrival order, in rounds, and a learn ahead of them.

The clock is simulated (each check "takes" a fixed time), so the rounds are the same on
any machine: these tests assert order, never speed.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.serve import ServeConfig, create_app, journal
from bayeskit.serve.turns import Turns

from .conftest import SPAMMY, TOKEN, serve_check_cpu


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def _check(turns: Turns, clock: Clock, name: str, log: list[str], cost: float) -> None:
    await turns.take()
    try:
        log.append(name)
        clock.now += cost  # the check's work, all in this step (as the service's is)
    finally:
        turns.give_back()


def _start_checks(
    turns: Turns, clock: Clock, log: list[str], n: int, cost: float
) -> list[asyncio.Future[None]]:
    """``n`` checks arriving at once (as from ``n`` busy connections), named c0, c1, …"""
    return [asyncio.ensure_future(_check(turns, clock, f"c{i}", log, cost)) for i in range(n)]


async def _learn(log: list[str]) -> None:
    log.append("learn")  # a learn takes no turn


def _run(main):  # type: ignore[no-untyped-def]
    return asyncio.run(main())


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 60),
    cost=st.floats(1e-5, 2e-3),
    budget=st.floats(1e-4, 5e-3),
)
def test_checks_run_in_the_order_they_came(n: int, cost: float, budget: float) -> None:
    clock, log = Clock(), []
    turns = Turns(budget, clock=clock)

    async def main() -> None:
        await asyncio.gather(*(_check(turns, clock, f"c{i}", log, cost) for i in range(n)))

    _run(main)
    assert log == [f"c{i}" for i in range(n)]
    assert turns.waiting == 0


@pytest.mark.parametrize("budget", [0.0005, 0.001, 0.0015])
def test_a_learn_begins_within_a_round_of_its_arrival(budget: float) -> None:
    """32 checks arrive at once (as from 32 busy connections), then a learn arrives a few
    loop iterations later: it runs after the rounds of those iterations and one more, not
    after all 32 checks."""
    clock, log = Clock(), []
    cost = 0.0003
    turns = Turns(budget, clock=clock)

    async def main() -> None:
        checks = _start_checks(turns, clock, log, 32, cost)
        for _ in range(3):  # a few iterations later, the learn's bytes are read
            await asyncio.sleep(0)
        learn = asyncio.ensure_future(_learn(log))
        await asyncio.gather(learn, *checks)

    _run(main)
    before = log.index("learn")
    per_round = int(budget / cost) + 1
    assert before <= 4 * per_round < 32, log
    assert [c for c in log if c != "learn"] == [f"c{i}" for i in range(32)]


def test_without_turns_the_learn_waits_for_every_check() -> None:
    """What the turns change: the same arrivals, each check running at once."""
    log: list[str] = []

    async def check(name: str) -> None:
        log.append(name)

    async def main() -> None:
        checks = [asyncio.ensure_future(check(f"c{i}")) for i in range(32)]
        for _ in range(3):
            await asyncio.sleep(0)
        await asyncio.gather(asyncio.ensure_future(_learn(log)), *checks)

    _run(main)
    assert log.index("learn") == 32


def test_a_check_alone_begins_at_once() -> None:
    clock, log = Clock(), []
    turns = Turns(0.001, clock=clock)

    async def main() -> None:
        for i in range(5):  # one after the other, each in its own iteration
            await _check(turns, clock, f"c{i}", log, 0.0001)
            assert turns.waiting == 0
            await asyncio.sleep(0)

    _run(main)
    assert log == [f"c{i}" for i in range(5)]


def test_cancelled_waiters_are_skipped_and_never_block_the_rest() -> None:
    clock, log = Clock(), []
    turns = Turns(0.0005, clock=clock)

    async def main() -> None:
        tasks = _start_checks(turns, clock, log, 12, 0.0004)
        await asyncio.sleep(0)  # every check has taken its turn or waits for one
        assert turns.waiting > 0
        for i in (3, 4, 9):
            tasks[i].cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert [isinstance(r, asyncio.CancelledError) for r in results] == [
            i in (3, 4, 9) for i in range(12)
        ]

    _run(main)
    assert log == [f"c{i}" for i in range(12) if i not in (3, 4, 9)]


def test_a_check_called_up_and_then_cancelled_holds_up_no_one() -> None:
    clock, log = Clock(), []
    turns = Turns(0.0005, clock=clock)

    async def main() -> None:
        tasks = _start_checks(turns, clock, log, 8, 0.0004)
        await asyncio.sleep(0)  # c0 and c1 fit the first round; the others wait
        assert log == ["c0", "c1"]
        assert turns.waiting == 6
        await asyncio.sleep(0)  # the next round is called up (c2), and has not yet run
        assert turns.waiting == 5
        assert log == ["c0", "c1"]
        tasks[2].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    _run(main)
    assert log == [f"c{i}" for i in range(8) if i != 2]
    assert turns.waiting == 0


def test_the_service_answers_a_learn_ahead_of_the_checks_queued_before_it(
    sms_file, model_copy, token_file, monkeypatch
):
    """The app itself: 32 checks arrive at once, a learn a few loop iterations later. The
    checks are answered in the order they came, and the learn before most of them (every
    check first, without turns). The journal's fsync is left out: the order of the answers
    is what is tested, and on a disk another process keeps busy one fsync can outlast the 32
    checks (seen once in a full run on two workers)."""
    monkeypatch.setattr(journal, "_fsync", lambda fd: None)
    app = create_app(ServeConfig(model=str(model_copy(sms_file)), token_file=str(token_file)))
    done: list[str] = []

    async def request(name: str, path: str, body: bytes, headers=()) -> None:  # type: ignore[no-untyped-def]
        assert await serve_check_cpu.post(app, path, body, headers) == 200
        done.append(name)

    async def main() -> None:
        checks = [
            asyncio.ensure_future(request(f"c{i}", "/check", f"{SPAMMY} {i}".encode()))
            for i in range(32)
        ]
        for _ in range(3):
            await asyncio.sleep(0)
        auth = [(b"authorization", f"Bearer {TOKEN}".encode())]
        learn = asyncio.ensure_future(request("learn", "/learn/spam", b"a new offer", auth))
        await asyncio.gather(learn, *checks)

    try:
        asyncio.run(main())
    finally:
        app.service.state.close()  # type: ignore[attr-defined]
    assert [d for d in done if d != "learn"] == [f"c{i}" for i in range(32)]
    assert done.index("learn") < 32


def test_a_new_event_loop_starts_afresh():
    """A loop stopped with a round still scheduled (it never runs there) must not keep the
    checks of the next loop the turns serve waiting (a test client may run one per request)."""
    clock, log = Clock(), []
    turns = Turns(0.001, clock=clock)

    async def first() -> None:
        await _check(turns, clock, "c0", log, 0.0004)
        asyncio.get_running_loop().stop()  # the next round, just scheduled, never runs

    loop = asyncio.new_event_loop()
    try:
        task = loop.create_task(first())
        loop.run_forever()
        assert task.done()
    finally:
        loop.close()
    clock.now += 1.0  # the next request comes long after

    async def second() -> None:
        await asyncio.wait_for(_check(turns, clock, "c1", log, 0.0004), timeout=5)

    _run(second)
    assert log == ["c0", "c1"]
