"""One server per ledger: an advisory lock on ``<ledger>.lock`` beside the ledger file.

The lock is the operating system's (``flock`` on POSIX, ``msvcrt.locking`` on
Windows), held on an open file: it goes with the process, so a server that is
killed (``kill -9``, a power cut) never leaves a stale lock behind. The file
holds the process id of the holder, for the message a second server prints.
"""
from __future__ import annotations

import os
from pathlib import Path


class LedgerInUse(RuntimeError):
    """Another tableref process has the ledger open; ``message`` is for the user, ``field`` the option to change."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class LedgerLock:
    """``LedgerLock(path).acquire()`` or raise :class:`LedgerInUse`; :meth:`release` (or exit) frees it."""

    def __init__(self, ledger_path: str | os.PathLike):
        self.ledger_path = Path(ledger_path)
        self.path = self.ledger_path.with_name(self.ledger_path.name + ".lock")
        self._fh = None

    @property
    def held(self) -> bool:
        return self._fh is not None

    def acquire(self) -> "LedgerLock":
        if self._fh is not None:
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")
        try:
            _lock(fh)
        except OSError:
            fh.seek(0)
            holder = fh.read().strip()
            fh.close()
            who = f" (process {holder})" if holder.isdigit() else ""
            raise LedgerInUse(
                f"the ledger {self.ledger_path} is in use by another tableref server or watch{who}: "
                "stop that one first, or give this one another ledger with --db FILE", "db") from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh
        return self

    def release(self) -> None:
        fh, self._fh = self._fh, None
        if fh is None:
            return
        try:
            fh.seek(0)
            fh.truncate()
            _unlock(fh)
        except OSError:
            pass
        fh.close()

    def __enter__(self) -> "LedgerLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(fh) -> None:
        fh.seek(0)
        msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)

    def _unlock(fh) -> None:
        fh.seek(0)
        msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _lock(fh) -> None:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fh) -> None:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
