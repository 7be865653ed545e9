"""Certificate chain validation at an instant, with the platform verifier's rules and failure codes.

The signing certificate is checked first (validity window, the required DNS name among its Subject Alternative Names,
its purpose, not a CA); then a path is searched from it through the certificates sent to a trust anchor, each
candidate's validity windows checked and the path validated by ``cryptography.x509.verification`` (signatures, CA
flags, path length, name constraints, key sizes, critical extensions). Revocation is not checked.
"""

from __future__ import annotations

import datetime as _dt
import os
import ssl
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import Encoding
from cryptography.x509.oid import ExtendedKeyUsageOID, ExtensionOID
from cryptography.x509.verification import (
    Criticality,
    ExtensionPolicy,
    Policy,
    PolicyBuilder,
    Store,
)
from cryptography.x509.verification import (
    VerificationError as _CryptoVerificationError,
)

from .errors import FailureCode, VerificationError

__all__ = ["MAX_CHAIN_LENGTH", "ValidatedChain", "check_key_policy", "dns_name_matches", "load_pem_anchors",
           "system_trust_anchors", "validate_chain"]

#: Chains longer than this are refused before any work.
MAX_CHAIN_LENGTH = 10
_MAX_PATH_ATTEMPTS = 8
_MAX_SEARCH_STEPS = 100
_SIGNING_PURPOSES = frozenset(
    {ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH, ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE}
)
_KNOWN_CRITICAL = frozenset(
    {
        ExtensionOID.KEY_USAGE,
        ExtensionOID.EXTENDED_KEY_USAGE,
        ExtensionOID.SUBJECT_ALTERNATIVE_NAME,
        ExtensionOID.BASIC_CONSTRAINTS,
        ExtensionOID.NAME_CONSTRAINTS,
        ExtensionOID.CERTIFICATE_POLICIES,
        ExtensionOID.POLICY_CONSTRAINTS,
        ExtensionOID.POLICY_MAPPINGS,
        ExtensionOID.INHIBIT_ANY_POLICY,
    }
)


@dataclass(frozen=True)
class ValidatedChain:
    """A chain that passed :func:`validate_chain`: the path (signing certificate first, trust anchor excluded) and
    the window in which all of its certificates and its trust anchor are valid."""

    certificates: tuple[x509.Certificate, ...]
    not_before: _dt.datetime
    not_after: _dt.datetime

    @classmethod
    def of(cls, path: Sequence[x509.Certificate], anchor: x509.Certificate | None = None) -> ValidatedChain:
        # the window a cached chain is used in: every certificate its trust rests on, the anchor's dates included
        trusted = [*path, anchor] if anchor is not None else list(path)
        return cls(
            tuple(path),
            max(c.not_valid_before_utc for c in trusted),
            min(c.not_valid_after_utc for c in trusted),
        )

    @property
    def leaf(self) -> x509.Certificate:
        return self.certificates[0]

    def check_valid_at(self, instant: _dt.datetime) -> None:
        """Raise ``CERT_NOT_YET_VALID`` or ``CERT_EXPIRED`` unless every certificate of the path and its anchor is
        valid at ``instant`` (to the whole second, as certificate dates are)."""
        at = instant.replace(microsecond=0)
        if at < self.not_before:
            raise VerificationError(
                FailureCode.CERT_NOT_YET_VALID,
                f"A certificate of the chain is valid only from {_iso(self.not_before)} (now {_iso(at)})",
            )
        if at > self.not_after:
            raise VerificationError(
                FailureCode.CERT_EXPIRED,
                f"A certificate of the chain expired at {_iso(self.not_after)} (now {_iso(at)})",
            )


def _iso(t: _dt.datetime) -> str:
    return t.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _name(cert: x509.Certificate) -> str:
    text = cert.subject.rfc4514_string()
    return text if len(text) <= 200 else text[:200] + "..."


def _invalid(message: str) -> VerificationError:
    return VerificationError(FailureCode.CERT_CHAIN_INVALID, message)


# --- names ---------------------------------------------------------------------------------------------------------


def _ldh(name: str) -> bool:
    for label in name.split("."):
        if not label or len(label) > 63 or label[0] == "-" or label[-1] == "-":
            return False
        if any(not (c.isascii() and (c.islower() or c.isdigit() or c == "-")) for c in label):
            return False
    return True


