"""Marriage (Matrimonio), the Nepali three-pack rummy: the rules engine.

Public API (pure functions; bad input raises :class:`referee.errors.RefereeError`
with ``.field`` naming the offending input)::

    from tableref.referee.marriage import analyse_hand, settle, PlayerScore, count_maal, build_rules

    a = analyse_hand("JC", cards, exposed_tunnelas=(), seen=True, rules=None, players=None)
    a.can_see_joker   # three tunnelas/pure sequences (exposed tunnelas count), or 7 dublees
    a.can_finish      # 7 combinations (3 of them pure) [+ 1 discard], or 8 dublees
    a.melds           # list[list[Card]]: the finishing arrangement (exposed tunnelas first),
                      # else the combinations that see the joker, else []
    a.meld_kinds      # "tunnela" | "marriage" | "pure_sequence" | "triplet" | "dirty_sequence"
                      # | "dirty_triplet" | "dublee", one per meld
    a.spare           # [the discard] for 22 cards (the card left out of the final hand), else []
    a.unmatched       # eight-dublee finish: the other cards kept (neither dublee nor discard)
    a.maal, a.maal_detail.items   # maal counted for settlement, itemised (MaalItem), on the
                      # final hand: a 22-card hand keeps 21 (the discard that goes out with the
                      # most maal; if it cannot go out, the card that costs least)
    a.to_json()       # the ``tableref marriage hand`` response

    s = settle("p2", [PlayerScore("p1", 4, seen=True), PlayerScore("p2", 10), ...],
               dublee_win=False, rules=None)
    s.net             # {"p1": -7, ...}; sums to zero
    s.players         # PlayerSettlement(name, seen, maal_counted, maal, fee, pays_winner, net)
    s.to_json()       # the ``tableref marriage settle`` response

    count_maal(tiplu, hand, exposed_tunnelas=(), seen=True, rules=None) -> Maal(points, items)
    classify(cards, Wild(tiplu))   # kind of a 3-card combination or None
    check_melds([[cards], ...], tiplu=None) -> MeldsCheck   # laid-down melds, each with
                      # kind / pure / reason; .sees_joker, .goes_out (tiplu None: nothing wild)

Cards may be :class:`referee.cards.Card` objects or strings (``"10H"``).
``cards`` in :func:`analyse_hand` holds 21 cards (a hand at rest / laid down after
the discard) or 22 (just after drawing: one card is left over as the discard, and
the maal is counted on the 21 kept);
exposed tunnelas may be included in ``cards`` or given only in
``exposed_tunnelas`` (then ``cards`` has 3 fewer per tunnela). ``players`` (the
table size), when given, applies the ``dublee_min_players`` switch.
Rules: :class:`MarriageRules` or a dict of switches (see ``docs/rules-marriage.md``).
"""
from tableref.referee.marriage.analysis import HandAnalysis, analyse_hand
from tableref.referee.marriage.combos import classify
from tableref.referee.marriage.maal import Maal, MaalItem, count_maal
from tableref.referee.marriage.melds import MeldsCheck, MarriageMeldVerdict, check_melds
from tableref.referee.marriage.settings import MarriageRules, build_rules
from tableref.referee.marriage.settle import PlayerScore, PlayerSettlement, MarriageSettlement, settle
from tableref.referee.marriage.wild import Wild

__all__ = [
    "HandAnalysis", "analyse_hand", "classify", "check_melds", "MeldsCheck", "MarriageMeldVerdict", "Maal", "MaalItem", "count_maal", "MarriageRules",
    "build_rules", "PlayerScore", "PlayerSettlement", "MarriageSettlement", "settle", "Wild",
]
