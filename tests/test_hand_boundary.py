"""When a hand ends and the next begins: the table cleared (no face-up card for CLEAR_TABLE_SECONDS),
or the host's "Next hand".

The first test is made from the demo clip's real frames, decoded and written back as a video: the
hand, 2.5 s of empty table, the same hand again; ``tableref watch`` (the same live session as
``tableref serve``) must referee and record both. The others feed the session frame by frame
(the simulator's exact card positions through the real tracker), or stable tables, and need no model.
"""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import pytest

from tableref.ledger.store import Ledger
from tableref.live.boundary import CLEAR_TABLE_SECONDS
from tableref.live.events import TableState
from tableref.live.session import TableSession
from tableref.simulate.bots import play_desmoche
from tableref.simulate.observations import script_observations
from tableref.vision.types import FrameObservation

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "tableref" / "demo"
P3 = ["Ana", "Beto", "Cris"]


def _frames(path: Path) -> list:
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    cap.release()
    return frames


def test_two_hands_a_short_clear_apart_are_both_refereed_by_watch(tmp_path):
    """The demo hand, 2.5 s of empty table (its own first frame: only the face-down stock), the hand again."""
    setup = json.loads((DEMO / "desmoche.json").read_text())
    truth = setup["truth"]
    frames = _frames(DEMO / "desmoche.mp4")
    fps = 6
    empty = frames[0]
    # the clip opens with 2.5 s of empty table; the second hand keeps 0.5 s of it: 2.0 + 0.5 s clear
    second = frames[15 - 3:]
    sequence = frames + [empty] * (2 * fps) + second
    clip = tmp_path / "two-hands.mp4"
    out = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"mp4v"), fps, (empty.shape[1], empty.shape[0]))
    for f in sequence:
        out.write(f)
    out.release()
    second_starts = (len(frames) + 2 * fps) / fps           # media time of the second hand's first frame
    db = tmp_path / "ledger.sqlite3"
    p = subprocess.run([sys.executable, "-m", "tableref", "watch", str(clip), "--game", "desmoche",
                        "--players", ",".join(setup["players"]), "--json", "--db", str(db)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    ends = [x for x in lines if x["type"] == "hand_end" and not x.get("repeat")]
    starts = [x for x in lines if x["type"] == "hand_start"]
    assert [e["hand_no"] for e in ends] == [1, 2], [(x["type"], x.get("t")) for x in lines][-20:]
    assert all(e["winner"] == truth["winner"] and e["net"] == truth["net"] for e in ends)
    # the next hand began in the clear, CLEAR_TABLE_SECONDS after the last card went
    assert len(starts) == 1 and "cleared" in starts[0]["text"]
    assert len(frames) / fps + CLEAR_TABLE_SECONDS - 0.01 <= starts[0]["t"] < second_starts
    with Ledger(db) as ledger:
        hands = ledger.hands(ledger.current_session())
    assert [h["net"] for h in hands] == [truth["net"], truth["net"]]


def _observations(seed: int, t0: float):
    sc = play_desmoche(seed)
    return sc, [replace(o, t=o.t + t0) for o in script_observations(sc)]


def _empty(t0: float, seconds: float, sharpness: float = 1.0, fps: float = 6.0):
    n = int(round(seconds * fps))
    return [FrameObservation(t=t0 + i / fps, width=1280, height=720, cards=[], sharpness=sharpness)
            for i in range(n)]


def _session(players, game="desmoche"):
    s = TableSession(source="unused", game=game, players=players)
    s.decided = []
    s.on_hand_end = s.decided.append
    return s


def _decide_then_clear(s, obs):
    """Feed a hand that gets decided, then CLEAR_TABLE_SECONDS and a bit of empty table: the next
    hand has begun. Returns the hand's last observation."""
    for o in obs:
        s.feed_observation(o)
    assert len(s.decided) == 1
    last = obs[-1]
    for o in _empty(last.t + 0.1, CLEAR_TABLE_SECONDS + 0.5):
        s.feed_observation(o)
    assert s.hand_no == 2
    return last


def test_a_cleared_table_starts_the_next_hand_in_the_stated_time():
    sc1, first = _observations(3, 0.0)
    s = _session(sc1.players)
    for o in first:
        s.feed_observation(o)
    assert len(s.decided) == 1 and s.snapshot()["waiting_for_clear_table"]
    end = first[-1].t
    # a moment without cards is not a cleared table; CLEAR_TABLE_SECONDS of it is
    short = _empty(end + 0.1, CLEAR_TABLE_SECONDS - 0.5)
    for o in short:
        assert s.feed_observation(o) == [] or not s.snapshot()["waiting_for_clear_table"]
    assert s.hand_no == 1
    evs = []
    for o in _empty(end + 0.1, CLEAR_TABLE_SECONDS + 0.5):
        evs += s.feed_observation(o)
    assert [e["type"] for e in evs if e["type"] == "hand_start"] == ["hand_start"] and s.hand_no == 2
    # the same hand dealt again where the last lay: refereed as a new hand
    _, again = _observations(3, end + 3.0)
    for o in again:
        s.feed_observation(o)
    assert [r["hand_no"] for r in s.decided] == [1, 2]
    assert s.decided[1]["net"] == s.decided[0]["net"] == sc1.truth["net"]


def test_a_covered_lens_is_not_a_cleared_table():
    sc, obs = _observations(3, 0.0)
    s = _session(sc.players)
    for o in obs:
        s.feed_observation(o)
    assert len(s.decided) == 1
    for o in _empty(obs[-1].t + 0.1, 3 * CLEAR_TABLE_SECONDS, sharpness=0.0):     # a black picture
        s.feed_observation(o)
    assert s.hand_no == 1 and s.snapshot()["waiting_for_clear_table"]


def S(seats, centre=(), t=0.0):
    return TableState.from_labels(seats, list(centre), t)


ANA_WINS = [["3H", "4H", "5H", "6H"], ["7S", "7D", "7C"], ["JD", "QD", "KD"]]


def test_host_next_hand_after_a_decided_hand_ignores_the_cards_left_on_the_table():
    s = _session(P3)
    s.feed_state(S([ANA_WINS, [], []], t=1.0))
    assert len(s.decided) == 1
    got = s.next_hand()
    assert got == {"hand_no": 2, "previous": 1, "previous_decided": True}
    snap = s.snapshot()
    assert snap["hand_no"] == 2 and not snap["waiting_for_clear_table"] and snap["result"] is None
    assert any(e["type"] == "hand_start" and e.get("by") == "host" for e in snap["events"])


def test_host_next_hand_on_an_undecided_hand_plays_it_again_unrecorded():
    s = _session(P3)
    s.feed_state(S([[["3H", "4H", "5H"]], [], []], t=1.0))
    got = s.next_hand()
    assert got == {"hand_no": 1, "previous": 1, "previous_decided": False}
    assert s.decided == [] and s.snapshot()["seats"][0]["melds"] == []


def test_host_next_hand_over_the_cards_still_laid_does_not_judge_them_again():
    """Through the tracker: the old hand's cards lie on while the host starts the next hand; a card laid
    afterwards is judged, the old ones are not (the winner is not decided a second time)."""
    sc, obs = _observations(3, 0.0)
    s = _session(sc.players)
    for o in obs:
        s.feed_observation(o)
    assert len(s.decided) == 1
    s.next_hand()
    last = obs[-1]
    for i in range(1, 30):                         # the same table, 5 s more
        s.feed_observation(replace(last, t=last.t + i / 6))
    assert len(s.decided) == 1 and s.snapshot()["result"] is None
    assert all(not seat["melds"] for seat in s.snapshot()["seats"])


@pytest.mark.parametrize("seconds", [CLEAR_TABLE_SECONDS])
def test_the_rule_is_documented(seconds):
    text = (ROOT / "docs" / "live.md").read_text()
    assert f"{seconds:g} s" in text and "Next hand" in text


def test_marriage_host_next_hand_over_the_laid_down_hands_does_not_count_them_again():
    """A Marriage count decided from the seat scans; the host starts the next hand while the hands
    still lie there: they are not counted (nor settled) again; once cleared, a new count is."""
    from tableref.simulate.bots import play_marriage

    sc = play_marriage(2)
    s = TableSession(source="unused", game="marriage", players=sc.players)
    s.decided = []
    s.on_hand_end = s.decided.append
    obs = list(script_observations(sc))
    for o in obs:
        s.feed_observation(o)
    assert len(s.decided) == 1 and s.decided[0]["net"] == sc.truth["net"]
    s.next_hand()
    last = obs[-1]
    for i in range(1, 30):
        s.feed_observation(replace(last, t=last.t + i / 6))
    assert len(s.decided) == 1 and s.snapshot()["result"] is None and s.hand_no == 2
    end = last.t + 5.0
    for o in _empty(end + 0.1, CLEAR_TABLE_SECONDS + 0.5):
        s.feed_observation(o)
    for o in obs:
        s.feed_observation(replace(o, t=o.t + end + 3.0))
    assert [r["hand_no"] for r in s.decided] == [1, 2] and s.decided[1]["net"] == sc.truth["net"]


def test_a_table_cleared_before_its_hand_is_decided_sets_the_hand_aside():
    """Cards laid, nobody has won, the table is cleared: nothing is recorded, the hand keeps its
    number, and the next deal is refereed as that hand (not merged into the last one)."""
    sc, obs = _observations(3, 0.0)
    first = _session(sc.players)
    for o in obs:
        first.feed_observation(o)
    won_at = first.decided[0]["t"]
    s = _session(sc.players)
    undecided = [o for o in obs if o.t < won_at - 1.0]            # the hand before its winning meld
    for o in undecided:
        s.feed_observation(o)
    assert s.decided == [] and any(seat["melds"] for seat in s.snapshot()["seats"])
    end = undecided[-1].t
    evs = []
    for o in _empty(end + 0.1, CLEAR_TABLE_SECONDS + 0.5):
        evs += s.feed_observation(o)
    starts = [e for e in evs if e["type"] == "hand_start"]
    assert len(starts) == 1 and starts[0]["previous_decided"] is False and "set aside" in starts[0]["text"]
    assert s.hand_no == 1 and s.decided == [] and not [e for e in evs if e["type"] == "illegal_move"]
    for o in obs:
        s.feed_observation(replace(o, t=o.t + end + 3.0))
    assert [r["hand_no"] for r in s.decided] == [1] and s.decided[0]["net"] == sc.truth["net"]


def test_an_empty_table_before_any_card_ends_nothing():
    s = _session(P3)
    for o in _empty(0.0, 3 * CLEAR_TABLE_SECONDS):
        assert s.feed_observation(o) == []
    assert s.hand_no == 1 and not [e for e in s.snapshot()["events"] if e["type"] == "hand_start"]


def test_the_decided_hands_table_seen_again_after_a_clear_is_not_judged_again():
    """After a decided hand nothing is seen for a while (a hand over the camera, a blur the detector
    reads nothing in), then the same table again: the next hand has begun, but those cards are the
    last hand's -- not decided (nor recorded) a second time; a meld laid afterwards is judged."""
    sc, obs = _observations(3, 0.0)
    s = _session(sc.players)
    last = _decide_then_clear(s, obs)
    for i in range(1, 30):
        s.feed_observation(replace(last, t=last.t + 3.0 + i / 6))
    assert len(s.decided) == 1 and s.snapshot()["result"] is None
    back = [e for e in s.snapshot()["events"] if e["type"] == "old_cards_back"]
    assert len(back) == 1 and len(back[0]["cards"]) >= 6
    assert all(not seat["melds"] for seat in s.snapshot()["seats"])


def test_a_marriage_count_seen_again_after_a_clear_is_not_settled_again():
    from tableref.simulate.bots import play_marriage

    sc = play_marriage(2)
    s = _session(sc.players, game="marriage")
    last = _decide_then_clear(s, list(script_observations(sc)))
    for i in range(1, 40):
        s.feed_observation(replace(last, t=last.t + 3.0 + i / 6))
    assert len(s.decided) == 1 and s.snapshot()["result"] is None
    assert [e for e in s.snapshot()["events"] if e["type"] == "old_cards_back"]


def test_the_next_marriage_count_laid_at_once_after_a_clear_is_counted():
    """Two deals of a Marriage count share most labels (three packs), but not the spots they lie on:
    the next count, seen whole as the next hand's first table, is counted and settled."""
    from tableref.simulate.bots import play_marriage

    first, second = play_marriage(2), play_marriage(21)          # 79 % of their labels are the same
    assert first.players == second.players
    s = _session(first.players, game="marriage")
    end = _decide_then_clear(s, list(script_observations(first))).t
    laid = list(script_observations(second))[-1]                  # the whole count at once
    for i in range(1, 40):
        s.feed_observation(replace(laid, t=end + 3.0 + i / 6))
    assert [r["hand_no"] for r in s.decided] == [1, 2]
    assert s.decided[1]["net"] == second.truth["net"]
    assert not [e for e in s.snapshot()["events"] if e["type"] == "old_cards_back"]


def test_the_same_cards_elsewhere_are_not_the_old_table():
    from types import SimpleNamespace as Card

    from tableref.live.boundary import card_places, old_cards_back

    def table(shift):
        labels = ["3H", "4H", "5H", "7S", "7D", "7C", "JD", "QD"]
        return Card(cards=[Card(card=label, centre=(100.0 * i + shift, 200.0),
                                box=(100.0 * i + shift - 30, 160, 100.0 * i + shift + 30, 240))
                           for i, label in enumerate(labels)])

    old = card_places(table(0))
    assert old_cards_back(old, table(10)) == sorted(c for c, _, _ in old)       # moved a little: the same table
    assert old_cards_back(old, table(40)) == []                                 # every card elsewhere: a new deal


class _ScriptedReader:
    """Reads each frame as the script says it shows (the simulator's exact cards), with the picture's
    real sharpness: what the camera loop's recogniser gives, for the session's own blur handling."""

    def __init__(self, script):
        self.script = script            # frame time -> FrameObservation
        self.looked_at = []

    def observe(self, image, t=0.0, sharpness=None, read_blurred=False):
        from tableref.vision.recognition import sharpness

        self.looked_at.append(t)
        return replace(self.script[t], sharpness=sharpness(image))


def _pictures():
    import numpy as np

    busy = np.random.default_rng(0).integers(0, 255, (180, 320, 3), dtype=np.uint8)   # a table full of cards
    bare = np.full((180, 320, 3), 90, np.uint8)
    bare[::7] = 100                                   # an empty cloth: far less detail, so it looks blurred
    return busy, bare


def _analyse(s, reader, picture, observations):
    evs = []
    for o in observations:
        reader.script[o.t] = o
        before = len(s.snapshot()["events"])
        s.analyse_frame(picture, o.t, recognizer=reader)
        evs += s.snapshot()["events"][before:]
    return evs


def _undecided_hand_through_the_camera_loop():
    """A session that has read, through the camera loop's path, a hand laid but not yet decided:
    (session, its scripted reader, the observations read, the bare table's picture)."""
    sc, obs = _observations(3, 0.0)
    first = _session(sc.players)
    for o in obs:
        first.feed_observation(o)
    undecided = [o for o in obs if o.t < first.decided[0]["t"] - 1.0]
    busy, bare = _pictures()
    s, reader = _session(sc.players), _ScriptedReader({})
    _analyse(s, reader, busy, undecided)
    return s, reader, undecided, bare


def test_a_table_cleared_mid_hand_is_seen_empty_although_it_looks_blurred():
    """Through the camera loop's path (blurred frames skipped): an undecided hand's table cleared for
    2.5 s is set aside, since a frame is read now and then through the 'blur' of the bare cloth."""
    s, reader, undecided, bare = _undecided_hand_through_the_camera_loop()
    assert s.decided == [] and any(seat["melds"] for seat in s.snapshot()["seats"])
    looks = len(reader.looked_at)
    evs = _analyse(s, reader, bare, _empty(undecided[-1].t + 0.1, 2.5))
    assert [e for e in evs if e["type"] == "hand_start" and "set aside" in e["text"]], [e["text"] for e in evs]
    assert not [e for e in evs if e["type"] == "illegal_move"]
    assert len(reader.looked_at) - looks < 15            # the blurred-looking frames were mostly not read


def test_a_blurred_table_with_cards_on_it_is_not_taken_for_a_cleared_one():
    """The same hand under a long blur: the frames read through it find only unsure readings (cards
    too soft to name), which keep the hand going."""
    s, reader, undecided, bare = _undecided_hand_through_the_camera_loop()
    soft = [replace(o, unsure=[replace(d, confidence=0.3) for d in undecided[-1].cards])
            for o in _empty(undecided[-1].t + 0.1, 3 * CLEAR_TABLE_SECONDS)]
    evs = _analyse(s, reader, bare, soft)
    assert not [e for e in evs if e["type"] == "hand_start"] and s.hand_no == 1