def dns_name_matches(pattern: str, name: str) -> bool:
    """RFC 6125 matching of one DNS SAN against a host name: case-insensitive, trailing dots ignored, a wildcard only
    as the whole left-most label, matching exactly one label, never over an IDN A-label or a too-short suffix."""
    p = pattern.lower().removesuffix(".")
    n = name.lower().removesuffix(".")
    if not p or not n or any(not ("\x21" <= c <= "\x7e") for c in p + n):
        return False
    if not _ldh(p.removeprefix("*.")):
        return False
    if "*" not in p:
        return p == n
    if not p.startswith("*.") or "*" in p[1:]:
        return False
    suffix = p[1:]
    if suffix.count(".") < 2 or not n.endswith(suffix):
        return False
    first = n[: len(n) - len(suffix)]
    return bool(first) and "." not in first and not first.startswith("xn--")


def _dns_sans(cert: x509.Certificate) -> list[str] | None:
    try:
        ext = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    except x509.ExtensionNotFound:
        return None
    return list(ext.value.get_values_for_type(x509.DNSName))


# --- the signing certificate ---------------------------------------------------------------------------------------


def _check_window(cert: x509.Certificate, at: _dt.datetime, which: str) -> None:
    if at < cert.not_valid_before_utc:
        raise VerificationError(
            FailureCode.CERT_NOT_YET_VALID, f"{which} is valid only from {_iso(cert.not_valid_before_utc)} (now {_iso(at)})"
        )
    if at > cert.not_valid_after_utc:
        raise VerificationError(
            FailureCode.CERT_EXPIRED, f"{which} expired at {_iso(cert.not_valid_after_utc)} (now {_iso(at)})"
        )


