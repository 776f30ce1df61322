"""Rule-following bots for the simulator.

A bot plays a whole hand; every change the camera could see (melds laid, cards
added, desmoche moves, the centre's face-up card, hands laid down for counting)
becomes a :class:`Keyframe`; the hand's outcome, computed by the referee, is the
ground truth that ``tableref watch`` must reproduce from the video.

The bots are simple and greedy and only choose: a Desmoche hand is played on the
referee's :class:`~tableref.referee.desmoche.hand.DesmocheHand` (the deal, the
Cambio, automatic wins, draws, claims, payments and the settlement are its), a
Marriage hand is analysed and settled by :mod:`referee.marriage`; they never cheat.
"""
from __future__ import annotations

import importlib
import itertools
import random
from dataclasses import dataclass, field

from tableref.live.setup import DEFAULT_NAMES
from tableref.referee.cards import Card, format_cards, full_pack
dm_autowin = importlib.import_module("tableref.referee.desmoche.autowin")  # (the package re-exports a function of that name)
from tableref.referee.desmoche.hand import DesmocheHand
from tableref.referee.desmoche.melds import laid_order, meld_kind
from tableref.referee.desmoche.settings import desmoche_settings


@dataclass
class Keyframe:
    """The visible table after one action.

    ``table[s]`` is seat ``s``'s melds, each a list of card labels in the order
    they lie left to right as seen from the seat; ``centre`` the face-up cards in
    the centre zone; ``stock`` how many face-down cards lie in the centre;
    ``actor`` the seat whose hand reaches over the table for this change (None:
    nobody); ``targets`` the labels of the cards that appeared or moved.
    """

    table: list[list[list[str]]]
    centre: list[str]
    stock: int
    actor: int | None
    targets: list[str]
    text: str
    face_down: list[list[bool]] | None = None

    def to_json(self) -> dict:
        return {"table": self.table, "centre": self.centre, "stock": self.stock, "actor": self.actor,
                "targets": self.targets, "text": self.text}


@dataclass
class Script:
    game: str
    seed: int
    players: list[str]
    keyframes: list[Keyframe]
    truth: dict
    layout: dict = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Desmoche
# ---------------------------------------------------------------------------------------------
def _labels(melds) -> list[list[str]]:
    return [format_cards(m) for m in melds]


class DesmocheBot:
    """A greedy Desmoche player: uses every card it can, pays its least useful card.

    The bot only chooses; the hand it plays (its cards, its melds, whose turn it is,
    who may take a card) is the referee's :class:`DesmocheHand`, which refuses any
    move the rules forbid.
    """

    def __init__(self, name: str, seat: int, rng: random.Random, game: DesmocheHand, sloppy: float = 0.0):
        self.name, self.seat, self.rng, self.game = name, seat, rng, game
        self.sloppy = sloppy            # chance of laying a meld out of order (a warning, not illegal)

    @property
    def hand(self) -> list[Card]:
        return self.game.hands[self.name]

    @property
    def melds(self) -> list[list[Card]]:
        return self.game.table[self.name]

    # -- what can be done with a card ----------------------------------------------------
    def _order(self, cards: list[Card]) -> list[Card]:
        good = laid_order(cards)
        if len(good) >= 3 and self.rng.random() < self.sloppy:
            bad = list(good)
            bad[0], bad[1] = bad[1], bad[0]
            return bad
        return good

    def plan(self, card: Card):
        """The best legal use of ``card``: (score, action) or None.

        Actions: ("extend", meld_index, side) | ("new", hand_cards) |
        ("desmoche", meld_index, taken_card, hand_cards).
        """
        options = []
        for i, m in enumerate(self.melds):
            kind = meld_kind(m)
            if card not in m and meld_kind([*m, card]) is not None:
                side = "left" if kind == "run" and card.rank < min(c.rank for c in m) else "right"
                options.append((1, ("extend", i, side)))
        hand = self.hand
        for k in (4, 3, 2):
            for combo in itertools.combinations(hand, k):
                if meld_kind(list(combo) + [card]) is not None:
                    options.append((k + 0.5, ("new", list(combo))))
            if any(o[0] >= k for o in options):
                break
        for i, m in enumerate(self.melds):
            if len(m) < 4:
                continue
            for x in m:
                rest = [c for c in m if c != x]
                if meld_kind(rest) is None:
                    continue
                for k in (2, 1):
                    for combo in itertools.combinations(hand, k):
                        if meld_kind(list(combo) + [card, x]) is not None:
                            options.append((k + 0.25, ("desmoche", i, x, list(combo))))
        if not options:
            return None
        best = max(o[0] for o in options)
        cands = [o for o in options if o[0] == best]
        return cands[self.rng.randrange(len(cands))]

    def lay(self, card: Card, action) -> tuple[list[list[Card]], list[str]]:
        """The bot's whole table after laying ``card`` as planned (and extending its melds with
        hand cards that fit, as a player may whenever they use a card), and the labels of the
        cards that appeared or moved. Nothing changes until the referee accepts it."""
        hand = list(self.hand)
        melds = [list(m) for m in self.melds]
        targets = [str(card)]
        kind = action[0]
        if kind == "extend":
            _, i, side = action
            if side == "left":
                melds[i].insert(0, card)
            else:
                melds[i].append(card)
        elif kind == "new":
            cards = action[1]
            for c in cards:
                hand.remove(c)
            melds.append(self._order(cards + [card]))
            targets += [str(c) for c in cards]
        elif kind == "desmoche":
            _, i, x, cards = action
            for c in cards:
                hand.remove(c)
            melds[i].remove(x)
            melds.append(self._order(cards + [card, x]))
            targets += [str(c) for c in cards] + [str(x)]
        changed = True
        while changed and hand:
            changed = False
            for c in list(hand):
                for m in melds:
                    if c not in m and meld_kind(m + [c]) is not None:
                        if meld_kind(m) == "run" and c.rank < min(x.rank for x in m):
                            m.insert(0, c)
                        else:
                            m.append(c)
                        hand.remove(c)
                        targets.append(str(c))
                        changed = True
                        break
        return melds, targets

    def usefulness(self, c: Card, pool: list[Card]) -> float:
        score = 0.0
        for o in pool:
            if o == c:
                continue
            if o.rank == c.rank:
                score += 1.0
            elif o.suit == c.suit and abs(o.rank - c.rank) <= 2:
                score += 1.2 if abs(o.rank - c.rank) == 1 else 0.6
        for m in self.melds:
            if c not in m and meld_kind([*m, c]) is not None:
                score += 3
        return score + self.rng.random() * 0.1

    def payment(self) -> Card:
        """The hand card to pay with: the least useful."""
        pool = self.hand + [c for m in self.melds for c in m]
        return min(self.hand, key=lambda x: self.usefulness(x, pool))

    def cambio_card(self) -> Card:
        """The hand card to pass in the Cambio: the least useful."""
        return min(self.hand, key=lambda x: self.usefulness(x, self.hand))


