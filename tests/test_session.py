"""The table session: stable table states / synthetic observations in, events and results out.

No video and no recognition model: states are built from card labels, or
observations from the simulator's exact card positions go through the real
tracker (vision.tracking) and the real referee.
"""
import json
import queue
import time

import numpy as np
import pytest

from tableref.live.events import TableState
from tableref.live.session import SessionError, TableSession
from tableref.simulate.bots import play_desmoche, play_marriage
from tableref.simulate.observations import script_observations
from tableref.vision.types import FrameObservation

P3 = ["Ana", "Beto", "Cris"]


def S(seats, centre=(), t=0.0):
    return TableState.from_labels(seats, list(centre), t)


def session(game="desmoche", players=P3, **kw):
    s = TableSession(source="unused", game=game, players=players, **kw)
    s.results_seen = []
    s.on_hand_end = s.results_seen.append
    return s


def types(evs):
    return [e["type"] for e in evs]


# ------------------------------------------------------------------------------ Desmoche
def test_desmoche_meld_verdicts_and_winner():
    s = session()
    evs = s.feed_state(S([[["3H", "4H", "5H"]], [], []], t=1))
    assert types(evs) == ["meld_laid"] and evs[0]["valid"] and evs[0]["kind"] == "run"
    evs = s.feed_state(S([[["3H", "4H", "5H"]], [["9C", "8C", "10C"]], []], t=2))
    assert "out_of_order" in types(evs)
    evs = s.feed_state(S([[["3H", "4H", "5H"]], [["9C", "8C", "10C"]], [["QS", "KS", "2S"]]], t=3))
    assert "meld_invalid" in types(evs)
    bad = [e for e in evs if e["type"] == "meld_invalid"][0]
    assert bad["player"] == "Cris" and bad["reason"]
    # Ana reaches ten cards in valid melds: winner, settlement, callback once
    ana = [["3H", "4H", "5H", "6H"], ["7S", "7D", "7C"], ["JD", "QD", "KD"]]
    evs = s.feed_state(S([ana, [["9C", "8C", "10C"]], [["QS", "KS", "2S"]]], t=4))
    assert "winner" in types(evs) and types(evs)[-1] == "hand_end"
    end = evs[-1]
    assert end["winner"] == "Ana"
    assert sum(end["net"].values()) == 0
    assert end["net"]["Ana"] == 2            # pot of 3 antes, no bonus (everyone has cards down)
    assert len(s.results_seen) == 1 and s.results_seen[0]["winner"] == "Ana"
    snap = s.snapshot()
    json.dumps(snap)
    assert snap["winner"] == "Ana" and snap["seats"][0]["table_cards"] == 10
    assert snap["seats"][1]["melds"][0]["in_order"] is False
    # further views do not decide the hand again
    s.feed_state(S([ana, [["9C", "8C", "10C"]], []], t=5))
    assert len(s.results_seen) == 1


def test_desmoche_bonuses_mico_and_arriba_del_palo():
    s = session()
    ana = [["AS", "2S", "3S", "4S"], ["9D", "9C", "9H"], ["JC", "QC", "KC"]]
    s.feed_state(S([[], [["5H", "6H", "7H"]], []], t=1))
    evs = s.feed_state(S([ana, [["5H", "6H", "7H"]], []], t=2))
    end = evs[-1]
    kinds = sorted(i["item"] for i in end["items"])
    assert kinds == ["arriba_del_palo", "mico", "mico", "pot"]
    assert end["net"] == {"Ana": 2 + 2 + 1, "Beto": -2, "Cris": -3}


def test_desmoche_illegal_move_reported():
    s = session()
    s.feed_state(S([[["3H", "4H", "5H", "6H"]], [], []], t=1))
    evs = s.feed_state(S([[["3H", "4H", "5H"]], [], []], t=2))
    assert "card_removed" in types(evs) and "illegal_move" in types(evs)


