"""``tableref watch``, ``tableref simulate`` and ``tableref markers``: the live table on the command line.

* ``tableref watch SOURCE --game desmoche|marriage --seats N [--json] [--db FILE]``
  runs the camera pipeline headless and prints events and verdicts (with ``--json``
  one object per line, each with a ``"type"``; the last is the ``hand_end``). It runs
  the same table service as ``tableref serve``: with ``--db FILE`` the hands it
  referees are recorded in that ledger. On a terminal a bar shows the frames
  analysed and the frames per second.
  SOURCE: a camera number, a video file, a folder of images, an HTTP MJPEG /
  RTSP URL, or ``demo`` (the built-in demo clip, the default).
* ``tableref simulate desmoche|marriage --seed N --out DIR`` plays a hand with
  rule-following bots and films it: ``DIR/video.mp4`` and ``DIR/truth.json``.
* ``tableref markers OUT.png`` writes the sheet of ArUco corner markers that
  ``tableref calibrate`` finds (see docs/live.md).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tableref.cli.options import fail, ledger_problem, named_option, seconds, source_problem, whole
from tableref.games import GAME_NAMES, GAMES

SEAT_HELP = ", ".join(f"{g.title} {g.seats[0]}-{g.seats[1]}" for g in GAMES.values())


def register(sub) -> None:
    w = sub.add_parser("watch", help="referee a table from a camera, stream or video (headless)",
                       description="Run the live pipeline on SOURCE and print events and verdicts.")
    w.add_argument("source", nargs="?", default="demo",
                   help="camera number (0), video file, image folder, http:// MJPEG or rtsp:// URL, or 'demo' "
                        "(default)")
    w.add_argument("--game", choices=GAME_NAMES, default="desmoche", help="game (default desmoche)")
    w.add_argument("--seats", type=whole(1), default=None, help=f"number of players ({SEAT_HELP})")
    w.add_argument("--players", default=None, help="player names in seat order, comma separated "
                   "(seat 1 at the bottom edge of the picture, then clockwise)")
    w.add_argument("--stake", type=whole(1), default=1, help="Desmoche stake per player, in whole points (default 1)")
    w.add_argument("--rules", default=None, help="house rules as JSON, e.g. '{\"strict_order\": \"off\"}'")
    w.add_argument("--zones", default=None, help="zones JSON file (from calibration or drawn by hand)")
    w.add_argument("--json", action="store_true", help="one JSON object per line")
    w.add_argument("--db", default=None, metavar="FILE",
                   help="record the hands refereed in this ledger (the one `tableref serve --db FILE` shows); "
                        "default: none kept")
    w.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show frames analysed and frames/s on stderr (default: when it is a terminal)")
    w.add_argument("--realtime", action="store_true",
                   help="play video files at their own speed, dropping frames when slow "
                        "(default for files: analyse every frame)")
    w.add_argument("--every", type=whole(1), default=1, metavar="N",
                   help="analyse every N-th frame (a slow computer on a fast camera; default 1)")
    w.add_argument("--max-seconds", type=seconds, default=None, help="stop after this many seconds")
    w.add_argument("--finish", default=None,
                   help="host input as JSON to close the hand when the source ends, e.g. "
                        "'{\"tiplu\": \"JC\", \"winner\": \"Ana\"}'")
    w.set_defaults(func=cmd_watch)

    s = sub.add_parser("simulate", help="play a hand with bots and render it as a table video",
                       description="Bots play a hand; write DIR/video.mp4 and DIR/truth.json.")
    s.add_argument("game", choices=GAME_NAMES, help="the game the bots play")
    s.add_argument("--seed", type=int, default=0,
                   help="random seed: the same seed plays and films the same hand (default 0)")
    s.add_argument("--out", required=True, help="output folder")
    s.add_argument("--players", type=int, default=None, help="number of players (default: chosen by the seed)")
    s.add_argument("--deck", default=None, help="deck design (default: chosen by the seed)")
    s.add_argument("--rules", default=None, help="house rules as JSON")
    s.set_defaults(func=cmd_simulate)

    m = sub.add_parser("markers", help="write the printable sheet of ArUco corner markers",
                       description="Write the printable sheet of the four ArUco corner markers that `tableref calibrate` finds (see docs/live.md).")
    m.add_argument("out", help="output image (.png) or .pdf")
    m.add_argument("--page", default="A4", help="A4 or Letter")
    m.set_defaults(func=cmd_markers)


def _err(msg, field: str | None = None, command: str = "watch") -> int:
    """One line naming the option (the positional SOURCE of watch is named as such)."""
    if field == "source":
        return fail(command, f"SOURCE: {msg}")
    return fail(command, msg, field)


def _rules(text, option: str = "--rules"):
    if not text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{option} is not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{option} must be a JSON object"
                         + (" of house-rule switches" if option == "--rules" else " of what the host enters"))
    return data


def _line(ev: dict, as_json: bool) -> str:
    if as_json:
        return json.dumps(ev, ensure_ascii=False, default=str)
    kind = ev.get("type", "?")
    t = ev.get("t")
    stamp = f"[{t:7.1f}s]" if isinstance(t, (int, float)) else " " * 10
    if kind == "hand_end" and ev.get("decided") is False:
        return f"{stamp} NOT DECIDED: {ev.get('text', '')}"
    if kind == "hand_end":
        items = ev.get("items") or []
        lines = [f"{stamp} HAND OVER: " + (f"{ev.get('winner')} wins" if ev.get("winner") else "no winner")]
        for it in items:
            lines.append(f"            {it.get('item')}: {it.get('player')} {it.get('points')}"
                         + (f" -- {it['text']}" if it.get("text") else ""))
        lines.append("            net: " + ", ".join(f"{p} {v:+g}" for p, v in (ev.get("net") or {}).items()))
        return "\n".join(lines)
    return f"{stamp} {kind:16s} {ev.get('text', '')}"


class WatchProgress:
    """The frames analysed so far and the frames per second, as a bar on a terminal (stderr)."""

    def __init__(self, session, stream=None, total: int | None = None):
        from tqdm import tqdm

        self.session = session
        self.t0 = time.monotonic()
        self.bar = tqdm(total=total, unit=" frames", file=stream or sys.stderr, dynamic_ncols=True, leave=False,
                        desc="watch", mininterval=0.5)

    def update(self) -> None:
        n = self.session.frames_analysed
        if n != self.bar.n:
            self.bar.update(n - self.bar.n)

    def rate(self) -> float:
        dt = time.monotonic() - self.t0
        return self.session.frames_analysed / dt if dt > 0 else 0.0

    def write(self, line: str) -> None:
        self.bar.write(line, file=sys.stdout)

    def close(self) -> None:
        self.update()
        self.bar.close()
        print(f"watch: {self.session.frames_analysed} frames analysed in {time.monotonic() - self.t0:.1f} s "
              f"({self.rate():.1f} frames/s)", file=self.bar.fp, flush=True)


def _frame_count(source: str, every: int) -> int | None:
    """Frames a video file will give (for the progress bar), or None for a camera or stream."""
    p = Path(source)
    if not p.is_file():
        return None
    import cv2

    cap = cv2.VideoCapture(str(p))
    try:
        n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    finally:
        cap.release()
    return -(-n // max(1, every)) if n > 0 else None


def cmd_watch(args) -> int:
    from tableref.cli.vision import machine_settings
    from tableref.ledger.errors import LedgerError, SchemaError
    from tableref.live.session import SessionError
    from tableref.table.lock import LedgerInUse
    from tableref.table.service import MEMORY, TableService
    from tableref.table.setup import SetupError

    try:
        rules = _rules(args.rules)
        finish = _rules(args.finish, "--finish") if args.finish else None
    except ValueError as exc:
        return _err(str(exc))
    players = [p.strip() for p in args.players.split(",")] if args.players else None
    zones = None
    if args.zones:
        from tableref.vision.zones import TableZones, ZoneError

        try:
            zones = TableZones.load(args.zones)
        except ZoneError as exc:
            return _err(str(exc), "zones")
    problem = source_problem(args.source)      # a spec that names nothing, said before starting
    if problem:
        return _err(problem, "source")
    given = {"game": args.game, "source": args.source, "players": players, "seats": args.seats,
             "stake": args.stake, "rules": rules}
    try:
        machine = machine_settings()
    except ValueError as exc:
        return _err(str(exc))
    try:
        service = TableService.open(given, db=args.db or MEMORY, zones=zones, who="tableref watch",
                                    session_options={"realtime": args.realtime, "loop": False,
                                                     "analyse_every": max(1, args.every), "machine": machine})
    except (SetupError, LedgerError, LedgerInUse) as exc:
        return _err(exc.message, named_option(exc.field, args))
    except SchemaError as exc:
        return _err(str(exc), "db")
    except SessionError as exc:
        return _err(exc.message)
    except OSError as exc:
        return _err(ledger_problem(args.db, exc), "db")
    recorder = evidence = None
    try:
        if args.db:
            # the picture of each verdict, beside the ledger as tableref serve keeps them
            from tableref.ledger.evidence import EvidenceRecorder, EvidenceStore

            try:
                evidence = EvidenceStore.for_ledger(service.ledger.path)
            except OSError as exc:
                return _err(f"cannot keep evidence pictures beside the ledger {args.db}: "
                            f"{(exc.strerror or str(exc)).lower()}", "db")
            recorder = EvidenceRecorder(service.session, evidence, lambda: service.session_id)
        return _watch(service, args, finish)
    finally:
        if recorder is not None:
            recorder.close()
        if evidence is not None:
            evidence.close()
        service.close()


def _watch(service, args, finish) -> int:
    from tableref.live.session import SessionError, resolve_source

    session = service.session
    progress = None
    if args.progress or (args.progress is None and sys.stderr.isatty()):
        progress = WatchProgress(session, total=_frame_count(resolve_source(session.source, session.game),
                                                             max(1, args.every)))
    say = progress.write if progress else (lambda line: print(line, flush=True))
    recorded: list[str] = []
    if args.db:
        service.listen(lambda ev: recorded.append(
            f"hand {ev['hand_no']} recorded in the ledger {args.db} (session {service.session_id})"
            if ev.get("what") == "hand" else ev.get("text", "")))
    q = session.subscribe()
    session.start()
    t0 = time.monotonic()
    held: list[dict] = []        # camera news after the hand's end: said only if something follows
    last_type = None
    try:
        while True:
            try:
                ev = q.get(timeout=0.2)
            except Exception:  # queue.Empty
                ev = None
            if progress:
                progress.update()
            if ev is None:
                if not session.running and q.empty():
                    break
                if args.max_seconds and time.monotonic() - t0 > args.max_seconds:
                    session.stop()
                    session.end_of_stream()
                    args.max_seconds = None
                continue
            if ev.get("type") == "camera_status" and ev.get("status") == "ended":
                continue          # the end of a file is implied by the hand_end that follows
            if ev.get("type") == "camera_status" and last_type == "hand_end" and ev.get("status") == "ok":
                held.append(ev)
                continue
            for h in held:
                say(_line(h, args.json))
            held.clear()
            say(_line(ev, args.json))
            last_type = ev.get("type")
    except KeyboardInterrupt:
        pass
    session.stop()
    if progress:
        progress.close()
    if finish is not None and session.hand.result is None:
        try:
            result = service.finish_hand(**finish)
            print(_line(result, args.json), flush=True)
            last_type = "hand_end"
        except SessionError as exc:
            print(_line({"type": "error", "text": f"cannot finish the hand: {exc}"}, args.json), flush=True)
    for line in recorded:
        print(line, file=sys.stderr, flush=True)
    if not session.results:
        from tableref.vision.tracking import MIN_HITS      # a card counts once seen in this many frames

        cam = session.snapshot()["camera"]
        if session.frames_analysed == 0:
            why = f": no picture could be read from {session.source} ({cam.get('message', '')})"
        elif cam.get("status") not in ("ok", "ended"):
            why = f" (camera {cam['status']}: {cam['message']})"
        elif session.frames_analysed < MIN_HITS:
            n = session.frames_analysed
            why = (f": {session.source} gave {n} picture{'s' if n != 1 else ''}, and a card counts once it was "
                   f"seen in several frames; give a video or a camera (to read a photo: tableref detect PHOTO)")
        else:
            why = ""
        ev = {"type": "hand_end", "game": session.game, "winner": None, "net": {}, "items": [],
              "decided": False, "text": "the hand was not decided" + why}
        print(_line(ev, args.json), flush=True)
        return 1
    if last_type != "hand_end" and args.json:
        # the JSON lines end with the result (said again, marked as a repeat)
        print(_line({**session.results[-1], "repeat": True}, args.json), flush=True)
    return 0


def cmd_simulate(args) -> int:
    from tableref.simulate.bots import play_desmoche, play_marriage
    from tableref.simulate.render import RenderOptions, render_script

    try:
        rules = _rules(args.rules)
    except ValueError as exc:
        return _err(str(exc), command="simulate")
    if args.players is not None:
        problem = GAMES[args.game].seat_error(args.players)
        if problem:
            return _err(problem, command="simulate")
    from tableref.referee.errors import RefereeError

    try:
        if args.game == "desmoche":
            script = play_desmoche(args.seed, n_players=args.players, rules=rules)
        else:
            script = play_marriage(args.seed, n_players=args.players, rules=rules)
    except RefereeError as exc:
        return _err(exc.message, command="simulate")
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _err(f"cannot create {out}: {exc}", command="simulate")
    try:
        info = render_script(script, out, RenderOptions(deck=args.deck), progress=sys.stderr.isatty())
    except (RuntimeError, OSError, ValueError) as exc:
        return _err(str(exc), command="simulate")
    truth = dict(script.truth)
    truth["video"] = {k: v for k, v in info.items() if k != "still_at"}
    truth["changes"] = [{"t_still": info["still_at"][i], **kf.to_json()} for i, kf in enumerate(script.keyframes)]
    (out / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False))
    print(f"wrote {out / 'video.mp4'} ({info['frames']} frames, {info['duration']:.1f} s, deck {info['deck']}) "
          f"and {out / 'truth.json'}: winner {truth['winner']}, net {truth['net']}")
    return 0


def cmd_markers(args) -> int:
    from tableref.vision.zones import ZoneError, render_marker_sheet

    try:
        render_marker_sheet(args.out, page=args.page)
    except ZoneError as exc:
        return _err(str(exc), command="markers")
    print(f"wrote {args.out}: print it at 100 %, cut out the four markers and put marker 0 at the top-left "
          f"corner of the play area, 1 top-right, 2 bottom-right, 3 bottom-left (seat 1 sits between 3 and 2)")
    return 0