def play_desmoche(seed: int, n_players: int | None = None, rules: dict | None = None,
                  stake: int = 1, max_turns: int = 200) -> Script:
    """Play one hand of Desmoche with bots; return the script and the truth.

    The hand is the referee's :class:`DesmocheHand`: the deal, the Cambio, the automatic
    wins, every draw, take, payment and claim go through it, so a bot can only do what
    the rules allow; the settlement is its settlement.
    """
    settings = desmoche_settings(rules)
    rng = random.Random(seed)
    n = n_players or rng.choice([2, 3, 3, 4, 4])
    names = list(DEFAULT_NAMES[:n])
    dealer = names[-1]
    game = DesmocheHand(names, dealer=dealer, rules=settings, stake=stake)
    sloppy = 0.15
    bots = [DesmocheBot(nm, i, random.Random(rng.random()), game, sloppy) for i, nm in enumerate(names)]
    by_name = {b.name: b for b in bots}
    deck = full_pack()
    rng.shuffle(deck)
    dealt: dict[str, list[Card]] = {p: [] for p in names}
    for _ in range(9):
        for p in game.order:
            dealt[p].append(deck.pop())
    game.deal(dealt, stock=deck[::-1])          # the stock is drawn from the end of the shuffled pack
    frames: list[Keyframe] = []
    discard: list[Card] = []                    # face up in the centre: the cards nobody used

    def snap(actor, targets, text, centre=None, face_up_hands=None):
        table = []
        for b in bots:
            if face_up_hands and b.name in face_up_hands:
                table.append([format_cards(face_up_hands[b.name])])
            else:
                table.append(_labels(b.melds))
        cen = centre if centre is not None else ([str(discard[-1])] if discard else [])
        frames.append(Keyframe(table, cen, len(game.stock), actor, list(targets), text))

    snap(None, [], "the hand is dealt")
    # the Cambio: each passes one card face down to the next player in the direction of play
    for b in bots:
        game.cambio(b.name, b.cambio_card())
    # automatic wins (before or after the Cambio), declared before the first draw
    for b in bots:
        if dm_autowin.best_autowin(b.hand, settings, game.dealt[b.name])[0]:
            game.declare_autowin(b.name)
    claims = dict(game.claims)
    if claims:
        game.end_declarations()
        shown = {p: claims[p][1] for p in claims}
        snap(None, [str(c) for p in shown for c in shown[p]],
             "automatic win declared: " + ", ".join(f"{p} ({claims[p][0]})" for p in claims),
             centre=[], face_up_hands={p: _autowin_layout(shown[p]) for p in shown})
        melds_final = {p: ([shown[p]] if p in shown else []) for p in names}
    else:
        _play(game, by_name, discard, snap, max_turns)
        melds_final = {p: [list(m) for m in game.table[p]] for p in names}
    settlement = game.settle()
    # a last, still frame so the end state is visible for a while
    last = frames[-1]
    frames.append(Keyframe(last.table, last.centre, last.stock, None, [], "end of hand"))
    truth = {
        "game": "desmoche",
        "seed": seed,
        "players": names,
        "dealer": dealer,
        "stake": stake,
        "winner": game.winner,
        "autowin": game.autowin,
        "net": dict(settlement.net),
        "settlement": settlement.to_json(),
        "melds": {p: _labels(ms) for p, ms in melds_final.items()},
        "rules": rules or {},
    }
    return Script("desmoche", seed, names, frames, truth)


