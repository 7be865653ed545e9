"""The failure codes and the one exception every check of this package raises."""

from __future__ import annotations

import enum

__all__ = ["FailureCode", "VerificationError"]


class FailureCode(str, enum.Enum):
    """Every way a hook, a signed request or a certificate is refused.

    The names are those of the platform's own verifier (``com.convplatform.crypto.FailureCode``): services send them
    as ``error_code`` and the documentation lists each with its fix. Members compare equal to their names, so
    ``err.code == "CERT_EXPIRED"`` works.
    """

    CERT_HEADERS = "CERT_HEADERS"
    CERT_URL_MALFORMED = "CERT_URL_MALFORMED"
    CERT_URL_SCHEME = "CERT_URL_SCHEME"
    CERT_URL_HOST = "CERT_URL_HOST"
    CERT_URL_PATH = "CERT_URL_PATH"
    CERT_URL_PORT = "CERT_URL_PORT"
    CERT_FETCH_FAILED = "CERT_FETCH_FAILED"
    CERT_FETCH_BUSY = "CERT_FETCH_BUSY"
    CERT_MALFORMED = "CERT_MALFORMED"
    CERT_UNKNOWN = "CERT_UNKNOWN"
    CERT_NOT_YET_VALID = "CERT_NOT_YET_VALID"
    CERT_EXPIRED = "CERT_EXPIRED"
    CERT_NAME_MISMATCH = "CERT_NAME_MISMATCH"
    CERT_UNTRUSTED = "CERT_UNTRUSTED"
    CERT_CHAIN_INVALID = "CERT_CHAIN_INVALID"
    CERT_KEY_UNSUPPORTED = "CERT_KEY_UNSUPPORTED"
    SIGNATURE_MALFORMED = "SIGNATURE_MALFORMED"
    SIGNATURE_MISMATCH = "SIGNATURE_MISMATCH"
    TIMESTAMP_MALFORMED = "TIMESTAMP_MALFORMED"
    TIMESTAMP_OUT_OF_WINDOW = "TIMESTAMP_OUT_OF_WINDOW"

    def __str__(self) -> str:
        return self.value


class VerificationError(Exception):
    """A refused hook, request or certificate: ``code`` says which check failed, ``message`` what to do about it.

    The message never carries key material or the text of a network exception.
    """

    def __init__(self, code: FailureCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code: FailureCode = code
        self.message: str = message

    def __repr__(self) -> str:
        return f"VerificationError({self.code.value!r}, {self.message!r})"
