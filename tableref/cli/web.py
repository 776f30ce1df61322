"""``tableref serve``: the table page for every phone, with the live referee and the ledger.

Defaults: the built-in demo table (its hands kept in a temporary ledger in memory,
never in yours), a SQLite ledger in the user's data directory for a real table,
http://127.0.0.1:8000 (``--host 0.0.0.0`` for phones on the LAN), a host PIN
printed at start-up (random unless ``--pin`` or ``TABLEREF_PIN`` is given).
Restarting resumes the open ledger session with its setup; a second server on a
ledger already in use refuses to start.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sqlite3
import sys

from tableref.cli.options import fail, ledger_problem, named_option, positive, source_problem, whole
from tableref.games import GAME_NAMES, GAMES

DEFAULT_PORT = 8000
SEAT_HELP = ", ".join(f"{g.title} {g.seats[0]}-{g.seats[1]}" for g in GAMES.values())
DEFAULT_THREADS = 96
# camera statuses said in the terminal: a camera that fails (once each) ...
CAMERA_TROUBLE = ("error", "lost", "reconnecting", "stale")
# ... and one that gives frames again after that
CAMERA_BACK = ("ok", "blurred", "small", "soft")
DESCRIPTION = """Serve the table page for every phone, with the live referee and the ledger.

