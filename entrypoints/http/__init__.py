"""The HTTP API (issue 10): FastAPI over the application service; see docs/http.md."""
