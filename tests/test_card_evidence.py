"""Per-card evidence over fresh looks: one clear look counts, a contradicted position is unread."""
from __future__ import annotations

from tableref.vision.card_evidence import CLEAR_CONFIDENCE, PHOTO_WEIGHT, TWIN_LOOKS, CardEvidence


def looks(*readings, decay=0.97):
    ev = CardEvidence(decay=decay)
    for label, conf in readings:
        ev.add(label, conf)
    return ev


def test_one_clear_look_counts_where_nothing_contradicts_it():
    assert looks(("7C", 0.5)).label == "7C"
    # weak looks of the same card add up to nothing clear: unread, the label a candidate
    weak = looks(*[("7C", CLEAR_CONFIDENCE - 0.05)] * 6)
    assert weak.label == "" and weak.candidates() == ["7C"]


def test_a_position_read_as_two_labels_is_unread_until_one_is_decisive():
    ev = looks(("8C", 0.6), ("8H", 0.55), ("8C", 0.6), ("8H", 0.6))
    assert ev.label == ""
    assert sorted(ev.candidates()) == ["8C", "8H"]
    for _ in range(12):
        ev.add("8C", 0.6)
    assert ev.label == "8C"


def test_a_rare_misreading_does_not_unread_a_card_read_clearly_many_times():
    ev = looks(*[("10D", 0.5)] * 20)
    ev.add("10S", 0.4)
    assert ev.label == "10D"


def test_a_consistent_second_label_keeps_the_position_unread():
    # the real fan: a 7C index read 7D in most looks, 7C in some: neither is decisive
    ev = looks(*([("7D", 0.45)] * 3 + [("7C", 0.4)] * 2) * 3)
    assert ev.label == ""


def test_a_suit_read_unsurely_look_after_look_keeps_the_position_unread():
    # the real fan, defocused: a 9C read 9S surely in half the looks and 9D faintly and unsurely
    # (its ink doubts it) in the other half: little confidence, but many looks: 9S is not settled
    ev = CardEvidence()
    for _ in range(12):
        ev.add("9S", 0.5)
        ev.add("9D", 0.15, clear=False)
    assert ev.label == ""
    assert sorted(ev.candidates()) == ["9D", "9S"]


def _nine_of_spades_among(others):
    """Four rounds of looks at one card: the three ``others`` read unsure, then 9S clearly, unsure,
    at photo quality and clearly again."""
    ev = CardEvidence()
    for _ in range(4):
        for label, conf in zip(others, (0.22, 0.25, 0.3)):
            ev.add(label, conf, clear=False)
        ev.add("9S", 0.5)
        ev.add("9S", 0.4, clear=False)
        ev.add("9S", 0.7, weight=PHOTO_WEIGHT)
        ev.add("9S", 0.45)
    return ev


def test_the_other_suits_of_a_rank_together_keep_a_suit_unsettled():
    # the real fan, defocused (feed seed 1000): a 9C read 9S in most looks and at photo quality,
    # 9D unsure in some and 9C in a few: neither 9D nor 9C alone has a third of the 9S looks, together
    # they have; the suit is what the soft picture cannot tell
    assert _nine_of_spades_among(("9D", "9D", "9C")).label == ""
    # ... while other ranks read now and then (a neighbour's index) do not pool against it
    assert _nine_of_spades_among(("6D", "8D", "10C")).label == "9S"


def test_a_label_its_own_ink_contradicts_look_after_look_is_not_kept():
    # the real fan, defocused (feed seed 6000): a black 9C read 9D clearly once, where its ink was
    # not told plainly, then 9D again in looks whose ink says black: the suit is not legible there
    ev = CardEvidence()
    ev.add("9D", 0.47)
    assert ev.label == "9D"
    ev.add("9D", 0.44, clear=False, contradicted=True)
    assert ev.label == ""
    # the looks that followed in that feed (unsure, clear, or their ink contradicting them)
    for label, conf, clear, inked in [("9D", 0.49, False, True), ("9D", 0.19, False, False),
                                      ("9D", 0.35, False, True), ("9D", 0.29, False, False),
                                      ("9D", 0.64, True, False), ("9D", 0.31, False, False),
                                      ("9D", 0.25, False, False), ("9S", 0.46, True, False),
                                      ("9D", 0.32, False, False), ("9D", 0.35, False, True),
                                      ("9D", 0.36, False, True), ("9D", 0.41, False, True),
                                      ("9S", 0.55, True, False), ("9D", 0.54, False, True),
                                      ("9S", 0.51, True, False), ("9S", 0.51, True, False)]:
        ev.add(label, conf, clear=clear, contradicted=inked)
        assert ev.label == ""
    assert sorted(ev.candidates()[:2]) == ["9D", "9S"]


