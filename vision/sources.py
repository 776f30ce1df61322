"""Frame sources: webcam, video file, folder of images, HTTP MJPEG / JPEG snapshot, RTSP, and
frames pushed in by the program itself (``phone``: the web page that makes a phone the camera).

Every source runs a reader thread that keeps only the **newest** frame (older,
unread frames are dropped and counted), so analysis always works on what the
camera sees now. Problems never raise into the caller: they show up in
:attr:`FrameSource.status` (``connecting``, ``ok``, ``reconnecting``,
``stale``, ``ended``, ``error`` with a human message), and the reader
reconnects by itself with back-off (0.5 s, 1 s, 2 s … up to ``max_backoff``).

Usage::

    from tableref.vision.sources import open_source

    with open_source("http://192.168.1.20:8080/video") as src:   # or "0", "clip.mp4", "frames/", "rtsp://…", "demo"
        while not src.ended:
            frame = src.read(timeout=1.0)        # vision.sources.Frame or None
            if frame is None:
                print(src.status)                # e.g. "reconnecting: camera stream stopped (retry in 2.0 s)"
                continue
            process(frame.image, frame.t)

``Frame.t`` is media time for files and folders (frame index / fps, so a file
read as fast as possible has the same timeline as in real time) and seconds
since the source was started for live sources. ``realtime=False`` plays files
and folders as fast as the consumer reads, without dropping any frame
(tests, benchmarks, ``watch`` on a recorded clip).
"""
from __future__ import annotations

import collections
import glob
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
PUSH_SPECS = ("phone",)



class SourceError(ValueError):
    """A source spec that cannot be understood (message is for the user)."""


class SingleImageError(SourceError):
    """The source is one photo file: a live table is read from frames (``tableref detect`` reads a photo)."""


@dataclass
class SourceStatus:
    state: str                 # connecting, ok, reconnecting, stale, lost, ended or error
    message: str               # human-readable, e.g. "camera 0: no frame for 3.2 s"
    fps: float = 0.0           # frames per second arriving from the source
    frames: int = 0            # frames received
    dropped: int = 0           # frames replaced by a newer one before being read
    reconnects: int = 0

    def __str__(self) -> str:
        s = f"{self.state}: {self.message}" if self.message else self.state
        if self.state in ("ok", "stale") and self.fps:
            s += f" ({self.fps:.1f} fps)"
        return s

    def to_json(self) -> dict:
        return {"type": "source_status", "state": self.state, "message": self.message,
                "fps": round(self.fps, 2), "frames": self.frames, "dropped": self.dropped,
                "reconnects": self.reconnects}


class Frame:
    """One frame: ``image`` (BGR uint8, decoded lazily for JPEG streams), ``t`` seconds, ``index``."""

    __slots__ = ("_image", "_jpeg", "t", "index", "wall")

    def __init__(self, t: float, index: int, image: np.ndarray | None = None, jpeg: bytes | None = None):
        self._image = image
        self._jpeg = jpeg
        self.t = t
        self.index = index
        self.wall = time.monotonic()

    @property
    def image(self) -> np.ndarray | None:
        """The BGR image, or None if the JPEG data was corrupt."""
        if self._image is None and self._jpeg is not None:
            self._image = cv2.imdecode(np.frombuffer(self._jpeg, np.uint8), cv2.IMREAD_COLOR)
            self._jpeg = None
        return self._image


class _Disconnected(Exception):
    """The backend lost its source; the reader reconnects (message for the status)."""


class _EndOfSource(Exception):
    """A file/folder has no more frames."""


class _Fatal(Exception):
    """The source cannot be used at all (missing file, no images); no retry."""


