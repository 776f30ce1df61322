"""Second opinions for uncertain card readings, checked against what one pack allows.

The tracker votes each physical card's label over many frames. When the winning
label of a card was close (another label got a real share of the votes) and
the table as read is impossible in Desmoche -- the same card twice (one pack
holds each card once) -- :func:`repair_duplicates` tries the runner-up labels
of the uncertain cards and keeps the smallest change that makes the table
possible. Invalid melds are never "repaired" into valid ones: a player's
wrong meld must stay wrong. Every change is reported as an event, so the host
can see it and correct it (``correct_card``).
"""
from __future__ import annotations

import itertools
from collections import Counter

from tableref.live.state import SeatCards, TableState, relabel

MIN_SHARE = 0.2          # a runner-up label must have at least this share of the card's votes


def alternatives(tracker, track_id: int, current: str) -> list[str]:
    """Runner-up labels of a track, best first (only those with a real share of the votes)."""
    if tracker is None:
        return []
    for tr in getattr(tracker, "tracks", []):
        if tr.id == track_id:
            tot = sum(tr.votes.values())
            if tot <= 0:
                return []
            alts = sorted(((v / tot, lab) for lab, v in tr.votes.items() if lab != current), reverse=True)
            return [lab for share, lab in alts if share >= MIN_SHARE]
    return []


def _duplicates(state: TableState) -> int:
    labels = Counter(c.card for s in state.seats for c in s.cards)
    labels.update(c.card for c in state.centre)
    return sum(k - 1 for k in labels.values() if k > 1)


def repair_duplicates(state: TableState, tracker, max_changes: int = 2) -> tuple[TableState, list[dict]]:
    """Resolve cards read twice using runner-up labels; returns (state, change notes)."""
    if _duplicates(state) == 0:
        return state, []
    counts = Counter(c.card for s in state.seats for c in s.cards)
    counts.update(c.card for c in state.centre)
    suspects = [c for s in state.seats for c in s.cards if counts[c.card] > 1]
    suspects += [c for c in state.centre if counts[c.card] > 1]
    options = []
    for c in suspects:
        for alt in alternatives(tracker, c.track_id, c.card):
            options.append((c, alt))
    best = None
    for k in range(1, max_changes + 1):
        for combo in itertools.combinations(options, k):
            ids = [c.track_id for c, _ in combo]
            if len(set(ids)) < len(ids):
                continue
            changes = {c.track_id: alt for c, alt in combo}
            trial = relabel(state, changes)
            if _duplicates(trial) == 0:
                best = (combo, trial)
                break
        if best:
            break
    if best is None:
        return state, []
    combo, trial = best
    notes = [{"track_id": c.track_id, "read": c.card, "taken_as": alt,
              "text": f"card #{c.track_id} was read as {c.card}, but {c.card} is already on the table; "
                      f"its second reading {alt} is used (the host can correct it)"} for c, alt in combo]
    return trial, notes


def set_aside_overcounted(state: TableState, packs: int) -> tuple[TableState, list[dict]]:
    """Cards read more often than ``packs`` packs hold them (the same card at two places in a
    one-pack game, a fourth copy in Marriage's three packs): a recognition problem, never counted.
    Every copy of such a label is set aside (which one is misread is not known), and so is a meld
    holding one (a meld read in part is not judged); returns (state, one note per label) for the
    host, who can correct the cards by their numbers."""
    counts = Counter(c.card for s in state.seats for c in s.cards)
    counts.update(c.card for c in state.centre)
    over = {lab for lab, k in counts.items() if k > packs}
    if not over:
        return state, []
    seats = []
    for s in state.seats:
        melds = [list(m) for m in s.melds if not any(c.card in over for c in m)]
        seats.append(SeatCards(melds, [c for c in s.loose if c.card not in over]))
    centre = [c for c in state.centre if c.card not in over]
    notes = []
    for lab in sorted(over):
        ids = sorted(c.track_id for s in state.seats for c in s.cards if c.card == lab) + \
            sorted(c.track_id for c in state.centre if c.card == lab)
        where = ", ".join(f"#{i}" for i in ids)
        notes.append({"card": lab, "track_ids": ids, "copies": counts[lab], "packs": packs,
                      "text": f"{lab} is read {counts[lab]} times ({where}) but {packs} pack(s) hold it "
                              f"{packs} time(s): not counted until the host corrects the misread card(s)"})
    return TableState(seats, centre, state.t), notes
