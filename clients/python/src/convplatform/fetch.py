"""Downloading a certificate document over HTTPS, with hard limits, using only the standard library.

One GET over HTTP/1.1 and TLS 1.2 or 1.3 with host name verification; a connect time-out, a read time-out, and one
overall deadline from the lookup to the last byte; a byte limit enforced while reading; status 200 only; redirects
never followed; the host's addresses must be public unless a ``resolve`` override names where to connect. Failures
are said in plain words, never with an exception's text (which can describe the inside of a network).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from .errors import FailureCode, VerificationError

__all__ = ["HttpsFetcher", "parse_resolve"]

DEFAULT_MAX_BYTES = 64 * 1024
DEFAULT_CONNECT_TIMEOUT = 2.0
DEFAULT_READ_TIMEOUT = 5.0
DEFAULT_TOTAL_TIMEOUT = 5.0
DEFAULT_PER_HOST = 2


def parse_resolve(entries: str | Sequence[str]) -> dict[str, tuple[str, int]]:
    """Parse ``host=address:port`` overrides (like curl's ``--resolve``), comma- or list-separated."""
    items = entries.split(",") if isinstance(entries, str) else list(entries)
    out: dict[str, tuple[str, int]] = {}
    for raw in items:
        entry = raw.strip()
        if not entry:
            continue
        eq, colon = entry.find("="), entry.rfind(":")
        if eq <= 0 or colon <= eq + 1 or colon == len(entry) - 1:
            raise ValueError(f"Not of the form host=address:port: '{entry}'")
        try:
            port = int(entry[colon + 1 :])
        except ValueError:
            raise ValueError(f"Port is not a number in '{entry}'") from None
        if not 1 <= port <= 65535:
            raise ValueError(f"Port out of range in '{entry}'")
        out[entry[:eq].lower()] = (entry[eq + 1 : colon].strip("[]"), port)
    return out


def _fetch_failed(message: str) -> VerificationError:
    return VerificationError(FailureCode.CERT_FETCH_FAILED, message)


class HttpsFetcher:
    """Downloads certificate documents. Callable: ``fetcher(url) -> bytes``; raises :class:`VerificationError`
    (``CERT_FETCH_FAILED`` or ``CERT_FETCH_BUSY``). Thread-safe.

    :param extra_trust_anchors: roots trusted for the download's TLS besides the system's (off by default)
    :param resolve: ``{host: (address, port)}`` where to connect instead of DNS and port 443, for a local platform;
        TLS still verifies the URL's host name (off by default)
    :param allow_private_networks: connect to loopback, private and link-local addresses found by DNS (off by default)
    """

    def __init__(
        self,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        total_timeout: float = DEFAULT_TOTAL_TIMEOUT,
        extra_trust_anchors: Sequence[x509.Certificate] = (),
        resolve: Mapping[str, tuple[str, int]] | None = None,
        allow_private_networks: bool = False,
        per_host: int = DEFAULT_PER_HOST,
    ) -> None:
        if max_bytes <= 0 or per_host <= 0 or min(connect_timeout, read_timeout, total_timeout) <= 0:
            raise ValueError("limits and time-outs must be positive")
        self.max_bytes = max_bytes
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.total_timeout = total_timeout
        self._resolve = {k.lower(): v for k, v in (resolve or {}).items()}
        self._allow_private = allow_private_networks
        self._per_host = per_host
        self._running: dict[str, int] = {}
        self._lock = threading.Lock()
        ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        if extra_trust_anchors:
            ctx.load_verify_locations(
                cadata="".join(c.public_bytes(Encoding.PEM).decode("ascii") for c in extra_trust_anchors)
            )
        self._context = ctx

    def __call__(self, url: str) -> bytes:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if parts.scheme != "https" or not host:
            raise _fetch_failed(f"Only https URLs are downloaded, not '{url}'")
        with self._lock:
            if self._running.get(host, 0) >= self._per_host:
                raise VerificationError(
                    FailureCode.CERT_FETCH_BUSY,
                    f"{self._per_host} certificate downloads from {host} are already running (the most at once); "
                    "try again in a few seconds",
                )
            self._running[host] = self._running.get(host, 0) + 1
        try:
            return self._download(url, host, parts.port or 443, parts.path or "/")
        finally:
            with self._lock:
                n = self._running[host] - 1
                if n:
                    self._running[host] = n
                else:
                    del self._running[host]

    def _targets(self, url: str, host: str, port: int) -> list[tuple[str, int]]:
        override = self._resolve.get(host)
        if override is not None:
            return [override]
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            raise _fetch_failed(f"Downloading {url} failed: the host name does not resolve") from None
        out: list[tuple[str, int]] = []
        for info in infos:
            address = str(info[4][0])
            if not self._allow_private and not ipaddress.ip_address(address.split("%")[0]).is_global:
                raise _fetch_failed(
                    f"Downloading {url} failed: {host} resolves to an address that is not public; certificates are "
                    "only downloaded from public addresses"
                )
            if (address, port) not in out:
                out.append((address, port))
        return out

    def _download(self, url: str, host: str, port: int, path: str) -> bytes:
        deadline = time.monotonic() + self.total_timeout
        targets = self._targets(url, host, port)
        raw = self._connect(url, host, targets, deadline)
        # Socket time-outs bound each read, not their sum: a server sending one byte at a time would never trip
        # them. Shutting the socket down at the deadline bounds the whole exchange.
        current: list[socket.socket] = [raw]
        fired = threading.Event()

        def at_deadline() -> None:
            fired.set()
            _close_quietly(current[0])

        timer = threading.Timer(max(0.001, deadline - time.monotonic()), at_deadline)
        timer.daemon = True
        timer.start()
        try:
            raw.settimeout(self._remaining(deadline))
            tls = self._context.wrap_socket(raw, server_hostname=host, do_handshake_on_connect=False)
            current[0] = tls
            tls.do_handshake()
            conn = http.client.HTTPSConnection(host, port, context=self._context)
            conn.sock = tls
            conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
            conn.putheader("Host", host)
            conn.putheader("Accept", "application/json, application/x-pem-file, text/plain, */*")
            conn.putheader("Accept-Encoding", "identity")
            conn.putheader("Connection", "close")
            conn.putheader("User-Agent", "convplatform-python/1")
            conn.endheaders()
            response = conn.getresponse()
            if 300 <= response.status < 400:
                raise _fetch_failed(
                    f"Downloading {url}: the server answered {response.status} (a redirect); redirects are not followed"
                )
            if response.status != 200:
                raise _fetch_failed(f"Downloading {url}: the server answered {response.status}, not 200")
            length = response.getheader("Content-Length")
            if length is not None and length.strip().isdigit() and int(length) > self.max_bytes:
                raise self._too_large(url)
            body = bytearray()
            while True:
                tls.settimeout(self._remaining(deadline))
                chunk = response.read1(8192) if hasattr(response, "read1") else response.read(8192)
                if not chunk:
                    break
                body += chunk
                if len(body) > self.max_bytes:
                    raise self._too_large(url)
            if fired.is_set():  # the socket was shut at the deadline: what was read is cut short
                raise TimeoutError("deadline passed")
            return bytes(body)
        except VerificationError:
            raise
        except ssl.SSLCertVerificationError:
            raise _fetch_failed(
                f"Downloading {url} failed: the server's TLS certificate is not trusted or not valid for {host} "
                "(the server must present a publicly trusted certificate for the host)"
            ) from None
        except (OSError, http.client.HTTPException, ValueError) as e:
            if fired.is_set() or time.monotonic() >= deadline or isinstance(e, TimeoutError):
                raise _fetch_failed(
                    f"Downloading {url} timed out (limit {int(self.total_timeout * 1000)} ms)"
                ) from None
            why = "the TLS handshake failed" if isinstance(e, ssl.SSLError) else "the server's answer could not be read"
            raise _fetch_failed(f"Downloading {url} failed: {why}") from None
        finally:
            timer.cancel()
            _close_quietly(current[0])

    def _connect(self, url: str, host: str, targets: list[tuple[str, int]], deadline: float) -> socket.socket:
        timed_out = False
        refused = False
        for address, port in targets:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            try:
                return socket.create_connection((address, port), timeout=min(self.connect_timeout, left))
            except TimeoutError:
                timed_out = True
            except ConnectionRefusedError:
                refused = True
            except OSError:
                pass
        if timed_out:
            why = f"timed out (limit {int(self.connect_timeout * 1000)} ms)"
        elif refused:
            why = "failed: the server refused the connection"
        else:
            why = "failed: the server could not be reached"
        raise _fetch_failed(f"Connecting to {host} for {url} {why}")

    def _remaining(self, deadline: float) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("deadline passed")
        return min(self.read_timeout, left)

    def _too_large(self, url: str) -> VerificationError:
        return _fetch_failed(f"Downloading {url}: the response is larger than {self.max_bytes} bytes")


def _close_quietly(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