class FrameSource:
    """Base class: a reader thread around a backend (``_open``/``_read``/``_close``).

    Parameters: ``realtime`` (files/folders: pace by media time and drop stale
    frames; False: deliver every frame as fast as it is read), ``read_timeout``
    (seconds a network read may block before the source counts as lost and is
    reconnected), ``stale_after`` (no new frame for this long → status
    ``stale``), ``max_backoff`` (longest wait between reconnection
    attempts), ``max_retries`` (give up after this many failed attempts in a
    row; None = never for live sources).
    """

    live = True
    kind = "source"

    def __init__(self, spec: str, *, realtime: bool = True, read_timeout: float = 5.0,
                 stale_after: float = 2.0, max_backoff: float = 10.0,
                 max_retries: int | None = None):
        self.spec = spec
        self.realtime = realtime
        self.read_timeout = read_timeout
        self.stale_after = stale_after
        self.max_backoff = max_backoff
        self.max_retries = max_retries
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._seq = 0
        self._read_seq = 0
        self._state = "connecting"
        self._message = f"opening {self.describe()}"
        self._frames = 0
        self._dropped = 0
        self._reconnects = 0
        self._fps = 0.0
        self._last_frame_wall: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()

    # ---- public -------------------------------------------------------------------------
    def describe(self) -> str:
        return f"{self.kind} {self.spec}"

    def start(self) -> "FrameSource":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"frames:{self.spec}", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=self.read_timeout + 2.0)

    def __enter__(self) -> "FrameSource":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def ended(self) -> bool:
        """True once a file/folder is finished or the source gave up (and every frame was read)."""
        with self._cond:
            return self._state in ("ended", "error") and self._read_seq >= self._seq

    @property
    def status(self) -> SourceStatus:
        with self._cond:
            state, msg = self._state, self._message
            if state == "ok" and self._last_frame_wall is not None:
                silent = self._silence(time.monotonic() - self._last_frame_wall)
                if silent is not None:
                    state, msg = silent
            return SourceStatus(state, msg, self._fps, self._frames, self._dropped, self._reconnects)

    def _silence(self, age: float) -> tuple[str, str] | None:
        """The (state, message) a working source shows after ``age`` s without a new frame, or None."""
        if age > self.stale_after and (self.live or self.realtime):
            return "stale", f"{self.describe()}: no new frame for {age:.1f} s"
        return None

    def read(self, timeout: float | None = 1.0) -> Frame | None:
        """The newest frame not read before; waits up to ``timeout`` s; None on timeout or end."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._seq <= self._read_seq:
                if self._state in ("ended", "error"):
                    return None
                if self._stop.is_set():
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining if remaining is not None else 0.5)
            self._read_seq = self._seq
            frame = self._latest
            self._cond.notify_all()
            return frame

    def frames(self, timeout: float = 1.0):
        """Iterate over frames until the source ends (skips time-outs)."""
        while not self.ended and not self._stop.is_set():
            f = self.read(timeout)
            if f is not None:
                yield f

    # ---- backend interface --------------------------------------------------------------
    def _open(self) -> None:
        raise NotImplementedError

    def _read(self) -> Frame:
        """Next frame; raise _Disconnected (reconnect) or _EndOfSource (finished)."""
        raise NotImplementedError

    def _close(self) -> None:
        pass

    # ---- reader thread ------------------------------------------------------------------
    def _set(self, state: str, message: str) -> None:
        with self._cond:
            self._state, self._message = state, message
            self._cond.notify_all()

    def _publish(self, frame: Frame) -> None:
        now = time.monotonic()
        with self._cond:
            if not self.realtime and not self.live:
                # as fast as possible, but never drop: wait until the last frame was taken
                while self._seq > self._read_seq and not self._stop.is_set():
                    self._cond.wait(0.2)
            elif self._seq > self._read_seq:
                self._dropped += 1
            if self._last_frame_wall is not None:
                dt = now - self._last_frame_wall
                if dt > 0:
                    inst = 1.0 / dt
                    self._fps = inst if self._fps == 0 else 0.9 * self._fps + 0.1 * inst
            self._last_frame_wall = now
            self._latest = frame
            self._seq += 1
            self._frames += 1
            if self._state != "ok":
                self._state, self._message = "ok", f"{self.describe()}: receiving frames"
            self._cond.notify_all()

    def _run(self) -> None:
        backoff = min(0.5, self.max_backoff)
        failures = 0
        first = True
        while not self._stop.is_set():
            try:
                if not first:
                    self._reconnects += 1
                self._open()
                first = False
                failures = 0
                backoff = min(0.5, self.max_backoff)
                while not self._stop.is_set():
                    frame = self._read()
                    self._publish(frame)
                    failures = 0
            except _EndOfSource as exc:
                self._close()
                self._set("ended", str(exc) or f"{self.describe()}: finished")
                return
            except _Fatal as exc:
                self._close()
                self._set("error", str(exc))
                return
            except Exception as exc:     # _Disconnected, or an unexpected library error: report, retry
                self._close()
                first = False
                failures += 1
                msg = str(exc) if isinstance(exc, _Disconnected) else \
                    f"{self.describe()}: {type(exc).__name__}: {exc}"
                if self.max_retries is not None and failures > self.max_retries:
                    self._set("error", f"{msg} — giving up after {failures} attempts")
                    return
                self._set("reconnecting", f"{msg} (retry in {backoff:.1f} s)")
                if self._stop.wait(backoff):
                    break
                backoff = min(backoff * 2, self.max_backoff)
        self._close()
        with self._cond:
            if self._state not in ("ended", "error"):
                self._state, self._message = "ended", f"{self.describe()}: stopped"
            self._cond.notify_all()

    def _live_time(self) -> float:
        return time.monotonic() - self._t0

    def _pace(self, media_t: float) -> None:
        """Real-time playback of files: sleep until the frame's media time."""
        if not self.realtime:
            return
        if not hasattr(self, "_play_start"):
            self._play_start = time.monotonic() - media_t
        delay = self._play_start + media_t - time.monotonic()
        if delay > 0:
            self._stop.wait(delay)