def test_desmoche_autowin_and_next_hand_after_clear_table():
    s = session()
    peladilla = ["AS", "3C", "5D", "7H", "9S", "JC", "KD", "2H", "10D"]   # no pairs, no neighbours
    evs = s.feed_state(S([[], [peladilla], []], t=1))
    assert types(evs)[0] == "autowin" and evs[0]["kind"] == "peladilla"
    end = evs[-1]
    assert end["type"] == "hand_end" and end["winner"] == "Beto" and end["autowin"] == "peladilla"
    assert end["net"] == {"Ana": -2, "Beto": 4, "Cris": -2}     # everyone pays Arriba del Palo
    # cards still on the table: same hand; cleared table: hand 2
    assert s.feed_state(S([[], [peladilla], []], t=2)) == []
    evs = s.feed_state(S([[], [], []], t=3))
    assert types(evs) == ["hand_start"] and s.hand_no == 2


def test_desmoche_no_winner_carries_the_pot():
    s = session()
    s.feed_state(S([[["3H", "4H", "5H"]], [], []], t=1))
    end = s.finish_hand(winner=None)
    assert end["winner"] is None and end["net"] == {"Ana": -1, "Beto": -1, "Cris": -1}
    s.feed_state(S([[], [], []], t=2))
    assert s.snapshot()["pot"] == 3
    ana = [["3H", "4H", "5H", "6H"], ["8S", "8D", "8C"], ["JD", "QD", "KD"]]
    s.feed_state(S([[["2C", "3C", "4C"]], [], []], t=3))
    end = s.feed_state(S([[["2C", "3C", "4C"]], ana, [["9S", "10S", "JS"]]], t=4))[-1]
    assert end["winner"] == "Beto" and end["net"]["Beto"] == 3 + 3 - 1


def test_host_correction_rejudges():
    s = session()
    st = S([[["3H", "4H", "5C"]], [], []], t=1)
    evs = s.feed_state(st)
    assert "meld_invalid" in types(evs)
    # the host says the misread third card is 5H
    tid = st.seats[0].melds[0][2].track_id

    from tableref.vision.table_state import Meld, SeatState, StableTable, TableCard as VCard

    def vc(c):
        return VCard(c.track_id, c.card, 0.9, (0, 0, 1, 1), (0, 0), (0, 0), "seat0")

    table = StableTable(1.0, 0.5, 1, True,
                        [SeatState(0, "seat0", "Ana", [Meld([vc(c) for c in st.seats[0].melds[0]])]),
                         SeatState(1, "seat1", "Beto"), SeatState(2, "seat2", "Cris")])
    s.feed_table(table)
    out = s.correct_card(tid, "5h")
    assert out == {"ok": True, "track_id": tid, "card": "5H", "old": "5C"}
    ev = [e for e in s.snapshot()["events"] if e["type"] == "correction"][-1]
    assert ev["card"] == "5H"
    assert s.snapshot()["seats"][0]["melds"][0]["cards"] == ["3H", "4H", "5H"]
    assert s.snapshot()["seats"][0]["melds"][0]["valid"] is True
    with pytest.raises(SessionError):
        s.correct_card(tid, "XX")
    with pytest.raises(KeyError):
        s.correct_card(999, "2C")       # no such card on the table


def test_bad_setup_is_a_clear_error():
    with pytest.raises(SessionError, match="2 to 4"):
        TableSession(source="x", game="desmoche", seats=6)
    with pytest.raises(SessionError, match="'game' must be"):
        TableSession(source="x", game="poker")
    with pytest.raises(SessionError, match="strict"):
        TableSession(source="x", game="desmoche", rules={"strict_order": "sometimes"})
    s = TableSession(source="x", game="desmoche", seats=3)
    s.reconfigure(game="marriage", players=["A", "B", "C", "D", "E"])
    assert s.snapshot()["players"] == ["A", "B", "C", "D", "E"] and s.game == "marriage"


# ------------------------------------------------------------------------------ Marriage
def test_marriage_count_settles_from_laid_hands():
    sc = play_marriage(5)
    s = session("marriage", sc.players)
    for i, kf in enumerate(sc.keyframes):
        s.feed_state(TableState.from_labels(kf.table, kf.centre, float(i)))
    assert len(s.results_seen) == 1
    r = s.results_seen[0]
    assert r["winner"] == sc.truth["winner"] and r["net"] == sc.truth["net"]
    assert r["maal"] == sc.truth["maal"] and r["details"]["tiplu"] == sc.truth["tiplu"]
    kinds = types(list(s._events))
    assert "tiplu" in kinds and "maal_counted" in kinds and "hand_laid_down" in kinds


