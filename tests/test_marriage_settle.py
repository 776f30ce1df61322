"""Settlement: the formula T + w_i - n*S_i, every switch, and nets summing to zero."""
import pytest
from hypothesis import given, settings, strategies as st

from tableref.referee.errors import RefereeError, SettingsError
from tableref.referee.marriage import PlayerScore as P, build_rules, settle


def test_seed_example_four_players():
    # seed: A, B, C, D points; the third player wins; the first has seen the joker and pays
    # (A+B+C+D) + 3 - 4A, the same as (B-A) + (C-A+3) + (D-A) paid one by one.
    A, B, C, D = 4, 10, 7, 0
    s = settle("c", [P("a", A), P("b", B), P("c", C), P("d", D, seen=False)])
    by = {p.name: p for p in s.players}
    assert by["a"].pays_winner == (A + B + C + D) + 3 - 4 * A == (B - A) + (C - A + 3) + (D - A)
    assert by["d"].maal == 0  # unseen: no maal by default
    assert by["d"].pays_winner == (A + B + C + 0) + 10 - 0
    assert by["b"].pays_winner == 21 + 3 - 40 and by["b"].net == 16   # negative: the winner pays b
    assert sum(s.net.values()) == 0
    assert s.net["c"] == -(s.net["a"] + s.net["b"] + s.net["d"])


def test_simple_two_players():
    s = settle("p2", [P("p1", 4), P("p2", 0)])
    assert s.net == {"p1": -(4 + 3 - 8), "p2": 4 + 3 - 8}


def test_issue_example_shape():
    s = settle("p2", [P("p1", 4), P("p2", 10), P("p3", 0)])
    # T=14, n=3: p1 pays 14+3-12=5, p3 pays 14+3-0=17
    assert s.net == {"p1": -5, "p2": 22, "p3": -17}
    j = s.to_json()
    assert [p["pays_winner"] for p in j["players"]] == [5, 0, 17]
    assert [p["maal"] for p in j["players"]] == [4, 10, 0]


def test_dublee_win_bonus():
    s = settle("p1", [P("p1", 0), P("p2", 0), P("p3", 0, seen=False)], dublee_win=True)
    assert s.net == {"p1": 8 + 15, "p2": -8, "p3": -15}
    s = settle("p1", [P("p1", 0), P("p2", 0)], dublee_win=True, rules={"dublee_bonus": 10})
    assert s.net == {"p1": 13, "p2": -13}


def test_dublee_min_players():
    with pytest.raises(RefereeError) as e:
        settle("p1", [P("p1", 0), P("p2", 0), P("p3", 0)], dublee_win=True, rules={"dublee_min_players": 4})
    assert e.value.field == "dublee_win"
    settle("p1", [P("p1", 0), P("p2", 0), P("p3", 0), P("p4", 0)], dublee_win=True,
           rules={"dublee_min_players": 4})


def test_unseen_maal_switches():
    players = [P("w", 5), P("s", 10), P("u", 12, seen=False)]
    zero = settle("w", players)
    assert [p.maal for p in zero.players] == [5, 10, 0]
    assert zero.net["u"] == -(15 + 10 - 0)
    count = settle("w", players, rules={"unseen_maal": "count"})
    assert [p.maal for p in count.players] == [5, 10, 12]
    assert count.net["u"] == -(27 + 10 - 36)
    kidnap = settle("w", players, rules={"unseen_maal": "kidnap"})
    assert [p.maal for p in kidnap.players] == [17, 10, 0]
    assert kidnap.net["u"] == -(27 + 10) and kidnap.net["s"] == -(27 + 3 - 30)
    murder_off = settle("w", players, rules={"murder": False})
    assert murder_off.net == count.net
    assert settle("w", players, rules={"murder": True}).net == zero.net