# ---------------------------------------------------------------------------------------
# OpenCV VideoCapture: webcams, video files, RTSP
# ---------------------------------------------------------------------------------------
class CaptureSource(FrameSource):
    """``cv2.VideoCapture`` for a webcam index, an RTSP/other URL, or a video file."""

    def __init__(self, spec: str, target, *, kind: str, live: bool, size: tuple[int, int] | None = None,
                 loop: bool = False, **kw):
        self.kind = kind
        self.live = live
        # a file played over and over by the same reader thread and decoder, its media time going on
        # (the demo clip through an evening: a new decoder and thread each time round would leave
        # the C allocator's memory spread over ever more thread arenas)
        self.loop = loop and not live
        self._looped = 0         # frames of the passes already played (loop)
        self.passes = 0          # times the file started over (loop)
        self.target = target
        self.size = size
        self._cap = None
        self._index = 0          # next frame index (files)
        self._fps_file = 0.0
        self._count = 0
        self._bad_reads = 0
        if not live:
            kw.setdefault("max_retries", 2)
        super().__init__(spec, **kw)

    def describe(self) -> str:
        if self.kind == "camera":
            return f"camera {self.target}"
        return f"{self.kind} {self.spec}"

    def _open(self) -> None:
        if not self.live and not os.path.exists(self.target):
            raise _Fatal(f"video file not found: {self.target}")
        timeout_ms = int(self.read_timeout * 1000)
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, timeout_ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, timeout_ms]
        if self.kind == "camera":
            cap = cv2.VideoCapture(int(self.target))
        elif isinstance(self.target, str) and "://" in self.target:
            cap = cv2.VideoCapture(self.target, cv2.CAP_FFMPEG, params)
        else:
            cap = cv2.VideoCapture(str(self.target), cv2.CAP_ANY)
        if not cap.isOpened():
            cap.release()
            if self.kind == "camera":
                raise _Disconnected(f"camera {self.target} cannot be opened (unplugged or used by another program?)")
            if self.live:
                raise _Disconnected(f"cannot connect to {self.spec}")
            raise _Disconnected(f"cannot read video file {self.spec}: not a video or corrupt")
        if self.kind == "camera" and self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        if not self.live:
            self._fps_file = cap.get(cv2.CAP_PROP_FPS) or 0.0
            if not (0 < self._fps_file < 1000):
                self._fps_file = 25.0
            self._count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
            if self._index > 0:
                cap.set(cv2.CAP_PROP_POS_FRAMES, self._index)
        self._cap = cap
        self._set("ok" if self._frames else "connecting", f"{self.describe()}: opened")

    def _read(self) -> Frame:
        cap = self._cap
        ok, img = cap.read()
        if not ok or img is None or img.size == 0:
            if self.live:
                raise _Disconnected(f"{self.describe()}: stream stopped")
            if self._count and self._index < self._count - 1:
                # a broken frame in the middle of a file: skip it and go on
                self._bad_reads += 1
                if self._bad_reads > 3:
                    raise _Fatal(f"{self.describe()}: unreadable after frame {self._index} of "
                                       f"{self._count} (file damaged) — stopped there")
                self._index += 1
                raise _Disconnected(f"{self.describe()}: damaged frame {self._index} of {self._count}, skipping")
            if self._frames == 0:
                raise _Disconnected(f"cannot read video file {self.spec}: no frames (corrupt?)")
            if self.loop and self._index > 0 and cap.set(cv2.CAP_PROP_POS_FRAMES, 0):
                self._looped += self._index
                self._index = 0
                self.passes += 1
                return self._read()
            raise _EndOfSource(f"{self.describe()}: finished ({self._frames} frames)")
        if self.live:
            return Frame(self._live_time(), self._frames, image=img)
        t = (self._looped + self._index) / self._fps_file
        f = Frame(t, self._looped + self._index, image=img)
        self._index += 1
        self._bad_reads = 0
        self._pace(t)
        return f

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