def test_marriage_host_enters_tiplu_and_winner():
    sc = play_marriage(7)
    s = session("marriage", sc.players)
    for i, kf in enumerate(sc.keyframes):      # the tiplu is hidden: no card in the centre
        s.feed_state(TableState.from_labels(kf.table, [], float(i)))
    assert not s.results_seen
    r = s.finish_hand(tiplu=sc.truth["tiplu"])
    assert r["winner"] == sc.truth["winner"] and r["net"] == sc.truth["net"]
    assert len(s.results_seen) == 1


# ------------------------------------------------------------------------------ through the tracker
@pytest.mark.parametrize("game,seed", [("desmoche", 3), ("desmoche", 13), ("desmoche", 25), ("marriage", 2)])
def test_synthetic_observations_through_tracker_give_the_truth(game, seed):
    sc = play_desmoche(seed) if game == "desmoche" else play_marriage(seed)
    s = session(game, sc.players)
    for obs in script_observations(sc):
        s.feed_observation(obs)
    s.end_of_stream()
    assert len(s.results_seen) == 1
    r = s.results_seen[0]
    assert r["winner"] == sc.truth["winner"] and r["net"] == sc.truth["net"]


def test_hand_over_the_table_creates_no_event():
    """Cards hidden for a few frames (an arm over the table) are not removed."""
    sc = play_desmoche(3)
    s = session("desmoche", sc.players)
    obs = list(script_observations(sc))
    evs = []
    for o in obs[:60]:
        evs += s.feed_observation(o)
    n_before = len([e for e in evs if e["type"] == "card_removed"])
    last = obs[59]
    for k in range(3):      # everything vanishes for half a second
        evs += s.feed_observation(FrameObservation(last.t + (k + 1) / 6, last.width, last.height, [], 1.0, False))
    for k in range(8):
        o = obs[59]
        evs += s.feed_observation(FrameObservation(last.t + (k + 4) / 6, o.width, o.height, o.cards, 1.0, False))
    assert len([e for e in evs if e["type"] == "card_removed"]) == n_before == 0


# ------------------------------------------------------------------------------ the camera loop
class _NoCards:
    """A recogniser stand-in that sees nothing (for camera-status tests only)."""

    def observe(self, image, t=0.0, sharpness=None, read_blurred=False):
        h, w = image.shape[:2]
        return FrameObservation(t, w, h, [], 1.0, False)


def _drain(q, timeout=5.0):
    out = []
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            out.append(q.get(timeout=0.1))
        except queue.Empty:
            pass
    return out


def test_corrupt_video_is_a_status_not_a_crash(tmp_path):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"garbage" * 100)
    s = TableSession(source=str(bad), game="desmoche", seats=3, recognizer=_NoCards(), loop=False,
                     realtime=False)
    q = s.subscribe()
    s.start()
    evs = _drain(q, 3.0)
    s.stop()
    cam = [e for e in evs if e["type"] == "camera_status"]
    assert cam, "a camera status event is published"
    assert s.snapshot()["camera"]["status"] in ("error", "reconnecting", "ended", "connecting")
    assert s.snapshot()["camera"]["message"]


def test_missing_source_is_a_status(tmp_path):
    s = TableSession(source=str(tmp_path / "nothing.mp4"), game="desmoche", seats=3, recognizer=_NoCards(),
                     loop=False)
    s.start()
    time.sleep(0.5)
    s.stop()
    cam = s.snapshot()["camera"]
    assert cam["status"] == "error" and "not found" in cam["message"]


