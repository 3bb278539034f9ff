"""The feed's watch wakes its followers: at once when the head moved since their mark, after their
timeout otherwise, and one follower per turn of their loop (service_layer/feed_watch.py)."""

from __future__ import annotations

import asyncio

from service_layer.feed_watch import FeedWatch


def _watch() -> FeedWatch:
    return FeedWatch(lambda: 0)  # its thread is not started: the tests move the head themselves


def test_a_follower_whose_mark_is_old_returns_at_once_and_one_waits_out_its_timeout() -> None:
    watch = _watch()
    watch._saw(5)

    async def run() -> tuple[int, int]:
        moved = await watch.changed(0, 10.0)  # the head moved after mark 0
        waited = await watch.changed(watch.mark, 0.01)  # nothing moves: the timeout
        return moved, waited

    assert asyncio.run(run()) == (1, 1)
    assert watch._waiters == []  # a timed-out follower is no longer listed


def test_followers_are_woken_one_per_turn_of_their_loop_each_once() -> None:
    watch = _watch()
    woken: list[int] = []

    async def follower(n: int) -> None:
        await watch.changed(watch.mark, 10.0)
        woken.append(n)

    async def run() -> list[list[int]]:
        tasks = [asyncio.create_task(follower(n)) for n in range(4)]
        await asyncio.sleep(0)  # each one waits now
        tasks[1].cancel()  # a follower gone meanwhile is skipped
        await asyncio.sleep(0)
        watch._saw(1)  # what the watcher's thread does when the head moves
        turns = []
        for _ in range(8):
            await asyncio.sleep(0)
            turns.append(list(woken))
        await asyncio.gather(*tasks, return_exceptions=True)
        return turns

    turns = asyncio.run(run())
    assert woken == [0, 2, 3]
    # Never more than one more follower woken in a turn of the loop.
    counts = [len(t) for t in turns]
    assert all(b - a <= 1 for a, b in zip([0, *counts], counts, strict=False))