def test_a_rare_look_its_ink_contradicts_does_not_unread_a_card_read_clearly():
    ev = looks(*[("QH", 0.6)] * 12)
    ev.add("QH", 0.5, clear=False, contradicted=True)
    assert ev.label == "QH"


def test_a_photo_look_outweighs_camera_looks():
    ev = looks(*[("9D", 0.4)] * 3)
    assert ev.label == "9D"
    ev.add("3D", 0.8, weight=PHOTO_WEIGHT)
    assert ev.label != "9D"


def test_a_card_swapped_in_place_is_read_afresh():
    ev = looks(*[("5H", 0.9)] * 10, decay=0.9)
    for _ in range(25):
        ev.add("6H", 0.9)
    assert ev.label == "6H"


def test_a_card_with_a_twin_beside_counts_only_its_sure_looks_those_before_included():
    """A card of its label beside it in a picture that lost its fine print (``vision.twins``): the
    half-covered 6S read KS 0.45-0.6 look after look is unread from then on, its earlier looks too,
    until a look as sure as TWIN_SURE; the card beside it, read surely, keeps its label."""
    from tableref.vision.twins import TWIN_SURE

    six = looks(*[("KS", 0.45 + 0.05 * (k % 4)) for k in range(12)])
    assert six.label == "KS"
    six.doubt_twin()
    assert six.label == ""
    six.add("KS", 0.5)
    assert six.label == ""
    six.add("KS", TWIN_SURE + 0.05)
    assert six.label == ""          # one sure look is not enough beside a twin ...
    for _ in range(int(TWIN_LOOKS) - 1):
        six.add("KS", TWIN_SURE + 0.05)
    assert six.label == "KS"        # ... TWIN_LOOKS of them are
    king = looks(*[("KS", 0.72)] * 6 + [("KS", 0.55)] * 3)
    king.doubt_twin()
    assert king.label == "KS"


def test_a_suit_read_clearly_first_is_not_kept_once_the_other_suits_of_its_rank_come():
    """The real fan defocused (feed seed 3000, a classifier continued on soft crops): the 9C read 9S
    clearly in its first two looks, then 9S, 9D and 9C in turn, unsure or not: decided early, the 9S
    must still keep the other suits of its rank under a third of its looks."""
    ev = CardEvidence()
    for label, conf, clear, weight in [
            ("9S", 0.59, True, 1.0), ("9S", 0.6, True, 1.0), ("9S", 0.37, False, 1.0), ("9S", 0.18, False, 1.0),
            ("9S", 0.48, False, 1.0), ("9C", 0.2, False, 1.0), ("9S", 0.46, True, 1.0), ("9S", 0.4, True, 1.0),
            ("9D", 0.48, False, 1.0), ("9S", 0.46, True, 1.0), ("9S", 0.58, True, 1.0), ("9S", 0.38, True, 1.0),
            ("9S", 0.53, True, PHOTO_WEIGHT), ("9S", 0.43, False, 1.0), ("9D", 0.31, False, 1.0),
            ("9D", 0.24, False, 1.0), ("9D", 0.21, False, 1.0), ("9S", 0.32, False, 1.0), ("9D", 0.18, False, 1.0)]:
        ev.add(label, conf, weight=weight, clear=clear)
    assert ev.label == ""


def test_a_position_read_as_many_labels_is_not_settled_by_one_sure_photo_look():
    """The real fan defocused (a Marriage feed, seed 1000): a box half on the 3D and half on the 9
    beside it, read 6C, 8C, 8D and 9D in turn; one photo look read 8D 0.63. The other labels,
    together, outweigh three fifths of what the 8D holds there: unread, also once 8D was decided."""
    ev = CardEvidence()
    for label, conf, weight, clear, ink in [
            ("6C", 0.47, 1.0, True, False), ("8C", 0.16, 1.0, False, False), ("8D", 0.32, 1.0, False, False),
            ("8C", 0.14, 1.0, False, False), ("8D", 0.42, 1.0, True, False), ("8D", 0.63, PHOTO_WEIGHT, True, False),
            ("6C", 0.11, 1.0, False, False), ("9D", 0.67, 1.0, False, True), ("8D", 0.45, 1.0, True, False),
            ("9D", 0.41, 1.0, True, False)]:
        ev.add(label, conf, weight=weight, clear=clear, contradicted=ink)
    assert ev.label == ""
    assert ev.candidates()[0] == "8D"


