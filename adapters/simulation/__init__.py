"""``paigow simulate``: a table session played through the real service and store, and its tally."""

from adapters.simulation.session import STRATEGIES, Session, Settings, quiet_collector
from adapters.simulation.summary import Tally

__all__ = ["STRATEGIES", "Session", "Settings", "Tally", "quiet_collector"]
