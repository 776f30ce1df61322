"""Card tracking and the stable table state, from synthetic observation sequences (no video)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from tableref.vision.tracking import TableTracker
from tableref.vision.types import DetectedCard, FrameObservation
from tableref.vision.zones import default_zones

FPS = 5.0
FRAME = (1280, 720)


def det(label, x, y, conf=0.9, w=60, h=85):
    return DetectedCard(label, conf, (x, y, x + w, y + h))


def obs(t, cards, sharp=1.0, occluded=False):
    return FrameObservation(t=t, width=FRAME[0], height=FRAME[1], cards=cards, sharpness=sharp, occluded=occluded)


class Player:
    """Feeds a tracker frame by frame and records every published version."""

    def __init__(self, tracker=None, seats=4, seed=0, jitter=2.0):
        self.tr = tracker or TableTracker(default_zones(seats, FRAME))
        self.t = 0.0
        self.rng = np.random.default_rng(seed)
        self.jitter = jitter
        self.versions = []
        self.last = None

    def run(self, cards, seconds, noise=None, sharp=1.0, occluded=False, extra=()):
        for _ in range(int(round(seconds * FPS))):
            ds = []
            for c in cards:
                j = self.rng.normal(0, self.jitter, 4) if self.jitter else np.zeros(4)
                label = c.card
                if noise and self.rng.random() < noise[0]:
                    label = noise[1]
                quad = None
                if c.quad:
                    quad = (np.asarray(c.quad) + j[:2]).tolist()
                ds.append(DetectedCard(label, c.confidence, tuple(np.asarray(c.box) + j), quad=quad))
            self.last = self.tr.update(obs(self.t, ds + list(extra), sharp, occluded))
            if self.last is not None and self.last.changed:
                self.versions.append(self.last)
            self.t += 1.0 / FPS
        return self.last


ROW = [det("5H", 500, 600), det("6H", 525, 602), det("7H", 550, 601)]     # seat 0 (bottom), overlapping


def test_empty_table_is_published_then_cards_appear_within_latency():
    p = Player()
    t = p.run([], 1.0)
    assert t is not None and t.version == 1 and t.cards == []
    t_place = p.t
    p.run(ROW, 2.0)
    assert len(p.versions) == 2
    v = p.versions[-1]
    assert [m.labels for m in v.seats[0].melds] == [["5H", "6H", "7H"]]
    assert v.t - t_place <= 1.5                      # a placed card becomes an event within 1.5 s
    assert v.since >= t_place and v.t - v.since >= 0.6 - 1e-9


def test_jitter_and_label_noise_do_not_create_versions_or_change_ids():
    p = Player(jitter=3.0, seed=2)
    p.run(ROW + [det("KS", 620, 330)], 2.0)
    assert len(p.versions) == 1
    ids = sorted(c.track_id for c in p.versions[0].cards)
    p.run(ROW + [det("KS", 620, 330)], 8.0, noise=(0.1, "8H"))        # a tenth of the reads are wrong
    assert len(p.versions) == 1
    assert sorted(c.track_id for c in p.last.cards) == ids
    assert [c.card for c in p.last.centre] == ["KS"]
    assert all(c.confidence > 0.5 for c in p.last.cards)


def test_label_is_voted_by_confidence_over_sharp_frames():
    p = Player(jitter=0)
    # first reads are wrong with low confidence, then right with high confidence: the place is
    # contradicted (unread) until the right looks outnumber the wrong ones three to one, then 6H
    p.run([det("8H", 500, 600, conf=0.4)], 0.6)
    p.run([det("6H", 500, 600, conf=0.95)], 3.0)
    assert [c.card for c in p.last.seats[0].loose] == ["6H"]
    assert all(v.seats[0].loose[0].card != "8H" for v in p.versions if v.seats[0].loose)


def test_blurred_frames_do_not_vote_or_create_cards():
    p = Player(jitter=0)
    p.run([det("9C", 500, 600)], 2.0)
    p.run([det("9D", 500, 600), det("QS", 800, 600)], 2.0, sharp=0.1)    # motion blur: garbage reads
    assert len(p.versions) == 1
    assert [c.card for c in p.last.seats[0].loose] == ["9C"]
    p.run([det("9C", 500, 600)], 1.0)
    assert len(p.versions) == 1


def test_camera_shake_hides_nothing_for_good():
    p = Player(jitter=0)
    p.run(ROW, 2.0)
    p.run([], 2.6, sharp=0.2)             # the camera was bumped: blurred frames, nothing detected
    p.run(ROW, 1.0)
    assert len(p.versions) == 1 and len(p.last.cards) == 3


def test_a_lasting_drop_in_sharpness_is_a_new_scene_not_blur():
    p = Player(jitter=0)
    p.run(ROW, 2.0)
    p.run([], 8.0, sharp=0.3)             # the cards were taken away: less texture, for good
    assert len(p.versions) == 2 and p.last.cards == []


def test_hand_passing_over_the_table_creates_no_event():
    p = Player(seed=3)
    table = ROW + [det("KS", 620, 330), det("2C", 100, 300), det("3C", 120, 300)]
    p.run(table, 2.0)
    assert len(p.versions) == 1
    before = {c.track_id: c.card for c in p.last.cards}
    # an arm sweeps from the bottom over the row and the centre for 1.2 s:
    # covered cards are missed, the hand produces a flicker of false cards, some frames blur
    hand_frames = [
        (ROW[1:] + table[3:], [det("JD", 700, 500, 0.5)], 1.0),
        (table[3:], [det("JD", 705, 480, 0.6), det("4S", 650, 420, 0.4)], 0.4),
        (table[4:], [det("4S", 640, 400, 0.5)], 0.3),
        (table[4:], [], 1.0),
        (ROW[:1] + table[4:], [det("QH", 600, 350, 0.7)], 1.0),
        (ROW + table[4:], [], 0.9),
    ]
    for visible, fake, sharp in hand_frames:
        p.run(visible, 0.2, sharp=sharp, extra=fake)
    p.run(table, 3.0)
    assert len(p.versions) == 1, [v.to_json() for v in p.versions[1:]]
    assert {c.track_id: c.card for c in p.last.cards} == before


def test_hand_resting_over_cards_with_a_steady_false_card_creates_no_event():
    p = Player(seed=4)
    table = ROW + [det("KS", 620, 330), det("2C", 100, 300)]
    p.run(table, 2.0)
    before = {c.track_id: c.card for c in p.last.cards}
    # the hand rests over the row for 1.6 s, and the detector sees a steady "JD" in the knuckles
    p.run(table[3:], 1.6, extra=[det("JD", 700, 520, 0.6)])
    p.run(table, 3.0)
    assert len(p.versions) == 1, [v.to_json() for v in p.versions[1:]]
    assert {c.track_id: c.card for c in p.last.cards} == before


def test_occlusion_flag_freezes_updates():
    p = Player(jitter=0)
    p.run(ROW, 2.0)
    p.run([], 3.0, occluded=True)           # the vision stage says something covers the table
    assert len(p.versions) == 1 and len(p.last.cards) == 3
    assert p.tr.frozen and "occluded" in p.tr.freeze_reason


def test_removed_card_disappears_after_the_grace_period():
    p = Player(jitter=0)
    p.run(ROW + [det("KS", 620, 330)], 2.0)
    t_gone = p.t
    p.run(ROW, 1.0)
    assert len(p.versions) == 1                         # still within the grace period
    p.run(ROW, 3.0)
    assert len(p.versions) == 2
    assert p.versions[-1].centre == []
    assert p.versions[-1].t - t_gone >= p.tr.miss_seconds


def test_duplicate_cards_at_different_places_are_distinct():
    p = Player(jitter=1.0, seats=2)
    sevens = [det("7H", 300, 600), det("7H", 700, 600), det("7H", 1000, 620)]
    p.run(sevens, 2.0)
    cards = p.last.seats[0].loose
    assert [c.card for c in cards] == ["7H", "7H", "7H"]
    assert len({c.track_id for c in cards}) == 3
    xs = [c.centre[0] for c in cards]
    assert xs == sorted(xs)                              # left to right from seat 0


def test_card_added_to_a_meld_and_moved_between_melds():
    p = Player(jitter=1.0, seats=2)
    a = [det("3C", 300, 600), det("3D", 325, 600), det("3S", 350, 600)]
    b = [det("8D", 700, 600), det("9D", 725, 600), det("10D", 750, 600)]
    p.run(a + b, 2.0)
    assert [m.labels for m in p.last.seats[0].melds] == [["3C", "3D", "3S"], ["8D", "9D", "10D"]]
    p.run(a + b + [det("JD", 775, 600)], 2.0)                      # card added at the right end
    assert [m.labels for m in p.last.seats[0].melds][1] == ["8D", "9D", "10D", "JD"]
    n = len(p.versions)
    # the 3S is picked up and put at the left of the diamonds (a new place)
    moved_id = p.last.seats[0].melds[0].ids[2]
    p.run(a[:2] + b + [det("JD", 775, 600)], 0.6)                  # in the player's hand
    t_put = p.t
    p.run(a[:2] + [det("3S", 675, 600)] + b + [det("JD", 775, 600)], 2.0)
    assert len(p.versions) == n + 1                                # one change: the move
    assert [m.labels for m in p.last.seats[0].melds] == [["3C", "3D"], ["3S", "8D", "9D", "10D", "JD"]]
    assert p.last.seats[0].melds[1].ids[0] == moved_id             # the same physical card
    assert p.versions[-1].t - t_put <= 1.5


def test_a_card_flashed_briefly_never_exists():
    p = Player(jitter=0)
    p.run(ROW, 2.0)
    p.run(ROW + [det("AS", 900, 300)], 0.2)              # one frame
    p.run(ROW, 2.0)
    assert len(p.versions) == 1


def test_versions_and_changed_flag():
    p = Player(jitter=0)
    p.run(ROW, 2.0)
    last = p.tr.update(obs(p.t, [DetectedCard(c.card, c.confidence, c.box) for c in ROW]))
    assert last.changed is False and last.version == 1
    assert p.tr.published is last


def test_time_going_backwards_starts_over():
    p = Player(jitter=0)
    p.run(ROW, 2.0)
    p.t = 0.0
    assert p.tr.update(obs(0.0, [])) is None


def test_calibrated_zones_use_table_coordinates():
    from tableref.vision.zones import TableZones
    # image is the table seen with the camera's "up" on the table's left: rotate 90°
    H = np.array([[0, 1, 0], [-1, 0, 1280], [0, 0, 1]], dtype=float)     # image (x, y) -> table (y, 1280 - x)
    base = default_zones(4, (720, 1280))
    zones = TableZones(seats=base.seats, centre=base.centre, homography=H, frame_size=FRAME)
    p = Player(TableTracker(zones), jitter=0)
    # the table's bottom edge is the image's left edge; seat 0's left to right is image top to bottom
    col = [det("6H", 20, 500, w=85, h=60), det("5H", 20, 470, w=85, h=60), det("4H", 20, 440, w=85, h=60)]
    p.run(col, 2.0)
    assert [m.labels for m in p.last.seats[0].melds] == [["4H", "5H", "6H"]]


def det_full(label, x, y, w=60, h=85, conf=0.95):
    """A card seen whole: both corner indices paired, quad known."""
    q = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
    return DetectedCard(label, conf, (x, y, x + w, y + h), quad=[list(map(float, p)) for p in q])


def det_index(label, x, y, w=60, h=85, conf=0.9):
    """Only the top-left corner index of a card at (x, y) is visible."""
    return DetectedCard(label, conf, (x + 0.04 * w, y + 0.03 * h, x + 0.14 * w, y + 0.23 * h))


def test_card_covered_by_a_new_card_keeps_its_identity_and_meld():
    p = Player(jitter=0.5, seats=2)
    p.run([det_full("8C", 500, 580)], 2.0)
    assert [c.card for c in p.last.seats[0].loose] == ["8C"]
    first_id = p.last.seats[0].loose[0].track_id
    # 9C is laid on top, 18 px to the right: of the 8C only the index shows now
    t_put = p.t
    p.run([det_index("8C", 500, 580), det_full("9C", 518, 580)], 2.0)
    assert len(p.versions) == 2
    assert [m.labels for m in p.last.seats[0].melds] == [["8C", "9C"]]
    assert p.last.seats[0].melds[0].ids[0] == first_id
    assert p.versions[-1].t - t_put <= 1.5
    p.run([det_index("8C", 500, 580), det_index("9C", 518, 580), det_full("10C", 536, 580)], 2.0)
    assert [m.labels for m in p.last.seats[0].melds] == [["8C", "9C", "10C"]]
    assert len(p.versions) == 3


def test_card_read_alternately_whole_and_by_its_index_is_one_card():
    p = Player(jitter=0.5, seats=2)
    for k in range(30):
        d = det_full("QH", 700, 580) if k % 2 else det_index("QH", 700, 580)
        p.run([det_full("KS", 300, 580), d], 0.2)
    assert len(p.versions) == 1
    assert sorted(c.card for c in p.last.cards) == ["KS", "QH"]
    assert len(p.tr.tracks) == 2


def test_rows_of_lone_indices_group_into_melds_through_the_tracker():
    p = Player(jitter=0.5, seats=2)
    row1 = [det_index("4S", 300, 580), det_index("5S", 318, 580), det_full("6S", 336, 580)]
    row2 = [det_index("9H", 470, 580), det_index("9D", 488, 580), det_full("9C", 506, 580)]
    p.run(row2 + row1, 2.0)
    assert [m.labels for m in p.last.seats[0].melds] == [["4S", "5S", "6S"], ["9H", "9D", "9C"]]
    assert [c.partial for c in p.last.seats[0].melds[0].cards] == [True, True, False]


def test_card_taken_from_the_middle_of_an_overlapped_meld_leaves_one_meld():
    p = Player(jitter=0.5, seats=2)
    x0, step = 400, 28
    row = [det_index("4S", x0, 580), det_index("5S", x0 + step, 580), det_index("6S", x0 + 2 * step, 580),
           det_full("7S", x0 + 3 * step, 580)]
    p.run(row, 2.0)
    assert [m.labels for m in p.last.seats[0].melds] == [["4S", "5S", "6S", "7S"]]
    p.run([row[0]] + row[2:], 3.5)                    # the 5S is taken away; the gap stays
    assert [m.labels for m in p.last.seats[0].melds] == [["4S", "6S", "7S"]]
    # a new row laid the same way from scratch, with that gap, is two groups
    q = Player(jitter=0.5, seats=2)
    q.run([row[0]] + row[2:], 2.0)
    assert [m.labels for m in q.last.seats[0].melds] == [["6S", "7S"]]
    assert [c.card for c in q.last.seats[0].loose] == ["4S"]


def test_first_card_of_a_meld_close_to_the_previous_meld_stays_out_of_it():
    p = Player(jitter=0.5, seats=2)
    x0 = 300
    meld1 = [det_index("JH", x0, 580), det_index("10H", x0 + 25, 580), det_full("QH", x0 + 50, 580)]
    x1 = x0 + 50 + 60 + 28                            # 28 px (0.4 card) after the QH
    meld2 = [det_index("5S", x1, 580), det_index("6S", x1 + 25, 580), det_full("7S", x1 + 50, 580)]
    p.run(meld1 + meld2, 3.0)
    assert [m.labels for m in p.last.seats[0].melds] == [["JH", "10H", "QH"], ["5S", "6S", "7S"]]
    assert len(p.versions) == 1


def test_a_meld_growing_across_the_seat_boundary_stays_with_its_seat():
    p = Player(jitter=0.5, seats=4)
    zones = p.tr.zones
    row = [det_full("9D", 420, 600)]
    p.run(row, 2.0)
    assert [c.card for c in p.last.seats[0].loose] == ["9D"]
    # cards are added to the left, each under the previous one, across the diagonal to seat 2
    for k, lab in enumerate(["8D", "7D", "6D", "5D"]):
        row = [det_index(lab, 420 - 25 * (k + 1), 600)] + row
        p.run(row, 1.6)
    assert zones.zone_at(360, 615).id != "seat0"      # the last cards lie in another seat's zone
    assert [m.labels for m in p.last.seats[0].melds] == [["5D", "6D", "7D", "8D", "9D"]]
    assert all(not s.melds and not s.loose for s in p.last.seats[1:])


def test_occasional_blurred_frames_do_not_delay_a_new_card_much():
    p = Player(jitter=0.5)
    p.run(ROW, 2.0)
    t_put = p.t
    for k in range(10):                      # every third frame is blurred
        p.run(ROW + [det("KS", 620, 330)], 0.2, sharp=0.2 if k % 3 == 2 else 1.0)
    assert len(p.versions) == 2
    assert p.versions[-1].t - t_put <= 1.5


def test_a_meld_laid_at_a_seat_corner_goes_to_the_seat_of_its_whole_card():
    # a run laid at once near the corner of seat 0's zone: the top card lies whole in seat 0,
    # the lower cards' corner indices (their top-left, towards the middle) fall in seat 1's wedge
    p = Player(jitter=0.5, seats=3)
    zones = p.tr.zones
    meld = [det_index("4C", 150, 600), det_index("5C", 175, 600), det_full("6C", 200, 600)]
    assert [zones.zone_at(*d.centre).seat for d in meld] == [1, 1, 0]
    p.run(meld, 3.0)
    assert [m.labels for m in p.last.seats[0].melds] == [["4C", "5C", "6C"]]
    assert not p.last.seats[1].melds and not p.last.seats[1].loose


def test_the_count_scan_counts_a_meld_at_a_seat_corner_for_the_seat_of_its_whole_card():
    from tableref.live.scan import SeatScanner

    zones = default_zones(3, FRAME)
    meld = [det_index("4C", 150, 600), det_index("4C", 175, 600), det_full("4C", 200, 600)]
    scan = SeatScanner(zones, 3, window=3, stable_frames=2)
    state = None
    for k in range(6):
        state = scan.update(obs(k / FPS, meld)) or state
    assert state is not None
    assert [c.card for c in state.seats[0].loose] == ["4C"] * 3
    assert not state.seats[1].loose


def test_a_second_box_now_and_then_on_one_index_is_not_a_second_card():
    # the detector sometimes puts a second, shifted box on a covered card's index
    p = Player(jitter=0.3, seats=4)
    meld = [det_index("7S", 500, 580), det_index("8S", 525, 580), det_full("9S", 550, 580)]
    p.run(meld, 2.0)
    ghost = det_index("8S", 529, 577)
    for k in range(30):
        p.run(meld + ([ghost] if k % 4 != 3 else []), 1.0 / FPS)
    p.run(meld, 2.0)
    labels = [c.card for v in p.versions for s in v.seats for c in s.cards]
    assert all(v.cards and sorted(c.card for c in v.cards) == ["7S", "8S", "9S"] for v in p.versions), labels


def test_the_count_scan_counts_a_card_read_in_a_quarter_of_the_frames():
    # an overlapped corner index read only now and then still counts; one misreading does not
    from tableref.live.scan import SeatScanner

    zones = default_zones(2, FRAME)
    scan = SeatScanner(zones, 2, window=8, stable_frames=2)
    state = None
    for k in range(16):
        cards = [det_full("4C", 500, 560), det_index("9D", 440, 560)] if k % 3 == 0 else [det_full("4C", 500, 560)]
        if k == 7:
            cards.append(det_index("KS", 700, 560))
        state = scan.update(obs(k / FPS, cards)) or state
    assert state is not None
    assert sorted(c.card for c in state.seats[0].loose) == ["4C", "9D"]


def _a_laid_down_hand(n: int = 21) -> list:
    """n different cards in 7 rows of 3 overlapped cards in seat 0's zone (2 seats)."""
    labels = [r + s for s in "CDHS" for r in ["A", "2", "3", "4", "5", "6"]][:n]
    cards = []
    for k, lab in enumerate(labels):
        row, col = divmod(k, 3)
        x = 180 + 130 * row + 22 * col
        cards.append(det_full(lab, x, 580) if col == 2 else det_index(lab, x, 580))
    return cards