def test_decided_hand_survives_the_camera_going_away(tmp_path):
    """A hand decided before the stream stops is kept and reported once."""
    import cv2

    clip = tmp_path / "short.mp4"
    w = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"mp4v"), 6, (320, 180))
    for _ in range(6):
        w.write(np.full((180, 320, 3), 90, np.uint8))
    w.release()
    s = TableSession(source=str(clip), game="desmoche", players=P3, recognizer=_NoCards(), loop=False,
                     realtime=False)
    got = []
    s.on_hand_end = got.append
    ana = [["3H", "4H", "5H", "6H"], ["8S", "8D", "8C"], ["JD", "QD", "KD"]]
    s.feed_state(S([ana, [], []], t=0.5))
    assert len(got) == 1
    s.start()
    assert s.wait(10)
    assert len(got) == 1 and s.results[-1]["winner"] == "Ana"


def test_card_read_twice_uses_its_second_reading():
    """One pack: a card read twice is a misreading; the uncertain card's runner-up label is used."""
    from types import SimpleNamespace

    from tableref.live.state import PlacedCard, SeatCards
    from tableref.live.repair import repair_duplicates

    st = TableState([SeatCards([[PlacedCard(1, "6H"), PlacedCard(2, "7H"), PlacedCard(3, "8H")]]),
                     SeatCards([[PlacedCard(4, "6H"), PlacedCard(5, "6S"), PlacedCard(6, "6C")]])], [], 1.0)
    tracker = SimpleNamespace(tracks=[
        SimpleNamespace(id=1, votes={"6H": 9.0}),
        SimpleNamespace(id=4, votes={"6H": 5.0, "6D": 3.0, "9C": 0.2}),
    ])
    fixed, notes = repair_duplicates(st, tracker)
    assert [c.card for c in fixed.seats[1].melds[0]] == ["6D", "6S", "6C"]
    assert notes[0]["track_id"] == 4 and notes[0]["taken_as"] == "6D"
    # without a real second reading nothing is changed (the table stays impossible, and says so)
    tracker.tracks[1].votes = {"6H": 9.0, "6D": 0.5}
    same, notes = repair_duplicates(st, tracker)
    assert same is st and notes == []


@pytest.mark.parametrize("game,players", [("desmoche", P3), ("marriage", ["A", "B"])])
def test_snapshot_gives_loose_cards_with_their_track_ids(game, players):
    """The host corrects a loose card by its track id, so the snapshot must carry it."""
    from tableref.live.state import PlacedCard, SeatCards

    s = session(game=game, players=players)
    seats = [SeatCards([], [PlacedCard(41, "7H"), PlacedCard(42, "KS")])] + [SeatCards([]) for _ in players[1:]]
    s.feed_state(TableState(seats, [], 1.0))
    seat = s.snapshot()["seats"][0]
    assert seat["loose"] == ["7H", "KS"] and seat["loose_ids"] == [41, 42]


def test_a_marriage_session_reads_the_table_as_three_packs_enlarged():
    # Marriage: identical cards lie side by side and 21 cards a seat overlap in strips, read enlarged
    # to a size of their own; both games read with the full classifier unless the machine is slow
    from tableref.vision.recognition import MachineSettings

    m = TableSession(source="synthetic", game="marriage", players=["Ana", "Beto"])._get_recognizer()
    d = TableSession(source="synthetic", game="desmoche", players=["Ana", "Beto"])._get_recognizer()
    assert m.config.several_packs and not d.config.several_packs
    assert d.config.one_pack and not m.config.one_pack          # Desmoche: a label read twice is reported once
    assert m.band.min == d.band.min == 28.0 and not m.fast_classifier and not d.fast_classifier
    assert m.config.index_px_fallback == (22.0, 26.0) and d.config.index_px_fallback is None
    assert m.config.reuse_scale_frames == d.config.reuse_scale_frames == 4
    quick = MachineSettings(quick=True)
    mq = TableSession(source="synthetic", game="marriage", players=["Ana", "Beto"], machine=quick)._get_recognizer()
    dq = TableSession(source="synthetic", game="desmoche", players=["Ana", "Beto"], machine=quick)._get_recognizer()
    assert mq.band.min == 22.0 and dq.band.min < 22.0 and mq.fast_classifier


