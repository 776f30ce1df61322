"""Readings a camera's frame does not report as cards (``vision.recognition.confidence``): an index
cut by the picture's edge, the two disagreeing corners of one card lying apart, and a card whose
corners each read it weakly."""
from __future__ import annotations

import numpy as np

from tableref.vision.index_layout import IndexGeometry, IndexReading
from tableref.vision.recognition import camera_preset, photo_preset
from tableref.vision.recognition.confidence import split_cards
from tableref.vision.types import DetectedCard

GEO = IndexGeometry()           # a card 1.4 times as high as wide, indices at top-left and bottom-right
PICTURE = np.full((720, 1280, 3), 90, np.uint8)


def lone(card: str, conf: float, box) -> DetectedCard:
    return DetectedCard(card, conf, tuple(box), indices=[tuple(box)])


def reading(box) -> IndexReading:
    return IndexReading(tuple(float(v) for v in box), 0.9, np.full(3, 1 / 3))


def corners(width: float = 200.0, at=(300.0, 200.0)):
    """The two index boxes of an upright card ``width`` px wide whose top-left corner is ``at``."""
    x, y = at
    h = width * GEO.aspect
    iw, ih = GEO.w * width, GEO.h * h
    tl = (x + GEO.cx * width - iw / 2, y + GEO.cy * h - ih / 2)
    br = (x + width - GEO.cx * width - iw / 2, y + h - GEO.cy * h - ih / 2)
    return [(a, b, a + iw, b + ih) for a, b in (tl, br)]


def test_an_index_cut_by_the_edge_is_reported_only_when_plainly_sure():
    cut = lone("KD", 0.45, (0, 11, 23, 49))
    sure, unsure = split_cards([cut], camera_preset(), set(), image=PICTURE)
    assert sure == [] and unsure == [cut]
    whole = lone("KD", 0.45, (3, 11, 26, 49))                   # clear of the edge
    assert split_cards([whole], camera_preset(), set(), image=PICTURE)[0] == [whole]
    plain = lone("KS", 0.72, (150, 690, 200, 720))               # at the bottom edge, plainly sure
    assert split_cards([plain], camera_preset(), set(), image=PICTURE)[0] == [plain]
    # a two-corner card one of whose corners is cut, read unsure
    pair = DetectedCard("2D", 0.51, (136, 0, 161, 72), indices=[(136, 0, 146, 17), (152, 57, 161, 72)])
    assert split_cards([pair], camera_preset(), set(), image=PICTURE)[1] == [pair]
    # a photo is read once: what it reads is kept
    assert split_cards([cut], photo_preset(), set(), image=PICTURE)[0] == [cut]


def test_two_lone_corners_of_one_card_that_disagree_are_both_doubted():
    tl, br = corners()
    king, seven = lone("KH", 0.63, tl), lone("7H", 0.62, br)
    readings = [reading(tl), reading(br)]
    sure, unsure = split_cards([king, seven], camera_preset(), set(), readings, image=PICTURE, geometry=GEO)
    assert sure == [] and set(map(id, unsure)) == {id(king), id(seven)}
    assert not king.overruled and not seven.overruled      # neither corner is plainly sure
    # without the deck's geometry nothing is known of corners
    assert len(split_cards([king, seven], camera_preset(), set(), readings, geometry=None)[0]) == 2


def test_a_plainly_sure_corner_stands_and_its_unsure_opposite_is_doubted():
    tl, br = corners()
    king, seven = lone("KH", 0.8, tl), lone("7H", 0.55, br)
    sure, unsure = split_cards([king, seven], camera_preset(), set(), [reading(tl), reading(br)], geometry=GEO)
    assert sure == [king] and unsure == [seven]
    # the unsure one is overruled by its card's other corner: a misread, not only an unsure reading
    assert seven.overruled and not king.overruled
    # two plainly sure readings are two cards lying apart that each show one index
    nine = lone("9H", 0.86, br)
    assert len(split_cards([king, nine], camera_preset(), set(), [reading(tl), reading(br)], geometry=GEO)[0]) == 2


def test_an_opposite_corner_read_too_unsure_to_be_a_card_still_doubts_the_other():
    tl, br = corners()
    # the upright corner of a KH read KH only 0.33 sure (an unsure reading), its turned corner 7H 0.53
    king, seven = lone("KH", 0.33, tl), lone("7H", 0.53, br)
    sure, unsure = split_cards([king, seven], camera_preset(), set(), [reading(tl), reading(br)], geometry=GEO)
    assert sure == [] and set(map(id, unsure)) == {id(king), id(seven)}
    # a reading below the unsure floor is no corner at all
    faint = lone("KH", 0.05, tl)
    assert split_cards([faint, seven], camera_preset(), set(), [reading(tl), reading(br)], geometry=GEO)[0] == [seven]