def _play(game: DesmocheHand, by_name: dict[str, DesmocheBot], discard: list[Card], snap, max_turns: int) -> None:
    """Play from the first draw to the end of the hand: each card on offer goes to the first bot
    that uses it, in the order the referee gives the say; a keyframe for every change of the table."""
    turns = 0
    card = None
    while game.phase != "over":
        if game.must_pay is not None:          # the forced meld put the card onto this player's meld
            payer = by_name[game.must_pay]
            paid = payer.payment()
            game.pay(payer.name, paid)
            snap(payer.seat, [str(card)], f"{card} goes onto {payer.name}'s meld (forced meld); "
                                          f"{payer.name} pays {paid}")
            card = paid
            continue
        if game.offer is None:
            if turns >= max_turns:
                raise RuntimeError(f"the hand did not end in {max_turns} draws")
            turns += 1
            card = game.draw(game.turn if game.phase == "play" else game.order[0])
            continue
        offer = game.offer
        speaker = offer.owner if offer.drawer_stage else offer.pending[0]
        bot = by_name[speaker]
        plan = bot.plan(card)
        if plan is None:
            game.decline(speaker)
            if game.winner is not None:         # the forced meld made ten cards on the table
                snap(by_name[game.winner].seat, [str(card)],
                     f"{card} goes onto {game.winner}'s meld and {game.winner} has ten cards on the table")
            elif game.offer is None and game.must_pay is None:
                discard.append(card)            # nobody used it
            continue
        melds, targets = bot.lay(card, plan[1])
        if game.take(speaker, melds):
            snap(bot.seat, targets, f"{speaker} lays {card} and has ten cards on the table")
        elif game.must_pay == speaker:
            paid = bot.payment()
            game.pay(speaker, paid)
            snap(bot.seat, targets, f"{speaker} uses {card} and pays {paid}")
            card = paid
        else:
            snap(bot.seat, targets, f"{speaker} lays {card}: {game.disqualified[speaker]}")