# ------------------------------------------------------------------------------ unread and overcounted cards
def _table(seat0_melds, seat1_loose=(), t=1.0):
    from tableref.vision.table_state import Meld, SeatState, StableTable, TableCard as VCard

    def vc(tid, card, candidates=(), zone="seat0"):
        return VCard(tid, card, 0.9, (0, 0, 1, 1), (0, 0), (0, 0), zone, candidates=tuple(candidates))

    return StableTable(t, t - 0.6, 1, True,
                       [SeatState(0, "seat0", "Ana", [Meld([vc(*c) for c in m]) for m in seat0_melds]),
                        SeatState(1, "seat1", "Beto", [], [vc(*c[:3], zone="seat1") for c in seat1_loose]),
                        SeatState(2, "seat2", "Cris")])


def test_an_unread_card_is_shown_to_the_host_and_never_judged():
    s = session()
    # the third card of the meld is unread: 5H or 5D, the evidence is not decisive
    evs = s.feed_table(_table([[(1, "3H"), (2, "4H"), (3, "", ["5H", "5D"])]]))
    assert not [e for e in evs if e["type"] in ("meld_laid", "meld_invalid")]   # a meld read in part is not judged
    assert s.snapshot()["unread"] == [{"track_id": 3, "zone": "seat0", "box": [0.0, 0.0, 1.0, 1.0],
                                       "candidates": ["5H", "5D"]}]
    s.correct_card(3, "5H")                            # the host says what it is
    assert s.snapshot()["unread"] == []
    assert s.snapshot()["seats"][0]["melds"][0]["cards"] == ["3H", "4H", "5H"]


def test_one_pack_card_read_at_two_places_is_a_recognition_problem_never_counted_twice():
    s = session()
    evs = s.feed_table(_table([[(1, "6D"), (2, "7D"), (3, "8D")]], [(4, "7D")]))
    problems = [e for e in s.snapshot()["events"] if e["type"] == "recognition_problem"]
    assert len(problems) == 1 and problems[0]["cards"] == ["7D"] and problems[0]["track_ids"] == [2, 4]
    assert not [e for e in evs if e["type"] == "meld_laid"]          # the meld holding a 7D waits
    assert s.snapshot()["seats"][1]["loose"] == []
    s.feed_table(_table([[(1, "6D"), (2, "7D"), (3, "8D")]], [(4, "7D")], t=2.0))
    assert len([e for e in s.snapshot()["events"] if e["type"] == "recognition_problem"]) == 1   # said once


def test_a_correction_while_a_card_is_read_at_two_places_judges_the_rest_and_lists_the_copies():
    """One pack, 7D read at two places: every copy is set aside and listed for the host (its track
    ids and seats); correcting another card judges the rest of the table as the camera's tables are
    judged (the 7D still set aside, not the whole table refused), and saying one copy is not a card
    judges its meld and empties the list."""
    s = session()
    s.feed_table(_table([[(1, "3H"), (2, "4H"), (3, "", ["5H", "5D"])], [(5, "6D"), (6, "7D"), (7, "8D")]],
                        [(8, "7D")]))
    copies = [{"track_id": 6, "zone": "seat0"}, {"track_id": 8, "zone": "seat1"}]
    assert s.snapshot()["set_aside"] == [{"card": "7D", "packs": 1, "copies": copies}]
    s.correct_card(3, "5H")
    snap = s.snapshot()
    assert [m["cards"] for m in snap["seats"][0]["melds"]] == [["3H", "4H", "5H"]]
    assert snap["set_aside"] == [{"card": "7D", "packs": 1, "copies": copies}]
    s.correct_card(8, None)
    snap = s.snapshot()
    assert [m["cards"] for m in snap["seats"][0]["melds"]] == [["3H", "4H", "5H"], ["6D", "7D", "8D"]]
    assert snap["set_aside"] == [] and snap["unread"] == []


def test_an_unread_card_of_the_last_hand_is_not_listed_in_the_next():
    """The host starts the next hand with the last hand's cards still on the table: they are not
    judged in the new hand, so an unread one among them is no card to check either."""
    s = session()
    s.feed_table(_table([[(1, "3H"), (2, "4H"), (3, "", ["5H", "5D"])]]))
    assert [u["track_id"] for u in s.snapshot()["unread"]] == [3]
    s.next_hand()
    assert s.snapshot()["unread"] == []