def test_a_card_beside_its_twin_read_surely_in_a_look_or_two_is_unread():
    """The real fan defocused, a Marriage feed whose loop sharpened the frames (seed 1000): the
    half-covered 6S beside the KS read KS look after look, twice 0.66-0.67 sure, and the KS itself
    read 0.5-0.77. Each is the other's twin; only the KS, read surely look after look, counts."""
    real = [("KS", 0.65, 1.0, True), ("KS", 0.7, 1.0, True), ("KS", 0.63, 1.0, False), ("KS", 0.64, 1.0, False),
            ("KS", 0.77, 1.0, True), ("KS", 0.74, 1.0, True), ("KS", 0.74, 1.0, True), ("KS", 0.61, 1.0, False),
            ("KS", 0.65, PHOTO_WEIGHT, True), ("KS", 0.64, 1.0, False), ("KS", 0.62, 1.0, False),
            ("KS", 0.68, 1.0, True), ("KS", 0.64, PHOTO_WEIGHT, True), ("KS", 0.51, 1.0, False),
            ("KS", 0.56, 1.0, False), ("KS", 0.59, 1.0, False), ("KS", 0.73, 1.0, True)]
    six = [("KS", 0.48, 1.0, True), ("KS", 0.53, 1.0, False), ("KS", 0.58, 1.0, False), ("KS", 0.66, 1.0, True),
           ("KS", 0.59, 1.0, False), ("KS", 0.48, PHOTO_WEIGHT, True), ("KS", 0.52, 1.0, False),
           ("KS", 0.52, 1.0, False), ("KS", 0.67, 1.0, True), ("KS", 0.61, 1.0, False),
           ("KS", 0.53, PHOTO_WEIGHT, True), ("KS", 0.53, 1.0, False), ("KS", 0.45, 1.0, False),
           ("KS", 0.4, 1.0, False), ("KS", 0.53, 1.0, False), ("KS", 0.35, 1.0, False), ("KS", 0.55, 1.0, False)]
    out = []
    for seq in (real, six):
        ev = CardEvidence()
        ev.doubt_twin()
        for label, conf, weight, clear in seq:
            ev.add(label, conf, weight=weight, clear=clear)
        out.append(ev.label)
    assert out == ["KS", ""]


def test_a_card_beside_its_twin_read_surely_far_less_often_than_the_twin_is_unread_however_long():
    """A 640x360 camera's dim Marriage feed of the real fan, 100 frames (seed 0): the half-covered 6S
    beside the KS read KS, sure in a burst of four looks (0.74-0.92) among forty unsure ones; the KS
    itself sure in six looks and three photo looks. Three sure looks are reached sooner or later,
    however rarely a misread is sure: beside its twin a card needs a third of the twin's sure looks."""
    king = CardEvidence()
    six = CardEvidence()
    king.doubt_twin(six)
    six.doubt_twin(king)
    king_looks = [0.49, 0.57, 0.36, 0.66, 0.66, (0.66,), 0.59, 0.63, 0.66, (0.56,), 0.65, (0.83,), 0.74, 0.67,
                  (0.49,), (0.66,)]
    six_looks = [0.4, (0.49,), 0.37, (0.42,), 0.54, (0.52,), 0.6, 0.82, 0.74, 0.87, 0.92, 0.48, (0.53,),
                 (0.52,), 0.47]
    for conf in king_looks:
        photo = isinstance(conf, tuple)
        king.add("KS", conf[0] if photo else conf, weight=PHOTO_WEIGHT if photo else 1.0)
    for conf in six_looks:
        photo = isinstance(conf, tuple)
        six.add("KS", conf[0] if photo else conf, weight=PHOTO_WEIGHT if photo else 1.0)
    assert six.sure_looks["KS"] >= TWIN_LOOKS       # enough sure looks on their own ...
    assert six.label == ""                          # ... but far fewer than the KS's
    assert king.label == "KS"
    # two copies side by side, read alike, both count
    a, b = CardEvidence(), CardEvidence()
    a.doubt_twin(b)
    b.doubt_twin(a)
    for conf in (0.7, 0.5, 0.72, 0.68, 0.55, 0.8):
        a.add("KS", conf)
        b.add("KS", conf - 0.02)
    assert (a.label, b.label) == ("KS", "KS")


