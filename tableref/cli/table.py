"""``tableref watch``, ``tableref simulate`` and ``tableref markers``: the live table on the command line.

* ``tableref watch SOURCE --game desmoche|marriage --seats N [--json]`` runs the
  camera pipeline headless and prints events and verdicts (with ``--json`` one
  object per line, each with a ``"type"``; the last is the ``hand_end``).
  SOURCE: a camera number, a video file, a folder of images, an HTTP MJPEG /
  RTSP URL, or ``demo`` (the built-in demo clip, the default).
* ``tableref simulate desmoche|marriage --seed N --out DIR`` plays a hand with
  rule-following bots and films it: ``DIR/video.mp4`` and ``DIR/truth.json``.
* ``tableref markers OUT.png`` writes the sheet of ArUco corner markers used to
  calibrate the table (see docs/live.md).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def register(sub) -> None:
    w = sub.add_parser("watch", help="referee a table from a camera, stream or video (headless)",
                       description="Run the live pipeline on SOURCE and print events and verdicts.")
    w.add_argument("source", nargs="?", default="demo",
                   help="camera number (0), video file, image folder, http:// MJPEG or rtsp:// URL, or 'demo' "
                        "(default)")
    w.add_argument("--game", choices=["desmoche", "marriage"], default="desmoche", help="game (default desmoche)")
    w.add_argument("--seats", type=int, default=None, help="number of players (2-4 Desmoche, 2-5 Marriage)")
    w.add_argument("--players", default=None, help="player names in seat order, comma separated "
                   "(seat 1 at the bottom edge of the picture, then clockwise)")
    w.add_argument("--stake", type=float, default=1, help="Desmoche stake per player (default 1)")
    w.add_argument("--rules", default=None, help="house rules as JSON, e.g. '{\"strict_order\": \"off\"}'")
    w.add_argument("--zones", default=None, help="zones JSON file (from calibration or drawn by hand)")
    w.add_argument("--json", action="store_true", help="one JSON object per line")
    w.add_argument("--realtime", action="store_true",
                   help="play video files at their own speed, dropping frames when slow "
                        "(default for files: analyse every frame)")
    w.add_argument("--every", type=int, default=1, metavar="N",
                   help="analyse every N-th frame (a slow computer on a fast camera; default 1)")
    w.add_argument("--max-seconds", type=float, default=None, help="stop after this many seconds")
    w.add_argument("--finish", default=None,
                   help="host input as JSON to close the hand when the source ends, e.g. "
                        "'{\"tiplu\": \"JC\", \"winner\": \"Ana\"}'")
    w.set_defaults(func=cmd_watch)

    s = sub.add_parser("simulate", help="play a hand with bots and render it as a table video",
                       description="Bots play a hand; write DIR/video.mp4 and DIR/truth.json.")
    s.add_argument("game", choices=["desmoche", "marriage"], help="the game the bots play")
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


def _err(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _rules(text):
    if not text:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--rules is not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ValueError("--rules must be a JSON object of house-rule switches")
    return data


def _line(ev: dict, as_json: bool) -> str:
    if as_json:
        return json.dumps(ev, ensure_ascii=False, default=str)
    kind = ev.get("type", "?")
    t = ev.get("t")
    stamp = f"[{t:7.1f}s]" if isinstance(t, (int, float)) else " " * 10
    if kind == "hand_end":
        items = ev.get("items") or []
        lines = [f"{stamp} HAND OVER: " + (f"{ev.get('winner')} wins" if ev.get("winner") else "no winner")]
        for it in items:
            lines.append(f"            {it.get('item')}: {it.get('player')} {it.get('points')}"
                         + (f" -- {it['text']}" if it.get("text") else ""))
        lines.append("            net: " + ", ".join(f"{p} {v:+g}" for p, v in (ev.get("net") or {}).items()))
        return "\n".join(lines)
    return f"{stamp} {kind:16s} {ev.get('text', '')}"


def cmd_watch(args) -> int:
    from tableref.live.session import SessionError, TableSession, demo_setup

    try:
        rules = _rules(args.rules)
        finish = _rules(args.finish) if args.finish else None
    except ValueError as exc:
        return _err(str(exc))
    players = [p.strip() for p in args.players.split(",")] if args.players else None
    seats = args.seats
    if args.source == "demo" and not players and not seats:
        setup = demo_setup(args.game)
        players = setup.get("players")
    if seats is None and not players:
        seats = 4 if args.game == "desmoche" else 3
    if players and seats and len(players) != seats:
        return _err(f"--players names {len(players)} players but --seats says {seats}")
    zones = None
    if args.zones:
        from tableref.vision.zones import TableZones, ZoneError

        try:
            zones = TableZones.load(args.zones)
        except ZoneError as exc:
            return _err(str(exc))
    try:
        stake = int(args.stake) if float(args.stake).is_integer() else float(args.stake)
        session = TableSession(source=args.source, game=args.game, seats=seats or len(players), players=players,
                               rules=rules, stake=stake, zones=zones, realtime=args.realtime, loop=False,
                               analyse_every=max(1, args.every))
    except SessionError as exc:
        return _err(str(exc))
    if args.source != "demo":
        from tableref.vision.sources import SourceError, open_source

        try:   # a clear error for a spec that names nothing, before starting
            open_source(args.source, start=False)
        except SourceError as exc:
            return _err(str(exc))
    q = session.subscribe()
    session.start()
    t0 = time.monotonic()
    last_type = None
    hand_ends = 0
    try:
        while True:
            try:
                ev = q.get(timeout=0.2)
            except Exception:  # queue.Empty
                ev = None
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
            print(_line(ev, args.json), flush=True)
            last_type = ev.get("type")
            if last_type == "hand_end":
                hand_ends += 1
    except KeyboardInterrupt:
        session.stop()
    session.stop()
    if finish is not None and session.hand.result is None:
        try:
            result = session.finish_hand(**finish)
            print(_line(result, args.json), flush=True)
            last_type = "hand_end"
            hand_ends += 1
        except SessionError as exc:
            print(_line({"type": "error", "text": f"cannot finish the hand: {exc}"}, args.json), flush=True)
    if last_type != "hand_end":
        if hand_ends and session.results:
            # the last decided hand is repeated so that the last line is the result
            print(_line(session.results[-1], args.json), flush=True)
        else:
            cam = session.snapshot()["camera"]
            ev = {"type": "hand_end", "game": args.game, "winner": None, "net": {}, "items": [],
                  "decided": False, "text": "the hand was not decided"
                  + (f" (camera {cam['status']}: {cam['message']})" if cam.get("status") not in ("ok", "ended") else "")}
            print(_line(ev, args.json), flush=True)
            return 1
    return 0


def cmd_simulate(args) -> int:
    from tableref.simulate.bots import play_desmoche, play_marriage
    from tableref.simulate.render import RenderOptions, render_script

    try:
        rules = _rules(args.rules)
    except ValueError as exc:
        return _err(str(exc))
    if args.players is not None:
        lo, hi = (2, 4) if args.game == "desmoche" else (2, 5)
        if not lo <= args.players <= hi:
            return _err(f"{args.game} is played by {lo} to {hi} players")
    from tableref.referee.errors import RefereeError

    try:
        if args.game == "desmoche":
            script = play_desmoche(args.seed, n_players=args.players, rules=rules)
        else:
            script = play_marriage(args.seed, n_players=args.players, rules=rules)
    except RefereeError as exc:
        return _err(exc.message)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _err(f"cannot create {out}: {exc}")
    try:
        info = render_script(script, out, RenderOptions(deck=args.deck), progress=sys.stderr.isatty())
    except (RuntimeError, OSError, ValueError) as exc:
        return _err(str(exc))
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
        return _err(str(exc))
    print(f"wrote {args.out}: print it at 100 %, cut out the four markers and put marker 0 at the top-left "
          f"corner of the play area, 1 top-right, 2 bottom-right, 3 bottom-left (seat 1 sits between 3 and 2)")
    return 0
