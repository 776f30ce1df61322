"""The Marriage count scan: which cards lie in each seat zone, voted over many frames.

At the count every player's 21 cards lie still in front of them, many of them
identical (three packs) and overlapping. What the count needs is not each card's
identity over time but, per seat, the *multiset* of cards. :class:`SeatScanner`
reads it straight from the recogniser's per-frame detections: every frame counts
each label per zone (a pile of touching cards counts for the seat of its whole
cards). A seat's multiset starts from each label's median count over the last
frames (``window``) and, knowing that a hand has 21 cards, takes in cards read in
only some of the frames (an overlapped corner) while it is short of 21, and drops
the least-supported counts while it is over (a corner read twice); see
:meth:`SeatScanner._hand_count`. The centre zone takes the upper quartile
(``SEEN_QUANTILE``). No card is counted more than three times over the table
(three packs): the copy read in the fewest frames goes. A hand passing over or a
one-frame misreading does not change the result. When the per-seat multisets have not
changed for ``stable_frames`` analysed frames, :meth:`SeatScanner.update`
returns them as a :class:`tableref.live.events.TableState` (one loose card per
physical card, ids negative so they never collide with tracker ids).

It complements the tracker (which gives the melds for display) and is what the
Marriage count is decided on.
"""
from __future__ import annotations

from collections import Counter, deque

from tableref.live.state import PlacedCard, SeatCards, TableState


SEEN_QUANTILE = 0.75
HAND_SIZE = 21          # cards a Marriage hand lays down for the count
PACKS = 3               # Marriage is played with three packs: three of each card at most
FILL_SHARE = 0.15       # a seat short of a hand takes a card read in this share of the frames
SURE_SHARE = 0.9        # a seat over a hand keeps a count read in this share of the frames


def _share(counts: list[int], c: int) -> float:
    """Share of the frames (their counts of one card) that read the card at least ``c`` times."""
    return sum(1 for x in counts if x >= c) / len(counts)


