"""``tableref serve``: the table page for every phone, with the live referee and the ledger.

Defaults: the built-in demo table, a SQLite ledger in the user's data directory,
http://127.0.0.1:8000 (``--host 0.0.0.0`` for phones on the LAN), a host PIN
printed at start-up (random unless ``--pin`` or ``TABLEREF_PIN`` is given).
Restarting resumes the open ledger session with its setup.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys

DEFAULT_PORT = 8000
DEFAULT_THREADS = 96
DESCRIPTION = """Serve the table page for every phone, with the live referee and the ledger.

Defaults: the built-in demo table, a SQLite ledger in the user's data directory,
http://127.0.0.1:8000 (--host 0.0.0.0 for phones on the LAN), a host PIN printed
at start-up (random unless --pin or TABLEREF_PIN is given). Restarting resumes
the open ledger session with its setup."""


def register(sub) -> None:
    p = sub.add_parser("serve", help="serve the live table page, scoreboard and ledger (the main job)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", default=None,
                   help="camera: 'demo' (default), a webcam number (0), a video file, a folder of images, "
                        "or a stream URL (http://phone:8080/video, rtsp://...)")
    p.add_argument("--game", choices=["desmoche", "marriage"], default=None, help="game (default: desmoche)")
    p.add_argument("--seats", type=int, default=None, help="number of players (Desmoche 2-4, Marriage 2-5)")
    p.add_argument("--players", default=None, help="player names in seat order, comma separated")
    p.add_argument("--stake", type=int, default=None, help="stake in points (default 1)")
    p.add_argument("--point-value", type=float, default=None, help="money per point (default 1.0)")
    p.add_argument("--zones", default=None, help="zone file drawn by hand (JSON, see docs/live.md)")
    p.add_argument("--db", default=None, help="ledger file (default: ledger.sqlite3 in the user data directory)")
    p.add_argument("--new-session", action="store_true", help="start a new ledger session instead of resuming")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: phones on the LAN)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--pin", default=None, help="host PIN (default: $TABLEREF_PIN or a random 6-digit PIN)")
    p.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                   help=f"server threads; each live video or event stream holds one (default {DEFAULT_THREADS})")
    p.add_argument("--video-fps", type=float, default=8.0, help="most frames per second sent to each phone")
    p.set_defaults(func=run)


def lan_addresses() -> list[str]:
    """This machine's LAN addresses (best effort, no traffic is sent)."""
    out = []
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect(("10.255.255.255", 1))
        out.append(s.getsockname()[0])
        s.close()
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            addr = info[4][0]
            if addr not in out and not addr.startswith("127."):
                out.append(addr)
    except OSError:
        pass
    return out


def _fail(message: str) -> int:
    print(f"tableref serve: {message}", file=sys.stderr)
    return 2


def build_setup(args, resumed: dict | None) -> tuple[dict, bool]:
    """The setup to run with: the resumed session's, overridden by what the command line gives.

    Returns ``(setup, changed)`` where ``changed`` says the command line changed a resumed setup.
    """
    from tableref.live.session import demo_setup

    base = dict(resumed or {})
    given = {}
    if args.game:
        given["game"] = args.game
    if args.source:
        given["source"] = args.source
    if args.players:
        given["players"] = [p.strip() for p in args.players.split(",") if p.strip()]
    if args.seats:
        given["seats"] = args.seats
    if args.stake is not None:
        given["stake"] = args.stake
    if args.point_value is not None:
        given["point_value"] = args.point_value
    if base and given.get("game", base.get("game")) != base.get("game"):
        base = {k: v for k, v in base.items() if k not in ("rules",)}
    setup = {**base, **given}
    setup.setdefault("game", "desmoche")
    setup.setdefault("source", "demo")
    if "seats" in given and "players" not in given:
        setup.pop("players", None)
    if not setup.get("players"):
        demo = demo_setup(setup["game"]) if setup["source"] == "demo" else {}
        n = setup.get("seats") or demo.get("seats") or len(demo.get("players") or []) or 4
        names = list(demo.get("players") or [])[:n]
        from tableref.live.session import DEFAULT_NAMES

        names += [x for x in DEFAULT_NAMES if x not in names][: n - len(names)]
        setup["players"] = names
    setup["seats"] = len(setup["players"])
    setup.setdefault("stake", 1)
    setup.setdefault("point_value", 1.0)
    setup.setdefault("rules", {})
    changed = bool(resumed) and any(resumed.get(k) != setup.get(k) for k in ("game", "source", "players", "stake",
                                                                                "point_value"))
    return setup, changed