def test_corners_with_a_nearer_index_between_are_not_one_card():
    tl, br = corners()
    king, seven = lone("KH", 0.6, tl), lone("7H", 0.6, br)
    # a third index nearer to the king than the seven is (a fan, a meld): not a card lying apart
    near = (tl[0] + 30, tl[1] + 20, tl[2] + 30, tl[3] + 20)
    readings = [reading(tl), reading(br), reading(near)]
    assert len(split_cards([king, seven], camera_preset(), set(), readings, geometry=GEO)[0]) == 2
    # nor two indices too close for a card's corners
    far_apart = lone("7H", 0.6, (tl[0] + 40, tl[1], tl[2] + 40, tl[3]))
    assert len(split_cards([king, far_apart], camera_preset(), set(), [reading(tl), reading(far_apart.box)],
                           geometry=GEO)[0]) == 2


def test_a_card_whose_corners_each_read_it_weakly_is_an_unsure_reading_in_photos_too():
    names = ["8S", "QS", "4S", "none"]
    tl, br = corners()
    weak = [IndexReading(tuple(map(float, tl)), 0.9, np.array([0.14, 0.10, 0.10, 0.66])),
            IndexReading(tuple(map(float, br)), 0.9, np.array([0.31, 0.16, 0.09, 0.44]))]
    # the assembly's product of the two corners makes it seem sure
    card = DetectedCard("8S", 0.46, (300, 200, 500, 480), indices=[tl, br])
    for preset in (camera_preset(), photo_preset()):
        sure, unsure = split_cards([card], preset, set(), weak, names, image=PICTURE, geometry=GEO)
        assert sure == [] and unsure == [card]
    assert split_cards([card], camera_preset(doubt_weak_corners=False), set(), weak, names,
                       image=PICTURE, geometry=GEO)[0] == [card]
    # one corner reading it plainly lifts the average over the bar
    plain = [weak[0], IndexReading(tuple(map(float, br)), 0.9, np.array([0.62, 0.1, 0.08, 0.2]))]
    assert split_cards([card], camera_preset(), set(), plain, names, image=PICTURE, geometry=GEO)[0] == [card]
    # a lone corner is not judged by this (its reading alone is its confidence)
    single = DetectedCard("8S", 0.4, tuple(tl), indices=[tl])
    assert split_cards([single], camera_preset(), set(), weak[:1], names, image=PICTURE, geometry=GEO)[0] == [single]


# the real fanned deal's 720p frame defocused by 1.5 px, as a three-pack table's camera reads it: the
# KS's top-left index and, two index widths to its right, the half-covered 6S beside the KS's
# picture, read KS too (their centres as traced in the live feed, the index 20 px wide)
KS_INDEX = (807.0, 241.0, 827.0, 279.0)
SIX_OF_SPADES_INDEX = (848.0, 245.0, 868.0, 283.0)


def test_a_label_read_twice_side_by_side_unsurely_in_a_soft_picture_is_doubted_on_several_packs():
    from tableref.vision.twins import TWIN_SURE

    several = camera_preset(several_packs=True)
    ks, phantom = lone("KS", 0.57, KS_INDEX), lone("KS", 0.55, SIX_OF_SPADES_INDEX)
    sure, unsure = split_cards([ks, phantom], several, set(), coarse=True)
    assert sure == [] and {id(c) for c in unsure} == {id(ks), id(phantom)}
    # a sharp picture: identical cards side by side may be read as unsurely (three packs hold them)
    assert {id(c) for c in split_cards([ks, phantom], several, set(), coarse=False)[0]} == {id(ks), id(phantom)}
    # one pack: the label read at two places is the one-pack rule's (read about as surely: neither)
    assert split_cards([ks, phantom], camera_preset(one_pack=True), set(), coarse=True)[0] == []
    # read surely, a card stands beside an unsure reading of its label, which is doubted
    sure_ks = lone("KS", TWIN_SURE + 0.1, KS_INDEX)
    sure, unsure = split_cards([sure_ks, phantom], several, set(), coarse=True)
    assert sure == [sure_ks] and unsure == [phantom]
    # two sure readings side by side are two cards
    both = [sure_ks, lone("KS", TWIN_SURE + 0.05, SIX_OF_SPADES_INDEX)]
    assert len(split_cards(both, several, set(), coarse=True)[0]) == 2


def test_a_label_read_unsurely_at_two_places_apart_is_two_cards_on_several_packs():
    ks, other = lone("KS", 0.55, KS_INDEX), lone("KS", 0.5, (700.0, 241.0, 720.0, 279.0))    # 5 widths apart
    assert len(split_cards([ks, other], camera_preset(several_packs=True), set(), coarse=True)[0]) == 2


