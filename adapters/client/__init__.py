"""Clients of the server's own APIs, for the casino's other systems (and the tests)."""
