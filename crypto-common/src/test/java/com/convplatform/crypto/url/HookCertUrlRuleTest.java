package com.convplatform.crypto.url;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;

/** Spec 5.2 step 1 with a production and a staging platform domain. */
class HookCertUrlRuleTest {
    static final String PRODUCTION = "platform.com";
    static final String STAGING = "platform-staging.net";
    static final HookCertUrlRule RULE = HookCertUrlRule.forDomains(PRODUCTION, STAGING);
    static final String PATH = "/platform/hooks/certificate/";

    static Stream<Arguments> accepted() {
        String prod = "https://hooks.platform.com" + PATH;
        return Stream.of(
                Arguments.of("https://hooks.platform.com/platform/hooks/certificate/", prod),
                Arguments.of("HTTPS://Hooks.PLATFORM.Com/platform/hooks/certificate/", prod),
                Arguments.of("https://hooks.platform.com:443/platform/hooks/certificate/", prod),
                // a doubled slash before the path (spec 5.2), and doubled slashes elsewhere, collapse
                Arguments.of("https://hooks.platform.com//platform/hooks/certificate/", prod),
                Arguments.of("https://hooks.platform.com:443//platform/hooks/certificate/", prod),
                Arguments.of("https://hooks.platform.com///platform//hooks/certificate//", prod),
                // dot segments are resolved before the exact comparison
                Arguments.of("https://hooks.platform.com/platform/hooks/x/../certificate/", prod),
                Arguments.of("https://hooks.platform.com/./platform/hooks/certificate/.", prod),
                // any depth of subdomain, production and staging
                Arguments.of("https://a.b.c.platform.com/platform/hooks/certificate/",
                        "https://a.b.c.platform.com" + PATH),
                Arguments.of("https://cdn-1.platform.com/platform/hooks/certificate/",
                        "https://cdn-1.platform.com" + PATH),
                Arguments.of("https://hooks.platform-staging.net/platform/hooks/certificate/",
                        "https://hooks.platform-staging.net" + PATH),
                Arguments.of("https://HOOKS.Platform-Staging.NET//platform/hooks/certificate/",
                        "https://hooks.platform-staging.net" + PATH));
    }

