"""The hook verifier: what an external client runs for every hook it receives (spec 5.2), on the raw body."""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from . import _json
from .cache import CacheEntry, ChainCache
from .chain import ValidatedChain, check_key_policy, system_trust_anchors, validate_chain
from .errors import FailureCode, VerificationError
from .fetch import HttpsFetcher
from .pem import parse_certificates
from .timestamps import HOOK_TOLERANCE_SECONDS, check_window
from .urls import CertificateUrl, HookCertUrlRule

__all__ = [
    "CERTIFICATE_URL_HEADER",
    "MAX_BODY_BYTES",
    "SIGNATURE_HEADER",
    "Clock",
    "Fetcher",
    "HookVerifier",
    "VerifiedHook",
    "decode_signature",
]

#: Header with the Base64 SHA256withRSA signature over the raw body.
SIGNATURE_HEADER = "signature"
#: Header with the URL of the platform's signing certificate.
CERTIFICATE_URL_HEADER = "signature-certificate-url"
#: The largest hook body the Flask and FastAPI integrations read (as the Java and Node receivers): a longer one is
#: answered 413 BODY_TOO_LARGE unread. The platform's hooks are a few KiB.
MAX_BODY_BYTES = 1024 * 1024
#: Signatures longer than this (decoded) are refused before any work: RSA-8192 is 1024 bytes.
MAX_SIGNATURE_BYTES = 1024

Clock = Callable[[], _dt.datetime]
Fetcher = Callable[[str], bytes]


