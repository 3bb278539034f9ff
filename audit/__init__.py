"""The audit: a regulator replays and verifies every round offline and pinpoints any tampering.

``verify.verify_log`` (one pass: ``chain`` for integrity, ``tables``/``rederive`` for procedure,
rules and money, re-derived by ``table_core`` itself), ``sources`` (a database, read-only),
``bundle`` (the self-contained export), ``recall`` (one round from its events), ``findings``
(what is reported). Seeded sessions for its tests and benchmark:
``entrypoints.simulation.mixed_session``. docs/audit.md.
"""