class SeatScanner:
    def __init__(self, zones, n_seats: int, window: int = 11, stable_frames: int = 5,
                 min_confidence: float = 0.3, min_sharpness: float = 0.5, hand_size: int | None = HAND_SIZE,
                 packs: int | None = PACKS):
        self.zones = zones
        self.n_seats = n_seats
        self.window = window
        self.stable_frames = stable_frames
        self.min_confidence = min_confidence
        self.min_sharpness = min_sharpness
        self.hand_size = hand_size
        self.packs = packs
        self.frames: deque = deque(maxlen=window)
        self._candidate = None
        self._count = 0
        self.published = None

    def _frame_counts(self, obs) -> list[Counter]:
        out = [Counter() for _ in range(self.n_seats + 1)]      # seats..., centre last
        size = (obs.width, obs.height) if obs.width and obs.height else None
        cards = [d for d in obs.cards if d.confidence >= self.min_confidence]
        for d, idx in zip(cards, self._zone_indices(cards, size)):
            if idx is not None and idx <= self.n_seats:
                out[idx][d.card] += 1
        return out

    def _zone_indices(self, cards, size) -> list[int | None]:
        """Seat index (centre = ``n_seats``) of each card: a pile of touching cards (a meld)
        goes whole to the seat holding most of it, so a meld laid across a zone boundary
        is not split between two players (a seat wins over the centre)."""
        import numpy as np

        from tableref.vision.layout import pile_seat, piles

        own: list[int | None] = []
        for d in cards:
            z = self.zones.zone_at(d.centre[0], d.centre[1], size)
            own.append(None if z is None else (self.n_seats if z.seat is None else z.seat))
        if len(cards) < 2:
            return own
        polys = []
        for d in cards:
            if d.quad:
                pts = np.asarray(d.quad, dtype=np.float32).reshape(4, 2)
            else:
                x1, y1, x2, y2 = d.box
                pts = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], dtype=np.float32)
            polys.append(self.zones.to_table(pts, size).reshape(4, 2))
        partial = [not d.quad for d in cards]
        out = list(own)
        for pile in piles(polys, partial):
            best = pile_seat([own[k] for k in pile], [partial[k] for k in pile], self.n_seats)
            if best is not None:
                for k in pile:
                    out[k] = best
        return out

    def robust(self) -> list[Counter]:
        n = len(self.frames)
        res = [Counter() for _ in range(self.n_seats + 1)]
        if n == 0:
            return res
        all_vals = []
        for z in range(self.n_seats + 1):
            labels = set()
            for fr in self.frames:
                labels |= set(fr[z])
            vals = {lab: sorted(fr[z].get(lab, 0) for fr in self.frames) for lab in labels}
            all_vals.append(vals)
            if z < self.n_seats and self.hand_size:
                res[z] = self._hand_count(vals, n)
                continue
            for lab, v in vals.items():
                # upper quartile: a card read in a quarter of the frames counts (overlapped
                # corners are often missed; a misreading is rarely the same one that often)
                med = v[min(n - 1, int(SEEN_QUANTILE * n))]
                if med:
                    res[z][lab] = med
        if self.packs:
            # three packs hold three of each card: a card counted more often is over-counted
            # where its last copy was read in the fewest frames
            for lab in set().union(*res):
                while sum(c[lab] for c in res) > self.packs:
                    z = min((z for z in range(len(res)) if res[z][lab]),
                            key=lambda z: _share(all_vals[z][lab], res[z][lab]))
                    res[z][lab] -= 1
                    if not res[z][lab]:
                        del res[z][lab]
        return res

    def _hand_count(self, vals: dict[str, list[int]], n: int) -> Counter:
        """A seat's multiset, knowing a laid-down hand has ``hand_size`` cards.

        Start from each card's median count; while fewer than a hand, add the card read
        once more in the largest share of the frames (an overlapped corner is read in some
        frames only), if that share is at least ``FILL_SHARE``; while more than a hand, take
        back the count held in the smallest share (a corner read twice, a misreading),
        unless it holds in nearly every frame (then the seat really holds more cards:
        22, or something that is not a hand, which the referee reports).
        """
        cnt = Counter({lab: v[n // 2] for lab, v in vals.items() if v[n // 2]})

        def share(lab: str, c: int) -> float:
            return _share(vals[lab], c)

        total = sum(cnt.values())
        while total < self.hand_size and vals:
            lab = max(sorted(vals), key=lambda m: share(m, cnt[m] + 1))
            if share(lab, cnt[lab] + 1) < FILL_SHARE:
                break
            cnt[lab] += 1
            total += 1
        while total > self.hand_size:
            lab = min(sorted(cnt), key=lambda m: share(m, cnt[m]))
            if share(lab, cnt[lab]) >= SURE_SHARE:
                break
            cnt[lab] -= 1
            total -= 1
            if not cnt[lab]:
                del cnt[lab]
        return cnt

    def update(self, obs) -> TableState | None:
        """Feed one frame; returns a new stable scan, or None. A frame not read (too blurred) says nothing."""
        if getattr(obs, "occluded", False) or getattr(obs, "sharpness", 1.0) < self.min_sharpness \
                or not getattr(obs, "read", True):
            return None
        self.frames.append(self._frame_counts(obs))
        if len(self.frames) < min(self.window, self.stable_frames):
            return None
        cur = self.robust()
        key = tuple(tuple(sorted(c.items())) for c in cur)
        if key != self._candidate:
            self._candidate = key
            self._count = 1
            return None
        self._count += 1
        if self._count >= self.stable_frames and key != self.published:
            self.published = key
            return self._state(cur, float(obs.t))
        return None

    def _state(self, counts: list[Counter], t: float) -> TableState:
        seats = []
        nid = -1
        for z in range(self.n_seats):
            loose = []
            for lab, k in sorted(counts[z].items()):
                for _ in range(k):
                    loose.append(PlacedCard(nid, lab))
                    nid -= 1
            seats.append(SeatCards([], loose))
        centre = []
        for lab, k in sorted(counts[self.n_seats].items()):
            for _ in range(k):
                centre.append(PlacedCard(nid, lab))
                nid -= 1
        return TableState(seats, centre, t)
