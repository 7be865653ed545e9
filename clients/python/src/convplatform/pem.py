"""Strict PEM reading of certificate chains: only CERTIFICATE blocks, only white space around them, each block
exactly one DER certificate."""

from __future__ import annotations

import base64
import binascii
import re

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from .errors import FailureCode, VerificationError

__all__ = ["MAX_CERTIFICATES", "MAX_PEM_BYTES", "certificates_to_pem", "parse_certificates"]

#: Largest chain accepted, as the platform's own limit for downloads.
MAX_PEM_BYTES = 64 * 1024
#: More certificates than this in one chain is refused.
MAX_CERTIFICATES = 10

_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]*?)\r?\n?-----END \1-----")
_WHITESPACE = frozenset(" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")


def _blank(s: str) -> bool:
    return all(c in _WHITESPACE for c in s)


def _malformed(message: str) -> VerificationError:
    return VerificationError(FailureCode.CERT_MALFORMED, message)


def _decode(b64: str, index: int) -> bytes:
    text = b64.replace("\r", "").replace("\n", "")
    if len(text) % 4:
        text += "=" * (4 - len(text) % 4)  # padding is optional, as for the platform's decoder
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as e:
        raise _malformed(f"PEM block {index} is not valid Base64") from e


def parse_certificates(data: bytes | str, max_bytes: int = MAX_PEM_BYTES) -> list[x509.Certificate]:
    """Parse a PEM chain (signing certificate first) in the order given.

    Raises :class:`VerificationError` ``CERT_MALFORMED`` naming what was wrong.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not raw:
        raise _malformed("The certificate data is empty")
    if len(raw) > max_bytes:
        raise _malformed(f"The certificate data is {len(raw)} bytes, more than the limit of {max_bytes}")
    text = raw.decode("ascii", errors="replace")
    blocks: list[tuple[str, bytes]] = []
    end = 0
    for m in _BLOCK.finditer(text):
        if not _blank(text[end : m.start()]):
            raise _malformed(
                f"Unexpected text before PEM block {len(blocks) + 1}; the file must hold only "
                "-----BEGIN CERTIFICATE----- blocks"
            )
        der = _decode(m.group(2), len(blocks) + 1)
        if not der:
            raise _malformed(f"PEM block {len(blocks) + 1} is empty")
        blocks.append((m.group(1), der))
        end = m.end()
    if not blocks:
        raise _malformed("No PEM block found; expected -----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----")
    if not _blank(text[end:]):
        raise _malformed("Unexpected text after the last PEM block")
    if len(blocks) > MAX_CERTIFICATES:
        raise _malformed(f"The chain has {len(blocks)} certificates; at most {MAX_CERTIFICATES} are accepted")
    out: list[x509.Certificate] = []
    for index, (kind, der) in enumerate(blocks, start=1):
        if kind != "CERTIFICATE":
            raise _malformed(f"Block {index} is '{kind}'; a chain holds only CERTIFICATE blocks (never a private key)")
        try:
            cert = x509.load_der_x509_certificate(der)
            # Touch the parts every later check reads, so a certificate that cannot be read fails here.
            _ = (cert.not_valid_before_utc, cert.not_valid_after_utc, cert.extensions)
        except Exception as e:  # cryptography raises ValueError and others for bad DER
            raise _malformed(f"Block {index} is not a valid X.509 certificate") from e
        if cert.public_bytes(Encoding.DER) != der:
            raise _malformed(f"Block {index} has bytes after the certificate or is not DER")
        out.append(cert)
    return out


def certificates_to_pem(certs: list[x509.Certificate]) -> str:
    """PEM of the certificates, in the order given."""
    return "".join(c.public_bytes(Encoding.PEM).decode("ascii") for c in certs)
