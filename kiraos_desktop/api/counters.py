"""Thread-safe request counters of the API (total, errors, per route), shown on the GUI's API page."""
from __future__ import annotations

import threading

#: The route label of requests refused before routing (bad Host/Origin, missing token, ...).
REJECTED = "(rejected)"
#: The route label of requests that matched no route.
UNMATCHED = "(no route)"


class RequestCounters:
    """Written on the server's event loop thread, read from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._total = 0
        self._errors = 0
        self._by_route: dict[str, int] = {}

    def record(self, route: str, status: int) -> None:
        with self._lock:
            self._total += 1
            if status >= 400:
                self._errors += 1
            self._by_route[route] = self._by_route.get(route, 0) + 1

    def snapshot(self) -> dict:
        """`{"total": n, "errors": n, "by_route": {"/v1/context": n, ...}}`; errors are replies >= 400."""
        with self._lock:
            return {"total": self._total, "errors": self._errors, "by_route": dict(self._by_route)}

    def reset(self) -> None:
        with self._lock:
            self._total = 0
            self._errors = 0
            self._by_route = {}