def _utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def decode_signature(header: str | None) -> bytes:
    """Decode a signature header strictly: padded standard Base64, canonical (unused bits zero), no white space.

    Raises :class:`VerificationError` ``SIGNATURE_MALFORMED``.
    """
    if header is None or header == "":
        raise VerificationError(FailureCode.SIGNATURE_MALFORMED, "The signature header is missing or empty")
    if len(header) > MAX_SIGNATURE_BYTES * 2:
        raise VerificationError(FailureCode.SIGNATURE_MALFORMED, "The signature header is too long")
    if len(header) % 4 != 0:
        raise VerificationError(
            FailureCode.SIGNATURE_MALFORMED,
            "The signature is not padded standard Base64 (its length is not a multiple of 4)",
        )
    try:
        raw = base64.b64decode(header.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise VerificationError(
            FailureCode.SIGNATURE_MALFORMED, "The signature is not standard Base64 (A-Z a-z 0-9 + / and = padding)"
        ) from None
    if base64.b64encode(raw).decode("ascii") != header:
        raise VerificationError(
            FailureCode.SIGNATURE_MALFORMED, "The signature is not canonical Base64 (non-zero padding bits)"
        )
    if not raw or len(raw) > MAX_SIGNATURE_BYTES:
        raise VerificationError(FailureCode.SIGNATURE_MALFORMED, "The signature has an impossible length")
    return raw


@dataclass(frozen=True)
class VerifiedHook:
    """A hook that passed every check: its raw body, the certificate URL, the chain and the signing time."""

    body: bytes
    certificate_url: str
    chain: ValidatedChain
    signature_timestamp: _dt.datetime

    def json(self) -> Any:
        """The body decoded as JSON (safe now that it is verified)."""
        return json.loads(self.body)


class HookVerifier:
    """Verifies hooks as spec 5.2 says, in its order: (1) the certificate-URL rule, (2) the certificate downloaded
    (cached by normalised URL), (3) its validity now, its chain to a trusted root and the URL's host in its DNS SANs,
    (4) the SHA256withRSA signature over the raw body, (5) the body's ``signature_timestamp`` within 120 s. When the
    signature does not match a cached certificate older than ``refetch_after``, the certificate is downloaded once
    more, so the platform can rotate its key. Thread-safe: build one and keep it.

    :param platform_domains: the production and/or staging platform domain(s); certificate hosts must be subdomains
    :param trust_anchors: roots the chain must lead to; default: the operating system's roots
    :param extra_trust_anchors: roots trusted besides ``trust_anchors`` (a local platform's hook CA)
    :param fetcher: ``url -> bytes``; default :class:`HttpsFetcher` (give it the same extra roots for its TLS)
    :param clock: returns the current time as an aware datetime
    """

    def __init__(
        self,
        platform_domains: str | Iterable[str],
        *,
        trust_anchors: Sequence[x509.Certificate] | None = None,
        extra_trust_anchors: Sequence[x509.Certificate] = (),
        fetcher: Fetcher | None = None,
        clock: Clock | None = None,
        tolerance_seconds: int = HOOK_TOLERANCE_SECONDS,
        cache_size: int = 16,
        cache_max_age: _dt.timedelta = _dt.timedelta(hours=1),
        refetch_after: _dt.timedelta = _dt.timedelta(seconds=30),
    ) -> None:
        domains = [platform_domains] if isinstance(platform_domains, str) else list(platform_domains)
        self._rule = HookCertUrlRule(domains)
        base = list(trust_anchors) if trust_anchors is not None else system_trust_anchors()
        self._anchors = base + list(extra_trust_anchors)
        self._fetcher: Fetcher = fetcher if fetcher is not None else HttpsFetcher()
        self._clock: Clock = clock if clock is not None else _utc_now
        self._tolerance = tolerance_seconds
        self._cache = ChainCache(cache_size, cache_max_age, self._clock)
        self._refetch_after = refetch_after

    @property
    def platform_domains(self) -> tuple[str, ...]:
        return self._rule.domains

    def verify(self, signature: str | None, certificate_url: str | None, raw_body: bytes) -> VerifiedHook:
        """Verify one hook. Pass the two header values (``None`` when absent) and the body bytes exactly as received.

        Returns a :class:`VerifiedHook`; raises :class:`VerificationError` naming the first check that failed
        (answer HTTP 400).
        """
        if not isinstance(raw_body, (bytes, bytearray, memoryview)):
            raise TypeError("raw_body must be the body's bytes exactly as received, not a decoded or parsed body")
        body = bytes(raw_body)
        url = self._rule.check(certificate_url)
        key = str(url)

        def loader() -> ValidatedChain:
            return self._load(url)

        entry = self._cache.get_valid(key, loader)
        sig = decode_signature(signature)
        if not self._verifies(entry, body, sig):
            try:
                refreshed = self._cache.refresh(key, entry, self._refetch_after, loader)
                refreshed.chain.check_valid_at(self._clock())
            except VerificationError as e:
                raise VerificationError(
                    FailureCode.SIGNATURE_MISMATCH,
                    f"The signature does not verify with the platform certificate from {key}, and downloading it "
                    f"again to look for a new key failed ({e.code.value}: {e.message})",
                ) from e
            if refreshed is entry or not self._verifies(refreshed, body, sig):
                raise VerificationError(
                    FailureCode.SIGNATURE_MISMATCH,
                    f"The signature does not verify over the {len(body)} raw body bytes with the platform "
                    f"certificate from {key}; verify the bytes exactly as received, before decoding JSON",
                )
            entry = refreshed
        try:
            ts = _json.top_level_string(body, "signature_timestamp")
        except ValueError as e:
            raise VerificationError(
                FailureCode.TIMESTAMP_MALFORMED, f"The signature_timestamp cannot be read: {e}"
            ) from None
        epoch = check_window(ts, self._clock(), self._tolerance)
        return VerifiedHook(body, key, entry.chain, _dt.datetime.fromtimestamp(epoch, _dt.timezone.utc))

    @staticmethod
    def _verifies(entry: CacheEntry, body: bytes, sig: bytes) -> bool:
        key = entry.chain.leaf.public_key()
        if not isinstance(key, rsa.RSAPublicKey):
            raise VerificationError(FailureCode.CERT_KEY_UNSUPPORTED, "SHA256withRSA needs an RSA key")
        modulus_bytes = (key.key_size + 7) // 8
        if len(sig) != modulus_bytes:
            raise VerificationError(
                FailureCode.SIGNATURE_MALFORMED,
                f"The RSA signature is {len(sig)} bytes; a {key.key_size}-bit key makes {modulus_bytes}",
            )
        try:
            key.verify(sig, body, padding.PKCS1v15(), hashes.SHA256())
            return True
        except InvalidSignature:
            return False

    def _load(self, url: CertificateUrl) -> ValidatedChain:
        try:
            document = self._fetcher(str(url))
        except VerificationError:
            raise
        except Exception:
            raise VerificationError(
                FailureCode.CERT_FETCH_FAILED, f"Downloading {url} failed: the certificate could not be downloaded"
            ) from None
        try:
            pem = _json.top_level_string(document, "certificate")
            if pem is None:
                raise ValueError("it has no 'certificate' field")
        except ValueError as e:
            raise VerificationError(
                FailureCode.CERT_MALFORMED,
                f"The document at {url} is not a JSON object with a 'certificate' string: {e}",
            ) from None
        chain = parse_certificates(pem.encode("ascii", errors="replace"))
        validated = validate_chain(chain, url.host, self._clock(), self._anchors)
        public_key = validated.leaf.public_key()
        if not isinstance(public_key, rsa.RSAPublicKey):
            raise VerificationError(
                FailureCode.CERT_KEY_UNSUPPORTED,
                "The platform certificate's key is not RSA; hooks are signed with SHA256withRSA",
            )
        check_key_policy(public_key)
        return validated
