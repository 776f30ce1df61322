"""Evidence: the annotated picture each referee verdict was decided on, kept with the ledger.

When a player disputes a verdict ("my run was valid", "I had 21 cards down"), the page can show
what the camera saw. Every event that changes what a player is told or pays (a meld laid or
refused, a Desmoche move, an automatic win, a hand's end, a Marriage count: :data:`EVIDENCE_EVENTS`)
gets the annotated frame it was decided on (boxes, labels and verdict colours drawn), about 960 px
wide as a JPEG.

Where: a folder beside the ledger file (``ledger.sqlite3.evidence/``) with the JPEG files and an
index of its own (``index.sqlite3``: one row per verdict, keyed by ledger session, hand number
and event). The ledger file is never written here, so a killed server cannot lose a ledger entry
because of a picture: the hand is committed first (by the table service), its picture afterwards
in another file. A picture is written to a temporary file, synced and renamed before its index
rows are committed; files that a kill left without rows are removed at the next start.

Retention: the pictures of the last ``keep_hands`` hands (default 200) are kept, older ones are
deleted when a hand ends; ``keep_hands=0`` keeps none.
"""
from __future__ import annotations

import datetime as dt
import logging
import os
import queue
import shutil
import sqlite3
import tempfile
import threading
import time
from pathlib import Path

log = logging.getLogger("tableref.evidence")

#: the events whose verdicts a player is told or pays by
EVIDENCE_EVENTS = frozenset({
    "meld_laid", "meld_changed", "meld_invalid", "out_of_order", "card_added", "card_moved", "card_taken",
    "illegal_move", "autowin", "verdict", "winner", "hand_end", "hand_laid_down", "maal_counted",
})
DEFAULT_KEEP_HANDS = 200
_END = object()           # put on the recorder's queue by close()
WIDTH = 960
QUALITY = 80

_SCHEMA = """
CREATE TABLE IF NOT EXISTS evidence (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL,
    hand_no INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    player TEXT,
    t REAL NOT NULL,
    text TEXT NOT NULL,
    file TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS evidence_hand ON evidence (session_id, hand_no);
"""


def shrink(jpeg: bytes, width: int = WIDTH, quality: int = QUALITY) -> tuple[bytes, int, int] | None:
    """An annotated frame as a JPEG at most ``width`` px wide; None if it cannot be decoded."""
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        return None
    h, w = img.shape[:2]
    if w > width:
        img = cv2.resize(img, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return (buf.tobytes(), img.shape[1], img.shape[0]) if ok else None


class EvidenceStore:
    """Pictures and their index in ``folder`` (see the module docstring)."""

    def __init__(self, folder: str | os.PathLike | None, keep_hands: int = DEFAULT_KEEP_HANDS):
        if keep_hands < 0:
            raise ValueError("keep_hands must be 0 or more")
        self.temporary = folder is None
        self.folder = Path(tempfile.mkdtemp(prefix="tableref-evidence-")) if folder is None else Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.keep_hands = int(keep_hands)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.folder / "index.sqlite3", check_same_thread=False, timeout=10)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._db.commit()
        self.removed_orphans = self._remove_orphans()

    @classmethod
    def for_ledger(cls, ledger_path, keep_hands: int = DEFAULT_KEEP_HANDS) -> "EvidenceStore":
        """The store beside a ledger file (``<ledger>.evidence/``); a temporary one for ``:memory:``."""
        p = str(ledger_path)
        if p == ":memory:" or not p:
            return cls(None, keep_hands)
        path = Path(p)
        return cls(path.with_name(path.name + ".evidence"), keep_hands)

    def close(self) -> None:
        with self._lock:
            self._db.close()
        if self.temporary:
            shutil.rmtree(self.folder, ignore_errors=True)

    # ------------------------------------------------------------------ writing
    def add(self, session_id: int, hand_no: int, jpeg: bytes, events: list[dict]) -> list[int]:
        """Keep one annotated frame for ``events`` (all decided on it); returns their picture ids."""
        if self.keep_hands == 0 or not events:
            return []
        small = shrink(jpeg)
        if small is None:
            log.warning("an evidence frame could not be decoded; %d verdicts without a picture", len(events))
            return []
        data, w, h = small
        now = dt.datetime.now(dt.timezone.utc)
        sub = Path(f"s{int(session_id)}") / f"h{int(hand_no)}"
        name = sub / f"{now.strftime('%H%M%S%f')}-{events[0].get('type', 'event')}.jpg"
        target = self.folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        rows = [(int(session_id), int(hand_no), str(e.get("type", "event")), e.get("seat"), e.get("player"),
                 float(e.get("t") or 0.0), str(e.get("text") or "")[:500], name.as_posix(), w, h,
                 now.isoformat(timespec="seconds")) for e in events]
        with self._lock, self._db:
            ids = []
            for r in rows:
                cur = self._db.execute("INSERT INTO evidence (session_id, hand_no, kind, seat, player, t, text, file,"
                                       " width, height, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)", r)
                ids.append(cur.lastrowid)
        return ids

    def prune(self) -> int:
        """Delete the pictures of all but the newest ``keep_hands`` hands; returns files removed."""
        with self._lock, self._db:
            hands = self._db.execute("SELECT session_id, hand_no FROM evidence GROUP BY session_id, hand_no "
                                     "ORDER BY MAX(id) DESC").fetchall()
            old = hands[self.keep_hands:]
            for h in old:
                self._db.execute("DELETE FROM evidence WHERE session_id=? AND hand_no=?", (h[0], h[1]))
        return self._remove_orphans() if old else 0

    def _remove_orphans(self) -> int:
        """Files without an index row (a kill between the file and its rows, or pruned): removed."""
        with self._lock:
            used = {r[0] for r in self._db.execute("SELECT DISTINCT file FROM evidence")}
        n = 0
        for f in self.folder.glob("s*/h*/*"):
            rel = f.relative_to(self.folder).as_posix()
            if rel not in used and (f.suffix in (".jpg", ".tmp")):
                try:
                    f.unlink()
                    n += 1
                except OSError:
                    pass
        for d in sorted(self.folder.glob("s*/h*"), reverse=True):
            try:
                d.rmdir()          # only when empty
            except OSError:
                pass
        return n

    # ------------------------------------------------------------------ reading
    def pictures(self, session_id: int, hand_no: int | None = None) -> list[dict]:
        q = "SELECT * FROM evidence WHERE session_id=?"
        args: list = [int(session_id)]
        if hand_no is not None:
            q += " AND hand_no=?"
            args.append(int(hand_no))
        with self._lock:
            rows = self._db.execute(q + " ORDER BY id", args).fetchall()
        return [dict(r) for r in rows]

    def by_hand(self, session_id: int) -> dict[int, list[dict]]:
        out: dict[int, list[dict]] = {}
        for p in self.pictures(session_id):
            out.setdefault(p["hand_no"], []).append(p)
        return out

    def path_of(self, picture_id: int) -> Path | None:
        with self._lock:
            row = self._db.execute("SELECT file FROM evidence WHERE id=?", (int(picture_id),)).fetchone()
        if row is None:
            return None
        p = self.folder / row[0]
        return p if p.exists() else None


