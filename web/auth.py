"""Host control: the PIN login, the session cookie, CSRF tokens and PIN throttling.

* Every browser gets a CSRF token in its (signed, HttpOnly) session cookie; pages
  carry it in ``<meta name="csrf-token">`` and the page's JavaScript sends it in
  the ``X-CSRF-Token`` header of every state-changing request.
* ``POST /api/login`` with the right PIN marks the cookie as the host's. Every
  route that changes state is wrapped in :func:`host_required` (CSRF first, then
  the host check), so no request without the PIN can change the table or the
  ledger.
* Wrong PINs are throttled per client address: after 5 wrong PINs within a
  minute that address gets 429 with ``Retry-After`` until the oldest of them is
  a minute old -- even for the right PIN, so guessing from it gains nothing.
  Wrong PINs from one address never lock out another: the host's phone logs in
  whatever a guesser elsewhere does. Against guessing from many addresses, once
  30 wrong PINs came within a minute from all addresses together, an address
  that has itself given a wrong PIN within the minute waits too; an address
  without one is never held back.
"""
from __future__ import annotations

import collections
import functools
import hmac
import secrets
import threading
import time

from flask import current_app, jsonify, request, session as cookie

from tableref.referee.reasons import Reason
from tableref.web.i18n import say_error

CSRF_HEADER = "X-CSRF-Token"


def new_pin() -> str:
    """A random 6-digit host PIN."""
    return f"{secrets.randbelow(10**6):06d}"


def csrf_token() -> str:
    """This browser's CSRF token (created on first use)."""
    tok = cookie.get("csrf")
    if not tok:
        tok = secrets.token_urlsafe(24)
        cookie["csrf"] = tok
    return tok


def is_host() -> bool:
    return bool(cookie.get("host")) and cookie.get("pin_epoch") == current_app.config["TABLEREF_PIN_EPOCH"]


def host_name() -> str:
    return cookie.get("host_name") or "host"


def client_address() -> str:
    return request.remote_addr or "?"


def error(status: int, message: str, field: str | None = None, **extra):
    """A JSON error: ``error`` in English (logs, API clients) and, for a keyed message (a
    :class:`Reason`), its ``key``, ``params`` and ``say``: the same in the request's language,
    which the page shows."""
    body = {"error": str(message)}
    if isinstance(message, Reason):
        body.update(message.to_json())
        body["say"] = say_error(message)
    if field:
        body["field"] = field
    body.update(extra)
    resp = jsonify(body)
    resp.status_code = status
    return resp


def check_csrf():
    """None when the request carries this browser's CSRF token, else a 403 response."""
    sent = request.headers.get(CSRF_HEADER) or request.form.get("csrf_token") or ""
    expected = cookie.get("csrf") or ""
    if not expected or not sent or not hmac.compare_digest(sent, expected):
        return error(403, Reason("csrf", "missing or wrong CSRF token: reload the page (API clients: GET /api/csrf "
                                         f"first and send the token in the {CSRF_HEADER} header with the same cookie)",
                                 header=CSRF_HEADER))
    return None


def csrf_required(view):
    @functools.wraps(view)
    def wrapper(*a, **k):
        bad = check_csrf()
        if bad is not None:
            return bad
        return view(*a, **k)
    return wrapper


def host_required(view):
    """CSRF check, then the host check; only then the view runs."""
    @functools.wraps(view)
    def wrapper(*a, **k):
        bad = check_csrf()
        if bad is not None:
            return bad
        if not is_host():
            return error(401, Reason("host_only", "only the host can do this: log in with the host PIN first"))
        return view(*a, **k)
    return wrapper


class PinThrottle:
    """Sliding-window limit on failed PIN attempts per client address (see the module docstring).

    ``overall`` wrong PINs within the window from all addresses together hold
    back only the addresses that have failed themselves within it.
    """

    def __init__(self, per_client: int = 5, overall: int = 30, window_s: float = 60.0, clock=time.monotonic):
        self.per_client = per_client
        self.overall = overall
        self.window = window_s
        self.clock = clock
        self._fails: dict[str, collections.deque] = collections.defaultdict(collections.deque)
        self._all: collections.deque = collections.deque()
        self._lock = threading.Lock()

    def _trim(self, q: collections.deque, now: float) -> None:
        while q and now - q[0] >= self.window:
            q.popleft()

    def retry_after(self, client: str) -> float:
        """Seconds until ``client`` may try again (0 when it may try now)."""
        now = self.clock()
        with self._lock:
            q = self._fails[client]
            self._trim(q, now)
            self._trim(self._all, now)
            waits = []
            if len(q) >= self.per_client:
                waits.append(self.window - (now - q[0]))
            if q and len(self._all) >= self.overall:
                waits.append(self.window - (now - self._all[0]))
            if not q:
                self._fails.pop(client, None)
            return max(waits) if waits else 0.0

    def failed(self, client: str) -> None:
        now = self.clock()
        with self._lock:
            self._fails[client].append(now)
            self._all.append(now)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._fails.pop(client, None)


def check_pin(given, pin: str) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.strip().encode(), pin.encode())