    @ParameterizedTest
    @MethodSource("accepted")
    void acceptedUrlsNormaliseToTheUrlWeDownload(String raw, String expected) throws Exception {
        CertificateUrl url = RULE.check(raw);
        assertEquals(expected, url.toString());
        assertEquals(PATH, url.path());
        assertEquals(443, url.port());
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("http://hooks.platform.com" + PATH, FailureCode.CERT_URL_SCHEME),
                // the bare domains
                Arguments.of("https://platform.com" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://PLATFORM.COM" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://platform-staging.net" + PATH, FailureCode.CERT_URL_HOST),
                // look-alikes
                Arguments.of("https://evilplatform.com" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://hooks.evilplatform.com" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://hooks-platform.com" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://platform.com.evil.com" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://hooks.platform.com.evil.com" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://hooks.platform.co" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://hooks.platform.com.au" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://hooks.platform-staging.net.evil.com" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://hooks.platform.com." + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://10.0.0.1" + PATH, FailureCode.CERT_URL_HOST),
                Arguments.of("https://[::1]" + PATH, FailureCode.CERT_URL_HOST),
                // empty labels
                Arguments.of("https://.platform.com" + PATH, FailureCode.CERT_URL_MALFORMED),
                Arguments.of("https://hooks..platform.com" + PATH, FailureCode.CERT_URL_MALFORMED),
                // userinfo cannot smuggle a platform host
                Arguments.of("https://hooks.platform.com@evil.com" + PATH, FailureCode.CERT_URL_MALFORMED),
                Arguments.of("https://evil.com@hooks.platform.com" + PATH, FailureCode.CERT_URL_MALFORMED),
                // the path is exact
                Arguments.of("https://hooks.platform.com/platform/hooks/certificate", FailureCode.CERT_URL_PATH),
                Arguments.of("https://hooks.platform.com/platform/hooks/certificate/x", FailureCode.CERT_URL_PATH),
                Arguments.of("https://hooks.platform.com/platform/hooks/certificate/x.pem",
                        FailureCode.CERT_URL_PATH),
                Arguments.of("https://hooks.platform.com/Platform/hooks/certificate/", FailureCode.CERT_URL_PATH),
                Arguments.of("https://hooks.platform.com/platform/hooks/CERTIFICATE/", FailureCode.CERT_URL_PATH),
                Arguments.of("https://hooks.platform.com/x/platform/hooks/certificate/", FailureCode.CERT_URL_PATH),
                Arguments.of("https://hooks.platform.com/platform/hooks/certificate/..", FailureCode.CERT_URL_PATH),
                Arguments.of("https://hooks.platform.com/", FailureCode.CERT_URL_PATH),
                Arguments.of("https://hooks.platform.com", FailureCode.CERT_URL_PATH),
                // encoded characters are never decoded, so they cannot match the exact path
                Arguments.of("https://hooks.platform.com/platform/hooks/%63ertificate/", FailureCode.CERT_URL_PATH),
                Arguments.of("https://hooks.platform.com/platform/hooks%2fcertificate/",
                        FailureCode.CERT_URL_MALFORMED),
                Arguments.of("https://hooks.platform.com/platform/hooks/x/%2e%2e/certificate/",
                        FailureCode.CERT_URL_MALFORMED),
                Arguments.of("https://hooks.platform.com\\platform\\hooks\\certificate\\",
                        FailureCode.CERT_URL_MALFORMED),
                Arguments.of("https://hooks.platform.com" + PATH + "?v=2", FailureCode.CERT_URL_MALFORMED),
                Arguments.of("https://hooks.platform.com" + PATH + "?", FailureCode.CERT_URL_MALFORMED),
                Arguments.of("https://hooks.platform.com" + PATH + "#", FailureCode.CERT_URL_MALFORMED),
                Arguments.of("https://hooks.platform.com" + PATH + ";x", FailureCode.CERT_URL_MALFORMED),
                Arguments.of("", FailureCode.CERT_URL_MALFORMED),
                Arguments.of(null, FailureCode.CERT_URL_MALFORMED),
                // port
                Arguments.of("https://hooks.platform.com:8443" + PATH, FailureCode.CERT_URL_PORT),
                Arguments.of("https://hooks.platform.com:0443" + PATH, FailureCode.CERT_URL_PORT),
                Arguments.of("https://hooks.platform.com:" + PATH, FailureCode.CERT_URL_MALFORMED));
    }

    @ParameterizedTest
    @MethodSource("refused")
    void refusedUrlsNameTheFailedCriterion(String raw, FailureCode code) {
        VerificationException e = assertThrows(VerificationException.class, () -> RULE.check(raw));
        assertEquals(code, e.code(), e::getMessage);
        assertTrue(e.getMessage().length() > 20, e::getMessage);
    }

    @Test
    void theHostMessageNamesTheConfiguredDomains() {
        VerificationException e = assertThrows(VerificationException.class,
                () -> RULE.check("https://evilplatform.com" + PATH));
        assertEquals("The certificate URL's host 'evilplatform.com' is not a subdomain of platform.com or "
                + "platform-staging.net", e.getMessage());
    }

    @Test
    void onlyTheConfiguredDomainsCount() throws Exception {
        HookCertUrlRule productionOnly = HookCertUrlRule.forDomains(PRODUCTION);
        assertEquals("https://hooks.platform.com" + PATH,
                productionOnly.check("https://hooks.platform.com" + PATH).toString());
        assertEquals(FailureCode.CERT_URL_HOST, assertThrows(VerificationException.class,
                () -> productionOnly.check("https://hooks.platform-staging.net" + PATH)).code());
    }

    @Test
    void configuredDomainsAreNormalised() throws Exception {
        HookCertUrlRule rule = new HookCertUrlRule(List.of(" Platform.COM ", ".platform-staging.net"));
        assertEquals(List.of("platform.com", "platform-staging.net"), rule.domains());
        assertEquals("https://hooks.platform-staging.net" + PATH,
                rule.check("https://hooks.platform-staging.net" + PATH).toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "com", "platform.com.", "."})
    void unusableDomainsAreRefusedAtConfigurationTime(String domain) {
        assertThrows(IllegalArgumentException.class, () -> HookCertUrlRule.forDomains(domain));
    }

    @Test
    void atLeastOneDomainIsRequired() {
        assertThrows(IllegalArgumentException.class, () -> new HookCertUrlRule(List.of()));
        assertThrows(IllegalArgumentException.class, () -> new HookCertUrlRule(null));
    }
}
