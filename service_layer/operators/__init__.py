"""The casino's operators, the people behind every writing command: their API keys (bound to an
actor and a role, trusted as far as the sealed log records them), who may do what (one matrix),
and the signers of a slip. Both ways in use it: the HTTP API (``entrypoints/http``) and the
command line (``entrypoints/cli``), which never imports the HTTP package for it."""