class EvidenceRecorder:
    """Follows a live session's events and keeps the picture of each verdict in a store.

    ``session`` needs ``subscribe()``/``unsubscribe()`` and ``frame_at(t)`` → ``(t, jpeg)``
    (the annotated frame of media time ``t`` while it is among the last few, else the newest);
    ``session_id()`` gives the ledger session the hands go to. A verdict's event carries the
    time of the frame it was decided on; the recorder takes the annotated frame of that time
    (or, for what the host decided on the table as it stands, the newest). Runs in its own
    thread: the camera thread never waits for a picture to be written. :meth:`close` keeps the
    pictures of the verdicts already told before it stops.
    """

    def __init__(self, session, store: EvidenceStore, session_id, *, frame_wait_s: float = 3.0):
        self.session = session
        self.store = store
        self.session_id = session_id
        self.frame_wait_s = frame_wait_s
        self.saved = 0
        self.missed = 0
        self._pending = None
        self._draining = False
        self._q = session.subscribe()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tableref-evidence", daemon=True)
        self._thread.start()

    def close(self, timeout: float = 10.0) -> None:
        """Keep the pictures of the verdicts already queued (the frames are there by now), then stop."""
        try:
            self.session.unsubscribe(self._q)
        except Exception:  # noqa: BLE001 - shutting down anyway
            pass
        self._draining = True
        try:
            self._q.put_nowait(_END)          # everything queued before it is kept
        except queue.Full:
            self._stop.set()
        self._thread.join(timeout=timeout)
        self._stop.set()

    def _frame_for(self, t: float):
        deadline = time.monotonic() + self.frame_wait_s
        frame = None
        while not self._stop.is_set():
            frame = self.session.frame_at(t)
            if frame is not None and frame[1] and frame[0] >= t - 0.005:
                return frame[1]
            if self._draining or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        return frame[1] if frame is not None and frame[1] else None

    def _next(self, timeout: float):
        if self._pending is not None:
            ev, self._pending = self._pending, None
            return ev
        return self._q.get(timeout=timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                ev = self._next(0.5)
            except queue.Empty:
                continue
            if ev is _END:
                break                         # close(): all verdicts queued before it are kept
            if not isinstance(ev, dict) or ev.get("type") not in EVIDENCE_EVENTS:
                continue
            try:
                jpeg = self._frame_for(float(ev.get("t") or 0.0))
            except Exception:  # noqa: BLE001 - a picture must never stop the table
                log.exception("reading the session's frame failed")
                jpeg = None
            # the other verdicts of the same frame share its picture (they are all queued by the
            # time its annotated frame is there: the frame is drawn after the verdicts)
            batch = [ev]
            while True:
                try:
                    nxt = self._q.get_nowait()
                except queue.Empty:
                    break
                if nxt is _END:
                    self._pending = nxt
                    break
                if not isinstance(nxt, dict) or nxt.get("type") not in EVIDENCE_EVENTS:
                    continue
                if nxt.get("t") == ev.get("t") and nxt.get("hand_no") == ev.get("hand_no"):
                    batch.append(nxt)
                else:
                    self._pending = nxt
                    break
            try:
                if jpeg is None:
                    self.missed += len(batch)
                    continue
                self.store.add(int(self.session_id()), int(ev.get("hand_no") or 0), jpeg, batch)
                self.saved += len(batch)
                if any(e.get("type") == "hand_end" for e in batch):
                    self.store.prune()
            except Exception:  # noqa: BLE001 - a picture must never stop the table
                self.missed += len(batch)
                log.exception("keeping the picture of a verdict failed")