Defaults: the built-in demo table, a SQLite ledger in the user's data directory,
http://127.0.0.1:8000 (--host 0.0.0.0 for phones on the LAN), a host PIN printed
at start-up (random unless --pin or TABLEREF_PIN is given). Restarting resumes
the open ledger session with its setup."""


def register(sub) -> None:
    p = sub.add_parser("serve", help="serve the live table page, scoreboard and ledger (the main job)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", default=None,
                   help="camera: 'demo' (default), 'phone' (a phone with the /camera page open; needs --https), "
                        "a webcam number (0), a video file, a folder of images, "
                        "or a stream URL (http://phone:8080/video, rtsp://...)")
    p.add_argument("--game", choices=GAME_NAMES, default=None, help="game (default: desmoche)")
    p.add_argument("--seats", type=whole(1), default=None, help=f"number of players ({SEAT_HELP})")
    p.add_argument("--players", default=None, help="player names in seat order, comma separated")
    p.add_argument("--stake", type=whole(1), default=None, help="stake in whole points (default 1)")
    p.add_argument("--point-value", type=money_per_point, default=None,
                   help="money per point, in whole cents (default 1.00)")
    p.add_argument("--zones", default=None, help="zone file drawn by hand (JSON, see docs/live.md)")
    p.add_argument("--db", default=None, help="ledger file (default: ledger.sqlite3 in the user data directory; "
                   "the demo table keeps its hands in a temporary ledger in memory)")
    p.add_argument("--new-session", action="store_true", help="start a new ledger session instead of resuming")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: phones on the LAN)")
    p.add_argument("--port", type=whole(1, 65535), default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--pin", default=None, help="host PIN (default: $TABLEREF_PIN or a random 6-digit PIN)")
    p.add_argument("--threads", type=whole(8), default=DEFAULT_THREADS,
                   help=f"server threads; each live video or event stream holds one (default {DEFAULT_THREADS})")
    p.add_argument("--video-fps", type=positive, default=8.0, help="most frames per second sent to each phone")
    p.add_argument("--evidence-hands", type=whole(0), default=None, metavar="N",
                   help="keep the annotated picture of every verdict for the last N hands, beside the ledger "
                        "(default 200; 0: keep no pictures)")
    p.add_argument("--https", action="store_true",
                   help="serve over HTTPS with a self-signed certificate kept in the user data directory "
                        "(needed for --source phone: browsers give the camera only to secure pages)")
    p.set_defaults(func=run)


def money_per_point(text: str) -> float:
    """An argparse type: money per point, a whole number of cents from 0 (checked as the ledger keeps it)."""
    from tableref.ledger.errors import MoneyError
    from tableref.ledger.money import point_value_cents

    try:
        return point_value_cents(text.strip().replace(",", ".")) / 100
    except MoneyError as exc:
        raise argparse.ArgumentTypeError(str(exc.message).replace("'point_value' ", "")) from None


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


def _fail(message, field: str | None = None) -> int:
    return fail("serve", message, field)


def try_listen(host: str, port: int) -> None:
    """Bind ``host:port`` for a moment (raises OSError as the server would)."""
    for family, kind, proto, _, addr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                           flags=socket.AI_PASSIVE)[:1]:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(addr)


def listen_problem(host: str, port: int, exc: BaseException) -> tuple[str, str]:
    """Why the server cannot listen on ``host:port``, and the option to change."""
    import errno

    code = getattr(exc, "errno", None)
    if isinstance(exc, ValueError) or isinstance(exc, socket.gaierror) or code == errno.EADDRNOTAVAIL:
        mine = ", ".join(["127.0.0.1", *lan_addresses()])
        return (f"{host} is not an address of this computer (its addresses: {mine}; 0.0.0.0 listens on all "
                "of them)", "host")
    if code == errno.EADDRINUSE:
        return f"port {port} is in use by another program: try --port {port + 1 if port < 65535 else 8000}", "port"
    if code == errno.EACCES:
        return f"this user may not listen on port {port} (ports below 1024 need administrator rights): " \
               f"try --port {DEFAULT_PORT}", "port"
    return f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}", "port"


def given_setup(args) -> dict:
    """What the command line says about the table (None: as the resumed ledger session had it)."""
    return {"game": args.game, "source": args.source,
            "players": [p.strip() for p in args.players.split(",") if p.strip()] if args.players else None,
            "seats": args.seats or None, "stake": args.stake, "point_value": args.point_value}


def build_setup(args, resumed: dict | None) -> tuple[dict, bool]:
    """The setup to run with: the resumed session's, overridden by the command line (see
    :func:`tableref.table.setup.merge_setup`)."""
    from tableref.table.setup import merge_setup

    return merge_setup(resumed, given_setup(args))


def report_camera(session) -> None:
    """Say in the terminal when the camera fails or comes back (one line each), for as long as the session runs."""
    import threading

    log = logging.getLogger("tableref.camera")
    q = session.subscribe()

    def follow():
        said = None                 # the last status said: a camera retrying says so once
        while True:
            ev = q.get()
            status = ev.get("status")
            if ev.get("type") != "camera_status" or status == said:
                continue
            if status in CAMERA_TROUBLE:
                log.warning("camera %s: %s", status, ev.get("message", ""))
                said = status
            elif status in CAMERA_BACK and said is not None:
                # frames come again (ok, or a picture the page tells about: blurred, small, out of focus)
                log.info("camera %s: %s", status, ev.get("message", ""))
                said = None

    threading.Thread(target=follow, name="tableref-camera-report", daemon=True).start()


def run(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    # A phone leaving a page ends its live streams: that is normal, not worth a log line.
    logging.getLogger("waitress").addFilter(lambda rec: not rec.getMessage().startswith("Client disconnected"))
    from tableref.ledger.errors import LedgerError, SchemaError
    from tableref.live.session import SessionError
    from tableref.table.lock import LedgerInUse
    from tableref.table.service import TableService
    from tableref.table.setup import SetupError
    from tableref.web.app import close_app, create_app

    pin = args.pin if args.pin is not None else os.environ.get("TABLEREF_PIN")
    if pin is not None and not pin.strip():
        return _fail("the host PIN cannot be empty", "pin")
    zones = None
    if args.zones:
        import json

        try:
            with open(args.zones, encoding="utf-8") as fh:
                zones = json.load(fh)
        except OSError as exc:
            return _fail(f"cannot read the zone file {args.zones}: {(exc.strerror or str(exc)).lower()}", "zones")
        except ValueError as exc:
            return _fail(f"the zone file {args.zones} is not valid JSON: {exc}", "zones")
    if args.source is not None:
        problem = source_problem(args.source)
        if problem:
            return _fail(problem, "source")
    try:        # an address or port that cannot be had is said before the ledger is touched
        try_listen(args.host, args.port)
    except (OSError, ValueError) as exc:
        return _fail(*listen_problem(args.host, args.port, exc))
    from tableref.cli.vision import machine_settings

    try:
        machine = machine_settings()
    except ValueError as exc:
        return _fail(str(exc))
    try:
        service = TableService.open(given_setup(args), db=args.db, new_session=args.new_session, zones=zones,
                                    who="tableref serve", session_options={"machine": machine})
    except (SetupError, LedgerError, LedgerInUse) as exc:
        return _fail(exc.message, named_option(exc.field, args))
    except SchemaError as exc:
        return _fail(str(exc), "db")
    except SessionError as exc:
        return _fail(exc.message)
    except (OSError, sqlite3.Error) as exc:
        from tableref.ledger.store import default_path

        db = args.db or default_path(create=False)
        return _fail(ledger_problem(db, exc) if isinstance(exc, OSError) else f"cannot open the ledger {db}: {exc}",
                     "db")
    try:
        setup = service.setup()
        threads = args.threads
        from tableref.ledger.evidence import DEFAULT_KEEP_HANDS, EvidenceStore

        keep = DEFAULT_KEEP_HANDS if args.evidence_hands is None else args.evidence_hands
        try:
            evidence = EvidenceStore.for_ledger(service.ledger.path, keep_hands=keep)
        except (OSError, sqlite3.Error) as exc:
            return _fail(f"cannot keep evidence pictures beside the ledger {service.ledger.path}: {exc} "
                         "(--evidence-hands 0 switches them off)")
        app = create_app(service, pin=pin, max_streams=max(4, threads - 16), video_fps=args.video_fps,
                         evidence=evidence)
        pin = app.config["TABLEREF_PIN"]
        lan = lan_addresses() if args.host in ("0.0.0.0", "::") else []
        certificate = None
        if args.https:
            from tableref.web.tls import TLSError, ensure_certificate, https_server

            try:
                certificate = ensure_certificate(addresses=lan)
            except TLSError as exc:
                return _fail(str(exc))
            app.config["SESSION_COOKIE_SECURE"] = True
        try:
            if certificate is not None:
                server = https_server(app, args.host, args.port, certificate, threads)
                port = server.port
            else:
                from waitress.server import create_server

                server = create_server(app, host=args.host, port=args.port, threads=threads,
                                       connection_limit=1000, channel_timeout=300, asyncore_use_poll=True,
                                       ident="tableref")
                port = server.effective_port
        except (OSError, ValueError) as exc:
            return _fail(*listen_problem(args.host, args.port, exc))
        service.session.start()
        scheme = "https" if certificate is not None else "http"
        urls = [f"{scheme}://{args.host if args.host not in ('0.0.0.0', '::') else '127.0.0.1'}:{port}/"]
        urls += [f"{scheme}://{a}:{port}/" for a in lan]
        app.config["TABLEREF_JOIN_URL"] = urls[-1]
        where = service.ledger_view()
        hands = service.ledger.hand_count(service.session_id)
        print("", flush=True)
        print("  tableref is serving the table", flush=True)
        for u in urls:
            print(f"    open  {u}", flush=True)
        print(f"    host PIN  {pin}", flush=True)
        if certificate is not None:
            print(f"    certificate  {certificate.cert}{' (new)' if certificate.created else ''}", flush=True)
            print(f"    SHA-256 fingerprint  {certificate.fingerprint}", flush=True)
            print("    (self-signed: each browser warns once; check the fingerprint in its certificate details)",
                  flush=True)
        if setup["source"] == "phone" and not lan and args.host in ("0.0.0.0", "::"):
            print("    camera  this computer has no network address a phone could open: connect it to the "
                  "phones' Wi-Fi and start again", flush=True)
        elif setup["source"] == "phone" and not lan:
            print(f"    camera  a phone cannot open {args.host}: serve with --host 0.0.0.0"
                  f"{'' if certificate is not None else ' --https'}, then open the /camera address it prints "
                  "on the phone", flush=True)
        elif setup["source"] == "phone":
            print(f"    camera  open {urls[-1]}camera on the phone, log in with the PIN, allow the camera"
                  + ("" if certificate is not None else " (needs --https: browsers give the camera only "
                                                         "to secure pages)"), flush=True)
        print(f"    game  {setup['game']}, players {', '.join(setup['players'])}, source {setup['source']}"
              + (" (as the ledger session had it)" if args.source is None and service.resumed else ""), flush=True)
        problem = source_problem(setup["source"]) if args.source is None else None
        if problem:
            print(f"    camera  {problem}: choose another on the Setup page or start with --source", flush=True)
        if where["temporary"]:
            print(f"    ledger  {where['note']}", flush=True)
        else:
            print(f"    ledger  {where['path']} (session {service.session_id}, "
                  f"{'resumed, ' if service.resumed else ''}{hands} hands)", flush=True)
            if keep:
                print(f"    evidence pictures  {evidence.folder} (last {keep} hands)", flush=True)
        if args.host == "127.0.0.1":
            print("    (only this computer can open it; use --host 0.0.0.0 for phones on the same network)",
                  flush=True)
        print("", flush=True)
        report_camera(service.session)

        def stop(*_):
            close_app(app)  # ends the live streams, so the server's threads finish at once
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)  # Ctrl-C: the same quick stop
        try:
            if certificate is not None:
                server.wait()
            else:
                server.run()
        except KeyboardInterrupt:
            pass
        finally:
            print("tableref serve: stopping", file=sys.stderr, flush=True)
            # the server first (cheroot's own threads keep the process alive until it is told to
            # stop), then the rest; one step that fails does not skip the others
            steps = [server.stop if certificate is not None else server.close, service.session.stop,
                     lambda: close_app(app), evidence.close]
            for step in steps:
                try:
                    step()
                except Exception:  # noqa: BLE001 - stopping anyway
                    logging.getLogger("tableref.serve").exception("while stopping")
        return 0
    except LedgerError as exc:
        return _fail(exc.message)
    finally:
        service.close()
