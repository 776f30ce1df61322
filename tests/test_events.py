"""Event derivation from successive stable table states (no video)."""
from tableref.live.events import diff_states
from tableref.live.state import PlacedCard, SeatCards, TableState

P = ["Ana", "Beto", "Cris"]


def st(seats, centre=(), t=0.0):
    """seats: list per seat of melds, each a list of (id, label)."""
    return TableState([SeatCards([[PlacedCard(i, c) for i, c in m] for m in melds]) for melds in seats],
                      [PlacedCard(i, c) for i, c in centre], t)


def types(evs):
    return [e["type"] for e in evs]


def test_meld_laid():
    a = st([[], [], []])
    b = st([[[(1, "3H"), (2, "4H"), (3, "5H")]], [], []], t=2.0)
    evs = diff_states(a, b, P)
    assert types(evs) == ["meld_laid"]
    assert evs[0]["player"] == "Ana" and evs[0]["cards"] == ["3H", "4H", "5H"] and evs[0]["t"] == 2.0
    assert evs[0]["track_ids"] == [1, 2, 3]


def test_card_added_and_position():
    a = st([[[(1, "3H"), (2, "4H"), (3, "5H")]], [], []])
    b = st([[[(9, "2H"), (1, "3H"), (2, "4H"), (3, "5H")]], [], []])
    evs = diff_states(a, b, P)
    assert types(evs) == ["card_added"]
    assert evs[0]["cards"] == ["2H"] and evs[0]["position"] == 0


def test_desmoche_move_between_own_melds():
    a = st([[], [[(1, "8S"), (2, "8H"), (3, "8C"), (4, "8D")]], []])
    b = st([[], [[(1, "8S"), (2, "8H"), (3, "8C")], [(4, "8D"), (5, "9D"), (6, "10D")]], []])
    evs = diff_states(a, b, P)
    assert "card_moved" in types(evs)
    mv = [e for e in evs if e["type"] == "card_moved"][0]
    assert mv["cards"] == ["8D"] and mv["player"] == "Beto" and mv["from_meld"] == 0 and mv["meld"] == 1
    assert "card_removed" not in types(evs)


def test_card_removed_and_taken_by_other_seat():
    a = st([[[(1, "3H"), (2, "4H"), (3, "5H"), (4, "6H")]], [], []])
    b = st([[[(1, "3H"), (2, "4H"), (3, "5H")]], [], [[(4, "6H"), (7, "6S"), (8, "6D")]]])
    evs = diff_states(a, b, P)
    kinds = types(evs)
    assert "card_taken" in kinds
    taken = [e for e in evs if e["type"] == "card_taken"][0]
    assert taken["player"] == "Cris" and taken["from_player"] == "Ana"
    c = st([[[(1, "3H"), (2, "4H")]], [], [[(4, "6H"), (7, "6S"), (8, "6D")]]])
    evs = diff_states(b, c, P)
    assert types(evs) == ["card_removed"] and evs[0]["cards"] == ["5H"]


def test_lost_track_relinked_by_label():
    """A card whose track id changed (tracker lost it) is not a remove + add."""
    a = st([[[(1, "3H"), (2, "4H"), (3, "5H")]], [], []])
    b = st([[[(1, "3H"), (2, "4H"), (33, "5H")]], [], []])
    assert diff_states(a, b, P) == []


def test_no_change_no_event_and_centre():
    a = st([[[(1, "3H"), (2, "4H"), (3, "5H")]], [], []], centre=[(50, "JC")])
    assert diff_states(a, a, P) == []
    b = st([[[(1, "3H"), (2, "4H"), (3, "5H")]], [], []], centre=[(51, "QC")])
    evs = diff_states(a, b, P)
    assert types(evs) == ["centre_changed"] and evs[0]["cards"] == ["QC"]


def test_from_labels_keeps_identity():
    a = TableState.from_labels([[["3H", "4H", "5H"]], []])
    b = TableState.from_labels([[["3H", "4H", "5H", "6H"]], []])
    evs = diff_states(a, b, ["A", "B"])
    assert types(evs) == ["card_added"] and evs[0]["cards"] == ["6H"]