def test_the_count_scan_fills_a_hand_with_a_card_read_now_and_then():
    # 20 cards are read in every frame; the 21st (an overlapped corner) in 2 frames of 11
    from tableref.live.scan import SeatScanner

    hand = _a_laid_down_hand()
    scan = SeatScanner(default_zones(2, FRAME), 2, window=11, stable_frames=2)
    state = None
    for k in range(22):
        cards = hand if k % 6 == 0 else hand[1:]
        state = scan.update(obs(k / FPS, cards)) or state
    assert state is not None
    assert sorted(c.card for c in state.seats[0].loose) == sorted(c.card for c in hand)


def test_the_count_scan_does_not_count_a_corner_read_twice_in_a_full_hand():
    # all 21 cards are read every frame; in a third of the frames a second box on one index
    # reads as another copy of that card: the seat still holds 21 cards
    from tableref.live.scan import SeatScanner

    hand = _a_laid_down_hand()
    ghost = det_index(hand[0].card, 184, 577)
    scan = SeatScanner(default_zones(2, FRAME), 2, window=11, stable_frames=2)
    state = None
    for k in range(22):
        cards = hand + [ghost] if k % 3 == 0 else hand
        state = scan.update(obs(k / FPS, cards)) or state
    assert state is not None
    assert sorted(c.card for c in state.seats[0].loose) == sorted(c.card for c in hand)