def _is_ca(cert: x509.Certificate) -> bool:
    try:
        return bool(cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
    except x509.ExtensionNotFound:
        return False


def _check_leaf_usage(leaf: x509.Certificate) -> None:
    exts = leaf.extensions
    try:
        ku = exts.get_extension_for_class(x509.KeyUsage).value
        if not ku.digital_signature:
            raise _invalid("The signing certificate's key usage does not include digitalSignature")
        if ku.key_cert_sign and not _is_ca(leaf):
            raise _invalid("The signing certificate asserts keyCertSign without being a CA (RFC 5280 4.2.1.3)")
    except x509.ExtensionNotFound:
        pass
    if any(e.oid == ExtensionOID.NAME_CONSTRAINTS for e in exts):
        raise _invalid(
            "The signing certificate has a name constraints extension, which only a CA certificate may carry "
            "(RFC 5280 4.2.1.10)"
        )
    try:
        purposes = list(exts.get_extension_for_class(x509.ExtendedKeyUsage).value)
    except x509.ExtensionNotFound:
        return  # no extension: any purpose (RFC 5280 4.2.1.12)
    if not purposes:
        raise _invalid("The signing certificate's extended key usage extension lists no purpose")
    if not any(p in _SIGNING_PURPOSES for p in purposes):
        names = [getattr(p, "_name", p.dotted_string) for p in purposes]
        raise _invalid(
            f"The signing certificate's extended key usage {names} allows none of serverAuth, clientAuth, "
            "anyExtendedKeyUsage; use a certificate issued for TLS server or client authentication"
        )


# --- the path ------------------------------------------------------------------------------------------------------


def _key_ids_agree(issuer: x509.Certificate, cert: x509.Certificate) -> bool:
    try:
        aki = cert.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value.key_identifier
        ski = issuer.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest
    except x509.ExtensionNotFound:
        return True
    return aki is None or aki == ski


def _ca_key_usage(policy: Policy, cert: x509.Certificate, ku: x509.KeyUsage | None) -> None:
    # RFC 5280: a CA certificate without key usage may sign certificates; one with it must assert keyCertSign.
    if ku is not None and not ku.key_cert_sign:
        raise ValueError("a CA certificate's key usage does not allow certificate signing")


def _ca_basic_constraints(policy: Policy, cert: x509.Certificate, bc: x509.BasicConstraints) -> None:
    # RFC 5280 says critical; the platform's verifier, like most, accepts a CA flag that is not marked so.
    if not bc.ca:
        raise ValueError("an issuing certificate is not a CA (basicConstraints CA flag missing)")


def _ca_policy() -> ExtensionPolicy:
    """The Web PKI profile for CA certificates, with the two relaxations the platform's verifier also makes: key
    usage may be absent, and basicConstraints need not be marked critical."""
    return (
        ExtensionPolicy.webpki_defaults_ca()
        .may_be_present(x509.KeyUsage, Criticality.AGNOSTIC, _ca_key_usage)
        .require_present(x509.BasicConstraints, Criticality.AGNOSTIC, _ca_basic_constraints)
    )


class _PathSearch:
    def __init__(
        self,
        leaf: x509.Certificate,
        intermediates: Sequence[x509.Certificate],
        anchors: Sequence[x509.Certificate],
        at: _dt.datetime,
    ) -> None:
        self.anchors = anchors
        anchor_der = {a.public_bytes(Encoding.DER) for a in anchors}
        self.at = at
        self.path = [leaf]
        self.pool = [c for c in intermediates if c.public_bytes(Encoding.DER) not in anchor_der and c != leaf]
        self.attempts = 0
        self.steps = 0
        self.first_failure: VerificationError | None = None

    def run(self) -> ValidatedChain:
        found = self._extend()
        if found is not None:
            return found
        if self.first_failure is not None:
            raise self.first_failure
        raise VerificationError(
            FailureCode.CERT_UNTRUSTED,
            "The chain does not end at a trusted root: the last certificate's issuer is not trusted "
            "(send the intermediates, signing certificate first)",
        )

    def _extend(self) -> ValidatedChain | None:
        current = self.path[-1]
        if self.attempts < _MAX_PATH_ATTEMPTS and any(a.subject == current.issuer for a in self.anchors):
            self.attempts += 1
            try:
                return self._validate(list(self.path))
            except VerificationError as e:
                if self.first_failure is None:
                    self.first_failure = e
        if len(self.path) >= MAX_CHAIN_LENGTH:
            return None
        for agreeing in (True, False):
            for nxt in self.pool:
                if self.attempts >= _MAX_PATH_ATTEMPTS or self.steps > _MAX_SEARCH_STEPS:
                    return None
                if nxt.subject != current.issuer or _key_ids_agree(nxt, current) != agreeing or nxt in self.path:
                    continue
                self.steps += 1
                self.path.append(nxt)
                found = self._extend()
                self.path.pop()
                if found is not None:
                    return found
        return None

    def _validate(self, path: list[x509.Certificate]) -> ValidatedChain:
        for i, cert in enumerate(path[1:], start=2):
            _check_window(cert, self.at, f"Certificate {i} of the chain")
        verifier = (
            PolicyBuilder()
            .store(Store(list(self.anchors)))
            .time(self.at)
            .max_chain_depth(MAX_CHAIN_LENGTH)
            .extension_policies(ca_policy=_ca_policy(), ee_policy=ExtensionPolicy.permit_all())
            .build_client_verifier()
        )
        try:
            built = verifier.verify(path[0], path[1:])
        except _CryptoVerificationError as e:
            reason = str(e).removeprefix("validation failed: ")
            if "not valid at validation time" in reason:
                for anchor in self.anchors:
                    if anchor.subject == path[-1].issuer:
                        _check_window(anchor, self.at, f"The trust anchor ({_name(anchor)})")
            raise _invalid(f"The chain is not valid: {reason}") from None
        except (ValueError, TypeError) as e:  # an algorithm or encoding cryptography does not support
            raise _invalid(f"The chain cannot be validated: {type(e).__name__}") from None
        return ValidatedChain.of(path, built.chain[-1])


def validate_chain(
    chain: Sequence[x509.Certificate],
    required_name: str | None,
    at: _dt.datetime,
    anchors: Sequence[x509.Certificate],
) -> ValidatedChain:
    """Validate ``chain`` (signing certificate first; the root may be left out; extra or misordered certificates are
    tolerated) at ``at`` against ``anchors``, requiring ``required_name`` among the signing certificate's DNS SANs.

    Raises :class:`VerificationError` with ``CERT_NOT_YET_VALID``, ``CERT_EXPIRED``, ``CERT_NAME_MISMATCH``,
    ``CERT_UNTRUSTED`` or ``CERT_CHAIN_INVALID``.
    """
    if not chain:
        raise _invalid("The certificate chain is empty")
    if len(chain) > MAX_CHAIN_LENGTH:
        raise _invalid(f"The chain has {len(chain)} certificates; at most {MAX_CHAIN_LENGTH} are accepted")
    at = at.astimezone(_dt.timezone.utc).replace(microsecond=0)
    leaf = chain[0]
    _check_window(leaf, at, "The signing certificate")
    if required_name is not None:
        sans = _dns_sans(leaf)
        if not sans or not any(dns_name_matches(s, required_name) for s in sans):
            raise VerificationError(
                FailureCode.CERT_NAME_MISMATCH,
                f"The signing certificate's Subject Alternative Names {sans or '(none)'} do not include "
                f"'{required_name}'",
            )
    _check_leaf_usage(leaf)
    if _is_ca(leaf):
        raise _invalid(
            "The signing certificate is a CA certificate (basicConstraints CA=true); sign with an end-entity "
            "certificate issued by the CA"
        )
    for ext in leaf.extensions:
        if ext.critical and ext.oid == ExtensionOID.SUBJECT_ALTERNATIVE_NAME and len(leaf.subject) > 0:
            raise _invalid(
                "The signing certificate marks its Subject Alternative Names critical although its subject is not "
                "empty (CA/B Forum Baseline Requirements 7.1.2.7.12)"
            )
        if ext.critical and ext.oid not in _KNOWN_CRITICAL:
            raise _invalid(f"The signing certificate has a critical extension that is not understood ({ext.oid.dotted_string})")
    if not anchors:
        raise VerificationError(FailureCode.CERT_UNTRUSTED, "No trust anchors are configured")
    return _PathSearch(leaf, chain[1:], anchors, at).run()


def check_key_policy(key: object) -> None:
    """Raise ``CERT_KEY_UNSUPPORTED`` unless ``key`` is RSA of 2048 bits or more, or EC on P-256, P-384 or P-521."""
    if isinstance(key, rsa.RSAPublicKey):
        if key.key_size < 2048:
            raise VerificationError(
                FailureCode.CERT_KEY_UNSUPPORTED, f"The RSA key has {key.key_size} bits; at least 2048 are required"
            )
        return
    if isinstance(key, ec.EllipticCurvePublicKey):
        if key.curve.key_size not in (256, 384, 521):
            raise VerificationError(
                FailureCode.CERT_KEY_UNSUPPORTED,
                f"The EC key is on a {key.curve.key_size}-bit curve; P-256, P-384 or P-521 are accepted",
            )
        return
    raise VerificationError(
        FailureCode.CERT_KEY_UNSUPPORTED, f"The key is {type(key).__name__}; RSA or EC (ECDSA) keys are accepted"
    )


def load_pem_anchors(data: bytes | str) -> list[x509.Certificate]:
    """Trust anchors from PEM (one or more CERTIFICATE blocks), for example a local platform's hook CA."""
    raw = data.encode("ascii") if isinstance(data, str) else data
    return list(x509.load_pem_x509_certificates(raw))


def _anchors_from(paths: Iterable[str]) -> list[x509.Certificate]:
    out: list[x509.Certificate] = []
    seen: set[bytes] = set()
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
            with warnings.catch_warnings():
                # Some system roots predate RFC 5280's positive serial numbers; they are still the system's roots.
                warnings.simplefilter("ignore")
                certs = x509.load_pem_x509_certificates(data)
        except (OSError, ValueError):
            continue
        for c in certs:
            der = c.public_bytes(Encoding.DER)
            if der not in seen:
                seen.add(der)
                out.append(c)
    return out


def system_trust_anchors() -> list[x509.Certificate]:
    """The operating system's trusted roots, from the locations Python's ``ssl`` module uses."""
    paths = ssl.get_default_verify_paths()
    files = [p for p in (paths.cafile, paths.openssl_cafile) if p and os.path.isfile(p)]
    for directory in (paths.capath, paths.openssl_capath):
        if directory and os.path.isdir(directory) and not files:
            files.extend(
                os.path.join(directory, n) for n in sorted(os.listdir(directory)) if n.endswith((".pem", ".crt"))
            )
    return _anchors_from(dict.fromkeys(files))
