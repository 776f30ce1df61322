"""What a table keeps in memory through an evening is bounded: decided hands, events, frames."""
from tableref.live import session as session_mod
from tableref.live.events import TableState
from tableref.live.session import TableSession

P3 = ["Ana", "Beto", "Cris"]
PELADILLA = ["AS", "3C", "5D", "7H", "9S", "JC", "KD", "2H", "10D"]   # an automatic win: no pairs, no neighbours


def decide_hands(s: TableSession, n: int) -> None:
    """``n`` hands, each an automatic win for Beto, the table cleared between them."""
    t = 0.0
    for _ in range(n):
        t += 1.0
        s.feed_state(TableState.from_labels([[], [PELADILLA], []], [], t))
        for dt in (1.0, 20.0):               # cleared, and still clear well after
            t += dt
            s.feed_state(TableState.from_labels([[], [], []], [], t))


def test_the_session_keeps_its_last_decided_hands_and_counts_them_all(monkeypatch):
    monkeypatch.setattr(session_mod, "MAX_RESULTS", 3)
    s = TableSession(source="unused", game="desmoche", players=P3)
    recorded = []
    s.on_hand_end = recorded.append
    decide_hands(s, 5)
    assert len(recorded) == 5                            # every hand went to the ledger
    assert [r["hand_no"] for r in s.results] == [3, 4, 5]
    assert s.snapshot()["hands_decided"] == 5


def test_events_and_frames_kept_by_the_session_are_bounded():
    s = TableSession(source="unused", game="desmoche", players=P3)
    for k in range(session_mod.MAX_EVENTS + 50):
        s._emit({"type": "note", "t": float(k), "text": str(k)})
        s._frames.append((float(k), b"jpeg"))
    assert len(s._events) == session_mod.MAX_EVENTS
    assert len(s._frames) == s._frames.maxlen and s.frame_at(0.0)[0] == float(session_mod.MAX_EVENTS + 49)


def test_a_looped_video_plays_on_in_one_reader_thread_with_its_time_going_on(tmp_path):
    """The demo clip through an evening: one reader thread and decoder, not a new one each time round."""
    import threading

    import cv2
    import numpy as np

    from tableref.vision.sources import open_source

    clip = tmp_path / "clip.mp4"
    w = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"mp4v"), 6, (160, 96))
    for k in range(6):
        w.write(np.full((96, 160, 3), 40 * k, np.uint8))
    w.release()
    threads_before = threading.active_count()
    src = open_source(str(clip), realtime=False, loop=True)
    try:
        times = []
        while len(times) < 20:
            frame = src.read(timeout=5)
            assert frame is not None, src.status
            times.append(frame.t)
        assert not src.ended and src.status.reconnects == 0 and src.passes == 3   # the session starts a hand on each
        assert threading.active_count() == threads_before + 1
    finally:
        src.stop()
    assert times == sorted(times) and len(set(times)) == 20 and times[-1] > 1.0   # 6 frames at 6 fps, 3 times round