def _autowin_layout(cards: list[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: (c.suit, c.rank))


# ---------------------------------------------------------------------------------------------
# Marriage
# ---------------------------------------------------------------------------------------------
def _mar_usefulness(c: Card, pool: list[Card], wild=None) -> float:
    if wild is not None and wild(c):
        return 100.0
    score = 0.0
    for o in pool:
        if o is c:
            continue
        if o == c:
            score += 2.0                      # identical: tunnela / dublee material
        elif o.suit == c.suit:
            d = abs(o.high_rank - c.high_rank) if (o.rank == 1 or c.rank == 1) else abs(o.rank - c.rank)
            d = min(d, abs(o.rank - c.rank))
            if d == 1:
                score += 1.5
            elif d == 2:
                score += 0.7
        elif o.rank == c.rank:
            score += 0.8
    return score


def play_marriage(seed: int, n_players: int | None = None, rules: dict | None = None,
                  max_turns: int = 400, redeal_limit: int = 12) -> Script:
    """Play a hand of Marriage with bots until someone goes out; return the count as a script.

    The video shows the end of the hand: the tiplu face up in the centre, the
    combinations each seen player showed, then every player laying down the rest
    of the hand for the count. Bots never expose tunnelas at the deal.
    """
    from tableref.referee.marriage import PlayerScore, analyse_hand, settle
    from tableref.referee.marriage.settings import build_rules
    from tableref.referee.marriage.wild import Wild

    mrules = build_rules(rules)
    rng = random.Random(f"marriage-{seed}")
    n = n_players or rng.choice([2, 3, 3, 4, 4])
    names = list(DEFAULT_NAMES[:n])
    for attempt in range(redeal_limit):
        deck = full_pack() * 3
        rng.shuffle(deck)
        hands = {p: [deck.pop() for _ in range(21)] for p in names}
        discard = [deck.pop()]
        shown: dict[str, list[list[Card]]] = {}
        seen: dict[str, bool] = {p: False for p in names}
        tiplu: Card | None = None
        winner = None
        turn = 0
        current = 0
        while deck and turn < max_turns and winner is None:
            turn += 1
            p = names[current]
            hand = hands[p]
            hand.append(deck.pop())
            dummy = tiplu or _dummy_tiplu(hand)
            if not seen[p]:
                a = analyse_hand(dummy, hand, rules=mrules, players=n)
                if a.can_see_joker:
                    seen[p] = True
                    shown[p] = [list(m) for m in (a.melds[:3] if a.see_joker_by == "combinations" else a.melds)]
                    if tiplu is None:
                        tiplu = deck.pop()
            if seen[p]:
                a = analyse_hand(tiplu, hand, rules=mrules, players=n)
                if a.can_finish:
                    winner = p
                    out = a.spare[0] if a.spare else min(hand, key=lambda c: _mar_usefulness(c, hand))
                    hand.remove(out)
                    discard.append(out)
                    break
            keep = [c for m in shown.get(p, []) for c in m]
            wild = Wild(tiplu).is_joker if (seen[p] and tiplu is not None) else None
            candidates = list(hand)
            for c in keep:
                if c in candidates:
                    candidates.remove(c)
            worst = min(candidates, key=lambda c: _mar_usefulness(c, hand, wild) + rng.random() * 0.05)
            hand.remove(worst)
            discard.append(worst)
            current = (current + 1) % n
        if winner is not None:
            break
    else:
        raise RuntimeError(f"no Marriage bot went out in {redeal_limit} deals (seed {seed})")
    analyses = {}
    scores = []
    for p in names:
        a = analyse_hand(tiplu, hands[p], seen=seen[p], rules=mrules, players=n)
        analyses[p] = a
        scores.append(PlayerScore(p, int(a.maal_counted), seen=seen[p]))
    wa = analyses[winner]
    dublee_win = wa.finish_by == "dublees"
    s = settle(winner, scores, dublee_win=dublee_win, rules=mrules)
    # the video: tiplu in the centre, shown combinations on the table, then each seat lays down
    frames: list[Keyframe] = []
    table: list[list[list[str]]] = [[] for _ in names]
    for p in names:
        pool = list(hands[p])
        ok = True
        for c in (c for m in shown.get(p, []) for c in m):
            if c in pool:
                pool.remove(c)
            else:
                ok = False
        if not ok:
            shown[p] = []            # (the winner discarded a shown card: show nothing before the count)
    for i, p in enumerate(names):
        if shown.get(p):
            table[i] = [format_cards(m) for m in shown[p]]
    frames.append(Keyframe([list(t) for t in table], [str(tiplu)], 0, None, [], "the count: the tiplu is shown"))
    order = [winner] + [p for p in names if p != winner]
    for p in order:
        i = names.index(p)
        rest = list(hands[p])
        for m in shown.get(p, []):
            for c in m:
                rest.remove(c)
        if p == winner:
            groups = [list(m) for m in wa.melds]
            flat = [c for m in groups for c in m]
            if sorted(flat) == sorted(hands[p]):
                table[i] = [format_cards(m) for m in groups]
                frames.append(Keyframe([list(t) for t in table], [str(tiplu)], 0, i,
                                       [str(c) for c in rest], f"{p} lays down the winning hand"))
                continue
        groups = _marriage_groups(rest)
        table[i] = table[i] + [format_cards(g) for g in groups]
        frames.append(Keyframe([list(t) for t in table], [str(tiplu)], 0, i, [str(c) for c in rest],
                               f"{p} lays down the hand for the count"))
    frames.append(Keyframe([list(t) for t in table], [str(tiplu)], 0, None, [], "end of the count"))
    truth = {
        "game": "marriage",
        "seed": seed,
        "players": names,
        "tiplu": str(tiplu),
        "winner": winner,
        "dublee_win": dublee_win,
        "net": dict(s.net),
        "maal": {p: int(analyses[p].maal_counted) for p in names},
        "seen": dict(seen),
        "hands": {p: format_cards(hands[p]) for p in names},
        "settlement": s.to_json(),
        "rules": rules or {},
    }
    return Script("marriage", seed, names, frames, truth)


def _dummy_tiplu(hand: list[Card]) -> Card:
    from collections import Counter

    counts = Counter(hand)
    for c in full_pack():
        if counts.get(c, 0) == 0:
            return c
    return full_pack()[0]


def _marriage_groups(cards: list[Card]) -> list[list[Card]]:
    """Lay a hand down in rows of three, sorted by suit and rank (how people fan a hand)."""
    cs = sorted(cards, key=lambda c: (c.suit, c.rank))
    return [cs[i:i + 3] for i in range(0, len(cs), 3)]
