"""What the fresh looks at one physical card say it is: a label only where the evidence is decisive.

Single camera frames misread a few cards each (a soft picture confuses ♠ with ♣, ♦ with ♥, K with
Q), and not always the same ones. A physical card (a tracked position on the table) is looked at
again in every frame, so the looks are combined per position, never per label:

* a look is **clear** when its confidence reaches ``CLEAR_CONFIDENCE`` (what the recogniser
  reports as a card), a **photo** look (the still table read again with the photo settings)
  counts ``PHOTO_WEIGHT`` looks; an unsure reading (one the recogniser did not report, however
  sure: its own corner or its ink doubts it) adds to its label's support, never a clear look;
* a label **counts** when it has a clear look and nothing at this position contradicts it: every
  other label has at most ``1 / DECISIVE`` of its summed confidence, over its clear looks and
  over all its looks, and every other label is read in at most ``1 / DECISIVE`` as many looks as it
  (a suit read one way surely and the other way unsurely, look after look, is not settled: the
  unsure looks weigh by their number, not only by their low confidence), and the other suits of
  its rank, together, have at most ``1 / DECISIVE`` of its confidence and of its looks (a soft
  picture confuses suits: a 9C read 9S in most looks, 9D in some and 9C in a few, is not a spade);
  a label once decided keeps it while it leads by ``KEEP`` on all of these but the last, which
  holds for a decided label too (a 9S read clearly in its first two looks is not kept on that lead
  once 9D and 9C come), and all the other labels read there, together, have at most ``1 / POOLED`` of
  its looks and of its confidence, also once decided (a box half on a tight fan's neighbouring
  index, read 6C, 8C, 8D and 9D in turn, is no 8D for one sure photo look). A look its own
  picture contradicts (its ink: a black 9C read 9D, the suit is not legible there; or its card's
  other corner, read plainly as another card: the top corner of a defocused 9H read 5H while the
  bottom one reads 9H 0.8) counts against every label, its own included: the label must have
  ``DECISIVE`` times as many looks, and as much confidence, as those. A
  position read 8C in some looks and 8H in others is **unread** (shown to the host with its
  candidates) until the evidence is decisive or the host says what it is;
* old looks fade (``decay`` per look), so a card swapped in place is read afresh;
* a card with a **twin** (``twin_beside``: in a picture that lost its fine print, a card of a label
  read there lies beside it, or anywhere on the table, ``vision.twins``) counts only its looks of
  that label of at least ``TWIN_SURE`` as clear (its other labels as any card's), and only once
  ``TWIN_LOOKS`` of them came (a photo look counting one) and they weigh at least ``TWIN_SHARE`` of
  the twin's own sure looks of that label (a photo look weighing ``PHOTO_WEIGHT``): the half-covered
  6S beside the KS, read KS 0.35-0.63 look after look and 0.66-0.67 in one or two, stays unread,
  and the KS itself counts from its surer looks. Both
  counts grow with the time the cards lie there, their ratio does not: in a 640×360 camera's dim
  feed of 100 frames the 6S read KS surely in a burst of four looks, the KS itself in 18.

Keeping a card read clearly in one look of five raised the share of real fanned cards read
from 0.909 to 0.944 with no wrong label, where a majority vote over the looks gave 0.907: one
clear look is enough, a contradicted one never is.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tableref.vision.twins import TWIN_SURE

CLEAR_CONFIDENCE = 0.35     # a look this sure counts as a clear reading (the recogniser's card threshold)
DECISIVE = 3.0              # the label must have this many times the summed confidence of any other
KEEP = 2.0                  # ... and once decided, it stays while it keeps this lead (no flicker at the edge)
# all the other labels read at a position, together, have at most 1 / POOLED of the label's looks
# and confidence: the label holds three fifths of what is read there
POOLED = 1.5
# a card with a twin beside counts once this many of its clear looks were at least TWIN_SURE (a count
# that does not fade, a photo look counting one: in 40-frame feeds of the real fan defocused, the KS
# beside the 6S has 4-13 such looks, the 6S read KS 1-2; in a 640×360 camera's clean feed the 6S was
# read KS 0.65 in one photo look, which weighing PHOTO_WEIGHT looks would have counted it)
TWIN_LOOKS = 3.0
# ... and once they are at least this share of the sure looks of the twin beside it at that label (two
# copies of a card side by side are read alike; a misread beside the card it copies, far less surely)
TWIN_SHARE = 1.0 / 3.0
PHOTO_WEIGHT = 4.0          # a look at photo quality (the still table read again) counts this many camera looks
CANDIDATES = 3              # an unread card shows this many candidates


@dataclass
class CardEvidence:
    """The fresh looks at one physical card: per label, the summed confidence and the clear looks.

    >>> ev = CardEvidence()
    >>> ev.add("8C", 0.8); ev.add("8C", 0.7)
    >>> ev.label
    '8C'
    >>> ev.add("8H", 0.8); ev.add("8H", 0.8)
    >>> ev.label, sorted(ev.candidates())
    ('', ['8C', '8H'])
    """

    decay: float = 0.97
    support: dict[str, float] = field(default_factory=dict)   # summed confidence per label
    clear: dict[str, float] = field(default_factory=dict)     # summed confidence of the clear looks per label
    sure: dict[str, float] = field(default_factory=dict)      # ... of the clear looks of at least TWIN_SURE
    sure_looks: dict[str, float] = field(default_factory=dict)  # ... and their weight, not faded
    sure_count: dict[str, int] = field(default_factory=dict)    # ... and their number, a photo look one
    seen: dict[str, float] = field(default_factory=dict)      # looks per label (faded as the confidence)
    contradicted: float = 0.0   # summed confidence of the looks their own picture contradicts (faded)
    contradicted_seen: float = 0.0  # ... and their number (faded)
    looks: int = 0
    # the labels doubted here (a card of that label lies beside it, or elsewhere: vision.twins; sure
    # looks only), each with that card's ``sure_looks`` (the dict itself, which its looks go on
    # filling: its sure looks at the label weigh against this one's; not its evidence, so no chain of
    # old cards is kept) or None; the key None: every label
    twins: dict = field(default_factory=dict, repr=False, compare=False)

    def add(self, label: str, confidence: float, weight: float = 1.0, clear: bool = True,
            contradicted: bool = False) -> None:
        """One fresh look read ``label`` with ``confidence`` (``weight``: PHOTO_WEIGHT for a photo look;
        ``clear=False``: an unsure reading, one the recogniser did not report as a card however sure
        it was (its own corner or its ink doubts it): it weighs against other labels, never for its own
        as a clear look; ``contradicted``: the look's own picture contradicts it (its ink says its
        suit's colour is wrong, or its card's other corner, read plainly, names another card), so it
        weighs against its own label too)."""
        if self.decay < 1.0:
            for d in (self.support, self.clear, self.sure, self.seen):
                for k in d:
                    d[k] *= self.decay
            self.contradicted *= self.decay
            self.contradicted_seen *= self.decay
        confidence = float(confidence)
        if contradicted:
            self.contradicted += weight * confidence
            self.contradicted_seen += weight
        self.support[label] = self.support.get(label, 0.0) + weight * confidence
        self.seen[label] = self.seen.get(label, 0.0) + weight
        if clear and confidence >= CLEAR_CONFIDENCE:
            self.clear[label] = self.clear.get(label, 0.0) + weight * confidence
        if clear and confidence >= TWIN_SURE:
            self.sure[label] = self.sure.get(label, 0.0) + weight * confidence
            self.sure_looks[label] = self.sure_looks.get(label, 0.0) + weight
            self.sure_count[label] = self.sure_count.get(label, 0) + 1
        self.looks += 1
        self.label = self._decide()

    def doubt_twin(self, twin: CardEvidence | None = None, label: str | None = None) -> None:
        """A card of ``label`` (None: of any label read here) lies beside it, or elsewhere, in a picture
        that lost its fine print (``twin``: that card's evidence): from now on only its looks of
        ``label`` of at least ``TWIN_SURE`` are clear ones (those before included), and they must
        weigh ``TWIN_SHARE`` of the twin's at least."""
        known = self.twins.get(label)
        if label not in self.twins or (twin is not None and twin.sure_looks is not known):
            self.twins[label] = twin.sure_looks if twin is not None else known
            self.label = self._decide()

    @property
    def twin_beside(self) -> bool:
        """Whether a label read here is doubted (:meth:`doubt_twin`)."""
        return bool(self.twins)

    def _doubted(self, label: str) -> bool:
        """Whether ``label`` is doubted here (:meth:`doubt_twin`): only its sure looks are clear ones."""
        return None in self.twins or label in self.twins

    label: str = ""             # the label the evidence decides, ``""`` while unread (see :meth:`add`)

    def _decide(self) -> str:
        """The label that leads decisively (or, once decided, still leads by ``KEEP``), else ``""``."""
        # a doubted label's clear looks are its sure ones
        clear = {k: (self.sure.get(k, 0.0) if self._doubted(k) else v) for k, v in self.clear.items()} \
            if self.twin_beside else self.clear
        best = max(clear, key=clear.get, default=None)
        if best is None or clear[best] <= 0.0:
            return ""
        if self._doubted(best):
            if self.sure_count.get(best, 0) < TWIN_LOOKS - 1e-9:
                return ""
            twin_sure = self.twins.get(best, self.twins.get(None))
            if twin_sure is not None and \
                    self.sure_looks.get(best, 0.0) < TWIN_SHARE * twin_sure.get(best, 0.0) - 1e-9:
                return ""
        need = KEEP if best == self.label else DECISIVE
        mine_clear, mine_support, mine_seen = clear[best], self.support.get(best, 0.0), self.seen.get(best, 0.0)
        if need * self.contradicted > mine_support or need * self.contradicted_seen > mine_seen:
            return ""
        for lab, sup in self.support.items():
            if lab == best:
                continue
            # a doubted label's clear looks do not count for it, but still against the others (a clear
            # 9S beside a real 9S may be a misread of this card, and it says this card is no 9D)
            if (need * self.clear.get(lab, 0.0) > mine_clear or need * sup > mine_support
                    or need * self.seen.get(lab, 0.0) > mine_seen):
                return ""
        # a position read as many things (a box half on the neighbouring index of a tight fan) is
        # not settled by one of them, also once decided
        if (POOLED * (sum(self.seen.values()) - mine_seen) > mine_seen
                or POOLED * (sum(self.support.values()) - mine_support) > mine_support):
            return ""
        # the suit is what a soft picture confuses: the other suits of its rank, together, must not
        # be read in a third as many looks either (9S read clearly in some looks, 9D and 9C unsure
        # in others, is not settled as a spade), also once decided: a suit read clearly in the first
        # two looks, before the others came, is not kept on that lead
        rank = best[:-1]
        others = [lab for lab in self.support if lab != best and lab[:-1] == rank]
        if len(others) > 1 and (DECISIVE * sum(self.support[lab] for lab in others) > mine_support
                                or DECISIVE * sum(self.seen.get(lab, 0.0) for lab in others) > mine_seen):
            return ""
        return best

    def candidates(self, n: int = CANDIDATES) -> list[str]:
        """The labels read here, best supported first (what an unread card might be)."""
        ranked = sorted(self.support, key=lambda k: (-self.clear.get(k, 0.0), -self.support[k], k))
        return ranked[:n]

    def share(self, label: str) -> float:
        """``label``'s share of the summed confidence, 0..1."""
        total = sum(self.support.values())
        return self.support.get(label, 0.0) / total if total > 0 else 0.0