def test_the_count_scan_keeps_a_22nd_card_read_in_every_frame():
    # a hand of 22 read in every frame is reported as such (the referee judges it)
    from tableref.live.scan import SeatScanner

    hand = _a_laid_down_hand(22)
    scan = SeatScanner(default_zones(2, FRAME), 2, window=11, stable_frames=2)
    state = None
    for k in range(12):
        state = scan.update(obs(k / FPS, hand)) or state
    assert state is not None and len(state.seats[0].loose) == 22


def test_one_covered_index_missed_for_a_moment_does_not_hold_up_a_new_meld():
    # a meld is laid in one seat; while it waits to be stable the detector misses a covered
    # card's small index in another meld for 0.8 s: nothing is published meanwhile, but the
    # new meld's wait goes on from where it was once the index is read again (no restart)
    p = Player(jitter=0.5, seats=4)
    old = [det_index("JC", 500, 580), det_index("JD", 525, 580), det_full("JS", 550, 580)]
    p.run(old, 2.0)
    new = [det_index("AD", 1050, 300), det_index("2D", 1050, 325), det_full("3D", 1050, 350)]
    t_put = p.t
    p.run(old + new, 0.4)
    p.run([old[0], old[2]] + new, 0.8)          # JD's index is not read meanwhile
    assert not any(any(c.card == "AD" for c in v.cards) for v in p.versions)
    p.run(old + new, 1.0)
    added = [v for v in p.versions if any(c.card == "AD" for c in v.cards)]
    assert added and added[0].t - t_put <= 1.5
    assert all(sorted(c.card for c in v.cards) == sorted(c.card for c in old + new) for v in added)


