"""Settings for the whole suite."""

from __future__ import annotations

from hypothesis import settings

# Hypothesis fails an example that runs longer than 200 ms by default: a timing check inside
# unit tests, which a shared, loaded machine trips at random. Speed is the benchmarks' business
# (benchmarks/); here an example may take as long as it takes.
settings.register_profile("paigow", deadline=None)
settings.load_profile("paigow")
