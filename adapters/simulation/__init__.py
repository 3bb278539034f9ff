"""``paigow simulate``: a table session played through the real service and store, and its tally."""

from adapters.collector import quiet_collector
from adapters.simulation.session import STRATEGIES, Session, Settings
from adapters.simulation.summary import Tally

__all__ = ["STRATEGIES", "Session", "Settings", "Tally", "quiet_collector"]
