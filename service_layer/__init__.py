"""The application's use cases: commands run at the right version, once, under the table's lock;
the system stream, software change control, disputes, custody, snapshots, purge, readiness and
the operators' keys. Entry points call it; it calls the core and the adapters."""
