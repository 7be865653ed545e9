"""The certificate-URL rules: the public Alexa and SNS tables of ../shared/vectors/cert-urls (read at test time and
carried over to our rules, as crypto-common's CertificateUrlTablesTest does) and the branches the tables miss."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from convplatform import FailureCode, HookCertUrlRule, ManagementCertUrlRule, VerificationError
from convplatform.urls import HOOK_CERT_PATH

TABLES = Path(__file__).resolve().parents[3].parent / "shared" / "vectors" / "cert-urls" / "README.md"
FQDN = "client.example.com"
ROW = re.compile(r"^\| (\w+) \| `([^`]*)` \| ([^|]+?) \|")
# SNS trusts only hosts whose first label is "sns"; spec 5.2 accepts any subdomain of a platform domain, and the path
# is replaced by ours, so a ".pem" requirement has no counterpart.
SNS_OUTCOME_DIFFERS = {"X6", "X9", "X13", "X14"}


def rows(start: str, stop: str) -> list[tuple[str, str, bool]]:
    if not TABLES.is_file():
        if os.environ.get("VECTORS_REQUIRED") == "true":
            pytest.fail(f"the public tables are not at {TABLES}; they are mandatory when VECTORS_REQUIRED=true")
        pytest.skip(f"the public tables are not at {TABLES} (shared/ beside the repository)")
    out: list[tuple[str, str, bool]] = []
    inside = False
    for line in TABLES.read_text(encoding="utf-8").splitlines():
        if line.startswith("## ") and start in line:
            inside = True
            continue
        if inside and line.startswith("## ") and stop in line:
            break
        if not inside:
            continue
        m = ROW.match(line)
        if m:
            out.append((m.group(1), m.group(2), m.group(3).strip().startswith("accept")))
        elif line.startswith("| X3 |") or line.startswith("| X4 |"):
            out.append((line[2:4], "" if line[2:4] == "X3" else "   ", False))
    return out


def test_alexa_table_on_the_management_rule() -> None:
    rule = ManagementCertUrlRule(FQDN)
    cases = rows("1. Alexa", "2. AWS SNS")
    assert len(cases) >= 24, "the Alexa table shrank"
    for ident, raw, accept in cases:
        url = (raw.replace("s3.amazonaws.com", FQDN).replace("S3.AMAZONAWS.COM", FQDN.upper())
               .replace("/echo.api/", "/client.api/").replace("/EcHo.aPi/", "/ClIeNt.aPi/")
               .replace("/ECHO.API/", "/CLIENT.API/"))
        if accept:
            normalised = rule.check(url)
            assert normalised.host == FQDN and normalised.path.startswith("/client.api/"), ident
            if ident == "A9":
                assert str(normalised) == "https://client.example.com/client.api/cert"
            if ident == "A3":
                assert str(normalised) == "https://client.example.com/client.api/echo-api-cert.pem"
        else:
            with pytest.raises(VerificationError):
                rule.check(url)


def test_sns_table_on_the_hook_rule() -> None:
    rule = HookCertUrlRule(["platform.example", "platform.example.cn"])
    cases = rows("2. AWS SNS", "Sources")
    assert len(cases) >= 25, "the SNS table shrank"
    for ident, raw, accept in cases:
        mapped = raw.replace("amazonaws.com", "platform.example")
        m = re.match(r"^(https?://[^/]+)(/.*)$", mapped)
        url = m.group(1) + HOOK_CERT_PATH if m else mapped
        if ident in SNS_OUTCOME_DIFFERS:
            accept = not accept
        if accept:
            assert rule.check(url).path == HOOK_CERT_PATH, ident
        else:
            with pytest.raises(VerificationError):
                rule.check(url)


HOOK = HookCertUrlRule(["platform.test"])


@pytest.mark.parametrize(
    ("url", "normalised"),
    [
        ("https://hooks.platform.test/platform/hooks/certificate/", "https://hooks.platform.test/platform/hooks/certificate/"),
        ("hTtPs://a.b.platform.test:443//platform//hooks/certificate/", "https://a.b.platform.test/platform/hooks/certificate/"),
        ("https://h.platform.test/platform/./hooks/x/../certificate/", "https://h.platform.test/platform/hooks/certificate/"),
        ("https://h.platform.test/x/../../platform/hooks/certificate/", "https://h.platform.test/platform/hooks/certificate/"),
        ("https://h.platform.test/platform/hooks/certificate/.", "https://h.platform.test/platform/hooks/certificate/"),
        ("https://h.platform.test/platform/hooks/certificate/x/..", "https://h.platform.test/platform/hooks/certificate/"),
        ("https://h.platform.test/platform/hooks/certific%61te/", None),  # %61 is allowed but not decoded: other path
    ],
)
def test_hook_rule_normalises(url: str, normalised: str | None) -> None:
    if normalised is None:
        with pytest.raises(VerificationError) as e:
            HOOK.check(url)
        assert e.value.code == FailureCode.CERT_URL_PATH
    else:
        assert str(HOOK.check(url)) == normalised


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("", FailureCode.CERT_URL_MALFORMED),
        ("   ", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test/platform/hooks/certificate/" + "a" * 2048, FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test/platform/hooks/certificate/ ", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test/platform/hooks/certificate/\u00e9", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test\\platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("//h.platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("ftp://h.platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_SCHEME),
        ("https:h.platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test/platform/hooks/certificate/#x", FailureCode.CERT_URL_MALFORMED),
        ("https://user@h.platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("https://[::1]/platform/hooks/certificate/", FailureCode.CERT_URL_HOST),
        ("https://:443/platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("https://h%2eplatform.test/platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test./platform/hooks/certificate/", FailureCode.CERT_URL_HOST),
        ("https://h..platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("https://-h.platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("https://h_1.platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("https://127.0.0.1/platform/hooks/certificate/", FailureCode.CERT_URL_HOST),
        ("https://h.platform.test.evil/platform/hooks/certificate/", FailureCode.CERT_URL_HOST),
        ("https://hplatform.test/platform/hooks/certificate/", FailureCode.CERT_URL_HOST),
        ("https://platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_HOST),
        ("https://h.platform.test/platform/hooks/certificate/;x", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test/platform/hooks/certificate/%2e", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test/platform/hooks/certificate/%2", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test/platform/hooks/certificate/%00", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test/platform/hooks/certificate/<", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test/Platform/hooks/certificate/", FailureCode.CERT_URL_PATH),
        ("https://h.platform.test", FailureCode.CERT_URL_PATH),
        ("https://h.platform.test:/platform/hooks/certificate/", FailureCode.CERT_URL_MALFORMED),
        ("https://h.platform.test:8443/platform/hooks/certificate/", FailureCode.CERT_URL_PORT),
        ("https://h.platform.test:0443/platform/hooks/certificate/", FailureCode.CERT_URL_PORT),
        ("https://evil.test:8443/x", FailureCode.CERT_URL_HOST),  # host before path before port
        ("https://h.platform.test:8443/x", FailureCode.CERT_URL_PATH),
    ],
)
def test_hook_rule_refusals(url: str, code: FailureCode) -> None:
    with pytest.raises(VerificationError) as e:
        HOOK.check(url)
    assert e.value.code == code


def test_management_rule() -> None:
    rule = ManagementCertUrlRule("Client.Example.com")
    assert str(rule.check("https://CLIENT.example.com:443/client.api/../client.api/chain.pem")) == (
        "https://client.example.com/client.api/chain.pem"
    )
    for url, code in [
        ("http://client.example.com/client.api/c", FailureCode.CERT_URL_SCHEME),
        ("https://www.client.example.com/client.api/c", FailureCode.CERT_URL_HOST),
        ("https://client.example.com/Client.api/c", FailureCode.CERT_URL_PATH),
        ("https://client.example.com/client.api/../c", FailureCode.CERT_URL_PATH),
        ("https://client.example.com:8443/client.api/c", FailureCode.CERT_URL_PORT),
    ]:
        with pytest.raises(VerificationError) as e:
            rule.check(url)
        assert e.value.code == code, url