def test_marriage_counts_no_label_more_than_three_times():
    from tableref.live.repair import set_aside_overcounted

    st = S([[["5S", "5S", "5S"]], [["5S", "6S", "7S"]], [], []])
    kept, notes = set_aside_overcounted(st, 3)
    assert [n["card"] for n in notes] == ["5S"] and notes[0]["copies"] == 4
    assert all(c.card != "5S" for seat in kept.seats for c in seat.cards)
    assert set_aside_overcounted(S([[["5S", "5S", "5S"]], [], [], []]), 3)[1] == []


def _watch_folder(folder, frames, recognizer, max_blur_seconds: float) -> list[dict]:
    """The events of a Desmoche session watching ``frames`` (written to ``folder``, 5 a second) with
    ``recognizer``, every frame analysed."""
    import cv2

    for k, img in enumerate(frames):
        cv2.imwrite(str(folder / f"{k:03d}.png"), img)
    s = TableSession(source=str(folder), game="desmoche", players=P3, realtime=False, recognizer=recognizer,
                     tracker_options={"max_blur_seconds": max_blur_seconds})
    s.analyse_every = 1
    q = s.subscribe()
    s.start()
    assert s.wait(20)
    return list(q.queue)


@pytest.mark.parametrize("cards_there", [True, False])
def test_a_lasting_blur_is_said_in_the_camera_status(tmp_path, cards_there):
    """A lasting blur over cards (read now and then: only readings too soft to name) is said; a picture
    that lost its detail because the table was cleared (read now and then: nothing at all) is not."""
    import cv2

    from tableref.live import session as session_mod
    from tableref.vision.types import DetectedCard

    class Recognizer:
        """Reads no card, only (when ``cards_there``) an unsure reading in a blurred picture; counts the
        frames it was asked to read."""
        read = 0

        def observe(self, image, t=0.0, sharpness=None, read_blurred=False):
            Recognizer.read += 1
            s = session_mod_sharpness(image)
            soft = [DetectedCard("8C", 0.2, (10.0, 10.0, 40.0, 50.0))] if cards_there and s < 0.5 else []
            return FrameObservation(t=t, width=image.shape[1], height=image.shape[0], cards=[],
                                    sharpness=s, unsure=soft)

    from tableref.vision.recognition import sharpness as session_mod_sharpness

    rng = np.random.default_rng(0)
    sharp = (rng.random((120, 160, 3)) * 255).astype(np.uint8)
    frames = [sharp if k < 10 else cv2.GaussianBlur(sharp, (0, 0), 4) for k in range(30)]
    events = _watch_folder(tmp_path, frames, Recognizer(), max_blur_seconds=60.0)
    said = [e for e in events if e["type"] == "camera_status" and e["status"] == "blurred"]
    if cards_there:
        assert said and said[0]["message"] == session_mod.BLURRED_MESSAGE
    else:
        assert not said
    assert Recognizer.read < 30                     # most blurred frames were not read


@pytest.mark.parametrize("size", [(640, 360), (640, 480), (1280, 720), (720, 1280)])
def test_a_camera_sending_small_pictures_is_told_to_send_bigger_ones(tmp_path, size):
    """Pictures under 720 lines (a phone app's or webcam's 640x480) are read, but the camera status
    says they are too small and names their size, in every language; 1280x720 either way up is ok."""
    from tableref.live import session as session_mod
    from tableref.web.i18n import localize_table

    class Recognizer:
        def observe(self, image, t=0.0, sharpness=None, read_blurred=False):
            return FrameObservation(t=t, width=image.shape[1], height=image.shape[0], cards=[], sharpness=1.0)

    w, h = size
    events = _watch_folder(tmp_path, [np.full((h, w, 3), 120, np.uint8)] * 4, Recognizer(), max_blur_seconds=60.0)
    said = [e for e in events if e["type"] == "camera_status" and e["status"] in ("ok", "small")]
    small = min(w, h) < session_mod.SMALL_PICTURE_SIDE
    assert said and {e["status"] for e in said} == {"small" if small else "ok"}
    if small:
        assert said[0]["size"] == f"{w}×{h}" and f"{w}×{h}" in said[0]["message"]
        for lang in ("en", "es", "ne"):
            table = localize_table({"camera": {"status": "small", "source": str(tmp_path), "size": f"{w}×{h}"},
                                    "events": said[:1]}, lang)
            assert f"{w}×{h}" in table["camera"]["say"] and "1280×720" in table["camera"]["say"], lang
            assert f"{w}×{h}" in table["events"][0]["say"], lang