# ---------------------------------------------------------------------------------------
# folder of images
# ---------------------------------------------------------------------------------------
class FolderSource(FrameSource):
    """Images in a folder, in name order, at ``fps`` frames per second of media time."""

    kind = "folder"
    live = False

    def __init__(self, spec: str, *, fps: float = 5.0, **kw):
        self.fps = fps
        self._files: list[str] = []
        self._i = 0
        self.skipped: list[str] = []
        super().__init__(spec, **kw)

    def _open(self) -> None:
        if not os.path.isdir(self.spec):
            raise _Fatal(f"folder not found: {self.spec}")
        files = sorted(f for f in glob.glob(os.path.join(self.spec, "*")) if f.lower().endswith(IMAGE_EXTS))
        if not files:
            raise _Fatal(f"folder {self.spec} holds no images ({', '.join(IMAGE_EXTS)})")
        self._files = files

    def _read(self) -> Frame:
        while self._i < len(self._files):
            path = self._files[self._i]
            i = self._i
            self._i += 1
            img = cv2.imread(path, cv2.IMREAD_COLOR)
            if img is None or img.size == 0:
                self.skipped.append(path)
                self._set(self._state, f"skipped unreadable image {path}")
                continue
            t = i / self.fps
            self._pace(t)
            return Frame(t, i, image=img)
        n = len(self._files) - len(self.skipped)
        msg = f"folder {self.spec}: finished ({n} images"
        msg += f", {len(self.skipped)} unreadable skipped)" if self.skipped else ")"
        raise _EndOfSource(msg)


# ---------------------------------------------------------------------------------------
# HTTP: MJPEG multipart streams and JPEG snapshot URLs
# ---------------------------------------------------------------------------------------
_CL_RE = re.compile(rb"content-length:\s*(\d+)", re.I)


