"""The audit's main process makes the collector rare while its workers' messages come in, and puts
it back as it was, once, however many audits with workers overlap in one process."""

from __future__ import annotations

import gc

from audit.worker_results import rare_collections


def test_an_audit_with_workers_puts_the_collector_back_as_it_found_it() -> None:
    before = gc.get_threshold()
    with rare_collections():
        assert gc.get_threshold() == (50_000, 20, 100)
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_overlapping_audits_restore_the_collector_when_the_last_one_ends() -> None:
    before = gc.get_threshold()
    first, second = rare_collections(), rare_collections()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_threshold() == (50_000, 20, 100)  # the second audit still runs
    second.__exit__(None, None, None)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_an_audit_leaves_a_freeze_it_did_not_make() -> None:
    gc.freeze()  # a host process that froze its start-up objects itself
    try:
        with rare_collections():
            pass
        assert gc.get_freeze_count() > 0  # still frozen: the audit did not unfreeze them
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0
