"""The push source (``--source phone``): newest frame only, back-pressure, camera lost and back."""
from __future__ import annotations

import threading
import time

import cv2
import numpy as np

from tableref.vision.sources import PushSource, open_source, push_source


def _img(i: int) -> np.ndarray:
    img = np.zeros((36, 64, 3), np.uint8)
    img[:] = (i % 256, 50, 90)
    return img


def test_open_phone_is_found_again_and_replaced_when_reopened():
    src = open_source("phone")
    assert isinstance(src, PushSource) and push_source("phone") is src
    assert src.status.state == "connecting" and "/camera" in src.status.message
    again = open_source("phone")
    assert push_source("phone") is again and src.stopped and src.push(_img(1)) is None
    again.stop()
    assert push_source("phone") is None


def test_only_the_newest_frame_is_kept_and_drops_are_counted():
    src = PushSource(lost_after=5.0).start()
    for i in range(5):
        src.push(_img(i))
    f = src.read(timeout=0.1)
    assert f is not None and int(f.image[0, 0, 0]) == 4
    assert src.read(timeout=0.05) is None            # nothing new: no queue behind it
    st = src.status
    assert (st.state, st.frames, st.dropped) == ("ok", 5, 4) and src.taken == 1
    src.stop()


def test_jpeg_is_decoded_when_read():
    src = PushSource()
    ok, buf = cv2.imencode(".jpg", _img(200))
    src.push(jpeg=buf.tobytes())
    f = src.read(timeout=0.1)
    assert f.image.shape == (36, 64, 3) and abs(int(f.image[0, 0, 0]) - 200) < 8
    src.stop()


def test_wait_taken_paces_the_sender_at_the_consumers_rate():
    """A sender that waits for its frame to be taken never gets ahead: nothing is dropped."""
    src = PushSource()
    got = []

    def consumer():
        while len(got) < 10:
            f = src.read(timeout=2.0)
            if f is not None:
                got.append(f.index)
                time.sleep(0.03)        # "analysis"

    th = threading.Thread(target=consumer)
    th.start()
    for i in range(10):
        seq = src.push(_img(i))
        assert src.wait_taken(seq, timeout=2.0)
    th.join(5)
    assert got == list(range(10)) and src.status.dropped == 0
    # no consumer: the sender is told its frame was not taken
    seq = src.push(_img(11))
    t0 = time.monotonic()
    assert not src.wait_taken(seq, timeout=0.2) and time.monotonic() - t0 < 1.0
    src.stop()


def test_camera_lost_then_back_without_ending():
    src = PushSource(lost_after=0.2)
    src.push(_img(1))
    assert src.read(timeout=0.1) is not None
    time.sleep(0.3)
    st = src.status
    assert st.state == "lost" and st.message.startswith("no picture from the phone")
    assert src.read(timeout=0.05) is None and not src.ended      # the consumer goes on waiting
    src.push(_img(2))
    st = src.status
    assert st.state == "ok" and st.reconnects == 1
    assert src.read(timeout=0.1) is not None
    src.stop()
    assert src.ended