class MjpegSource(FrameSource):
    """HTTP MJPEG (``multipart/x-mixed-replace``) or a JPEG snapshot URL polled repeatedly.

    Phone camera apps serve one or the other (e.g. ``/video`` and ``/shot.jpg``).
    JPEG frames are decoded only when read, so dropped frames cost no decoding.
    """

    kind = "stream"
    live = True

    def __init__(self, spec: str, *, snapshot_fps: float = 10.0, **kw):
        self.snapshot_fps = snapshot_fps
        self._resp = None
        self._buf = b""
        self._snapshot = False
        self._last_poll = 0.0
        super().__init__(spec, **kw)

    def _open(self) -> None:
        self._buf = b""
        try:
            req = urllib.request.Request(self.spec, headers={"User-Agent": "tableref"})
            resp = urllib.request.urlopen(req, timeout=self.read_timeout)
        except urllib.error.HTTPError as exc:
            raise _Disconnected(f"{self.spec}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise _Disconnected(f"cannot connect to {self.spec}: {reason}") from None
        ctype = resp.headers.get("Content-Type", "")
        self._snapshot = ctype.lower().startswith("image/")
        if not self._snapshot and "multipart" not in ctype.lower():
            resp.close()
            raise _Disconnected(f"{self.spec} is not a camera stream (Content-Type {ctype or 'missing'}); "
                                "use the app's MJPEG (video) or JPEG snapshot address")
        self._resp = resp
        self._set("ok" if self._frames else "connecting", f"{self.describe()}: connected")

    def _read_chunk(self) -> bytes:
        try:
            chunk = self._resp.read1(65536)
        except (socket.timeout, TimeoutError):
            raise _Disconnected(f"{self.describe()}: no data for {self.read_timeout:.0f} s") from None
        except (OSError, ValueError, AttributeError) as exc:
            raise _Disconnected(f"{self.describe()}: connection lost ({exc})") from None
        if not chunk:
            raise _Disconnected(f"{self.describe()}: stream stopped")
        return chunk

    def _read(self) -> Frame:
        if self._snapshot:
            return self._read_snapshot()
        while True:
            buf = self._buf
            soi = buf.find(b"\xff\xd8")
            if soi >= 0:
                m = None
                for m in _CL_RE.finditer(buf, 0, soi):
                    pass
                if m is not None:
                    n = int(m.group(1))
                    if len(buf) >= soi + n:
                        jpeg = buf[soi:soi + n]
                        self._buf = buf[soi + n:]
                        return Frame(self._live_time(), self._frames, jpeg=jpeg)
                else:
                    eoi = buf.find(b"\xff\xd9", soi + 2)
                    if eoi >= 0:
                        jpeg = buf[soi:eoi + 2]
                        self._buf = buf[eoi + 2:]
                        return Frame(self._live_time(), self._frames, jpeg=jpeg)
            elif len(buf) > 4096:
                self._buf = buf = buf[-4096:]      # headers only; keep the tail
            if len(self._buf) > 32 * 1024 * 1024:
                raise _Disconnected(f"{self.describe()}: no JPEG frame found in 32 MB of data")
            self._buf += self._read_chunk()

    def _read_snapshot(self) -> Frame:
        if self._resp is None:
            wait = self._last_poll + 1.0 / self.snapshot_fps - time.monotonic()
            if wait > 0:
                self._stop.wait(wait)
            self._open()
        self._last_poll = time.monotonic()
        try:
            data = self._resp.read()
        except (socket.timeout, TimeoutError):
            raise _Disconnected(f"{self.describe()}: no data for {self.read_timeout:.0f} s") from None
        except OSError as exc:
            raise _Disconnected(f"{self.describe()}: connection lost ({exc})") from None
        finally:
            self._close()
        if not data:
            raise _Disconnected(f"{self.describe()}: empty snapshot")
        return Frame(self._live_time(), self._frames, jpeg=data)

    def _close(self) -> None:
        if self._resp is not None:
            try:
                self._resp.close()
            except Exception:
                pass
            self._resp = None


# ---------------------------------------------------------------------------------------
# frames pushed in by the program (the phone camera page)
# ---------------------------------------------------------------------------------------
class PushSource(FrameSource):
    """Frames handed in by another part of the program (the web page that makes a phone the camera).

    There is no device to read: :meth:`push` publishes a frame at once and, like every source,
    only the newest frame is kept (one replaced before it was read counts as dropped).
    :meth:`wait_taken` lets the pusher wait until the consumer has taken its frame, so the
    sender goes at the rate the analysis takes frames and no queue grows anywhere. With no
    frame for ``lost_after`` seconds the status is ``lost`` ("camera lost") until frames come
    again; the consumer just goes on waiting, nothing is ended.
    """

    kind = "phone"
    live = True

    def __init__(self, spec: str = "phone", *, lost_after: float = 3.0, **kw):
        self.lost_after = lost_after
        self._taken = 0
        self._takes: collections.deque = collections.deque(maxlen=30)   # when the last frames were taken
        super().__init__(spec, **kw)
        self._message = "waiting for the phone: open /camera on it and allow the camera"

    def describe(self) -> str:
        return "phone camera"

    def start(self) -> "PushSource":
        return self            # nothing to read: frames come through push()

    def stop(self) -> None:
        with self._cond:
            self._stop.set()
            if self._state not in ("ended", "error"):
                self._state, self._message = "ended", "phone camera: stopped"
            self._cond.notify_all()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    @property
    def ended(self) -> bool:
        return self._stop.is_set() and self._read_seq >= self._seq

    @property
    def taken(self) -> int:
        """Frames the consumer has taken (analysed or skipped by it)."""
        with self._cond:
            return self._taken

    def _silence(self, age: float) -> tuple[str, str] | None:
        if age > self.lost_after:
            return "lost", ("no picture from the phone (screen off, page closed or Wi-Fi lost?); "
                            "the table goes on when it sends again")
        return None

    def push(self, image: np.ndarray | None = None, jpeg: bytes | None = None) -> int | None:
        """Hand in one frame (a BGR image, or JPEG bytes decoded when read). Returns its number
        (for :meth:`wait_taken`), or None when the source is stopped."""
        if self._stop.is_set():
            return None
        if image is None and jpeg is None:
            raise ValueError("push() needs an image or JPEG bytes")
        with self._cond:
            if self._state == "ok" and self._last_frame_wall is not None and \
                    time.monotonic() - self._last_frame_wall > self.lost_after:
                self._reconnects += 1      # the phone is back after a loss
            frame = Frame(self._live_time(), self._frames, image=image, jpeg=jpeg)
            self._publish(frame)
            self._message = "phone camera: receiving frames"
            return self._seq

    def wait_taken(self, seq: int, timeout: float) -> bool:
        """Wait until frame ``seq`` (or a newer one) was taken by the consumer; False on time-out,
        when the source stopped, or when a newer frame replaced it unread."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._read_seq < seq and self._seq == seq and not self._stop.is_set():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return self._read_seq >= seq

    @property
    def taken_fps(self) -> float:
        """Frames a second the consumer takes (the analysis rate the sender should keep to)."""
        with self._cond:
            takes = list(self._takes)
        if len(takes) < 2 or time.monotonic() - takes[-1] > 2.0:
            return 0.0
        return (len(takes) - 1) / (takes[-1] - takes[0]) if takes[-1] > takes[0] else 0.0

    def read(self, timeout: float | None = 1.0) -> Frame | None:
        frame = super().read(timeout)
        if frame is not None:
            with self._cond:
                self._taken += 1
                self._takes.append(time.monotonic())
        return frame


_push_lock = threading.Lock()
_push_sources: dict[str, PushSource] = {}


def push_source(name: str = "phone") -> PushSource | None:
    """The open push source called ``name`` (the one the table session reads now), or None."""
    with _push_lock:
        src = _push_sources.get(name)
    return None if src is None or src.stopped else src


def _open_push(name: str, **kw) -> PushSource:
    src = PushSource(name, **kw)
    with _push_lock:
        old = _push_sources.get(name)
        _push_sources[name] = src
    if old is not None and old is not src:
        old.stop()
    return src


# ---------------------------------------------------------------------------------------
# spec parsing
# ---------------------------------------------------------------------------------------
def open_source(spec: str, *, realtime: bool = True, size: tuple[int, int] | None = (1280, 720),
                fps: float = 5.0, start: bool = True, demo_clip: str | Path | None = None, loop: bool = False,
                **kw) -> FrameSource:
    """Parse a source spec and return a (started) :class:`FrameSource`.

    ``"0"``/``"1"`` webcam index · ``"clip.mp4"`` video file · ``"frames/"``
    folder of images (at ``fps``) · ``"http://…"`` MJPEG stream or JPEG
    snapshot · ``"rtsp://…"`` (and other ``scheme://`` URLs) through FFmpeg ·
    ``"demo"`` the built-in demo clip (its path given as ``demo_clip`` by the caller: vision
    knows no game and no installation layout) · ``"phone"`` frames pushed in by the web
    page that makes a phone the camera (:class:`PushSource`, found again with :func:`push_source`). ``size`` is the resolution asked of
    webcams. ``loop``: a video file starts over when it ends, its media time going on (other
    sources ignore it). Extra keyword arguments go to :class:`FrameSource`.
    Raises :class:`SourceError` for a spec that names nothing usable.
    """
    spec = str(spec).strip()
    if not spec:
        raise SourceError("empty source; give a camera number, a video file, a folder, a URL, 'phone' or 'demo'")
    if spec.lower() in PUSH_SPECS:
        src: FrameSource = _open_push(spec.lower(), **kw)
    elif spec == "demo":
        p = Path(demo_clip) if demo_clip else None
        if p is None or not p.exists():
            raise SourceError("the built-in demo clip is missing from this installation"
                              + (f" (looked for {p})" if p else ""))
        src = CaptureSource(str(p), str(p), kind="demo", live=False, realtime=realtime, loop=loop, **kw)
    elif re.fullmatch(r"\d{1,2}", spec):
        src = CaptureSource(spec, int(spec), kind="camera", live=True, size=size, **kw)
    elif spec.lower().startswith(("http://", "https://")):
        src = MjpegSource(spec, **kw)
    elif re.match(r"^[a-z][a-z0-9+.-]*://", spec, re.I):
        src = CaptureSource(spec, spec, kind="stream", live=True, **kw)
    elif os.path.isdir(spec):
        src = FolderSource(spec, fps=fps, realtime=realtime, **kw)
    elif os.path.isfile(spec):
        if spec.lower().endswith(IMAGE_EXTS):
            raise SingleImageError(f"{spec} is a single image: a live table is read from a video, a camera or a "
                                   "folder of frames")
        src = CaptureSource(spec, spec, kind="video", live=False, realtime=realtime, loop=loop, **kw)
    else:
        raise SourceError(f"source not found: {spec!r} (not a camera number, file, folder or URL)")
    return src.start() if start else src