def test_murder_conflict_refused():
    with pytest.raises(SettingsError) as e:
        build_rules({"murder": True, "unseen_maal": "count"})
    assert e.value.field == "rules.murder"
    assert build_rules({"murder": True, "unseen_maal": "zero"}).unseen_maal == "zero"
    assert build_rules({"unseen_maal": "kidnap"}).murder is False


@pytest.mark.parametrize("rules,field", [
    ({"nope": 1}, "rules.nope"),
    ({"unseen_maal": "steal"}, "rules.unseen_maal"),
    ({"tiplu_double": "8"}, "rules.tiplu_double"),
    ({"alter": 1}, "rules.alter"),
    ({"dublee_min_players": 7}, "rules.dublee_min_players"),
    ({"direction": "sideways"}, "rules.direction"),
    ({"maal_tunnela": -1}, "rules.maal_tunnela"),
    ([], "rules"),
])
def test_bad_switches(rules, field):
    with pytest.raises(SettingsError) as e:
        build_rules(rules)
    assert e.value.field == field


def test_defaults_match_rules_md():
    r = build_rules(None)
    assert (r.direction, r.tiplu_double, r.maal_tunnela, r.unseen_maal, r.dublee_min_players, r.dublee_bonus,
            r.alter, r.murder, r.open_joker) == ("clockwise", 7, 20, "zero", 2, 5, False, True, False)
    assert build_rules({"direction": "anticlockwise"}).direction == "counterclockwise"
    assert build_rules({"open_joker": True}).open_joker is True


@pytest.mark.parametrize("players,winner,field", [
    ([P("a", 1)], "a", "players"),
    ([P("a", 1), P("a", 2)], "a", "players[1].name"),
    ([P("a", 1), P("b", 2)], "c", "winner"),
    ([P("a", -1), P("b", 2)], "b", "players[0].maal"),
    ([P("a", 1, seen=False), P("b", 2)], "a", "players[0].seen"),
    ([P(str(i), 0) for i in range(6)], "0", "players"),
])
def test_bad_settlements(players, winner, field):
    with pytest.raises(RefereeError) as e:
        settle(winner, players)
    assert e.value.field == field


def pairwise(winner, players, dublee_win, rules):
    """Independent reference: every pair settles the maal difference; the winner collects the fees."""
    r = build_rules(rules)
    S = {}
    kid = 0
    for p in players:
        if p.seen or r.unseen_maal == "count":
            S[p.name] = p.maal
        else:
            S[p.name] = 0
            kid += p.maal if r.unseen_maal == "kidnap" else 0
    S[winner] += kid
    net = {p.name: 0 for p in players}
    for a in players:
        for b in players:
            if a.name < b.name:
                d = S[b.name] - S[a.name]
                net[a.name] -= d
                net[b.name] += d
    for p in players:
        if p.name != winner:
            fee = (3 if p.seen else 10) + (r.dublee_bonus if dublee_win else 0)
            net[p.name] -= fee
            net[winner] += fee
    return net


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 120), st.booleans()), min_size=2, max_size=5),
       st.data(), st.booleans(), st.sampled_from(["zero", "count", "kidnap"]), st.integers(0, 10))
def test_sum_zero_and_matches_pairwise(raw, data, dublee_win, unseen, bonus):
    players = [P(f"p{i}", m, seen) for i, (m, seen) in enumerate(raw)]
    w = data.draw(st.integers(0, len(players) - 1))
    players[w].seen = True
    rules = {"unseen_maal": unseen, "dublee_bonus": bonus}
    s = settle(players[w].name, players, dublee_win=dublee_win, rules=rules)
    assert sum(s.net.values()) == 0
    assert s.net == pairwise(players[w].name, players, dublee_win, rules)
    for p in s.players:
        if p.name != players[w].name:
            assert p.net == -p.pays_winner
    # the order of the players does not change anyone's net
    s2 = settle(players[w].name, list(reversed(players)), dublee_win=dublee_win, rules=rules)
    assert s2.net == s.net
