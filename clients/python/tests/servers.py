"""Local test servers on 127.0.0.1 (random ports): an HTTPS server presenting a certificate for
``hooks.platform.test`` from the tests' PKI, serving fixed answers per path."""

from __future__ import annotations

import http.server
import os
import ssl
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from cryptography.hazmat.primitives import serialization
from pki import pem, pki, rsa_key

Handler = Callable[[http.server.BaseHTTPRequestHandler], None]


def tls_context() -> ssl.SSLContext:
    p = pki()
    directory = tempfile.mkdtemp(prefix="convplatform-tls-")
    cert_file, key_file = os.path.join(directory, "chain.pem"), os.path.join(directory, "key.pem")
    with open(cert_file, "w", encoding="ascii") as f:
        f.write(pem(p.leaf(), p.intermediate))
    with open(key_file, "wb") as f:
        f.write(rsa_key("leaf").private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                              serialization.NoEncryption()))
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert_file, key_file)
    return ctx


@contextmanager
def serve(routes: dict[str, Handler], *, tls: bool = True) -> Iterator[int]:
    """Serve ``routes`` (path -> handler writing the answer); yields the port."""

    class H(http.server.BaseHTTPRequestHandler):
        def _route(self) -> None:
            handler = routes.get(self.path)
            if handler is None:
                self.send_error(404)
                return
            handler(self)

        do_GET = _route
        do_POST = _route

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    server.daemon_threads = True
    if tls:
        server.socket = tls_context().wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def answer(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> Handler:
    def handle(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(status)
        for k, v in (headers or {"Content-Type": "application/json"}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    return handle


def trickle(total_seconds: float) -> Handler:
    """Sends a body one byte at a time, never done before ``total_seconds``."""

    def handle(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.end_headers()
        end = time.monotonic() + total_seconds
        try:
            while time.monotonic() < end:
                h.wfile.write(b" ")
                h.wfile.flush()
                time.sleep(0.05)
        except OSError:
            pass

    return handle