def run(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    # A phone leaving a page ends its live streams: that is normal, not worth a log line.
    logging.getLogger("waitress").addFilter(lambda rec: not rec.getMessage().startswith("Client disconnected"))
    from tableref.ledger.store import Ledger, LedgerError, SchemaError, default_path
    from tableref.live.session import SessionError, TableSession
    from tableref.web.app import close_app, create_app
    from tableref.web.setup_form import SetupError, validate_setup

    if not 1 <= args.port <= 65535:
        return _fail(f"--port must be 1-65535, got {args.port}")
    if args.threads < 8:
        return _fail("--threads must be at least 8")
    pin = args.pin if args.pin is not None else os.environ.get("TABLEREF_PIN")
    if pin is not None and not pin.strip():
        return _fail("the host PIN cannot be empty")
    db = args.db or default_path()
    try:
        ledger = Ledger(db)
    except (SchemaError, OSError) as exc:
        return _fail(str(exc))
    try:
        sid = None if args.new_session else ledger.current_session()
        resumed = ledger.setup(sid) if sid is not None else None
        setup, changed = build_setup(args, resumed)
        try:
            setup = validate_setup(setup)
        except SetupError as exc:
            return _fail(exc.message)
        zones = None
        if args.zones:
            import json

            try:
                with open(args.zones, encoding="utf-8") as fh:
                    zones = json.load(fh)
            except (OSError, ValueError) as exc:
                return _fail(f"cannot read the zone file {args.zones}: {exc}")
        try:
            session = TableSession(source=setup["source"], game=setup["game"], seats=setup["seats"],
                                   players=setup["players"], rules=setup["rules"], stake=setup["stake"],
                                   zones=zones)
        except (SessionError, ValueError) as exc:
            return _fail(str(exc))
        if sid is None:
            sid = ledger.open_session(setup, who="tableref serve", why="started")
        elif changed:
            ledger.record_setup(sid, setup, who="tableref serve", why="changed on the command line")
        threads = args.threads
        app = create_app(session, ledger, pin=pin, session_id=sid, max_streams=max(4, threads - 16),
                         video_fps=args.video_fps)
        pin = app.config["TABLEREF_PIN"]
        from waitress.server import create_server

        try:
            server = create_server(app, host=args.host, port=args.port, threads=threads, connection_limit=1000,
                                   channel_timeout=300, asyncore_use_poll=True, ident="tableref")
        except OSError as exc:
            return _fail(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc} "
                         "(another program uses the port? try --port 8001)")
        session.start()
        port = server.effective_port
        urls = [f"http://{args.host if args.host not in ('0.0.0.0', '::') else '127.0.0.1'}:{port}/"]
        if args.host in ("0.0.0.0", "::"):
            urls += [f"http://{a}:{port}/" for a in lan_addresses()]
        info = ledger.session_info(sid)
        hands = len(ledger.hands(sid))
        print("", flush=True)
        print("  tableref is serving the table", flush=True)
        for u in urls:
            print(f"    open  {u}", flush=True)
        print(f"    host PIN  {pin}", flush=True)
        print(f"    game  {setup['game']}, players {', '.join(setup['players'])}, source {setup['source']}",
              flush=True)
        print(f"    ledger  {db} (session {sid}, {'resumed, ' if resumed is not None else ''}{hands} hands)",
              flush=True)
        if args.host == "127.0.0.1":
            print("    (only this computer can open it; use --host 0.0.0.0 for phones on the same network)",
                  flush=True)
        print("", flush=True)
        del info

        def stop(*_):
            close_app(app)  # ends the live streams, so the server's threads finish at once
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)  # Ctrl-C: the same quick stop
        try:
            server.run()
        except KeyboardInterrupt:
            pass
        finally:
            print("tableref serve: stopping", file=sys.stderr, flush=True)
            session.stop()
            close_app(app)
            try:
                server.close()
            except Exception:  # noqa: BLE001
                pass
        return 0
    except LedgerError as exc:
        return _fail(exc.message)
    finally:
        ledger.close()
