"""Fan-out of live events to the Server-Sent-Events clients.

The hub subscribes once to the table session (``session.subscribe()``) and a
pump thread copies every event to each connected client's bounded queue; the
app also publishes its own events (ledger changes, setup changes). A slow
client never blocks the others: when its queue is full the oldest event is
dropped and the client is told to re-read the state (``{"type": "resync"}``).
"""
from __future__ import annotations

import itertools
import queue
import threading


class EventHub:
    def __init__(self, session=None, client_queue_size: int = 200):
        self._clients: set[queue.Queue] = set()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._size = client_queue_size
        self._stop = threading.Event()
        self._session = session
        self._session_q = None
        self._thread = None
        if session is not None and hasattr(session, "subscribe"):
            self._session_q = session.subscribe()
            self._thread = threading.Thread(target=self._pump, name="tableref-event-pump", daemon=True)
            self._thread.start()

    @property
    def closed(self) -> bool:
        return self._stop.is_set()

    def _pump(self) -> None:
        while not self._stop.is_set():
            try:
                event = self._session_q.get(timeout=0.5)
            except queue.Empty:
                continue
            if isinstance(event, dict):
                self.publish(event)

    def publish(self, event: dict) -> None:
        event = dict(event)
        event.setdefault("id", next(self._ids))
        with self._lock:
            clients = list(self._clients)
        for q in clients:
            try:
                q.put_nowait(event)
            except queue.Full:
                try:
                    q.get_nowait()
                    q.put_nowait({"type": "resync", "id": event["id"]})
                except (queue.Empty, queue.Full):
                    pass

    def connect(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=self._size)
        with self._lock:
            self._clients.add(q)
        return q

    def disconnect(self, q: queue.Queue) -> None:
        with self._lock:
            self._clients.discard(q)

    @property
    def n_clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            clients = list(self._clients)
        for q in clients:  # wake every open event stream so it ends now
            try:
                q.put_nowait(None)
            except queue.Full:
                pass
        if self._session_q is not None:
            try:
                self._session_q.put_nowait(None)  # wake the pump now
            except queue.Full:
                pass
        if self._session is not None and self._session_q is not None and hasattr(self._session, "unsubscribe"):
            try:
                self._session.unsubscribe(self._session_q)
            except Exception:  # noqa: BLE001 - shutting down anyway
                pass
        if self._thread is not None:
            self._thread.join(timeout=2)
