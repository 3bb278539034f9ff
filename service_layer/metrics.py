"""The server's metrics in Prometheus's text format (``prometheus-client``), served at ``/metrics``.

Counted as requests are answered (entrypoints/http/observe.py) and as the service appends
(:class:`MeteredStore`):

- ``paigow_http_requests_total{route, method, status}`` and
  ``paigow_http_request_duration_seconds{route, method}`` (a histogram); ``route`` is the route's
  template (``/tables/{table_id}/round/bet``), ``unmatched`` for a path no route knows;
- ``paigow_commands_refused_total{reason}``: a command answered with an error, by its ``error``
  code (``rule_violation``, ``stale_version``, ``commands_refused``, ``read_only``, …);
- ``paigow_rounds_settled_total``: ``round_settled`` events this process recorded;
- ``paigow_store_append_seconds``: one command's (or one batch's) append, a histogram.

Read from the store when scraped (:class:`StoreCollector`): ``paigow_ready`` (1 or 0, as
``/ready``), ``paigow_checkpoint_age_seconds`` (since the log's last signed checkpoint),
``paigow_verification_ok`` (0 while a failed verification refuses commands), ``paigow_read_only``,
``paigow_log_tampered_total`` (the tamperings this process met, each counted once: an event no
holder of the key appended, a log cut or rewritten under it, a forged snapshot);
``paigow_feed_subscription_lag{subscription}`` and ``paigow_feed_subscription_position{…}`` (the
event feed's named subscriptions: :class:`FeedCollector`);
on PostgreSQL ``paigow_store_failovers_total`` (failovers this process saw: connected to another
primary after losing one, adapters/store/primary.py) and ``paigow_store_primary_lost`` (1 while
none is reachable).

``paigow serve --workers N`` sets ``PROMETHEUS_MULTIPROC_DIR`` for its workers (a fresh folder
the parent removes at exit): the counters and histograms are then prometheus-client's
multiprocess files, summed over every worker whichever worker answers the scrape; the gauges
read at scrape time are the answering worker's view (the store is the same for all).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from typing import Any

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

#: The environment variable prometheus-client reads for its multiprocess mode.
MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
#: The media type of the text format.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# No ``*_created`` series: one line less per label set.
disable_created_metrics()  # type: ignore[no-untyped-call]

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)

REQUESTS = Counter("paigow_http_requests", "HTTP requests answered", ("route", "method", "status"))
LATENCY = Histogram(
    "paigow_http_request_duration_seconds",
    "Time to answer an HTTP request",
    ("route", "method"),
    buckets=_LATENCY_BUCKETS,
)
REFUSED = Counter("paigow_commands_refused", "Commands answered with an error", ("reason",))
ROUNDS_SETTLED = Counter("paigow_rounds_settled", "round_settled events recorded")
APPEND_LATENCY = Histogram(
    "paigow_store_append_seconds",
    "Time to append one command's (or one batch's) events",
    buckets=_LATENCY_BUCKETS,
)


class MeteredStore:
    """The store, its appends timed (``paigow_store_append_seconds``) and the rounds they
    settle counted; everything else is the store's own."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._observe = APPEND_LATENCY.observe
        self._settled = ROUNDS_SETTLED.inc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[Any],
        command_id: str,
        **kw: Any,
    ) -> Any:
        started = time.perf_counter()
        recorded = self._store.append(stream_id, expected_version, events, command_id, **kw)
        self._observe(time.perf_counter() - started)
        self._count_settled(recorded, events, expected_version)
        return recorded

    def append_batch(
        self, stream_id: str, expected_version: int, commands: Sequence[Any], **kw: Any
    ) -> Any:
        started = time.perf_counter()
        recorded = self._store.append_batch(stream_id, expected_version, commands, **kw)
        self._observe(time.perf_counter() - started)
        self._count_settled(
            [e for events in recorded for e in events],
            [e for _, events in commands for e in events],
            expected_version,
        )
        return recorded

    def _count_settled(self, recorded: Sequence[Any], new: Sequence[Any], version: int) -> None:
        settled = sum(1 for e in new if e.type == "round_settled")
        if settled and _wrote(recorded, new, version):
            self._settled(settled)


def _wrote(recorded: Sequence[Any], new: Sequence[Any], version: int) -> bool:
    from eventlog.envelope import wrote  # the service's own test (a retry writes none)

    return wrote(recorded, new, version)


class StoreCollector:
    """The gauges read when scraped: one readiness check of the store
    (service_layer/readiness.py)."""

    def __init__(self, store: Any, service: Any, head: str) -> None:
        self.store, self.service, self.head = store, service, head

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        from service_layer.readiness import readiness

        found = readiness(self.store, self.service, self.head)
        yield _gauge("paigow_ready", "1 when /ready answers 200", found.reason is None)
        yield _gauge(
            "paigow_verification_ok",
            "0 while a failed verification of the store refuses commands",
            not self.service.refusing,
        )
        yield _gauge(
            "paigow_read_only",
            "1 when the server refuses every command",
            bool(self.service.read_only),
        )
        yield CounterMetricFamily(
            "paigow_log_tampered",
            "Tamperings this process met, each once (untagged events, a cut or rewrite, ...)",
            value=getattr(self.service, "tampered_count", 0),
        )
        watch = getattr(self.store, "primary_watch", None)
        if watch is not None:  # PostgreSQL: adapters/store/primary.py
            yield CounterMetricFamily(
                "paigow_store_failovers",
                "Failovers seen: connected to another primary after losing one",
                value=watch.failovers,
            )
            yield _gauge(
                "paigow_store_primary_lost", "1 while no primary is reachable", watch.in_progress
            )
        if found.last is not None:
            age = time.time() - found.last.at.timestamp()
            yield _gauge(
                "paigow_checkpoint_age_seconds", "Seconds since the last signed checkpoint", age
            )


class FeedCollector:
    """The event feed's named subscriptions when scraped (docs/feed.md): each one's
    acknowledged position and its lag (the log's head minus that position)."""

    def __init__(self, subscriptions: Any, head: Any) -> None:
        self.subscriptions, self.head = subscriptions, head

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            head = int(self.head())
            found = self.subscriptions.all()
        except Exception:  # the store is down: /ready and paigow_ready say so
            return
        lag = GaugeMetricFamily(
            "paigow_feed_subscription_lag",
            "Positions of the log after a subscription's acknowledged one",
            labels=("subscription",),
        )
        position = GaugeMetricFamily(
            "paigow_feed_subscription_position",
            "A subscription's acknowledged position",
            labels=("subscription",),
        )
        for s in found:
            lag.add_metric((s.name,), float(max(0, head - s.position)))
            position.add_metric((s.name,), float(s.position))
        yield lag
        yield position


def _gauge(name: str, documentation: str, value: Any) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=float(value))


def store_registry(store: Any, service: Any, head: str) -> CollectorRegistry:
    """A registry of one app's store gauges (one per app: tests build many apps)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(store, service, head))
    return registry


def exposition(store_gauges: CollectorRegistry) -> bytes:
    """The text ``/metrics`` answers: this process's metrics (every worker's, in multiprocess
    mode) and the store's gauges."""
    if os.environ.get(MULTIPROC_DIR):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        counted = generate_latest(registry)
    else:
        counted = generate_latest(REGISTRY)
    return counted + generate_latest(store_gauges)
