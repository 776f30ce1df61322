"""A small stand-in for tableref.live.session.TableSession, for testing the web API and ledger in isolation.

Only the tests use it; ``tableref serve`` and the browser test use the real session.
"""
from __future__ import annotations

import queue
import threading


class FakeSession:
    def __init__(self, game="desmoche", players=("Ana", "Beto", "Cris", "Dani")):
        self.game = game
        self.players = list(players)
        self.rules = {}
        self.stake = 1
        self.source = "demo"
        self.zones = None
        self.hand_no = 1
        self.winner = None
        self.result = None
        self.events = []
        self.cards = {4: "3H", 7: "4H", 9: "5H", 11: "8C", 12: "8D", 13: "8S"}
        self.corrections = []
        self.finished = []
        self._subs: list[queue.Queue] = []
        self._lock = threading.Lock()
        self.on_hand_end = None
        self.pot = 0
        self.jpeg = b"\xff\xd8\xff\xe0fakejpeg\xff\xd9"
        self.camera_status = "ok"

    # -- contract
    def start(self):
        pass

    def stop(self):
        pass

    def subscribe(self):
        q = queue.Queue()
        with self._lock:
            self._subs.append(q)
        return q

    def unsubscribe(self, q):
        with self._lock:
            if q in self._subs:
                self._subs.remove(q)

    def emit(self, event):
        self.events.append(event)
        with self._lock:
            subs = list(self._subs)
        for q in subs:
            q.put(event)

    def number_hands_from(self, first):
        self.hand_no = first

    def latest_jpeg(self):
        return self.jpeg

    @property
    def camera(self):
        return {"status": self.camera_status, "message": "", "fps": 7.5, "source": self.source}

    def snapshot(self):
        seats = []
        for i, p in enumerate(self.players):
            melds = []
            if i == 0:
                melds = [{"cards": [self.cards[4], self.cards[7], self.cards[9]], "track_ids": [4, 7, 9],
                          "kind": "run", "valid": True, "in_order": True, "reason": None}]
            if i == 1:
                melds = [{"cards": [self.cards[11], self.cards[12], self.cards[13]], "track_ids": [11, 12, 13],
                          "kind": "set", "valid": True, "in_order": False, "reason": "sets must alternate colour"}]
            seats.append({"seat": i, "player": p, "table_cards": sum(len(m["cards"]) for m in melds),
                          "melds": melds, "loose": [], "verdicts": []})
        return {"game": self.game, "hand_no": self.hand_no, "players": list(self.players),
                "camera": self.camera,
                "seats": seats, "centre": {"cards": ["JC"]}, "winner": self.winner, "result": self.result,
                "events": list(self.events[-20:])}

    def reconfigure(self, **setup):
        if "table_setup" in setup:          # a checked setup, as the table service gives it
            setup = {**setup.pop("table_setup").as_dict(), **setup}
        if setup.get("source") == "bad://camera":
            raise ValueError("cannot open camera source 'bad://camera'")
        if "players" in setup:
            self.players = list(setup["players"])
        for k in ("game", "rules", "stake", "source", "zones"):
            if k in setup:
                setattr(self, k, setup[k])
        self.emit({"type": "setup", "text": "table set up"})

    def correct_card(self, track_id, card):
        if track_id not in self.cards:
            raise KeyError(track_id)
        old = self.cards[track_id]
        self.corrections.append((track_id, card))
        if card is None:
            del self.cards[track_id]
        else:
            self.cards[track_id] = card
        ev = {"type": "correction", "track_id": track_id, "from": old, "to": card}
        self.emit(ev)
        return ev

    def decide(self, result):
        """Simulate the referee deciding a hand."""
        self.winner = result.get("winner")
        self.result = result
        self.emit(result)
        if self.on_hand_end:
            self.on_hand_end(result)
        self.hand_no += 1

    def _settle(self, host_input):
        winner = host_input.get("winner") or self.players[0]
        others = [p for p in self.players if p != winner]
        net = {winner: 3 * len(others), **{p: -3 for p in others}}
        return {"type": "hand_end", "game": self.game, "winner": winner, "net": net,
                "items": [{"item": "win", "player": winner, "points": 3 * len(others)}], "details": host_input}

    def preview_hand(self, **host_input):
        return self._settle(host_input)

    def finish_hand(self, **host_input):
        self.finished.append(host_input)
        result = self._settle(host_input)
        self.decide(result)
        return result

    def set_pot(self, points):
        self.pot = points
