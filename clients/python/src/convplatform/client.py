"""Clients for the management API (token, client list; spec 4.1, 4.2) and the upload endpoint (spec 4.5), on the
standard library only."""

from __future__ import annotations

import json
import mimetypes
import os
import secrets
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .signing import RequestSigner, SignedRequest

__all__ = ["AccessToken", "ApiError", "ClientRecord", "ManagementClient", "UploadClient", "UploadedMessage",
           "encode_multipart"]

_USER_AGENT = "convplatform-python/1"


class ApiError(Exception):
    """The platform refused a request, or could not be reached.

    ``status`` is the HTTP status (``None`` when no answer arrived); ``error_code`` and ``error_message`` are the
    service's ``{"error_code", "error_message"}`` body (``CONNECTION_FAILED`` and the reason when no answer arrived).
    """

    def __init__(self, status: int | None, error_code: str, error_message: str, request_id: str | None = None,
                 retry_after: str | None = None) -> None:
        super().__init__(f"{status or 'no answer'} {error_code}: {error_message}")
        self.status = status
        self.error_code = error_code
        self.error_message = error_message
        self.request_id = request_id
        self.retry_after = retry_after


@dataclass(frozen=True)
class AccessToken:
    access_token: str
    token_type: str
    expires_in: int
    client_id: str
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class ClientRecord:
    client_id: str
    name: str
    created_at: str
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class UploadedMessage:
    """The uploaded-file message of spec 2.3."""

    message_id: int
    message_body: str
    created_at: str
    message_type: int
    file_url: str
    raw: Mapping[str, Any] = field(repr=False, default_factory=dict)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None  # a redirect is answered to the caller as an error, never followed


_OPENER = urllib.request.build_opener(_NoRedirects())


def _send(url: str, body: bytes, headers: Mapping[str, str], timeout: float) -> Any:
    request = urllib.request.Request(url, data=body, method="POST", headers={"User-Agent": _USER_AGENT, **headers})
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            data = response.read()
    except urllib.error.HTTPError as e:
        raw = e.read()
        code, message = f"HTTP_{e.code}", raw.decode("utf-8", errors="replace")[:500] or str(e.reason)
        try:
            doc = json.loads(raw)
            if isinstance(doc, dict):
                code = str(doc.get("error_code") or code)
                message = str(doc.get("error_message") or message)
        except ValueError:
            pass
        raise ApiError(e.code, code, message, e.headers.get("X-Request-Id"), e.headers.get("Retry-After")) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise ApiError(None, "CONNECTION_FAILED", f"{url} could not be reached: {reason}") from None
    try:
        return json.loads(data)
    except ValueError:
        raise ApiError(200, "MALFORMED_RESPONSE", f"{url} answered 200 with a body that is not JSON") from None


class ManagementClient:
    """Signed management requests (spec 4.1, 4.2).

    >>> client = ManagementClient("https://management.platform.example", signer)
    >>> token = client.issue_token(client_id, fqdn="client.example.com")
    """

    TOKEN_PATH = "/platform/management/token/issue/"
    CLIENTS_PATH = "/platform/management/clients/"

    def __init__(self, base_url: str, signer: RequestSigner, *, timeout: float = 30.0) -> None:
        self._base = base_url.rstrip("/")
        self._signer = signer
        self._timeout = timeout

    def send(self, path: str, signed: SignedRequest) -> Any:
        """POST an already signed request; returns the decoded JSON answer or raises :class:`ApiError`."""
        return _send(self._base + path, signed.body, signed.headers, self._timeout)

    def issue_token(self, client_id: str, fqdn: str) -> AccessToken:
        doc = self.send(self.TOKEN_PATH, self._signer.token_request(client_id, fqdn))
        return AccessToken(str(doc["access_token"]), str(doc.get("token_type", "Bearer")),
                           int(doc.get("expires_in", 0)), str(doc.get("client_id", client_id)), doc)

    def list_clients(self, fqdn: str) -> list[ClientRecord]:
        doc = self.send(self.CLIENTS_PATH, self._signer.client_list_request(fqdn))
        return [ClientRecord(str(c["client_id"]), str(c.get("name", "")), str(c.get("created_at", "")), c)
                for c in doc.get("clients", [])]


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\n", " ")


def encode_multipart(fields: Mapping[str, str], files: Mapping[str, tuple[str, bytes, str]]) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body: text ``fields`` and ``files`` as ``name -> (filename, content, type)``.

    Returns the body and the ``Content-Type`` header value (with its boundary).
    """
    while True:
        boundary = "convplatform-" + secrets.token_hex(16)
        contents = [v.encode("utf-8") for v in fields.values()] + [f[1] for f in files.values()]
        if not any(boundary.encode("ascii") in c for c in contents):
            break
    out = bytearray()
    for name, value in fields.items():
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{_quote(name)}"\r\n\r\n'.encode()
        out += value.encode("utf-8") + b"\r\n"
    for name, (filename, content, content_type) in files.items():
        out += (f'--{boundary}\r\nContent-Disposition: form-data; name="{_quote(name)}"; '
                f'filename="{_quote(filename)}"\r\nContent-Type: {content_type}\r\n\r\n').encode()
        out += content + b"\r\n"
    out += f"--{boundary}--\r\n".encode("ascii")
    return bytes(out), f"multipart/form-data; boundary={boundary}"


class UploadClient:
    """The upload endpoint of spec 4.5: ``POST {base_url}/v1.0/log_file_from_user/`` with ``Authorization: Bearer``
    and ``client-id``."""

    PATH = "/v1.0/log_file_from_user/"
    IMAGE = 1
    DOCUMENT = 52

    def __init__(self, base_url: str, *, timeout: float = 120.0) -> None:
        self._base = base_url.rstrip("/")
        self._timeout = timeout

    def upload(
        self,
        *,
        access_token: str,
        client_id: str,
        auth_id: str,
        business_id: str,
        message_type: int,
        file: bytes | str | os.PathLike[str],
        filename: str | None = None,
        content_type: str | None = None,
        message_body: str | None = None,
    ) -> UploadedMessage:
        """Upload one file (a path, or bytes with ``filename``) as user ``auth_id``; ``message_type`` is
        :attr:`IMAGE` (1) or :attr:`DOCUMENT` (52)."""
        if isinstance(file, bytes):
            if not filename:
                raise ValueError("filename is required when the file is given as bytes")
            content = file
        else:
            with open(file, "rb") as f:
                content = f.read()
            filename = filename or os.path.basename(os.fspath(file))
        content_type = content_type or mimetypes.guess_type(filename)[0] or "application/octet-stream"
        fields = {"auth_id": auth_id, "business_id": business_id, "message_type": str(message_type)}
        if message_body is not None:
            fields["message_body"] = message_body
        body, multipart_type = encode_multipart(fields, {"file": (filename, content, content_type)})
        headers = {"Authorization": f"Bearer {access_token}", "client-id": client_id, "Content-Type": multipart_type}
        doc = _send(self._base + self.PATH, body, headers, self._timeout)
        return UploadedMessage(int(doc["message_id"]), str(doc.get("message_body", "")), str(doc.get("created_at", "")),
                               int(doc.get("message_type", message_type)), str(doc.get("file_url", "")), doc)
