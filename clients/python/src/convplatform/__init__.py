"""Integrator kit for the conversational platform: verify its hooks, sign management requests, get tokens and
upload files.

    from convplatform import HookVerifier, VerificationError

    verifier = HookVerifier("platform.example")
    try:
        hook = verifier.verify(headers["signature"], headers["signature-certificate-url"], raw_body)
    except VerificationError as e:
        ...  # answer 400; e.code says which check failed

Flask and FastAPI receivers: :mod:`convplatform.flask`, :mod:`convplatform.fastapi`.
"""

from .chain import ValidatedChain, load_pem_anchors, system_trust_anchors
from .client import AccessToken, ApiError, ClientRecord, ManagementClient, UploadClient, UploadedMessage
from .errors import FailureCode, VerificationError
from .fetch import HttpsFetcher, parse_resolve
from .hooks import CERTIFICATE_URL_HEADER, SIGNATURE_HEADER, HookVerifier, VerifiedHook
from .signing import RequestSigner, SignedRequest, verify_request_signature
from .timestamps import format_timestamp, parse_timestamp
from .urls import CertificateUrl, HookCertUrlRule, ManagementCertUrlRule

__version__ = "0.1.0"

__all__ = [
    "CERTIFICATE_URL_HEADER",
    "SIGNATURE_HEADER",
    "AccessToken",
    "ApiError",
    "CertificateUrl",
    "ClientRecord",
    "FailureCode",
    "HookCertUrlRule",
    "HookVerifier",
    "HttpsFetcher",
    "ManagementCertUrlRule",
    "ManagementClient",
    "RequestSigner",
    "SignedRequest",
    "UploadClient",
    "UploadedMessage",
    "ValidatedChain",
    "VerificationError",
    "VerifiedHook",
    "format_timestamp",
    "load_pem_anchors",
    "parse_resolve",
    "parse_timestamp",
    "system_trust_anchors",
    "verify_request_signature",
]
