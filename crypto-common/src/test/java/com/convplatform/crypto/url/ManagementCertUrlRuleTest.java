package com.convplatform.crypto.url;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;

/** Spec 5.1 step 1: every accepted URL with the normalised URL we download, every refused one with its code. */
class ManagementCertUrlRuleTest {
    static final String FQDN = "client.example.com";
    static final ManagementCertUrlRule RULE = new ManagementCertUrlRule(FQDN);
    static final String CANON = "https://client.example.com/client.api/cert.pem";

    static Stream<Arguments> accepted() {
        return Stream.of(
                Arguments.of("https://client.example.com/client.api/cert.pem", CANON),
                // scheme and host are case-insensitive; the normalised URL is lower-case
                Arguments.of("HTTPS://client.example.com/client.api/cert.pem", CANON),
                Arguments.of("HtTpS://client.example.com/client.api/cert.pem", CANON),
                Arguments.of("https://CLIENT.Example.COM/client.api/cert.pem", CANON),
                // the file name keeps its case
                Arguments.of("https://client.example.com/client.api/Cert.PEM",
                        "https://client.example.com/client.api/Cert.PEM"),
                // explicit port 443 is dropped
                Arguments.of("https://client.example.com:443/client.api/cert.pem", CANON),
                // dot segments that resolve under /client.api/
                Arguments.of("https://client.example.com/client.api/../client.api/cert.pem", CANON),
                Arguments.of("https://client.example.com/client.api/./cert.pem", CANON),
                Arguments.of("https://client.example.com/client.api/sub/../cert.pem", CANON),
                Arguments.of("https://client.example.com/other/../client.api/cert.pem", CANON),
                Arguments.of("https://client.example.com/../client.api/cert.pem", CANON),
                Arguments.of("https://client.example.com/./client.api/cert.pem", CANON),
                Arguments.of("https://client.example.com/client.api/a/b/../../cert.pem", CANON),
                // doubled slashes collapse, then dot segments are removed
                Arguments.of("https://client.example.com//client.api//cert.pem", CANON),
                Arguments.of("https://client.example.com/client.api///sub//../cert.pem", CANON),
                // sub-directories and the directory itself (the spec only asks for the prefix)
                Arguments.of("https://client.example.com/client.api/chains/2026/cert.pem",
                        "https://client.example.com/client.api/chains/2026/cert.pem"),
                Arguments.of("https://client.example.com/client.api/", "https://client.example.com/client.api/"),
                Arguments.of("https://client.example.com/client.api/x/..", "https://client.example.com/client.api/"),
                Arguments.of("https://client.example.com/client.api/.", "https://client.example.com/client.api/"),
                // percent-encoding of ordinary characters is kept as sent (never decoded), upper or lower hex
                Arguments.of("https://client.example.com/client.api/a%41.pem",
                        "https://client.example.com/client.api/a%41.pem"),
                Arguments.of("https://client.example.com/client.api/a%7e.pem",
                        "https://client.example.com/client.api/a%7e.pem"),
                // unreserved and sub-delimiter characters
                Arguments.of("https://client.example.com/client.api/chain-2026_v1~a+b=c,d!e$f&g'(h)*i:j@k.pem",
                        "https://client.example.com/client.api/chain-2026_v1~a+b=c,d!e$f&g'(h)*i:j@k.pem"),
                // host names with digits and hyphens
                Arguments.of("https://client.example.com:443//client.api/../client.api/./cert.pem", CANON));
    }

    @ParameterizedTest
    @MethodSource("accepted")
    void acceptedUrlsNormaliseToTheUrlWeDownload(String raw, String expected) throws Exception {
        CertificateUrl url = RULE.check(raw);
        assertEquals(expected, url.toString());
        assertEquals(expected, url.toUri().toString());
        assertEquals(443, url.port());
        assertEquals(FQDN, url.host());
    }

