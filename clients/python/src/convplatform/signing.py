"""The external client's side of spec 5.1: signed management requests (token, client list)."""

from __future__ import annotations

import base64
import datetime as _dt
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

from .timestamps import format_timestamp

__all__ = ["RequestSigner", "SignedRequest", "verify_request_signature"]

SIGNATURE_HEADER = "Signature"
SIGNATURE_256_HEADER = "Signature-256"
CERT_CHAIN_URL_HEADER = "SignatureCertChainUrl"
CERT_UUID_HEADER = "SignatureCertUUID"

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


@dataclass(frozen=True)
class SignedRequest:
    """A body and the headers to send with it. Send ``body`` exactly: the signature is over these bytes."""

    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


class RequestSigner:
    """Signs management requests with the client's key: SHA1withRSA for an RSA key, SHA1withECDSA (DER) for an EC
    key, over the exact bytes sent, and names the certificate with exactly one of ``cert_uuid`` (a registered
    self-signed certificate, header ``SignatureCertUUID``) or ``cert_chain_url`` (a CA-issued chain, header
    ``SignatureCertChainUrl``).

    By default the headers carry ``Signature-256`` beside ``Signature``: SHA256withRSA / SHA256withECDSA over the same
    bytes, the platform's extension of spec 5.1 (both are verified when both are sent; an account whose operator
    requires SHA-256 refuses a request without it). ``signature_256=False`` sends ``Signature`` alone, for a platform
    that does not take ``Signature-256``.
    """

    def __init__(
        self,
        private_key: PrivateKey,
        *,
        cert_uuid: str | None = None,
        cert_chain_url: str | None = None,
        clock: Callable[[], _dt.datetime] | None = None,
        signature_256: bool = True,
    ) -> None:
        if not isinstance(private_key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
            raise TypeError(f"management requests are signed with an RSA or EC key, not {type(private_key).__name__}")
        if (cert_uuid is None) == (cert_chain_url is None):
            raise ValueError("give exactly one of cert_uuid (self-signed, registered) or cert_chain_url (CA-issued)")
        self._key = private_key
        self._cert_header = (CERT_UUID_HEADER, cert_uuid) if cert_uuid is not None else (
            CERT_CHAIN_URL_HEADER, str(cert_chain_url))
        self._clock = clock or (lambda: _dt.datetime.now(_dt.timezone.utc))
        self._signature_256 = signature_256

    @classmethod
    def from_pem(cls, key_pem: bytes | str, *, password: bytes | None = None, cert_uuid: str | None = None,
                 cert_chain_url: str | None = None, clock: Callable[[], _dt.datetime] | None = None,
                 signature_256: bool = True) -> RequestSigner:
        """A signer from a PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)."""
        data = key_pem.encode("ascii") if isinstance(key_pem, str) else key_pem
        key = serialization.load_pem_private_key(data, password=password)
        if not isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
            raise TypeError(f"management requests are signed with an RSA or EC key, not {type(key).__name__}")
        return cls(key, cert_uuid=cert_uuid, cert_chain_url=cert_chain_url, clock=clock, signature_256=signature_256)

    @property
    def algorithm(self) -> str:
        """``SHA1withRSA`` or ``SHA1withECDSA``: the ``Signature`` header's algorithm."""
        return "SHA1withRSA" if isinstance(self._key, rsa.RSAPrivateKey) else "SHA1withECDSA"

    @property
    def algorithm_256(self) -> str:
        """``SHA256withRSA`` or ``SHA256withECDSA``: the ``Signature-256`` header's algorithm."""
        return "SHA256withRSA" if isinstance(self._key, rsa.RSAPrivateKey) else "SHA256withECDSA"

    def sign(self, body: bytes) -> str:
        """The ``Signature`` header value (Base64, SHA-1) for these exact bytes."""
        return self._sign(body, hashes.SHA1())

    def sign_256(self, body: bytes) -> str:
        """The ``Signature-256`` header value (Base64, SHA-256) for these exact bytes."""
        return self._sign(body, hashes.SHA256())

    def _sign(self, body: bytes, digest: hashes.HashAlgorithm) -> str:
        if isinstance(self._key, rsa.RSAPrivateKey):
            sig = self._key.sign(body, padding.PKCS1v15(), digest)
        else:
            sig = self._key.sign(body, ec.ECDSA(digest))
        return base64.b64encode(sig).decode("ascii")

    def headers(self, body: bytes) -> dict[str, str]:
        """``Content-Type``, ``Signature``, ``Signature-256`` (unless ``signature_256=False``) and the certificate
        header."""
        out = {"Content-Type": "application/json", SIGNATURE_HEADER: self.sign(body)}
        if self._signature_256:
            out[SIGNATURE_256_HEADER] = self.sign_256(body)
        out[self._cert_header[0]] = self._cert_header[1]
        return out

    def sign_json(self, fields: dict[str, object]) -> SignedRequest:
        """Serialise ``fields`` plus ``timestamp`` (now, ``YYYY-MM-DDThh:mm:ssZ``) as compact UTF-8 JSON and sign it."""
        payload = dict(fields)
        payload["timestamp"] = format_timestamp(self._clock())
        body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return SignedRequest(body, self.headers(body))

    def token_request(self, client_id: str, fqdn: str) -> SignedRequest:
        """The signed body of spec 2.1 / 4.1: ``client_id``, ``fqdn``, ``timestamp``."""
        return self.sign_json({"client_id": client_id, "fqdn": fqdn})

    def client_list_request(self, fqdn: str) -> SignedRequest:
        """The signed body of the client enumeration (spec 4.2): ``fqdn``, ``timestamp``."""
        return self.sign_json({"fqdn": fqdn})


def _check_ecdsa_der(sig: bytes, order: int) -> None:
    """SEQUENCE { INTEGER r, INTEGER s }: minimal lengths, minimal positive integers, 0 < r, s < order, nothing
    after; the platform refuses anything else as SIGNATURE_MALFORMED."""
    from .errors import FailureCode, VerificationError

    def bad(why: str) -> VerificationError:
        return VerificationError(FailureCode.SIGNATURE_MALFORMED, f"The ECDSA signature is not strict DER: {why}")

    pos = 0

    def length() -> int:
        nonlocal pos
        if pos >= len(sig):
            raise bad("it ends inside a length")
        first = sig[pos]
        pos += 1
        if first < 0x80:
            return first
        if first == 0x81:
            if pos >= len(sig):
                raise bad("it ends inside a length")
            n = sig[pos]
            pos += 1
            if n < 0x80:
                raise bad("a length is not minimally encoded (BER, not DER)")
            return n
        raise bad("a length uses an indefinite or over-long form (BER, not DER)")

    def integer() -> int:
        nonlocal pos
        if pos >= len(sig) or sig[pos] != 0x02:
            raise bad("an INTEGER was expected")
        pos += 1
        n = length()
        if n == 0 or pos + n > len(sig):
            raise bad("an INTEGER has an impossible length")
        if sig[pos] & 0x80:
            raise bad("an INTEGER is negative")
        if n > 1 and sig[pos] == 0 and not sig[pos + 1] & 0x80:
            raise bad("an INTEGER has a superfluous leading zero")
        value = int.from_bytes(sig[pos : pos + n], "big")
        pos += n
        if value == 0:
            raise bad("r or s is zero")
        return value

    if len(sig) < 8 or sig[0] != 0x30:
        raise bad("it is not a DER SEQUENCE")
    pos = 1
    seq = length()
    if pos + seq != len(sig):
        raise bad("the SEQUENCE length does not match the signature length (trailing or missing bytes)")
    r, s = integer(), integer()
    if pos != len(sig):
        raise bad("there are bytes after the two integers")
    if r >= order or s >= order:
        raise bad("r or s is not smaller than the curve order")


_CURVE_ORDERS = {
    "secp256r1": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    "secp384r1": int(
        "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973", 16
    ),
    "secp521r1": int(
        "01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFA5186"
        "8783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB71E91386409", 16
    ),
}


def verify_request_signature(public_key: object, body: bytes, signature_b64: str | None, *, sha256: bool = False) -> None:
    """Verify a management-request signature as the platform does (spec 5.1 step 3): strict Base64, SHA1withRSA for
    an RSA key or SHA1withECDSA (strict DER) for an EC key (SHA-256 with ``sha256=True``).

    Raises :class:`VerificationError` ``SIGNATURE_MALFORMED``, ``SIGNATURE_MISMATCH`` or ``CERT_KEY_UNSUPPORTED``.
    """
    from cryptography.exceptions import InvalidSignature

    from .errors import FailureCode, VerificationError
    from .hooks import decode_signature

    if hasattr(public_key, "public_key") and not isinstance(public_key, (rsa.RSAPublicKey, ec.EllipticCurvePublicKey)):
        public_key = public_key.public_key()  # a certificate
    sig = decode_signature(signature_b64)
    digest: hashes.HashAlgorithm = hashes.SHA256() if sha256 else hashes.SHA1()
    try:
        if isinstance(public_key, rsa.RSAPublicKey):
            n = (public_key.key_size + 7) // 8
            if len(sig) != n:
                raise VerificationError(
                    FailureCode.SIGNATURE_MALFORMED,
                    f"The RSA signature is {len(sig)} bytes; a {public_key.key_size}-bit key makes {n}",
                )
            public_key.verify(sig, body, padding.PKCS1v15(), digest)
        elif isinstance(public_key, ec.EllipticCurvePublicKey):
            order = _CURVE_ORDERS.get(public_key.curve.name)
            if order is None:
                raise VerificationError(FailureCode.CERT_KEY_UNSUPPORTED, f"The curve {public_key.curve.name} is not accepted")
            _check_ecdsa_der(sig, order)
            public_key.verify(sig, body, ec.ECDSA(digest))
        else:
            raise VerificationError(FailureCode.CERT_KEY_UNSUPPORTED, "RSA or EC (ECDSA) keys are accepted")
    except InvalidSignature:
        raise VerificationError(
            FailureCode.SIGNATURE_MISMATCH, "The signature does not match the request body"
        ) from None
