"""The event log's format, owned in one place: canonical bytes and hashes, the JSON form of events,
the chain verifier, the log queries, the system stream's schema, keys and provenance.

The store (``adapters/store``), its replay and ``audit/`` all read and write the log through this
package; it imports ``table_core`` and third-party libraries only (no SQLAlchemy, no adapters).
"""
