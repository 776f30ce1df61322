"""Verdicts a player can trust: a valid meld stays valid while the table does not change, each
verdict is said once, a host's correction is never a player's move."""
from tableref.live.session import TableSession
from tableref.live.state import TableState

P4 = ["Ana", "Beto", "Cris", "Dani"]


def S(seats, centre=(), t=0.0):
    return TableState.from_labels(seats, list(centre), t)


def session():
    return TableSession(source="unused", game="desmoche", players=P4)


def of_type(evs, kind):
    return [e for e in evs if e["type"] == kind]


def test_a_meld_seen_in_two_pieces_is_the_one_valid_meld():
    # the demo: the camera sees a gap in Cris's 9H 10H JH QH and reports two melds of two cards
    s = session()
    evs = s.feed_state(S([[], [], [["9H", "10H"], ["JH", "QH"]], []], t=1))
    laid = of_type(evs, "meld_laid")
    assert [e["cards"] for e in laid] == [["9H", "10H", "JH", "QH"]] and laid[0]["valid"] is True
    assert not of_type(evs, "meld_invalid")
    meld = s.snapshot()["seats"][2]["melds"]
    assert len(meld) == 1 and meld[0]["valid"] is True and meld[0]["cards"] == ["9H", "10H", "JH", "QH"]


def test_a_valid_meld_stays_valid_while_the_table_does_not_change():
    s = session()
    whole = [[], [], [["9H", "10H", "JH", "QH"]], []]
    split = [[], [], [["9H", "10H"], ["JH", "QH"]], []]
    evs = []
    for i, seats in enumerate([whole, split, whole, split, whole]):
        evs += s.feed_state(S(seats, t=i))
        assert [m["valid"] for m in s.snapshot()["seats"][2]["melds"]] == [True], i
    assert len(of_type(evs, "meld_laid")) == 1
    assert not of_type(evs, "meld_invalid") and not of_type(evs, "illegal_move"), evs


def test_pieces_that_do_not_make_a_meld_stay_apart():
    s = session()
    evs = s.feed_state(S([[["9H", "10H"], ["2C", "3D"]], [], [], []], t=1))
    assert len(of_type(evs, "meld_laid")) == 2
    # two valid melds side by side are two melds, even if they would make one
    s = session()
    evs = s.feed_state(S([[["4H", "5H", "6H"], ["7H", "8H", "9H"]], [], [], []], t=1))
    assert [len(e["cards"]) for e in of_type(evs, "meld_laid")] == [3, 3]


def test_each_verdict_is_said_once():
    s = session()
    bad = [[["5H", "6C", "7D"]], [], [], []]
    evs = []
    for i, seats in enumerate([bad, [[["5H", "6C"], ["7D"]], [], [], []], bad, bad]):
        evs += s.feed_state(S(seats, t=i))
    said = [e for e in of_type(evs, "meld_invalid") if e["cards"] == ["5H", "6C", "7D"]]
    assert len(said) == 1, of_type(evs, "meld_invalid")
    assert all(s.snapshot()["events"].count(e) == 1 for e in s.snapshot()["events"])


def test_a_hands_final_state_keeps_the_whole_meld():
    s = session()
    s.feed_state(S([[], [], [], []], t=0))
    s.feed_state(S([[], [["8S", "8D", "8C"], ["AC", "2C", "3C", "4C"]], [["9H", "10H"], ["JH", "QH"]], []], t=1))
    evs = s.feed_state(S([[], [["8S", "8D", "8C"], ["AC", "2C", "3C", "4C"], ["4S", "4D", "4H"]],
                          [["9H", "10H"], ["JH", "QH"]], []], t=2))
    end = of_type(evs, "hand_end")[0]
    assert end["winner"] == "Beto"
    assert end["details"]["melds"]["Cris"] == [["9H", "10H", "JH", "QH"]]


