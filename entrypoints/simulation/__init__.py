"""``paigow simulate``: a table session played through the real service and store, and its tally."""

from adapters.collector import quiet_collector
from entrypoints.simulation.session import STRATEGIES, Session, SessionSettings
from entrypoints.simulation.summary import Tally

__all__ = ["STRATEGIES", "Session", "SessionSettings", "Tally", "quiet_collector"]
