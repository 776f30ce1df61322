"""HTTPS on the LAN: a self-signed certificate kept in the user data directory, and a TLS server.

Browsers give the camera (``getUserMedia``) only to secure pages, so a phone that is to be the
table's camera must open the app over ``https://``. ``tableref serve --https`` makes a
self-signed certificate at its first start (``tls/cert.pem`` and ``tls/key.pem`` in the user
data directory, the key readable by the user only), keeps it for the next starts, and prints its
SHA-256 fingerprint so the host can compare it with what the phone's browser shows.

waitress (the default, plain HTTP server) has no TLS; the HTTPS server is cheroot, CherryPy's
WSGI server: pure Python like waitress, a thread pool like waitress, TLS through Python's own
``ssl`` module, runs on Linux, macOS and Windows, and is maintained (see docs/web.md).
"""
from __future__ import annotations

import datetime as dt
import ipaddress
import logging
import os
import socket
import ssl
import sys
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("tableref.https")

VALID_DAYS = 825          # the longest validity iOS accepts for a TLS server certificate
RENEW_DAYS = 30


class TLSError(RuntimeError):
    """The certificate cannot be made or read (message is for the user)."""


@dataclass
class Certificate:
    cert: Path
    key: Path
    fingerprint: str          # SHA-256 of the DER certificate, "AB:CD:..."
    created: bool             # made at this start
    not_after: dt.datetime
    names: list[str]          # the DNS names and addresses it is good for


def default_folder() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("tableref", appauthor=False)) / "tls"


def fingerprint_of(cert) -> str:
    from cryptography.hazmat.primitives import hashes

    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))


def _names(cert) -> list[str]:
    from cryptography import x509

    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    return [str(v) for v in san.get_values_for_type(x509.DNSName)] + \
        [str(v) for v in san.get_values_for_type(x509.IPAddress)]


def _load(cert_path: Path):
    from cryptography import x509

    return x509.load_pem_x509_certificate(cert_path.read_bytes())


def _write_private(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _make(cert_path: Path, key_path: Path, addresses: list[str]) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    host = socket.gethostname() or "tableref"
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"tableref on {host}"[:64]),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "tableref (self-signed)")])
    dns = ["localhost", host] + ([f"{host}.local"] if "." not in host else [])
    ips = []
    for a in ["127.0.0.1", "::1", *addresses]:
        try:
            ip = ipaddress.ip_address(a)
        except ValueError:
            continue
        if ip not in ips:
            ips.append(ip)
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dict.fromkeys(dns)]
                                                       + [x509.IPAddress(i) for i in ips]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    _write_private(key_path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    tmp = cert_path.with_name(cert_path.name + ".tmp")
    tmp.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    os.replace(tmp, cert_path)


def ensure_certificate(folder: Path | str | None = None, addresses: list[str] | tuple = ()) -> Certificate:
    """The certificate in ``folder`` (default: ``tls/`` in the user data directory), made when it
    is missing, unreadable, expires within 30 days, or does not name one of ``addresses`` (this
    computer's LAN addresses: its address on the network changed)."""
    folder = Path(folder) if folder else default_folder()
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TLSError(f"cannot create the certificate folder {folder}: {exc.strerror or exc}") from None
    created = False
    cert = None
    if cert_path.exists() and key_path.exists():
        try:
            cert = _load(cert_path)
        except (OSError, ValueError):
            cert = None
        if cert is not None:
            left = cert.not_valid_after_utc - dt.datetime.now(dt.timezone.utc)
            if left < dt.timedelta(days=RENEW_DAYS) or any(a not in _names(cert) for a in addresses):
                cert = None
    if cert is None:
        try:
            _make(cert_path, key_path, list(addresses))
            cert = _load(cert_path)
        except OSError as exc:
            raise TLSError(f"cannot write the certificate to {folder}: {exc.strerror or exc}") from None
        created = True
    return Certificate(cert_path, key_path, fingerprint_of(cert), created, cert.not_valid_after_utc, _names(cert))


class HTTPSServer:
    """cheroot serving ``app`` over TLS from a background thread.

    cheroot's worker threads are made by the thread that prepares the server and inherit its
    daemon flag; preparing and serving from a daemon thread means no stuck request (a phone's
    live stream, an upload waiting for its frame) can keep the process alive after
    :meth:`stop`, which itself waits at most ``timeout`` seconds.
    """

    def __init__(self, app, host: str, port: int, certificate: Certificate, threads: int):
        import threading

        from cheroot import wsgi
        from cheroot.ssl.builtin import BuiltinSSLAdapter

        self.server = wsgi.Server((host, port), app, numthreads=threads, server_name="tableref", timeout=30,
                                  shutdown_timeout=2, accepted_queue_timeout=1)
        self.server.ssl_adapter = BuiltinSSLAdapter(str(certificate.cert), str(certificate.key))
        self.server.error_log = server_error_log
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="tableref-https", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        try:
            self.server.prepare()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller (port taken...)
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        self.server.serve()

    @property
    def port(self) -> int:
        return self.server.bind_addr[1]

    def wait(self) -> None:
        """Until the server stops (a signal's KeyboardInterrupt ends the wait)."""
        while self._thread.is_alive():
            self._thread.join(0.5)

    def stop(self, timeout: float = 5.0) -> None:
        import threading

        t = threading.Thread(target=self.server.stop, name="tableref-https-stop", daemon=True)
        t.start()
        t.join(timeout)


#: what a browser that goes away (a closed tab, a phone's screen off, a refused certificate) leaves behind
GONE = (ssl.SSLEOFError, ssl.SSLZeroReturnError, ConnectionError, TimeoutError)
GONE_WORDS = ("peer dropped", "socket.error", "connection reset", "broken pipe", "timed out", "alert")


def server_error_log(msg: str = "", level: int = logging.INFO, traceback: bool = False) -> None:
    """cheroot's error log, in one line: a browser that goes away is normal (a debug line); anything
    else is a warning naming the error, never a traceback on the host's terminal."""
    exc = sys.exc_info()[1] if traceback else None
    text = str(msg).strip()
    gone = isinstance(exc, GONE) or (isinstance(exc, ssl.SSLError) and "alert" in str(exc).lower()) \
        or any(w in text.lower() for w in GONE_WORDS)
    if exc is not None and not gone:
        text = f"{text} ({type(exc).__name__}: {exc})"
    log.log(logging.DEBUG if gone else max(level, logging.WARNING), "%s", text)


def https_server(app, host: str, port: int, certificate: Certificate, threads: int) -> HTTPSServer:
    """The app over TLS, listening (``.port``); ``.wait()`` serves until a signal, ``.stop()`` ends it.
    Raises OSError when the port is taken."""
    return HTTPSServer(app, host, port, certificate, threads)