# the demo's hand (tableref/demo/desmoche.mp4) as its camera sees it, meld by meld
DEMO_HAND = [
    [[], [["8S", "8D", "8C"]], [], []],
    [[], [["8S", "8D", "8C"]], [], [["10D", "10C", "10S"]]],
    [[], [["8S", "8D", "8C"], ["AC", "2C", "3C", "4C"]], [], [["10D", "10C", "10S"]]],
    [[], [["8S", "8D", "8C"], ["AC", "2C", "3C", "4C"]], [], [["10D", "10C", "10S"], ["6C", "6D", "6S"]]],
    [[["AS", "2S", "3S"]], [["8S", "8D", "8C"], ["AC", "2C", "3C", "4C"]], [], [["10D", "10C", "10S"], ["6C", "6D", "6S"]]],
    [[["AS", "2S", "3S"]], [["8S", "8D", "8C"], ["AC", "2C", "3C", "4C"]], [["9H", "10H"], ["JH", "QH"]],
     [["10D", "10C", "10S"], ["6C", "6D", "6S"]]],
    [[["AS", "2S", "3S"]], [["8S", "8D", "8C"], ["AC", "2C", "3C", "4C"], ["4S", "4D", "4H"]],
     [["9H", "10H"], ["JH", "QH"]], [["10D", "10C", "10S"], ["6C", "6D", "6S"]]],
]


def test_a_warning_is_said_once_in_its_own_event():
    """Dani lays 10D 10C 10S (not alternating colours): the warning is the out_of_order event's, and
    the meld_laid event tells the meld without saying it again (on the page, in every language)."""
    from tableref.web.i18n import LANGUAGES, localize_table, say_reason, translator

    s = session()
    evs = s.feed_state(S([[], [], [], [["10D", "10C", "10S"]]], t=1))
    warning = "set laid without alternating colours"
    assert [e["type"] for e in evs if warning in e["text"]] == ["out_of_order"], evs
    laid = of_type(evs, "meld_laid")[0]
    assert laid["in_order"] is False and not laid.get("reason")
    reason = of_type(evs, "out_of_order")[0]["reason"]
    for code in LANGUAGES:
        said = say_reason(reason, translator(code))
        says = [e["say"] for e in localize_table(s.snapshot(), code)["events"]]
        assert sum(said in x for x in says) == 1, (code, says)


def test_the_demo_hand_says_every_event_and_verdict_once():
    s = session()
    s.on_hand_end = lambda r: None
    evs = []
    for i, seats in enumerate(DEMO_HAND):
        evs += s.feed_state(S(seats, t=i + 1))
    assert of_type(evs, "winner")[0]["player"] == "Beto" and len(of_type(evs, "hand_end")) == 1
    assert len(of_type(evs, "out_of_order")) == 2            # Dani's 10s and Beto's 4s
    texts = [e["text"] for e in evs]
    assert len(texts) == len(set(texts)), texts
    reasons = [str(e["reason"]) for e in evs if e.get("reason")]
    assert len(reasons) == len(set(reasons)), reasons
    for r in reasons:                                         # no reason is said again in another event's text
        assert sum(r in x for x in texts) == 1, (r, texts)
    assert not of_type(evs, "meld_invalid") and not of_type(evs, "illegal_move"), evs


def test_a_melds_reason_is_shown_on_the_meld_not_again_under_the_seat():
    """The seat panel says a meld's warning on the meld; its verdict lines keep only what no meld says."""
    s = session()
    s.feed_state(S([[], [], [], [["10D", "10C", "10S"], ["6C", "6D"]]], t=1))
    dani = s.snapshot()["seats"][3]
    reasons = [m["reason"] for m in dani["melds"] if m["reason"]]
    assert any("alternating colours" in str(r) for r in reasons), dani
    for line in dani["verdicts"]:
        assert not any(str(r) in str(line) for r in reasons), dani["verdicts"]
    # a problem of the seat itself (ten cards, not all valid) is still said there
    s.feed_state(S([[], [], [], [["10D", "10C", "10S", "10H"], ["6C", "6D", "6S"], ["AS", "2S", "4S"]]], t=2))
    dani = s.snapshot()["seats"][3]
    assert any("not a win" in str(line) for line in dani["verdicts"]), dani
