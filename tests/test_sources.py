"""Frame sources: MJPEG over HTTP with a server that dies and comes back, files, folders, bad input."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np
import pytest

from tableref.vision.sources import SourceError, open_source


def _jpeg(i: int) -> bytes:
    img = np.zeros((48, 64, 3), np.uint8)
    img[:] = (i * 7 % 256, 100, 200)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return buf.tobytes()


class _Camera:
    """A tiny phone-camera-like MJPEG server on 127.0.0.1 that can be killed and restarted."""

    def __init__(self, port: int = 0, content_length: bool = True, fps: float = 40.0):
        self.content_length = content_length
        self.fps = fps
        self.alive = threading.Event()
        self.sent = 0
        cam = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                if self.path == "/shot.jpg":
                    data = _jpeg(cam.sent)
                    cam.sent += 1
                    self.send_response(200)
                    self.send_header("Content-Type", "image/jpeg")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if self.path != "/video":
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                try:
                    while cam.alive.is_set():
                        data = _jpeg(cam.sent)
                        head = b"--frame\r\nContent-Type: image/jpeg\r\n"
                        if cam.content_length:
                            head += b"Content-Length: %d\r\n" % len(data)
                        self.wfile.write(head + b"\r\n" + data + b"\r\n")
                        cam.sent += 1
                        time.sleep(1.0 / cam.fps)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.alive.set()
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def kill(self):
        self.alive.clear()
        self.server.shutdown()
        self.server.server_close()


def _wait(pred, timeout=8.0, step=0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return False


@pytest.mark.parametrize("content_length", [True, False])
def test_mjpeg_reconnects_after_server_dies(content_length):
    cam = _Camera(content_length=content_length)
    url = f"http://127.0.0.1:{cam.port}/video"
    src = open_source(url, read_timeout=1.0, max_backoff=0.3, stale_after=0.5)
    try:
        f = src.read(timeout=5)
        assert f is not None and f.image is not None and f.image.shape == (48, 64, 3)
        assert _wait(lambda: src.status.state == "ok")
        # frames keep coming and are newest-first: a slow reader skips frames
        time.sleep(0.3)
        f1 = src.read(timeout=2)
        assert f1 is not None and f1.index > f.index
        assert src.status.dropped > 0
        port = cam.port
        cam.kill()
        assert _wait(lambda: src.status.state in ("reconnecting", "stale")), src.status
        assert _wait(lambda: src.status.state == "reconnecting"), src.status
        assert src.status.message
        assert src.read(timeout=0.2) is None            # no crash, just nothing new
        cam2 = _Camera(port=port, content_length=content_length)
        try:
            assert _wait(lambda: src.status.state == "ok"), src.status
            f2 = src.read(timeout=3)
            assert f2 is not None and f2.image is not None
            assert src.status.reconnects >= 1
        finally:
            cam2.kill()
    finally:
        src.stop()
    assert not src._thread.is_alive()


def test_jpeg_snapshot_url_is_polled():
    cam = _Camera()
    src = open_source(f"http://127.0.0.1:{cam.port}/shot.jpg", read_timeout=1.0, snapshot_fps=50)
    try:
        frames = [src.read(timeout=3) for _ in range(3)]
        assert all(f is not None and f.image is not None for f in frames)
        assert frames[0].index < frames[1].index < frames[2].index
    finally:
        src.stop()
        cam.kill()


def test_http_not_a_stream_and_refused_connection_report_status():
    cam = _Camera()
    src = open_source(f"http://127.0.0.1:{cam.port}/nothing", read_timeout=1.0, max_backoff=0.2)
    try:
        assert _wait(lambda: src.status.state == "reconnecting")
        assert "404" in src.status.message
    finally:
        src.stop()
        cam.kill()
    port = cam.port                     # now closed: connection refused
    src = open_source(f"http://127.0.0.1:{port}/video", read_timeout=1.0, max_backoff=0.2)
    try:
        assert _wait(lambda: src.status.state == "reconnecting")
        assert "cannot connect" in src.status.message
    finally:
        src.stop()


def _write_video(path, n=12, fps=10.0, size=(64, 48)):
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    assert w.isOpened()
    for i in range(n):
        img = np.full((size[1], size[0], 3), (i * 20) % 256, np.uint8)
        w.write(img)
    w.release()


def test_video_file_fast_mode_delivers_every_frame_with_media_time(tmp_path):
    p = tmp_path / "clip.avi"
    _write_video(p, n=12, fps=10.0)
    src = open_source(str(p), realtime=False)
    frames = list(src.frames())
    assert [f.index for f in frames] == list(range(12))
    assert frames[5].t == pytest.approx(0.5)
    assert src.status.state == "ended" and src.status.dropped == 0
    assert "12 frames" in src.status.message


def test_video_file_realtime_takes_media_time(tmp_path):
    p = tmp_path / "clip.avi"
    _write_video(p, n=6, fps=20.0)
    t0 = time.monotonic()
    src = open_source(str(p), realtime=True)
    frames = list(src.frames())
    assert time.monotonic() - t0 >= 0.2           # 6 frames at 20 fps last 0.25 s
    assert frames and frames[-1].t == pytest.approx(0.25)


def test_corrupt_video_file_reports_and_retries_then_errors(tmp_path):
    p = tmp_path / "broken.mp4"
    p.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 40)
    src = open_source(str(p), realtime=False, max_backoff=0.1)
    seen = set()
    assert _wait(lambda: (seen.add(src.status.state), src.status.state == "error")[1]), src.status
    assert "reconnecting" in seen or src.status.reconnects >= 1
    assert "corrupt" in src.status.message or "not a video" in src.status.message
    assert src.read(timeout=0.1) is None
    assert src.ended


def test_truncated_video_file_keeps_the_frames_before_the_damage(tmp_path):
    p = tmp_path / "clip.avi"
    _write_video(p, n=40, fps=10.0, size=(160, 120))
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    src = open_source(str(p), realtime=False, max_backoff=0.05)
    frames = list(src.frames())
    assert len(frames) >= 5
    assert src.status.state in ("ended", "error")


def test_folder_skips_unreadable_images(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((20, 30, 3), i * 50, np.uint8))
    (tmp_path / "f1b.jpg").write_bytes(b"not a jpeg")
    src = open_source(str(tmp_path), realtime=False, fps=4.0)
    frames = list(src.frames())
    assert [f.t for f in frames] == [0.0, 0.25, 0.75]
    assert "1 unreadable" in src.status.message


def test_bad_specs_raise_clear_errors(tmp_path):
    with pytest.raises(SourceError, match="not found"):
        open_source(str(tmp_path / "nope.mp4"))
    img = tmp_path / "a.png"
    cv2.imwrite(str(img), np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(SourceError, match="single image"):
        open_source(str(img))
    with pytest.raises(SourceError):
        open_source("  ")
    empty = tmp_path / "empty"
    empty.mkdir()
    src = open_source(str(empty))
    assert _wait(lambda: src.status.state == "error")
    assert "no images" in src.status.message


def test_stream_that_hangs_goes_stale_then_reconnects():
    cam = _Camera()
    src = open_source(f"http://127.0.0.1:{cam.port}/video", read_timeout=1.0, stale_after=0.3, max_backoff=0.2)
    try:
        assert src.read(timeout=5) is not None
        cam.fps = 0.2                      # the phone app freezes: connection open, no frames
        time.sleep(0.3)
        assert _wait(lambda: src.status.state == "stale", timeout=3), src.status
        assert "no new frame" in src.status.message
        assert _wait(lambda: src.status.state == "reconnecting", timeout=4), src.status
        cam.fps = 40.0
        assert _wait(lambda: src.status.state == "ok", timeout=8), src.status
    finally:
        src.stop()
        cam.kill()


class _FakeCapture:
    """Stands in for cv2.VideoCapture on a webcam that is unplugged after a few frames."""

    plugged = True
    opened = 0

    def __init__(self, *a, **k):
        _FakeCapture.opened += 1
        self.n = 0

    def isOpened(self):
        return _FakeCapture.plugged

    def set(self, *a):
        return True

    def read(self):
        if not _FakeCapture.plugged:
            return False, None
        self.n += 1
        time.sleep(0.01)
        return True, np.full((48, 64, 3), self.n % 255, np.uint8)

    def release(self):
        pass


def test_webcam_unplugged_and_plugged_back(monkeypatch):
    import tableref.vision.sources as sources
    monkeypatch.setattr(sources.cv2, "VideoCapture", _FakeCapture)
    _FakeCapture.plugged, _FakeCapture.opened = True, 0
    src = open_source("0", max_backoff=0.2)
    try:
        assert src.read(timeout=2) is not None
        assert src.status.state == "ok" and "camera 0" in src.status.message
        _FakeCapture.plugged = False
        assert _wait(lambda: src.status.state == "reconnecting"), src.status
        assert "camera 0" in src.status.message
        _FakeCapture.plugged = True
        assert _wait(lambda: src.status.state == "ok"), src.status
        assert src.read(timeout=2) is not None
        assert _FakeCapture.opened >= 2 and src.status.reconnects >= 1
    finally:
        src.stop()


def test_rtsp_that_cannot_connect_reports_and_retries():
    src = open_source("rtsp://127.0.0.1:9/none", read_timeout=1.0, max_backoff=0.2)
    try:
        assert _wait(lambda: src.status.state == "reconnecting", timeout=10), src.status
        assert "rtsp://127.0.0.1:9/none" in src.status.message
        assert src.read(timeout=0.1) is None
    finally:
        src.stop()