def test_a_table_of_several_packs_measures_how_soft_its_camera_is():
    """The camera loop of several packs sharpens a soft frame for its detector and classifier, and
    measures its blur (kept for the frames that reuse the views) so that a soft picture's twin
    readings are doubted."""
    import cv2

    from tableref.vision.recognition import CardRecognizer, live_table_preset
    from tableref.vision.recognition.images import is_soft

    sharp = np.full((360, 640, 3), 200, np.uint8)
    for k in range(12):
        cv2.putText(sharp, "KS 10H 7C", (20 + 7 * k, 30 + 27 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2)
    soft = cv2.GaussianBlur(sharp, (0, 0), 2.0)
    rec = CardRecognizer(config=live_table_preset(several_packs=True))
    assert rec.config.unsoften and rec.config.unsoften_reads
    assert rec.picture(sharp) is sharp and not is_soft(rec.last_blur)
    assert rec.picture(soft) is soft and not is_soft(rec.last_blur)      # kept from the frame before
    rec.memo.keep_blur((640, 360), float("nan"), 0)                       # the views measured anew
    rec.picture(soft)
    assert is_soft(rec.last_blur)
    one_pack = CardRecognizer(config=live_table_preset(one_pack=True, unsoften=False))
    one_pack.picture(soft)
    assert one_pack.last_blur is None                                     # not measured: not needed


def test_a_small_or_soft_picture_doubts_twins_and_says_it_is_soft(monkeypatch):
    """A picture under 720 lines loses an index's fine print however sharp it measures in its own
    pixels: the recogniser of several packs doubts twins there (``coarse``), and every observation
    says whether the picture measured soft, for the live tracker's own twin rule (``vision.twins``)."""
    import cv2

    from tableref.vision.recognition import CardRecognizer, live_table_preset
    from tableref.vision.recognition import recognizer as recognizer_mod
    from tableref.vision.twins import small_picture

    seen = []
    real = recognizer_mod.split_cards

    def spy(*args, **kwargs):
        seen.append(kwargs.get("coarse"))
        return real(*args, **kwargs)

    monkeypatch.setattr(recognizer_mod, "split_cards", spy)
    big = np.full((720, 1280, 3), 200, np.uint8)
    for k in range(12):
        cv2.putText(big, "KS 10H 7C", (40 + 14 * k, 60 + 54 * k), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (20, 20, 20), 3)
    small = cv2.resize(big, (640, 360), interpolation=cv2.INTER_AREA)
    assert small_picture(640, 360) and not small_picture(1280, 720)
    rec = CardRecognizer(config=live_table_preset(several_packs=True))
    obs = rec.observe(big)
    assert seen[-1] is False and obs.soft is False
    rec.observe(small)
    assert seen[-1] is True
    rec.memo.keep_blur((1280, 720), float("nan"), 0)      # the views measured anew
    soft = rec.observe(cv2.GaussianBlur(big, (0, 0), 2.5), read_blurred=True)
    assert seen[-1] is True and soft.soft is True and soft.coarse is True
    # the quick reading (a slow machine's fast classifier) reads coarsely: on a table of several packs
    # its sharp, large pictures are doubted alike, not said to be soft; on one pack they are not
    quick = CardRecognizer(config=live_table_preset(several_packs=True, count=True, quick=True)).observe(big)
    assert seen[-1] is True and quick.coarse is True and quick.soft is False
    one = CardRecognizer(config=live_table_preset(one_pack=True, quick=True)).observe(big)
    assert seen[-1] is False and one.coarse is False and obs.coarse is False


def test_a_suit_read_not_much_surer_than_its_twin_of_the_same_colour_is_doubted():
    # the real fanned deal's 9C, read 9S under defocus σ 1.5 px: 9S 0.64, 9C 0.33 (ink cannot
    # tell a club from a spade, only the suit's shape)
    names = ["9C", "9D", "9H", "9S", "none"]
    box = (580.0, 55.0, 597.0, 89.0)
    card = lone("9S", 0.52, box)
    soft = [IndexReading(box, 0.6, np.array([0.33, 0.01, 0.01, 0.64, 0.01]))]
    sure, unsure = split_cards([card], camera_preset(), set(), soft, names, image=PICTURE)
    assert sure == [] and unsure == [card]
    # the same card read plainly stands; a photo is read once, as it is
    plain = [IndexReading(box, 0.6, np.array([0.26, 0.01, 0.01, 0.7, 0.02]))]
    assert split_cards([card], camera_preset(), set(), plain, names, image=PICTURE)[0] == [card]
    assert split_cards([card], photo_preset(), set(), soft, names, image=PICTURE)[0] == [card]