def test_a_corner_its_card_s_other_corner_overrules_look_after_look_is_unread():
    """A real webcam photo (cam_image32.jpg) as a defocused Marriage feed: the top corner of the 9H,
    read 5H (7H now and then), was clear in the two looks where the hand hid the 9H's bottom corner
    and unsure in the others, where the bottom corner read 9H 0.8 and so overruled it. Two clear
    looks and unsure ones of the same label confirm a card; overruled looks count against it."""
    seq = [("5H", 0.37, False), ("5H", 0.2, True), ("5H", 0.41, False), ("5H", 0.21, True), ("5H", 0.32, True),
           ("7H", 0.23, True), ("5H", 0.24, True), ("7H", 0.14, True), ("5H", 0.34, True), ("5H", 0.16, True),
           ("5H", 0.36, True), ("5H", 0.31, True), ("7H", 0.13, True), ("5H", 0.27, True), ("5H", 0.41, True)]
    ev, plain = CardEvidence(), CardEvidence()
    for label, conf, overruled in seq:
        clear = conf >= CLEAR_CONFIDENCE and not overruled
        ev.add(label, conf, clear=clear, contradicted=overruled)
        plain.add(label, conf, clear=clear)
    assert plain.label == "5H"          # unsure looks alone weigh for it
    assert ev.label == ""


def test_a_card_beside_its_twin_needs_three_sure_looks_not_one_sure_photo_look():
    """A 640x360 camera's clean Marriage feed of the real fan (seed 2): the half-covered 6S beside the KS
    read KS unsurely in every camera look and at photo quality 0.47, 0.65 and 0.5. One sure photo look
    weighs PHOTO_WEIGHT looks, but it is one look: beside its twin the card stays unread."""
    king, six = CardEvidence(), CardEvidence()
    king.doubt_twin(six)
    six.doubt_twin(king)
    for conf in (0.72, 0.56, 0.66, 0.7, 0.49, 0.68, 0.61, 0.74):
        king.add("KS", conf)
    for conf, weight, clear in [(0.35, 1.0, True), (0.49, 1.0, True), (0.5, 1.0, False), (0.43, 1.0, False),
                                (0.47, PHOTO_WEIGHT, True), (0.59, 1.0, False), (0.54, 1.0, False),
                                (0.65, PHOTO_WEIGHT, True), (0.46, 1.0, False), (0.55, 1.0, False),
                                (0.5, PHOTO_WEIGHT, True), (0.51, 1.0, False), (0.55, 1.0, False)]:
        six.add("KS", conf, weight=weight, clear=clear)
    assert six.sure_looks["KS"] >= TWIN_LOOKS       # its one sure photo look weighs four ...
    assert six.label == ""                          # ... but is one look
    assert king.label == "KS"


def test_a_doubt_of_one_label_leaves_the_cards_other_labels_alone():
    """The real fan defocused, a Marriage feed (seed 3): the 3D's small index, read 8D 0.29 in one early
    look while the real 8D was counted elsewhere, then 3D 0.35-0.42 look after look. The 8D reading is
    doubted (sure looks only), the 3D is not: the card counts as the 3D."""
    eight = looks(*[("8D", 0.8)] * 6)
    three = CardEvidence()
    three.add("3D", 0.34, clear=False)
    three.add("8D", 0.29, clear=False)
    three.doubt_twin(eight, "8D")
    for conf in (0.38, 0.35, 0.38, 0.36, 0.36, 0.38, 0.36, 0.36, 0.39, 0.37, 0.42):
        three.add("3D", conf)
    assert three.label == "3D"
    three.add("8D", 0.51)             # a clear look of the doubted label is no clear look
    assert three.label == "3D"
    doubted = CardEvidence()          # doubting every label: only sure looks count
    doubted.doubt_twin()
    for conf in (0.38, 0.35, 0.38, 0.36, 0.36):
        doubted.add("3D", conf)
    assert doubted.label == ""


def test_a_doubted_label_read_clearly_still_speaks_against_the_label_of_its_place():
    """A 640×360 camera out of focus, the real fan's black 9C (a Marriage feed, seed 3): read 9D unsure
    look after look, 9D 0.35 and 9S 0.45 once each, 9S doubted because the real 9S lies elsewhere.
    The 9S look counts for no 9S, but it still says this card is no 9D: the card stays unread."""
    nine_spades = looks(*[("9S", 0.8)] * 6)

    def nine_club(clear_spade_look: bool) -> CardEvidence:
        nine = CardEvidence()
        nine.doubt_twin(nine_spades, "9S")
        for k in range(20):
            nine.add("9D", 0.22 + 0.01 * (k % 5))
            if k == 6:
                nine.add("9D", 0.36)
            if k == 12 and clear_spade_look:
                nine.add("9S", 0.45)
        return nine

    nine = nine_club(clear_spade_look=True)
    assert nine.label == ""
    assert nine.candidates()[:2] == ["9S", "9D"]
    # without the clear 9S look, the one clear 9D look and its many unsure ones decide it
    assert nine_club(clear_spade_look=False).label == "9D"