@pytest.mark.parametrize("case", ["soft", "sharp", "soft and cleared"])
def test_a_camera_out_of_focus_is_told_to_focus(tmp_path, case):
    """Pictures the recogniser measures soft (out of focus: ``FrameObservation.soft``) for a few seconds
    with cards on the table: the camera status says so, in every language; sharp pictures, or a soft
    picture of a cleared table (no edges to measure), are not said to be out of focus."""
    from tableref.live import session as session_mod
    from tableref.vision.types import DetectedCard
    from tableref.web.i18n import localize_table

    class Recognizer:
        def observe(self, image, t=0.0, sharpness=None, read_blurred=False):
            cards = [] if case == "soft and cleared" else [DetectedCard("8C", 0.9, (10.0, 10.0, 40.0, 50.0))]
            return FrameObservation(t=t, width=image.shape[1], height=image.shape[0], cards=cards, sharpness=1.0,
                                    soft=case != "sharp")

    events = _watch_folder(tmp_path, [np.full((720, 1280, 3), 120, np.uint8)] * 25, Recognizer(),
                           max_blur_seconds=60.0)
    said = [e for e in events if e["type"] == "camera_status" and e["status"] == "soft"]
    if case != "soft":
        assert not said
        return
    assert said and said[0]["message"] == session_mod.SOFT_MESSAGE
    assert said[0]["t"] >= 2.0                   # a lasting softness, not one frame's
    for lang in ("en", "es", "ne"):
        table = localize_table({"camera": {"status": "soft", "source": str(tmp_path)}, "events": said[:1]}, lang)
        assert table["camera"]["say"] and table["camera"]["say"] != "cam_say_soft", lang
        assert table["camera"]["say"] in table["events"][0]["say"], lang


def test_frames_the_recogniser_declares_blurred_are_not_read_and_the_status_says_so(tmp_path):
    """A shaken camera: the recogniser declares its frames blurred (no cards, ``read`` False). The table
    keeps its card, the camera status says the picture is blurred, nothing is handed to the still
    reader, and once every frame has been declared for longer than a shake lasts the frames are read
    as they are (``read_blurred``)."""
    from types import SimpleNamespace

    from tableref.live import session as session_mod
    from tableref.vision.types import DetectedCard

    class Recognizer:
        calls: list = []

        def observe(self, image, t=0.0, sharpness=None, read_blurred=False):
            shaken = bool(image[0, 0, 0] == 0)
            self.last_stats = SimpleNamespace(blurred=shaken)
            Recognizer.calls.append((round(t, 2), shaken, read_blurred))
            h, w = image.shape[:2]
            if shaken and not read_blurred:
                return FrameObservation(t=t, width=w, height=h, cards=[], sharpness=1.0, read=False)
            return FrameObservation(t=t, width=w, height=h, sharpness=1.0,
                                    cards=[DetectedCard("8C", 0.9, (60.0, 300.0, 100.0, 350.0))])

    frames = []
    for k in range(40):                      # 5 frames a second: 2 s still, then 6 s shaken
        img = np.full((360, 640, 3), 120, np.uint8)
        img[0, 0] = 0 if k >= 10 else 255
        frames.append(img)
    events = _watch_folder(tmp_path, frames, Recognizer(), max_blur_seconds=2.0)
    said = [e for e in events if e["type"] == "camera_status" and e["status"] == "blurred"]
    assert said and said[0]["message"] == session_mod.BLURRED_MESSAGE
    assert not [e for e in events if e["type"] == "card_removed"]
    forced = [t for t, shaken, read_blurred in Recognizer.calls if read_blurred]
    assert all(shaken for t, shaken, read_blurred in Recognizer.calls if read_blurred)
    assert forced and min(forced) > 2.0 + 2.0          # read as it is only after the shake lasted
    assert [c for c in Recognizer.calls if c[1] and not c[2]]         # ... and not read before
