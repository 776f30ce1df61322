"""The simulator: bots follow the rules, the truth is the referee's, the video is written."""
import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from tableref.referee.desmoche.melds import check_table
from tableref.referee.marriage import analyse_hand
from tableref.simulate.bots import play_desmoche, play_marriage

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_desmoche_bots_play_legal_hands(seed):
    sc = play_desmoche(seed)
    t = sc.truth
    assert 2 <= len(sc.players) <= 4
    cards = [c for kf in sc.keyframes for seat in kf.table for m in seat for c in m]
    for kf in sc.keyframes:               # one pack: no card twice on the table at any moment
        on_table = [c for seat in kf.table for m in seat for c in m]
        assert len(on_table) == len(set(on_table))
        for seat in kf.table:
            assert sum(len(m) for m in seat) <= 10
    if t["winner"] and not t["autowin"]:
        assert check_table(t["melds"][t["winner"]]).complete
        assert sum(t["net"].values()) == 0
    if t["winner"] is None:
        assert all(v == -1 for v in t["net"].values())      # antes stay in the pot
    assert cards or t["autowin"] or t["winner"] is None


@pytest.mark.parametrize("seed,winner,autowin,net,frames", [
    (3, "Beto", None, {"Ana": -1, "Beto": 2, "Cris": -1}, 11),
    (40, "Dani", "cuatro_cuerpos", {"Ana": -2, "Beto": -2, "Cris": -2, "Dani": 6}, 3),
    (1000, "Ana", "peladilla", {"Ana": 6, "Beto": -2, "Cris": -2, "Dani": -2}, 3),
    (1002, "Ana", None, {"Ana": 3, "Beto": -1, "Cris": -1, "Dani": -1}, 14),
])
def test_desmoche_bots_play_the_same_games(seed, winner, autowin, net, frames):
    """A seed is a game: the rendered evaluation's hands (seeds 1000+) and the development ones stay the same."""
    sc = play_desmoche(seed)
    assert (sc.truth["winner"], sc.truth["autowin"], sc.truth["net"], len(sc.keyframes)) == (
        winner, autowin, net, frames)


def test_desmoche_bots_play_on_the_referees_hand(monkeypatch):
    """The bots only choose: a move the rules forbid is refused by the referee's DesmocheHand, not played."""
    from tableref.referee.errors import IllegalAction
    from tableref.simulate import bots

    def lay_the_card_alone(self, card, action):
        return [list(m) for m in self.melds] + [[card]], [str(card)]

    monkeypatch.setattr(bots.DesmocheBot, "lay", lay_the_card_alone)
    with pytest.raises(IllegalAction, match="not a meld"):
        play_desmoche(3)


@pytest.mark.parametrize("rules", [{"forced_meld": True}, {"strict_order": "disqualify"}])
def test_desmoche_bots_follow_the_house_rules(rules):
    """The forced meld and disqualification for melds out of order happen in the bots' games too."""
    texts = [kf.text for seed in range(6) for kf in play_desmoche(seed, rules=rules).keyframes]
    word = "forced meld" if "forced_meld" in rules else "wrong order"
    assert any(word in t for t in texts)


@pytest.mark.parametrize("seed", range(0, 30, 5))
def test_marriage_bots_truth_is_consistent(seed):
    sc = play_marriage(seed)
    t = sc.truth
    assert sum(t["net"].values()) == 0
    n = len(t["players"])
    for p in t["players"]:
        assert len(t["hands"][p]) == 21
        a = analyse_hand(t["tiplu"], t["hands"][p], players=n)
        assert a.can_see_joker == t["seen"][p]
    w = analyse_hand(t["tiplu"], t["hands"][t["winner"]], players=n)
    assert w.can_finish
    last = sc.keyframes[-1]
    for i, p in enumerate(t["players"]):       # everyone's whole hand lies on the table at the end
        assert sorted(c for m in last.table[i] for c in m) == sorted(t["hands"][p])
    assert last.centre == [t["tiplu"]]


def test_simulate_command_writes_video_and_truth(tmp_path):
    out = tmp_path / "sim"
    p = subprocess.run([sys.executable, "-m", "tableref", "simulate", "desmoche", "--seed", "109", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    truth = json.loads((out / "truth.json").read_text())
    assert {"winner", "net", "players", "changes", "video"} <= set(truth)
    cap = cv2.VideoCapture(str(out / "video.mp4"))
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    ok, frame = cap.read()
    assert ok and frame.shape == (720, 1280, 3)
    assert n == truth["video"]["frames"]
    assert all(c["t_still"] is not None for c in truth["changes"])


def test_simulate_refuses_bad_player_count(tmp_path):
    p = subprocess.run([sys.executable, "-m", "tableref", "simulate", "desmoche", "--seed", "1", "--players", "6",
                        "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "2 to 4" in p.stderr


def test_a_missing_deck_is_drawn_with_a_stand_in_and_said():
    """A deck this machine lacks is replaced by kennard-2color, said, and recorded beside the one chosen,
    so the rendered evaluation can tell that its figures are not those of a machine with the deck."""
    from tableref.simulate.render import Renderer, RenderOptions

    said = []
    r = Renderer(play_desmoche(109), RenderOptions(deck="kde-not-on-any-machine"), said.append)
    assert (r.deck_chosen, r.deck) == ("kde-not-on-any-machine", "kennard-2color")
    assert any("kde-not-on-any-machine" in s and "apt install kdegames-card-data-kf5" in s for s in said)
