"""The garbage collector's settings for a long-lived process: ``paigow serve`` and ``paigow
simulate`` (docs/http.md, docs/simulate.md)."""

from __future__ import annotations

import gc


def quiet_collector() -> None:
    """Call once what lives as long as the process is built (the evaluator's and House Ways'
    tables, the store, the app): it is frozen out of the collector's full walks, which otherwise
    paused every request in flight for ~60 ms and, in a simulation, walked the whole heap a
    quarter of a round's CPU at K = 10. The young generation is collected every 10,000
    allocations, not 700: a request or a batch of rounds allocates thousands of short-lived
    objects, and at 700 they were promoted by the thousand (about a tenth of the server's CPU)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
