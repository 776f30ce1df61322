"""Schema of the SQLite ledger, as an ordered list of migrations.

The database records its version in ``schema_version`` (one row per applied
migration). :func:`migrate` applies every migration above the recorded version,
each in its own transaction, so an interrupted upgrade leaves the file at the
last complete version. A file written by a newer tableref is refused, never
"downgraded".

Never edit a migration that has shipped: add a new one at the end.
"""
from __future__ import annotations

import datetime as _dt
import sqlite3

from tableref.ledger.errors import SchemaError

# The ledger is an append-only journal. Every change is one row of ``entries``
# (who, when, why); money moves only as ``payments`` rows that belong to one
# entry and sum to zero within it. Hands are never updated or deleted: a
# correction or an undo is a new entry whose payments adjust or reverse.
_V1 = """
CREATE TABLE sessions (
    id          INTEGER PRIMARY KEY,
    created_at  TEXT NOT NULL,
    game        TEXT NOT NULL,
    label       TEXT
);
CREATE TABLE players (
    id          INTEGER PRIMARY KEY,
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    name        TEXT NOT NULL,
    joined_at   TEXT NOT NULL,
    UNIQUE (session_id, name)
);
CREATE TABLE entries (
    id              INTEGER PRIMARY KEY,
    session_id      INTEGER NOT NULL REFERENCES sessions(id),
    created_at      TEXT NOT NULL,
    kind            TEXT NOT NULL,
    who             TEXT NOT NULL,
    why             TEXT NOT NULL DEFAULT '',
    hand_id         INTEGER REFERENCES hands(id),
    target_entry_id INTEGER REFERENCES entries(id),
    payload_json    TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX entries_session ON entries(session_id, id);
CREATE TABLE hands (
    id          INTEGER PRIMARY KEY,
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    hand_no     INTEGER NOT NULL,
    created_at  TEXT NOT NULL,
    game        TEXT NOT NULL,
    winner      TEXT,
    point_value REAL NOT NULL,
    result_json TEXT NOT NULL,
    external_id TEXT,
    UNIQUE (session_id, hand_no),
    UNIQUE (session_id, external_id)
);
CREATE TABLE payments (
    id          INTEGER PRIMARY KEY,
    entry_id    INTEGER NOT NULL REFERENCES entries(id),
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    hand_id     INTEGER NOT NULL REFERENCES hands(id),
    player      TEXT NOT NULL,
    points      INTEGER NOT NULL
);
CREATE INDEX payments_session ON payments(session_id);
CREATE INDEX payments_hand ON payments(hand_id);
CREATE TABLE items (
    id          INTEGER PRIMARY KEY,
    hand_id     INTEGER NOT NULL REFERENCES hands(id),
    item        TEXT NOT NULL,
    player      TEXT,
    points      INTEGER,
    detail_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX items_hand ON items(hand_id);
"""

# v2: remember which client (address) made a change, for the audit trail, and
# close sessions explicitly (a closed session is never resumed).
_V2 = """
ALTER TABLE entries ADD COLUMN client TEXT;
ALTER TABLE sessions ADD COLUMN closed_at TEXT;
"""

# v3: money in whole cents, never binary floats. Each hand keeps its money per
# point in cents; each payment keeps its money in cents beside its points (the
# pot's money can differ from points x today's value when the value changed
# while a pot was carried over). Payments of a pot paid back at the close of a
# session belong to no hand, so ``hand_id`` may be NULL. Old payments get
# points x their hand's value (the REAL column, rounded to the cent).
_V3 = """
ALTER TABLE hands ADD COLUMN point_value_cents INTEGER;
UPDATE hands SET point_value_cents = CAST(ROUND(point_value * 100) AS INTEGER);
CREATE TABLE payments_v3 (
    id          INTEGER PRIMARY KEY,
    entry_id    INTEGER NOT NULL REFERENCES entries(id),
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    hand_id     INTEGER REFERENCES hands(id),
    player      TEXT NOT NULL,
    points      INTEGER NOT NULL,
    cents       INTEGER NOT NULL
);
INSERT INTO payments_v3 (id, entry_id, session_id, hand_id, player, points, cents)
    SELECT p.id, p.entry_id, p.session_id, p.hand_id, p.player, p.points,
           p.points * COALESCE((SELECT h.point_value_cents FROM hands h WHERE h.id = p.hand_id), 0)
    FROM payments p;
DROP TABLE payments;
ALTER TABLE payments_v3 RENAME TO payments;
CREATE INDEX payments_session ON payments(session_id);
CREATE INDEX payments_hand ON payments(hand_id);
CREATE INDEX payments_entry ON payments(entry_id);
"""

MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "sessions, players, journal entries, hands, payments, bonus items", _V1),
    (2, "entries.client and sessions.closed_at", _V2),
    (3, "money in whole cents: hands.point_value_cents, payments.cents, pot paid back at close", _V3),
]

LATEST = MIGRATIONS[-1][0]


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def current_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in the file (0 for an empty file)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "schema_version" not in tables:
        if tables:
            raise SchemaError(
                "this SQLite file is not a tableref ledger (it has tables but no schema_version): "
                + ", ".join(sorted(tables))
            )
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection, target: int = LATEST) -> int:
    """Bring the schema up to ``target``; return the version reached.

    ``conn`` must be in autocommit mode (``isolation_level=None``); each
    migration runs in its own ``BEGIN IMMEDIATE`` transaction.
    """
    version = current_version(conn)
    if version > LATEST:
        raise SchemaError(
            f"the ledger file has schema version {version}, but this tableref knows only up to "
            f"{LATEST}; upgrade tableref to open it"
        )
    if version == 0:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version ("
                " version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    for number, description, script in MIGRATIONS:
        if number <= version or number > target:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check inside the write lock: another process may have migrated meanwhile.
            if current_version(conn) >= number:
                conn.execute("COMMIT")
                continue
            for statement in script.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)",
                (number, description, _now()),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        version = number
    return current_version(conn)