    static Stream<Arguments> refused() {
        String p = "/client.api/cert.pem";
        return Stream.of(
                // scheme
                Arguments.of("http://client.example.com" + p, FailureCode.CERT_URL_SCHEME, "https"),
                Arguments.of("HTTP://client.example.com" + p, FailureCode.CERT_URL_SCHEME, "https"),
                Arguments.of("ftp://client.example.com" + p, FailureCode.CERT_URL_SCHEME, "https"),
                Arguments.of("httpsx://client.example.com" + p, FailureCode.CERT_URL_SCHEME, "https"),
                Arguments.of("file:///client.api/cert.pem", FailureCode.CERT_URL_SCHEME, "https"),
                Arguments.of("http://abc.com", FailureCode.CERT_URL_SCHEME, "https"),
                // not an absolute URL
                Arguments.of("badUrl", FailureCode.CERT_URL_MALFORMED, "no scheme"),
                Arguments.of("client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "no scheme"),
                Arguments.of("//client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "no scheme"),
                Arguments.of(":" + p, FailureCode.CERT_URL_MALFORMED, "no scheme"),
                Arguments.of("https:client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "absolute"),
                Arguments.of("https:/client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "absolute"),
                // empty parts
                Arguments.of("", FailureCode.CERT_URL_MALFORMED, "empty"),
                Arguments.of("   ", FailureCode.CERT_URL_MALFORMED, "empty"),
                Arguments.of(null, FailureCode.CERT_URL_MALFORMED, "empty"),
                Arguments.of("https://", FailureCode.CERT_URL_MALFORMED, "no host"),
                Arguments.of("https:///client.api/cert.pem", FailureCode.CERT_URL_MALFORMED, "no host"),
                Arguments.of("https://:443/client.api/cert.pem", FailureCode.CERT_URL_MALFORMED, "no host"),
                Arguments.of("https://client..example.com" + p, FailureCode.CERT_URL_MALFORMED, "empty"),
                Arguments.of("https://.client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "empty"),
                Arguments.of("https://client.example.com:" + p, FailureCode.CERT_URL_MALFORMED, "no port"),
                // host
                Arguments.of("https://other.example.com" + p, FailureCode.CERT_URL_HOST, "FQDN"),
                Arguments.of("https://notclient.example.com" + p, FailureCode.CERT_URL_HOST, "FQDN"),
                Arguments.of("https://www.client.example.com" + p, FailureCode.CERT_URL_HOST, "FQDN"),
                Arguments.of("https://example.com" + p, FailureCode.CERT_URL_HOST, "FQDN"),
                Arguments.of("https://client.example.com.evil.com" + p, FailureCode.CERT_URL_HOST, "FQDN"),
                Arguments.of("https://client.example.co" + p, FailureCode.CERT_URL_HOST, "FQDN"),
                // trailing dot: the same host in DNS, but refused so that exactly one spelling is accepted
                Arguments.of("https://client.example.com." + p, FailureCode.CERT_URL_HOST, "dot"),
                // IP literals
                Arguments.of("https://127.0.0.1" + p, FailureCode.CERT_URL_HOST, "IP address"),
                Arguments.of("https://127.0.0.1:443" + p, FailureCode.CERT_URL_HOST, "IP address"),
                Arguments.of("https://2130706433" + p, FailureCode.CERT_URL_HOST, "IP address"),
                Arguments.of("https://0x7f.0.0.1" + p, FailureCode.CERT_URL_HOST, "IP address"),
                Arguments.of("https://[::1]" + p, FailureCode.CERT_URL_HOST, "IP address"),
                Arguments.of("https://[::1]:443" + p, FailureCode.CERT_URL_HOST, "IP address"),
                Arguments.of("https://[2001:db8::1]" + p, FailureCode.CERT_URL_HOST, "IP address"),
                // host syntax
                Arguments.of("https://client_1.example.com" + p, FailureCode.CERT_URL_MALFORMED, "DNS name"),
                Arguments.of("https://-client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "'-'"),
                Arguments.of("https://client-.example.com" + p, FailureCode.CERT_URL_MALFORMED, "'-'"),
                Arguments.of("https://client%2eexample.com" + p, FailureCode.CERT_URL_MALFORMED, "percent"),
                Arguments.of("https://client.example.com:443:443" + p, FailureCode.CERT_URL_MALFORMED, "DNS name"),
                Arguments.of("https://" + "a".repeat(64) + ".example.com" + p, FailureCode.CERT_URL_MALFORMED,
                        "over-long"),
                // userinfo
                Arguments.of("https://user@client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "user"),
                Arguments.of("https://user:pw@client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "user"),
                Arguments.of("https://@client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "user"),
                Arguments.of("https://client.example.com@evil.com" + p, FailureCode.CERT_URL_MALFORMED, "user"),
                Arguments.of("https://evil.com@client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "user"),
                // query and fragment, also empty ones
                Arguments.of("https://client.example.com" + p + "?x=1", FailureCode.CERT_URL_MALFORMED, "query"),
                Arguments.of("https://client.example.com" + p + "?", FailureCode.CERT_URL_MALFORMED, "query"),
                Arguments.of("https://client.example.com?" + p, FailureCode.CERT_URL_MALFORMED, "query"),
                Arguments.of("https://client.example.com" + p + "#frag", FailureCode.CERT_URL_MALFORMED,
                        "fragment"),
                Arguments.of("https://client.example.com" + p + "#", FailureCode.CERT_URL_MALFORMED, "fragment"),
                Arguments.of("https://evil.com#@client.example.com" + p, FailureCode.CERT_URL_MALFORMED,
                        "fragment"),
                // path: case-sensitive prefix
                Arguments.of("https://client.example.com/Client.api/cert.pem", FailureCode.CERT_URL_PATH,
                        "/client.api/"),
                Arguments.of("https://client.example.com/CLIENT.API/cert.pem", FailureCode.CERT_URL_PATH,
                        "case-sensitive"),
                Arguments.of("https://client.example.com/client.API/cert.pem", FailureCode.CERT_URL_PATH,
                        "/client.api/"),
                Arguments.of("https://client.example.com/client.apix/cert.pem", FailureCode.CERT_URL_PATH,
                        "/client.api/"),
                Arguments.of("https://client.example.com/client.api", FailureCode.CERT_URL_PATH, "/client.api/"),
                Arguments.of("https://client.example.com/cert.pem", FailureCode.CERT_URL_PATH, "/client.api/"),
                Arguments.of("https://client.example.com/", FailureCode.CERT_URL_PATH, "/client.api/"),
                Arguments.of("https://client.example.com", FailureCode.CERT_URL_PATH, "/client.api/"),
                Arguments.of("https://client.example.com:443", FailureCode.CERT_URL_PATH, "/client.api/"),
                Arguments.of("https://client.example.com/x/client.api/cert.pem", FailureCode.CERT_URL_PATH,
                        "/client.api/"),
                // path: dot segments that leave /client.api/
                Arguments.of("https://client.example.com/client.api/../cert.pem", FailureCode.CERT_URL_PATH,
                        "'/cert.pem'"),
                Arguments.of("https://client.example.com/client.api/../../etc/passwd", FailureCode.CERT_URL_PATH,
                        "'/etc/passwd'"),
                Arguments.of("https://client.example.com/client.api/..", FailureCode.CERT_URL_PATH, "'/'"),
                Arguments.of("https://client.example.com/client.api/a/../../x", FailureCode.CERT_URL_PATH, "'/x'"),
                Arguments.of("https://client.example.com/client.api//../x", FailureCode.CERT_URL_PATH, "'/x'"),
                // path: percent-encoded dots, slashes, backslashes, '%' and controls, both hex cases
                Arguments.of("https://client.example.com/client.api/%2e%2e/x", FailureCode.CERT_URL_MALFORMED,
                        "%2e"),
                Arguments.of("https://client.example.com/client.api/%2E%2E/x", FailureCode.CERT_URL_MALFORMED,
                        "%2E"),
                Arguments.of("https://client.example.com/client.api/.%2e/x", FailureCode.CERT_URL_MALFORMED,
                        "%2e"),
                Arguments.of("https://client.example.com/client.api/%2e/cert.pem", FailureCode.CERT_URL_MALFORMED,
                        "%2e"),
                Arguments.of("https://client.example.com/client%2eapi/cert.pem", FailureCode.CERT_URL_MALFORMED,
                        "%2e"),
                Arguments.of("https://client.example.com/client.api%2fcert.pem", FailureCode.CERT_URL_MALFORMED,
                        "%2f"),
                Arguments.of("https://client.example.com/client.api/..%2Fx", FailureCode.CERT_URL_MALFORMED,
                        "%2F"),
                Arguments.of("https://client.example.com/client.api/..%5cx", FailureCode.CERT_URL_MALFORMED,
                        "%5c"),
                Arguments.of("https://client.example.com/client.api/..%5Cx", FailureCode.CERT_URL_MALFORMED,
                        "%5C"),
                Arguments.of("https://client.example.com/client.api/%252e%252e/x", FailureCode.CERT_URL_MALFORMED,
                        "%25"),
                Arguments.of("https://client.example.com/client.api/%00.pem", FailureCode.CERT_URL_MALFORMED,
                        "%00"),
                Arguments.of("https://client.example.com/client.api/%c3%a9.pem", FailureCode.CERT_URL_MALFORMED,
                        "%c3"),
                Arguments.of("https://client.example.com/client.api/%3b/x", FailureCode.CERT_URL_MALFORMED, "%3b"),
                Arguments.of("https://client.example.com/client.api/a%", FailureCode.CERT_URL_MALFORMED,
                        "two hex digits"),
                Arguments.of("https://client.example.com/client.api/a%2", FailureCode.CERT_URL_MALFORMED,
                        "two hex digits"),
                Arguments.of("https://client.example.com/client.api/a%zz", FailureCode.CERT_URL_MALFORMED,
                        "two hex digits"),
                // path parameters (Tomcat's '..;/')
                Arguments.of("https://client.example.com/client.api/..;/x", FailureCode.CERT_URL_MALFORMED, "';'"),
                Arguments.of("https://client.example.com/client.api/cert.pem;v=1", FailureCode.CERT_URL_MALFORMED,
                        "';'"),
                // backslashes
                Arguments.of("https://client.example.com\\client.api\\cert.pem", FailureCode.CERT_URL_MALFORMED,
                        "backslash"),
                Arguments.of("https://client.example.com/client.api\\..\\x", FailureCode.CERT_URL_MALFORMED,
                        "backslash"),
                Arguments.of("https:\\\\client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "backslash"),
                // characters a URL cannot hold unencoded
                Arguments.of("https://client.example.com/client.api/a<b>.pem", FailureCode.CERT_URL_MALFORMED,
                        "'<'"),
                Arguments.of("https://client.example.com/client.api/a\"b.pem", FailureCode.CERT_URL_MALFORMED,
                        "'\"'"),
                Arguments.of("https://client.example.com/client.api/a{b}.pem", FailureCode.CERT_URL_MALFORMED,
                        "'{'"),
                Arguments.of("https://client.example.com/client.api/a|b.pem", FailureCode.CERT_URL_MALFORMED,
                        "'|'"),
                Arguments.of("https://client.example.com/client.api/a^b.pem", FailureCode.CERT_URL_MALFORMED,
                        "'^'"),
                Arguments.of("https://client.example.com/client.api/a`b.pem", FailureCode.CERT_URL_MALFORMED,
                        "'`'"),
                // white space, control and non-ASCII characters
                Arguments.of(" https://client.example.com" + p, FailureCode.CERT_URL_MALFORMED, "index 0"),
                Arguments.of("https://client.example.com" + p + " ", FailureCode.CERT_URL_MALFORMED, "space"),
                Arguments.of("https://client.example.com/client.api/a b.pem", FailureCode.CERT_URL_MALFORMED,
                        "space"),
                Arguments.of("https://client.example.com/client.api/a\tb.pem", FailureCode.CERT_URL_MALFORMED,
                        "control"),
                Arguments.of("https://client.example.com" + p + "\r\nX-Injected: 1", FailureCode.CERT_URL_MALFORMED,
                        "control"),
                Arguments.of("https://client.example.com/client.api/\u0000.pem", FailureCode.CERT_URL_MALFORMED,
                        "control"),
                Arguments.of("https://client.example.com/client.api/\u007f.pem", FailureCode.CERT_URL_MALFORMED,
                        "non-ASCII"),
                Arguments.of("https://clïent.example.com" + p, FailureCode.CERT_URL_MALFORMED, "non-ASCII"),
                Arguments.of("https://client.example.com/client.api/cért.pem", FailureCode.CERT_URL_MALFORMED,
                        "non-ASCII"),
                Arguments.of("https://client\u3002example.com" + p, FailureCode.CERT_URL_MALFORMED, "non-ASCII"),
                // over-long
                Arguments.of("https://client.example.com/client.api/" + "a".repeat(2048),
                        FailureCode.CERT_URL_MALFORMED, "longer than 2048"),
                // port
                Arguments.of("https://client.example.com:563" + p, FailureCode.CERT_URL_PORT, "'563'"),
                Arguments.of("https://client.example.com:8443" + p, FailureCode.CERT_URL_PORT, "'8443'"),
                Arguments.of("https://client.example.com:80" + p, FailureCode.CERT_URL_PORT, "'80'"),
                Arguments.of("https://client.example.com:0443" + p, FailureCode.CERT_URL_PORT, "'0443'"),
                Arguments.of("https://client.example.com:00443" + p, FailureCode.CERT_URL_PORT, "'00443'"),
                Arguments.of("https://client.example.com:+443" + p, FailureCode.CERT_URL_PORT, "'+443'"),
                Arguments.of("https://client.example.com:4430" + p, FailureCode.CERT_URL_PORT, "'4430'"),
                Arguments.of("https://client.example.com:https" + p, FailureCode.CERT_URL_PORT, "'https'"));
    }

    @ParameterizedTest
    @MethodSource("refused")
    void refusedUrlsNameTheFailedCriterion(String raw, FailureCode code, String messagePart) {
        VerificationException e = assertThrows(VerificationException.class, () -> RULE.check(raw));
        assertEquals(code, e.code(), e::getMessage);
        assertTrue(e.getMessage().contains(messagePart),
                () -> "message '" + e.getMessage() + "' should mention " + messagePart);
    }

    @Test
    void theFirstFailingCriterionIsReportedInTheSpecsOrder() {
        assertEquals(FailureCode.CERT_URL_SCHEME, code("http://other.example.com:8080/wrong"));
        assertEquals(FailureCode.CERT_URL_HOST, code("https://other.example.com:8080/wrong"));
        assertEquals(FailureCode.CERT_URL_PATH, code("https://client.example.com:8080/wrong"));
        assertEquals(FailureCode.CERT_URL_PORT, code("https://client.example.com:8080/client.api/cert.pem"));
        // a refused part (query) is refused even when everything else is also wrong
        assertEquals(FailureCode.CERT_URL_SCHEME, code("http://other.example.com/x?y"));
        assertEquals(FailureCode.CERT_URL_MALFORMED, code("https://other.example.com/x?y"));
    }

    @Test
    void theFqdnIsComparedCaseInsensitively() throws Exception {
        ManagementCertUrlRule upper = new ManagementCertUrlRule("Client.EXAMPLE.com");
        assertEquals(CANON, upper.check("https://client.example.COM/client.api/cert.pem").toString());
        assertFalse(upper.toString().isEmpty());
    }

    @Test
    void aUrlJustUnderTheLengthLimitIsAccepted() throws Exception {
        String prefix = "https://client.example.com/client.api/";
        String raw = prefix + "a".repeat(UrlParts.MAX_LENGTH - prefix.length());
        assertEquals(UrlParts.MAX_LENGTH, raw.length());
        assertEquals(raw, RULE.check(raw).toString());
    }

    private static FailureCode code(String raw) {
        return assertThrows(VerificationException.class, () -> RULE.check(raw)).code();
    }
}
