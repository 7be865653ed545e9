"""Certificate-URL rules: ``signature-certificate-url`` of hooks (spec 5.2) and ``SignatureCertChainUrl`` (spec 5.1).

Both rules share a strict parser that refuses everything two HTTP stacks could read differently; the checks run in
the specification's order (scheme, host, path, port) so the reported code names the first criterion that failed.
The behaviour is that of the platform's Java ``HookCertUrlRule`` and ``ManagementCertUrlRule``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import FailureCode, VerificationError

__all__ = [
    "HOOK_CERT_PATH",
    "MANAGEMENT_PATH_PREFIX",
    "CertificateUrl",
    "HookCertUrlRule",
    "ManagementCertUrlRule",
]

#: The only path a hook certificate URL may have after normalisation.
HOOK_CERT_PATH = "/platform/hooks/certificate/"
#: The prefix every management certificate-chain URL's path must have after normalisation.
MANAGEMENT_PATH_PREFIX = "/client.api/"
#: Longest URL looked at.
MAX_URL_LENGTH = 2048

_PATH_CHARS = frozenset("-._~!$&'()*+,=:@/%")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_LDH = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_HEX = "0123456789abcdefABCDEF"
_JAVA_WHITESPACE = frozenset(" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")


@dataclass(frozen=True)
class CertificateUrl:
    """A URL that passed a rule: https, lower-case host, port 443 implied, normalised path. ``str()`` is the URL
    to download and the cache key."""

    host: str
    path: str

    @property
    def port(self) -> int:
        return 443

    def __str__(self) -> str:
        return f"https://{self.host}{self.path}"


def _fail(code: FailureCode, message: str) -> VerificationError:
    return VerificationError(code, message)


@dataclass(frozen=True)
class _Parts:
    host: str
    path: str
    port: str | None

    def check_port(self) -> None:
        if self.port is None:
            return
        if self.port == "":
            raise _fail(FailureCode.CERT_URL_MALFORMED, "The certificate URL has a ':' but no port number")
        if self.port != "443":
            raise _fail(FailureCode.CERT_URL_PORT, f"The certificate URL may only name port 443, not '{self.port}'")


def _parse(raw: str | None) -> _Parts:
    if raw is None or all(c in _JAVA_WHITESPACE for c in raw):
        raise _fail(FailureCode.CERT_URL_MALFORMED, "The certificate URL is empty")
    if len(raw) > MAX_URL_LENGTH:
        raise _fail(FailureCode.CERT_URL_MALFORMED, f"The certificate URL is longer than {MAX_URL_LENGTH} characters")
    for i, c in enumerate(raw):
        if ord(c) <= 0x20 or ord(c) >= 0x7F:
            raise _fail(
                FailureCode.CERT_URL_MALFORMED,
                f"The certificate URL contains a space, control or non-ASCII character at index {i}; "
                "send a plain ASCII URL",
            )
        if c == "\\":
            raise _fail(
                FailureCode.CERT_URL_MALFORMED,
                "The certificate URL contains a backslash, which HTTP stacks read differently; use '/'",
            )
    colon = raw.find(":")
    if colon <= 0:
        raise _fail(FailureCode.CERT_URL_MALFORMED, f"The certificate URL has no scheme: '{raw}'")
    scheme = raw[:colon]
    if scheme.lower() != "https":
        raise _fail(FailureCode.CERT_URL_SCHEME, f"The certificate URL must use https, not '{scheme}'")
    if not raw.startswith("//", colon + 1):
        raise _fail(FailureCode.CERT_URL_MALFORMED, "The certificate URL must be absolute: https://host/path")
    rest = raw[colon + 3 :]
    if "#" in rest:
        raise _fail(FailureCode.CERT_URL_MALFORMED, "The certificate URL may not have a fragment ('#')")
    if "?" in rest:
        raise _fail(FailureCode.CERT_URL_MALFORMED, "The certificate URL may not have a query ('?')")
    slash = rest.find("/")
    authority = rest if slash < 0 else rest[:slash]
    raw_path = "" if slash < 0 else rest[slash:]
    if "@" in authority:
        raise _fail(FailureCode.CERT_URL_MALFORMED, "The certificate URL may not carry user information ('user@host')")
    if authority.startswith("["):
        raise _fail(FailureCode.CERT_URL_HOST, "The certificate URL's host must be a DNS name, not an IP address")
    host, port = authority, None
    port_colon = authority.rfind(":")
    if port_colon >= 0:
        host, port = authority[:port_colon], authority[port_colon + 1 :]
    if host == "":
        raise _fail(FailureCode.CERT_URL_MALFORMED, "The certificate URL has no host")
    return _Parts(_check_host_syntax(host), _normalise_path(raw_path), port)


def _check_host_syntax(host: str) -> str:
    if "%" in host:
        raise _fail(FailureCode.CERT_URL_MALFORMED, "The certificate URL's host may not be percent-encoded")
    if host.endswith("."):
        raise _fail(
            FailureCode.CERT_URL_HOST, "The certificate URL's host may not end with a dot; send the name without it"
        )
    lower = host.lower()
    if len(lower) > 253:
        raise _fail(FailureCode.CERT_URL_MALFORMED, "The certificate URL's host is too long")
    all_numeric = True
    for label in lower.split("."):
        if label == "" or len(label) > 63:
            raise _fail(
                FailureCode.CERT_URL_MALFORMED, f"The certificate URL's host has an empty or over-long label: '{host}'"
            )
        if label.startswith("-") or label.endswith("-"):
            raise _fail(
                FailureCode.CERT_URL_MALFORMED,
                f"A label of the certificate URL's host starts or ends with '-': '{host}'",
            )
        for c in label:
            if c not in _LDH:
                raise _fail(
                    FailureCode.CERT_URL_MALFORMED,
                    f"The certificate URL's host has a character that is not allowed in a DNS name: '{c}'",
                )
            if not c.isdigit():
                all_numeric = False
    if all_numeric or re.search(r"\.[0-9]+\Z", lower):
        raise _fail(FailureCode.CERT_URL_HOST, "The certificate URL's host must be a DNS name, not an IP address")
    return lower


def _normalise_path(raw_path: str) -> str:
    for c in raw_path:
        if c == ";":
            raise _fail(
                FailureCode.CERT_URL_MALFORMED,
                "The certificate URL's path has a ';'; path parameters are read differently by different servers "
                "(for example '..;/')",
            )
        if c not in _PATH_CHARS and c not in _ALNUM:
            raise _fail(
                FailureCode.CERT_URL_MALFORMED,
                f"The certificate URL's path has the character '{c}', which is not allowed in a URL path unless "
                "percent-encoded",
            )
    i = raw_path.find("%")
    while i >= 0:
        if i + 2 >= len(raw_path) or raw_path[i + 1] not in _HEX or raw_path[i + 2] not in _HEX:
            raise _fail(
                FailureCode.CERT_URL_MALFORMED,
                "The certificate URL's path has a '%' that is not followed by two hex digits",
            )
        value = int(raw_path[i + 1 : i + 3], 16)
        if value in (ord("."), ord("/"), ord("\\"), ord("%"), ord(";")) or value < 0x20 or value >= 0x7F:
            raise _fail(
                FailureCode.CERT_URL_MALFORMED,
                f"The certificate URL's path encodes '{raw_path[i:i + 3]}'; encoded dots, slashes, backslashes, '%', "
                "';', control and non-ASCII characters are not allowed (send the plain character)",
            )
        i = raw_path.find("%", i + 1)
    if raw_path == "":
        return "/"
    return _remove_dot_segments(re.sub(r"/{2,}", "/", raw_path))


def _remove_dot_segments(path: str) -> str:
    out: list[str] = []
    segments = path[1:].split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if out:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    return "/" + "/".join(out)


class HookCertUrlRule:
    """The ``signature-certificate-url`` rule of spec 5.2: https; host a subdomain (one or more labels) of a platform
    domain, never the bare domain; path exactly ``/platform/hooks/certificate/`` after normalisation (a doubled slash
    before the path is accepted); port 443 if given."""

    def __init__(self, domains: Iterable[str]) -> None:
        cleaned: list[str] = []
        for d in domains:
            s = d.strip().lower()
            s = s.removeprefix(".")
            if s == "" or s.endswith(".") or "." not in s:
                raise ValueError(f"Not a platform domain: '{d}'")
            cleaned.append(s)
        if not cleaned:
            raise ValueError("At least one platform domain is required")
        self._domains = tuple(cleaned)

    @property
    def domains(self) -> tuple[str, ...]:
        return self._domains

    def check(self, raw_url: str | None) -> CertificateUrl:
        """Return the normalised URL, or raise :class:`VerificationError` with a ``CERT_URL_*`` code."""
        parts = _parse(raw_url)
        if not self._is_subdomain(parts.host):
            raise _fail(
                FailureCode.CERT_URL_HOST,
                f"The certificate URL's host '{parts.host}' is not a subdomain of {' or '.join(self._domains)}",
            )
        if parts.path != HOOK_CERT_PATH:
            raise _fail(
                FailureCode.CERT_URL_PATH,
                f"The certificate URL's path '{parts.path}' (after normalisation) must be exactly {HOOK_CERT_PATH}",
            )
        parts.check_port()
        return CertificateUrl(parts.host, parts.path)

    def _is_subdomain(self, host: str) -> bool:
        return any(
            len(host) > len(d) + 1 and host.endswith(d) and host[len(host) - len(d) - 1] == "." for d in self._domains
        )


class ManagementCertUrlRule:
    """The ``SignatureCertChainUrl`` rule of spec 5.1: https; host equal to the account's FQDN (any case); path,
    after normalisation, starting with ``/client.api/`` (exact case); port 443 if given. A signer can run it before
    sending, to fail early with the code the platform would answer."""

    def __init__(self, fqdn: str) -> None:
        self._fqdn = fqdn.lower()

    def check(self, raw_url: str | None) -> CertificateUrl:
        parts = _parse(raw_url)
        if parts.host != self._fqdn:
            raise _fail(
                FailureCode.CERT_URL_HOST,
                f"The certificate URL's host '{parts.host}' is not the account's FQDN '{self._fqdn}'",
            )
        if not parts.path.startswith(MANAGEMENT_PATH_PREFIX):
            raise _fail(
                FailureCode.CERT_URL_PATH,
                f"The certificate URL's path '{parts.path}' (after normalisation) must start with "
                f"{MANAGEMENT_PATH_PREFIX} (case-sensitive)",
            )
        parts.check_port()
        return CertificateUrl(parts.host, parts.path)