def test_a_hand_over_a_whole_card_still_holds_up_publication():
    # a hand hides a whole card while something new shows elsewhere: nothing is decided
    # until the hidden card is back (or gone)
    p = Player(jitter=0.5, seats=4)
    old = [det_index("JC", 500, 580), det_index("JD", 525, 580), det_full("JS", 550, 580)]
    p.run(old, 2.0)
    n = len(p.versions)
    p.run(old[:2] + [det_full("KH", 1050, 300)], 1.2)
    assert len(p.versions) == n


def test_cards_dropping_out_of_sight_in_turn_at_one_seat_do_not_hold_back_a_meld_at_another():
    # a soft picture: the published cards of one seat are missed one after another, each for a
    # second, and come back; a meld laid at another seat meanwhile is published while that goes on
    p = Player(jitter=0.5, seats=4)
    row = [det_full(lab, 420 + 70 * k, 580) for k, lab in enumerate(["4C", "5C", "6C", "7C", "8C"])]
    p.run(row, 2.0)
    n = len(p.versions)
    new = [det_full("QH", 1050, 250), det_full("QS", 1050, 345), det_full("QD", 1050, 440)]
    t_put = p.t
    for k in range(2 * len(row)):               # 5 s: each row card out of sight for 1 s in turn,
        gone = {k // 2, (k + 1) // 2 % len(row)}        # the next one before the last comes back
        p.run([c for j, c in enumerate(row) if j not in gone] + new, 0.5)
    added = [v for v in p.versions[n:] if any(c.card == "QH" for c in v.cards)]
    assert added and added[0].t - t_put <= 3.0
    # the row's cards were held, never dropped nor counted twice
    assert all(sorted(c.card for c in v.cards) == sorted(c.card for c in row + new) for v in added)


def test_the_count_scan_counts_no_card_more_than_three_times():
    # three packs: a fourth 9D (a misreading, in most frames) is not counted
    from tableref.live.scan import SeatScanner

    hand = _a_laid_down_hand(17) + [det_index("9D", 960, 580), det_index("9D", 982, 580), det_full("9D", 1004, 580)]
    ghost = det_index("9D", 1030, 660)
    scan = SeatScanner(default_zones(2, FRAME), 2, window=11, stable_frames=2)
    state = None
    for k in range(22):
        state = scan.update(obs(k / FPS, hand + [ghost] if k % 4 else hand)) or state
    assert state is not None
    assert sorted(c.card for c in state.seats[0].loose) == sorted(c.card for c in hand)


def test_one_look_repeated_from_a_still_picture_confirms_no_card():
    """A reading kept from an earlier frame (``DetectedCard.fresh`` False) repeats that look: a new
    card needs fresh looks too, so one misreading kept for a few frames never becomes a card."""
    from tableref.vision.tracking import MIN_FRESH_HITS

    tr = TableTracker(default_zones(4, FRAME))
    t = 0.0
    for _ in range(10):
        tr.update(obs(t, list(ROW)))
        t += 0.2
    ghost = DetectedCard("AS", 0.9, (900, 300, 960, 385))
    for k in range(6):                      # one fresh look, then the same look kept five frames
        again = DetectedCard("AS", 0.9, ghost.box, fresh=(k == 0))
        tr.update(obs(t, list(ROW) + [again]))
        t += 0.2
    assert not any(x.confirmed for x in tr.tracks if x.label == "AS")
    for k in range(MIN_FRESH_HITS - 1):     # a second fresh look of the same card confirms it
        tr.update(obs(t, list(ROW) + [DetectedCard("AS", 0.9, ghost.box)]))
        t += 0.2
    assert any(x.confirmed for x in tr.tracks if x.label == "AS")


def test_a_position_read_as_two_cards_is_published_unread_with_its_candidates():
    p = Player(jitter=0)
    p.run([det("KS", 620, 330)], 1.0)
    flip = [det("8C", 500, 600, conf=0.8), det("8H", 500, 600, conf=0.75)]
    for k in range(15):
        p.run([det("KS", 620, 330), flip[k % 2]], 0.2)
    card = p.last.seats[0].loose[0]
    assert card.unread and card.card == "" and sorted(card.candidates) == ["8C", "8H"]
    assert [c.track_id for c in p.last.unread] == [card.track_id]
    assert [c.card for c in p.last.centre] == ["KS"]                  # the rest of the table is read
    assert all(c.card != "8H" and c.card != "8C" for v in p.versions for c in v.cards)


def test_a_seat_that_keeps_changing_does_not_hold_back_a_meld_laid_at_another():
    p = Player(jitter=1.0, seed=5)
    p.run([], 1.0)
    fumbling = []
    t_laid = p.t
    for k in range(12):                     # a new card at seat 3's zone (top) every 0.2 s
        fumbling.append(det(["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"][k],
                            300 + 70 * k, 40))
        p.run(ROW + fumbling, 0.2)
    laid = [v for v in p.versions if [m.labels for m in v.seats[0].melds] == [["5H", "6H", "7H"]]]
    assert laid and laid[0].t - t_laid <= 1.5


def test_cards_grouped_differently_from_frame_to_frame_are_still_published():
    # cards at angles in a fan, outlines seen in some frames only: the same cards fall into one
    # meld in one frame and into loose cards in the next
    class Wavering(TableTracker):
        def update(self, obs):
            self.gap_frac = 0.6 if round(obs.t * FPS) % 2 else 0.01
            self._snap_cache = None
            return super().update(obs)

    p = Player(Wavering(default_zones(4, FRAME)), jitter=0)
    spaced = [det("5H", 500, 600), det("6H", 570, 600), det("7H", 640, 600)]
    p.run(spaced, 3.0)
    assert p.versions and sorted(c.card for c in p.last.cards) == ["5H", "6H", "7H"]
    assert p.versions[0].t <= 1.6


def test_a_blurred_frame_is_known_before_it_is_read():
    p = Player(jitter=0)
    p.run(ROW, 2.0, sharp=0.8)
    assert not p.tr.too_blurred(0.8) and p.tr.too_blurred(0.2)
    p.run([], 1.4, sharp=0.2)
    assert 1.0 <= p.tr.blurred_for <= 1.4 and len(p.last.cards) == 3
    p.run(ROW, 0.4, sharp=0.8)
    assert p.tr.blurred_for == 0.0


def test_unsure_readings_keep_a_card_in_sight_but_never_make_one():
    p = Player(jitter=0)
    card = det("3S", 500, 600, conf=0.5)
    p.run([card], 2.0)
    track_id = p.last.seats[0].loose[0].track_id
    weak = [det("3S", 500, 600, conf=0.2)]
    for _ in range(15):              # 3 s of frames where the card is read only unsure
        p.last = p.tr.update(FrameObservation(t=p.t, width=FRAME[0], height=FRAME[1], cards=[], unsure=weak))
        p.t += 1.0 / FPS
    assert [c.track_id for c in p.tr.published.seats[0].loose] == [track_id]
    ghost = [det("QH", 800, 600, conf=0.3)]
    for _ in range(15):
        p.tr.update(FrameObservation(t=p.t, width=FRAME[0], height=FRAME[1], cards=[card], unsure=ghost))
        p.t += 1.0 / FPS
    assert not any(tr.label == "QH" for tr in p.tr.tracks)


def _feed(p, frames):
    """Feed ``frames`` (a list of (cards, unsure) per frame) to the player's tracker."""
    for cards, unsure in frames:
        p.last = p.tr.update(FrameObservation(t=p.t, width=FRAME[0], height=FRAME[1], cards=cards, unsure=unsure))
        p.t += 1.0 / FPS


def test_a_card_read_clearly_twice_and_unsure_as_the_same_card_otherwise_is_a_card():
    """A small index read just under the recogniser's threshold in most frames and clearly in two
    (the real fanned deal's 3D) is confirmed by its unsure looks, where they agree with it; two clear
    looks alone are not enough, nor are unsure looks that name another card."""
    clear, unsure, other = det("3D", 500, 600, conf=0.4), det("3D", 500, 600, conf=0.25), det("8D", 500, 600, conf=0.3)
    frames = [([clear], [])] + [([], [unsure])] * 2 + [([clear], [])] + [([], [unsure])] * 8

    p = Player(jitter=0)
    _feed(p, frames)
    assert [c.card for c in p.tr.published.cards] == ["3D"]

    p = Player(jitter=0)            # the same clear looks, the card not seen otherwise
    _feed(p, [f if f[0] else ([], []) for f in frames[:4]] + [([], [])] * 8)
    assert p.tr.published is None or p.tr.published.cards == []

    p = Player(jitter=0)            # the unsure looks say another card as often as this one
    _feed(p, frames[:4] + [([], [unsure if k % 2 else other]) for k in range(8)])
    assert all(c.card != "3D" for c in (p.tr.published.cards if p.tr.published else []))


def test_an_unsure_index_inside_a_card_seen_whole_does_not_move_it_there():
    """A card seen whole (its outline) and by its own index, then for a moment only as an unsure
    reading of its label at another index lying inside its outline (the real fanned deal's 5H, and
    the index beside the 5D under it, misread 5H now and then), stays where its own index is: one
    card, never counted at the misread index's place."""
    quad = [[513, 48], [796, 48], [796, 302], [513, 302]]
    whole = DetectedCard("5H", 0.92, (513, 48, 796, 302), quad=quad, indices=[(686, 62, 709, 95)])
    own = DetectedCard("5H", 0.8, (686, 62, 709, 95), indices=[(686, 62, 709, 95)])
    misread = DetectedCard("5H", 0.2, (600, 264, 617, 295), indices=[(600, 264, 617, 295)])
    p = Player(jitter=0)
    _feed(p, [([whole], []), ([own], [])] * 6 + [([whole], []), ([], [misread])] + [([own], [misread])] * 12)
    fives = [c for c in p.tr.published.cards if c.card == "5H"]
    assert len(fives) == 1
    x1, y1, x2, y2 = fives[0].box
    assert x1 <= 697 <= x2 and y1 <= 78 <= y2
    assert not any(tr.label == "5H" and tr.box[0] <= 608 <= tr.box[2] and tr.box[1] <= 280 <= tr.box[3]
                   and tr.box[2] - tr.box[0] < 100 for tr in p.tr.tracks)


def test_a_doubted_reading_however_sure_never_decides_a_card():
    """A reading the recogniser did not report (its own corner or its ink doubts it) is an unsure
    reading even at a high confidence: it makes the card unread, never its label."""
    p = Player(jitter=0)
    p.run([det("9C", 500, 600, conf=0.5)], 2.0)
    assert [c.card for c in p.tr.published.cards] == ["9C"]
    doubted = [det("9D", 500, 600, conf=0.9)]
    for _ in range(40):              # 8 s of frames where the card is read only as a doubted 9D
        p.last = p.tr.update(FrameObservation(t=p.t, width=FRAME[0], height=FRAME[1], cards=[], unsure=doubted))
        p.t += 1.0 / FPS
    assert all(tr.reading != "9D" for tr in p.tr.tracks)
    assert [c.card for c in p.tr.published.cards] in (["9C"], [""])


def test_photo_quality_looks_settle_an_unread_card_and_make_no_card_of_their_own():
    def table_after(photo_looks):
        p = Player(jitter=0)
        flip = [det("8C", 500, 600, conf=0.6), det("8H", 500, 600, conf=0.6)]
        for k in range(10):
            p.run([det("KS", 620, 330), flip[k % 2]], 0.2)
        assert [c.card for c in p.last.seats[0].loose] == [""]
        region = p.tr.reread_region(p.t)              # still for long enough, never looked at closely
        assert region is not None and region[0] < 500 and region[2] > 680
        photo = [det("8H", 500, 600, conf=0.9), det("KS", 620, 330, conf=0.9), det("2D", 900, 600, conf=0.8)]
        for _ in range(photo_looks):
            p.tr.add_photo_readings(photo, p.t, region)
        assert p.tr.reread_region(p.t) is None or not photo_looks   # looked at: not again for a while
        p.run([det("KS", 620, 330), flip[1]], 1.0)      # a second more of camera looks: not decisive alone
        return sorted(c.card for c in p.last.cards)

    assert table_after(0) == ["", "KS"]
    assert table_after(2) == ["8H", "KS"]


def test_nothing_is_read_again_while_a_hand_is_over_the_table():
    p = Player(jitter=0)
    p.run(ROW, 2.0)
    p.run([], 0.2, occluded=True)
    assert p.tr.reread_region(p.t) is None


def test_the_live_picture_shows_an_unread_card_with_its_candidates_never_a_label():
    from tableref.live import overlay

    p = Player(jitter=0)
    flip = [det("8C", 500, 600, conf=0.8), det("8H", 500, 600, conf=0.75)]
    for k in range(10):
        p.run([det("KS", 620, 330), flip[k % 2]], 0.2)
    written = []
    real = overlay.cv2.putText
    overlay.cv2.putText = lambda img, text, *a, **k: written.append(text) or real(img, text, *a, **k)
    try:
        overlay.annotate(np.zeros((720, 1280, 3), np.uint8), p.tr, None, [], {}, None, "ok")
    finally:
        overlay.cv2.putText = real
    unread = next(tr for tr in p.tr.tracks if not tr.reading)
    assert {f"8C/8H? #{unread.id}", f"8H/8C? #{unread.id}"} & set(written)
    assert not any(t.startswith(("8C #", "8H #")) for t in written)


def test_a_meld_begun_just_across_the_seat_boundary_goes_whole_to_the_seat_holding_most_of_it():
    p = Player(jitter=0)
    p.run([], 1.0)
    first = det("3S", 300, 600)                  # in the neighbour's zone (seat 2, left) by a few pixels
    third = det("3C", 410, 600)                  # in the layer's own (seat 1, bottom), not touching it yet
    p.run([first], 0.6)                          # read, not yet published
    p.run([first, third], 0.6)
    p.run([first, det("3H", 355, 600), third], 2.0)     # the middle card joins them
    assert [m.labels for m in p.last.seats[0].melds] == [["3S", "3H", "3C"]]
    assert p.last.seats[1].cards == []


def test_two_seats_melds_touching_from_the_first_frame_stay_each_with_its_seat():
    # a whole table seen at once (the camera started over a dealt table): two seats' rows touch
    # across the boundary between them; the pile they make is not one seat's meld
    p = Player(jitter=1.0, seed=7)
    left = [det(c, 200 + 45 * k, 600) for k, c in enumerate(["2S", "3S", "4S"])]      # seat 2's zone
    bottom = [det(c, 335 + 45 * k, 600) for k, c in enumerate(["9H", "10H", "JH"])]   # seat 1's, 4S under 9H
    p.run(left + bottom, 2.0)
    seats = {st.seat: sorted(c.card for c in st.cards) for st in p.last.seats}
    assert seats[0] == ["10H", "9H", "JH"] and seats[1] == ["2S", "3S", "4S"]


def test_a_frame_the_recogniser_declared_blurred_freezes_the_table_however_sharp_it_measures():
    """A shaken camera's frame (``read`` False: not read) says nothing of the table: no card dies of it,
    for however long, and the picture is counted blurred from the first such frame."""
    p = Player(jitter=0)
    p.run(ROW, 2.0)
    for _ in range(int(6.0 * FPS)):        # 6 s: longer than a card is kept missing, and than max_blur_seconds
        p.last = p.tr.update(FrameObservation(t=p.t, width=FRAME[0], height=FRAME[1], cards=[], sharpness=1.0,
                                              read=False))
        p.t += 1.0 / FPS
    assert p.tr.frozen and p.tr.blurred_for >= 5.5
    assert len(p.versions) == 1 and len(p.tr.published.cards) == 3
    p.run(ROW, 1.0)
    assert len(p.versions) == 1 and p.tr.blurred_for == 0.0


def test_the_count_scan_skips_frames_that_were_not_read():
    """A frame too blurred to read (``read`` False: no cards) is no empty table for the count."""
    from tableref.live.scan import SeatScanner

    zones = default_zones(2, FRAME)
    scan = SeatScanner(zones, 2, window=4, stable_frames=2)
    cards = [det_full("4C", 500, 560), det_full("9D", 640, 560)]
    states = [scan.update(obs(k / FPS, cards)) for k in range(4)]
    assert any(s is not None for s in states)
    for k in range(4, 16):
        assert scan.update(FrameObservation(t=k / FPS, width=FRAME[0], height=FRAME[1], cards=[], read=False)) is None


def test_a_turned_strip_of_two_indices_is_a_partial_card():
    # a card under others shows a strip: two of its indices, its outline unknown. Turned, the box
    # round both indices is nearly card-sized; taken for a whole card, it overlapped the next meld
    # and joined the two (a rendered Desmoche hand laid at 30 degrees)
    tr = TableTracker(default_zones(3, FRAME))
    tr.card_ref_px = 85.0
    strip = DetectedCard("2H", 0.9, (155, 224, 238, 280), indices=[(155, 224, 178, 242), (217, 262, 238, 280)])
    assert tr._is_partial(strip)
    whole_box = DetectedCard("2H", 0.9, (155, 224, 238, 280), indices=[(155, 224, 178, 242)])
    assert not tr._is_partial(whole_box)            # a box beyond its indices: the card's own
    assert tr._is_partial(DetectedCard("2H", 0.9, (217, 262, 238, 280)))      # a lone index box


def test_a_card_read_at_photo_quality_is_not_carried_to_the_index_beside_it():
    """A card the camera's frames read once, from a box across its index and the next one, and a
    photo-quality look read clearly (the real fanned deal's 7H, defocused), is not taken along by
    the next index's reading (its 10H, read in every frame): that is another card. Carried there, the
    photo look's weight made the 10H's place a 7H, counted."""
    across = DetectedCard("7H", 0.43, (747, 263, 772, 291), indices=[(747, 263, 772, 291)])
    photo = DetectedCard("7H", 0.83, (747, 254, 763, 291), indices=[(747, 254, 763, 291)])
    ten = DetectedCard("10H", 0.49, (762, 261, 789, 287), indices=[(762, 261, 789, 287)])
    kept = replace(ten, fresh=False)        # its reading kept from the frame before: no new look
    p = Player(jitter=0)
    _feed(p, [([across], [])])
    p.tr.add_photo_readings([photo], p.t, (700, 200, 820, 340))
    _feed(p, [([ten], []), ([kept], []), ([ten], [])] + [([kept], [])] * 13)
    assert [c.card for c in p.tr.published.cards] == ["10H"]
    assert not any(tr.evidence.support.get("7H", 0.0) > 0 and tr.box[0] >= 755 for tr in p.tr.tracks)


def test_a_followed_cards_own_index_misread_is_a_look_at_it_not_a_new_card():
    # the real camera's defocused fanned deal: a 5D seen whole, then in some frames followed from its
    # lower index alone while its upper index is read 6D (0.40-0.47); the 6D was born as a card of its
    # own and published over the 5D
    tr = TableTracker(default_zones(4, FRAME))
    x, y, w, h = 500.0, 520.0, 120.0, 170.0
    upper, lower = (x + 5, y + 5, x + 25, y + 40), (x + w - 25, y + h - 40, x + w - 5, y + h - 5)
    quad = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
    whole = DetectedCard("5D", 0.9, (x, y, x + w, y + h), quad=quad, indices=[upper, lower])
    t = 0.0
    for _ in range(10):
        tr.update(obs(t, [replace(whole)]))
        t += 1.0 / FPS
    assert [c.card for c in tr.published.cards] == ["5D"]
    for k in range(15):
        if k % 3 == 0:
            cards = [replace(whole)]
        else:
            cards = [DetectedCard("5D", 0.8, lower, indices=[lower]), DetectedCard("6D", 0.45, upper, indices=[upper])]
        tr.update(obs(t, cards))
        t += 1.0 / FPS
    assert [c.card for c in tr.published.cards] == ["5D"]
    assert [x.label for x in tr.tracks] == ["5D"]
    assert tr.tracks[0].evidence.support.get("6D", 0.0) > 0       # counted against it, at its place
    # a card laid over that corner (the 5D no longer seen whole) is a new card
    for _ in range(10):
        tr.update(obs(t, [DetectedCard("5D", 0.8, lower, indices=[lower]), DetectedCard("9S", 0.8, upper, indices=[upper])]))
        t += 1.0 / FPS
    assert sorted(x.label for x in tr.confirmed_tracks()) == ["5D", "9S"]


def _twins_table(size, soft=False, frames=30, coarse=False):
    """A 640x360 camera's fanned KS and, beside it, the half-covered 6S read KS unsurely in every
    frame (0.45-0.6), the KS itself read surely but now and then as KC (the real fanned deal's 640x360
    feeds): the labels the tracker publishes."""
    scale = size[0] / 640
    ks_box = tuple(v * scale for v in (404.0, 121.0, 414.0, 139.0))
    six_box = tuple(v * scale for v in (424.0, 124.0, 436.0, 140.0))
    tr = TableTracker(default_zones(4, size))
    for k in range(frames):
        ks = DetectedCard("KC" if k % 5 == 4 else "KS", 0.57 if k % 5 == 4 else 0.72, ks_box, indices=[ks_box])
        six = DetectedCard("KS", 0.45 + 0.05 * (k % 4), six_box, indices=[six_box])
        tr.update(FrameObservation(t=k / 10, width=size[0], height=size[1], cards=[ks, six], soft=soft,
                                   coarse=coarse))
    return sorted(c.card for c in tr.published.cards) if tr.published else []


def test_a_label_read_unsurely_beside_a_card_of_that_label_in_a_small_or_soft_picture_is_unread():
    """Three packs hold identical cards, so nothing contradicts a half-covered index read as the
    card beside it (and on one pack the misread sets both aside); in a picture that lost its fine
    print (under 720 lines, or measured soft) a look reading under TWIN_SURE the label of a card
    followed beside it is an unsure look, in every frame, also where the twin itself is read
    otherwise for a moment."""
    assert _twins_table((640, 360)) == ["", "KS"]
    assert _twins_table((1280, 720), soft=True) == ["", "KS"]
    # read coarsely (the quick reading on a table of several packs): the same, however sharp the picture
    assert _twins_table((1280, 720), coarse=True) == ["", "KS"]
    # a sharp, large picture: identical cards side by side are two cards (a Marriage dublee; on one
    # pack the session sets both aside)
    assert _twins_table((1280, 720)) == ["KS", "KS"]


def test_a_second_box_on_followed_indices_is_a_look_at_them_not_a_new_card():
    """The real fanned deal's dim feed (100 frames, seed 2): the 9C and the 3D beside it, each followed
    from its index alone; in some frames a third box across the two was read 9D (unsure mostly, one
    clear look), was born a card, then followed the 9C's index 3 px aside and was counted 9D for the
    9C. A box over indices seen in the same frame is those indices read again: no new card, and where
    it lies on one of them its reading counts against that card's."""
    nine_box, three_box = (581.0, 57.0, 600.0, 88.0), (601.0, 50.0, 618.0, 85.0)
    across, aside = (592.0, 51.0, 610.0, 85.0), (584.0, 56.0, 597.0, 86.0)
    tr = TableTracker(default_zones(4, FRAME))

    def frame(k, extra=()):
        nine = DetectedCard("9C", 0.6, nine_box, indices=[nine_box])
        three = DetectedCard("3D", 0.7, three_box, indices=[three_box])
        tr.update(obs(k / 10, [nine, three, *extra]))

    for k in range(10):
        frame(k)
    assert sorted(c.card for c in tr.published.cards) == ["3D", "9C"]
    for k in range(10, 40):
        frame(k, [DetectedCard("9D", 0.39, across, indices=[across])] if k % 3 == 0 else
              [DetectedCard("9D", 0.45, aside, indices=[aside])] if k % 3 == 1 else [])
    assert sorted(c.card for c in tr.published.cards) == ["3D", "9C"]
    assert len(tr.tracks) == 2
    nine = next(t for t in tr.tracks if t.label == "9C")
    assert nine.evidence.support.get("9D", 0.0) > 0        # the box on its index counted against it
    three = next(t for t in tr.tracks if t.label == "3D")
    assert "9D" not in three.evidence.support               # the box across two tells nothing of either


def test_a_box_on_a_followed_index_missed_this_frame_is_a_look_at_it_not_a_new_card():
    """The real fanned deal from a 640×360 camera, defocused (100 frames, seed 2): the QC's index,
    followed from its index alone and read QS mostly, was missed in a frame where a taller box on it
    (overlapping it by half) read QC; a card settled as QS does not take another label's box unless it
    lies right on it, so that box was born a second card there, read QC since and the first QS: a QS
    counted for the QC. A box on an index followed a moment ago is that index read again, never a new
    card, and its reading counts against the card's."""
    index, taller = (944.0, 280.0, 974.0, 310.0), (948.0, 282.0, 982.0, 326.0)
    tr = TableTracker(default_zones(4, FRAME))
    for k in range(60):
        if k < 20 or k % 2:
            cards = [DetectedCard("QS", 0.6, index, indices=[index])]
        else:
            cards = [DetectedCard("QC", 0.5, taller, indices=[taller])]
        tr.update(obs(k / 10, cards))
        if k == 19:
            assert [c.card for c in tr.published.cards] == ["QS"]
    assert len(tr.tracks) == 1
    assert "QC" not in [c.card for c in tr.published.cards]
    assert tr.tracks[0].evidence.support.get("QC", 0.0) > 0     # the box on it counted against it


def test_an_index_alone_within_a_whole_cards_outline_but_off_its_corners_is_another_card():
    """A 640x360 camera's dim feed of the real fanned deal (100 frames, seed 0): the KS's index and the
    KD's above it were assembled into one card, whose outline reached over the 6S's index beside the
    KS's; when the KS's own index was missed, that card followed the 6S's index (read KS) and was
    counted there, a KS for the 6S. An index read alone moves a card seen whole only from one of the
    corner indices it was seen whole with."""
    size = (640, 360)
    ks_index, kd_index, six_index = (405.0, 121.0, 417.0, 140.0), (378.0, 35.0, 395.0, 50.0), (422.0, 123.0, 435.0, 142.0)
    quad = [[349.0, 27.0], [450.0, 27.0], [450.0, 144.0], [349.0, 144.0]]
    whole = DetectedCard("KS", 0.8, (349.0, 27.0, 450.0, 144.0), quad=quad, indices=[ks_index, kd_index])
    tr = TableTracker(default_zones(4, size))

    def frame(k, cards):
        tr.update(FrameObservation(t=k / 10, width=size[0], height=size[1], cards=cards))

    for k in range(10):
        frame(k, [replace(whole)])
    assert [c.card for c in tr.published.cards] == ["KS"]
    ks = tr.tracks[0]
    six = DetectedCard("KS", 0.6, six_index, indices=[six_index])      # the half-covered 6S, read KS
    frame(10, [replace(six)])                                          # the KS's index missed
    for k in range(11, 40):                                            # then read alone, beside the 6S's
        frame(k, [DetectedCard("KS", 0.8, ks_index, indices=[ks_index]), replace(six)])
    assert ks in tr.tracks and ks.det_box[0] < 415                     # the KS is followed where it lies
    assert [c.card for c in tr.published.cards if c.box[0] > 415] == [""]      # the 6S's index: unread
    assert [c.card for c in tr.published.cards if c.card] == ["KS"]


def test_a_published_label_its_evidence_no_longer_decides_is_shown_unread_while_its_zone_waits():
    """A 640x360 camera's clean Marriage feed of the real fan (seed 2): the 9C read 9S in its first
    looks, published so, then read 9D and 9C as often: its evidence no longer decides a label, but
    its seat, a tight fan whose readings come and go, did not settle again before the feed ended, and
    the table went on showing a 9S. Here a hand over the seat's other card holds the seat the same way."""
    p = Player(jitter=0)
    five, nine = det("5H", 500, 560), det("9S", 600, 560, conf=0.6)
    p.run([five, nine], 2.0)
    assert sorted(c.card for c in p.last.cards) == ["5H", "9S"]
    for k in range(10):        # the 5H under a hand; the 9's later looks read other suits as often
        p.run([replace(nine, card="9C" if k % 2 else "9D", confidence=0.5)], 1.0 / FPS)
    assert sorted(c.card for c in p.last.cards) == ["", "5H"]
    assert sorted(next(c for c in p.last.cards if not c.card).candidates) == ["9C", "9D", "9S"]
