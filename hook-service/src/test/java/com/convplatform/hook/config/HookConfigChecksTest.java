package com.convplatform.hook.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.hook.signing.DevelopmentCa;
import com.convplatform.hook.signing.SigningIdentity;
import com.convplatform.support.ConfigChecks;

import io.quarkus.runtime.configuration.ConfigurationException;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * Each relation {@link HookConfigChecks} keeps, on the configuration as the service reads it (the real mapping, its
 * defaults, the settings given here). BadConfigurationTest starts the application with a broken one.
 */
class HookConfigChecksTest {
    static HookConfig config(String... settings) {
        Map<String, String> values = new HashMap<>(Map.of("hook.management.url", "http://localhost:8081",
                "hook.management.cache-ttl", "PT30S", "hook.management.internal-api-key", "mgmt-key",
                "hook.signing.development-ca", "true"));
        for (int i = 0; i < settings.length; i += 2) {
            if (settings[i + 1] == null) {
                values.remove(settings[i]); // unset
            } else {
                values.put(settings[i], settings[i + 1]);
            }
        }
        return new SmallRyeConfigBuilder().withMapping(HookConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(values, "test", 500)).build()
                .getConfigMapping(HookConfig.class);
    }

    /** The service's clock in these checks: now, to the second (the test PKI's CAs are valid around the real now). */
    static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    static ConfigChecks checks(String... settings) {
        return HookConfigChecks.of(config(settings), CLOCK);
    }

    static List<String> problems(String... settings) {
        return checks(settings).problems();
    }

    @Test
    void theDefaultsPass() {
        assertEquals(List.of(), problems());
    }

    @Test
    void withoutItsSigningFilesTheServiceStartsOnlyWithTheDevelopmentCaAskedFor() {
        assertEquals(List.of("hook.signing.key-file and hook.signing.chain-file are not set: hooks would be signed with"
                + " a key no receiver trusts. Set both (production: the secret hook-service, docs/operations.md), or"
                + " set hook.signing.development-ca=true for a local platform with a generated CA"),
                problems("hook.signing.development-ca", null));
        assertEquals(List.of(), problems("hook.signing.development-ca", "true"));
    }

    @Test
    void theOperatorKeyAndTheInternalKeyDiffer() {
        assertEquals(List.of("hook.admin.api-key and hook.internal.api-key are the same value: each opens a different"
                + " API, so the service that holds hook.internal.api-key would also hold hook.admin.api-key's; give each"
                + " its own"), problems("hook.admin.api-key", "same", "hook.internal.api-key", "same"));
        assertEquals(List.of(), problems("hook.admin.api-key", "one", "hook.internal.api-key", "other"));
        assertEquals(List.of(), problems("hook.admin.api-key", null, "hook.internal.api-key", null));
    }

    @Test
    void retentionShorterThanADayOrTheRetriesOrTheDuplicateWindowOrRunLessThanDailyIsRefused() {
        assertEquals(List.of("hook.retention.period (PT12H) must be at least P1D: history is kept and dropped a day at"
                + " a time",
                "hook.intake.duplicate-window (PT24H) must not be longer than hook.retention.period"
                        + " (PT12H): the history it is checked against is kept no longer",
                "hook.retention.period (PT12H) must be longer than the waits of hook.delivery.retry-schedule together"
                        + " (PT27H35M5S): a delivery's first attempts would be dropped while it is still being retried"),
                problems("hook.retention.period", "PT12H"));
        // a day's retention with the default schedule (27 h 35 min of waits) would drop the first attempts' records
        assertEquals(List.of("hook.retention.period (PT24H) must be longer than the waits of"
                + " hook.delivery.retry-schedule together (PT27H35M5S): a delivery's first attempts would be dropped"
                + " while it is still being retried"), problems("hook.retention.period", "P1D"));
        assertEquals(List.of(), problems("hook.retention.period", "P1D", "hook.delivery.retry-schedule", "PT5S,PT1H"));
        assertEquals(List.of("hook.retention.interval (PT48H) must be at most P1D: each run makes the next days'"
                + " partitions, and rows of a day with none could not be written"),
                problems("hook.retention.interval", "P2D"));
        assertEquals(List.of("hook.delivery.vacuum-interval (PT0S) must be longer than zero"),
                problems("hook.delivery.vacuum-interval", "0s"));
    }

    @Test
    void aLeaseShorterThanAnAttemptAndItsMarginIsRefusedWithTheSettingsNamed() {
        // before this check, a 10 s lease made hook-service accept every event and deliver none, silently
        var checks = checks("hook.delivery.lease", "10s");
        ConfigurationException e = assertThrows(ConfigurationException.class, checks::throwIfAny);
        assertEquals(Set.of("hook.delivery.lease", "hook.delivery.connect-timeout", "hook.delivery.read-timeout"),
                e.getConfigKeys());
        assertEquals(List.of("hook.delivery.lease (PT10S) must be longer than PT21S: an attempt may take 2 x"
                + " hook.delivery.connect-timeout (PT3S, the lookup, then the connection) + hook.delivery.read-timeout"
                + " (PT10S), and a hook is sent only with 5 s of its lease to spare; with this lease none would ever be"
                + " sent"), checks.problems());
        assertEquals(1, problems("hook.delivery.lease", "21s").size());
        assertEquals(List.of(), problems("hook.delivery.lease", "22s"));
        // the time-outs count too: a longer read time-out needs a longer lease
        assertEquals(1, problems("hook.delivery.read-timeout", "PT55S").size());
    }

    @Test
    void theRetryScheduleHasPositiveWaitsThatDoNotGetShorter() {
        assertEquals(List.of("hook.delivery.retry-schedule ([PT5S, PT0S]): wait 2 (PT0S) must be longer than zero",
                "hook.delivery.retry-schedule ([PT5S, PT0S]): wait 2 (PT0S) is shorter than wait 1 (PT5S); the waits"
                        + " must not get shorter"),
                problems("hook.delivery.retry-schedule", "PT5S,PT0S"));
        assertEquals(List.of("hook.delivery.retry-schedule ([PT5H, PT5M]): wait 2 (PT5M) is shorter than wait 1"
                + " (PT5H); the waits must not get shorter"), problems("hook.delivery.retry-schedule", "PT5H,PT5M"));
        assertEquals(List.of(), problems("hook.delivery.retry-schedule", "PT0.2S,PT0.2S,PT1S"));
    }

    @Test
    void waitsAndTimeOutsArePositiveAndGracesNotNegative() {
        assertEquals(List.of("hook.delivery.poll-interval (PT0S) must be longer than zero"),
                problems("hook.delivery.poll-interval", "0s"));
        assertEquals(List.of("hook.delivery.shutdown-grace (PT-1S) must not be negative (zero: none)"),
                problems("hook.delivery.shutdown-grace", "-1s"));
        assertEquals(List.of(), problems("hook.delivery.shutdown-grace", "0s"));
        assertEquals(List.of("hook.delivery.claim-delay (PT-0.001S) must not be negative (zero: none)"),
                problems("hook.delivery.claim-delay", "-1ms"));
        assertEquals(List.of(), problems("hook.delivery.claim-delay", "0s"));
        assertEquals(List.of("hook.endpoints.disable-after (PT0S) must be longer than zero"),
                problems("hook.endpoints.disable-after", "0s"));
        assertEquals(List.of("hook.management.cache-ttl (PT-30S) must not be negative (zero: none)"),
                problems("hook.management.cache-ttl", "-30s"));
        List<String> connect = problems("hook.delivery.connect-timeout", "0s");
        assertEquals("hook.delivery.connect-timeout (PT0S) must be longer than zero", connect.get(0));
    }

    @Test
    void theSigningKeyAndChainFilesComeTogether() {
        List<String> keyOnly = problems("hook.signing.key-file", "/secrets/key.pem");
        assertEquals(1, keyOnly.size());
        assertTrue(keyOnly.get(0).startsWith("hook.signing.key-file and hook.signing.chain-file are set together or"
                + " not at all (now only hook.signing.key-file is set)"), keyOnly.get(0));
        List<String> chainOnly = problems("hook.signing.chain-file", "/secrets/chain.pem");
        assertTrue(chainOnly.get(0).contains("(now only hook.signing.chain-file is set): without both, hooks would be"
                + " signed with a generated local key"), chainOnly.get(0));
        List<String> both = problems("hook.signing.key-file", "/k.pem", "hook.signing.chain-file", "/c.pem");
        assertTrue(both.stream().noneMatch(p -> p.contains("set together")), both.toString()); // read: below
    }

    @Test
    void everyProblemIsListedAtOnce() {
        var e = assertThrows(ConfigurationException.class, () -> checks("hook.delivery.lease", "10s",
                "hook.delivery.poll-interval", "0s", "hook.delivery.retry-schedule", "PT1M,PT1S").throwIfAny());
        assertTrue(e.getMessage().startsWith("hook-service cannot work with this configuration (3 problems):\n  -"),
                e.getMessage());
    }

    /** A URL every receiver would refuse (spec 5.2 step 1) stops the start instead of every hook failing. */
    @Test
    void theCertificateUrlIsOneReceiversAccept() {
        assertEquals(List.of(), problems());
        assertEquals(List.of(),
                problems("hook.certificate-url", "https://HOOKS.platform.example:443/platform/hooks/certificate/"));
        String key = "hook.certificate-url";
        for (String[] bad : new String[][]{
                {"https://hooks.platform.example:8443/platform/hooks/certificate/", "port"},
                {"http://hooks.platform.example/platform/hooks/certificate/", "https"},
                {"https://hooks.platform.example/platform/hooks/certificate", "path"},
                {"https://platform.example/platform/hooks/certificate/", "subdomain"},
                {"not a url", ""}}) {
            List<String> found = problems(key, bad[0]);
            assertEquals(1, found.size(), bad[0] + ": " + found);
            assertTrue(
                    found.get(0).startsWith(key + " (" + bad[0] + ") would be refused by every receiver (spec 5.2): "),
                    found.get(0));
            assertTrue(found.get(0).contains(bad[1]), found.get(0));
        }
    }

    /** Without the key, management-service refused every account lookup with 401 and every hook ended dead. */
    @Test
    void theManagementInternalKeyIsSet() {
        String key = "hook.management.internal-api-key";
        String problem = key + " is not set: management-service refuses every account lookup (401), so no hook is"
                + " ever sent";
        assertEquals(List.of(problem), problems(key, null));
        assertEquals(List.of(problem), problems(key, "  "));
        var e = assertThrows(ConfigurationException.class, () -> checks(key, "").throwIfAny());
        assertEquals(Set.of(key), e.getConfigKeys());
        assertTrue(e.getMessage().contains(problem), e.getMessage());
    }

    /** A Kubernetes service name without its scheme failed only at the first account lookup. */
    @Test
    void theManagementUrlIsAnAbsoluteHttpUrl() {
        String key = "hook.management.url";
        assertEquals(List.of(key + " (management-service:8081) is not an absolute http or https URL with a host (for"
                + " example http://hook-service:8082)"), problems(key, "management-service:8081"));
        assertEquals(List.of(key + " (http://management-service:8081/) must not end with a slash, a query or a"
                + " fragment: paths are appended to it"), problems(key, "http://management-service:8081/"));
        var e = assertThrows(ConfigurationException.class, () -> checks(key, "management-service").throwIfAny());
        assertEquals(Set.of(key), e.getConfigKeys());
        assertEquals(List.of(), problems(key, "https://management.platform.internal:8443"));
    }

    /** The signing files an operator would mount: a key and its chain from the test PKI, for the URL's host. */
    private static String[] signingFiles(Path dir, KeyPair key, Instant notBefore, Instant notAfter)
            throws IOException {
        TestPki.Leaf leaf = PKI.leaf(key, notBefore, notAfter, "hooks.platform.example");
        Path keyFile = Files.writeString(dir.resolve("key.pem"), Pem.toPem(key.getPrivate()));
        Path chainFile = Files.writeString(dir.resolve("chain.pem"), Pem.toPem(leaf.chain()));
        return new String[]{"hook.signing.key-file", keyFile.toString(), "hook.signing.chain-file",
                chainFile.toString()};
    }

    private static final TestPki PKI = TestPki.create();
    private static final KeyPair RSA = KeyPairs.rsa(2048);

    @Test
    void signingFilesOfOneRotationWithinTheirDatesPass(@TempDir Path dir) throws IOException {
        assertEquals(List.of(), problems(signingFiles(dir, RSA, NOW.minus(Duration.ofDays(1)), NOW.plus(
                Duration.ofDays(90)))));
        // the dates are compared at whole seconds, the last second of Not After included (as receivers do)
        assertEquals(List.of(), problems(signingFiles(dir, RSA, NOW, NOW)));
    }

    /** An expired signing certificate started cleanly, then every receiver refused every hook (CERT_EXPIRED). */
    @Test
    void anExpiredSigningCertificateStopsTheStartWithItsSubjectAndDates(@TempDir Path dir) throws IOException {
        Instant from = NOW.minus(Duration.ofDays(90));
        Instant to = NOW.minusSeconds(1);
        String[] files = signingFiles(dir, RSA, from, to);
        var e = assertThrows(ConfigurationException.class, () -> checks(files).throwIfAny());
        assertEquals(Set.of("hook.signing.chain-file"), e.getConfigKeys());
        assertTrue(e.getMessage().startsWith("hook-service cannot work with this configuration (1 problem):"),
                e.getMessage());
        assertTrue(e.getMessage().contains("the signing certificate, the first of hook.signing.chain-file ("
                + files[3] + ") (CN=hooks.platform.example), is valid from " + from + " to " + to + " and has"
                + " expired (now " + NOW + "): receivers refuse every hook (CERT_EXPIRED); set hook.signing.key-file"
                + " and hook.signing.chain-file from a new rotation"), e.getMessage());
    }

    @Test
    void aSigningCertificateNotValidYetStopsTheStart(@TempDir Path dir) throws IOException {
        Instant from = NOW.plusSeconds(1);
        Instant to = NOW.plus(Duration.ofDays(90));
        String[] files = signingFiles(dir, RSA, from, to);
        var e = assertThrows(ConfigurationException.class, () -> checks(files).throwIfAny());
        assertEquals(Set.of("hook.signing.chain-file"), e.getConfigKeys());
        assertTrue(e.getMessage().contains("(CN=hooks.platform.example), is valid from " + from + " to " + to
                + " and is not valid yet (now " + NOW + "): receivers refuse every hook (CERT_NOT_YET_VALID)"),
                e.getMessage());
    }

    /** A 1024-bit RSA key signs and verifies, yet receivers (KeyPolicy) refuse it: CERT_KEY_UNSUPPORTED. */
    @Test
    void aSigningKeyReceiversRefuseStopsTheStart(@TempDir Path dir) throws IOException {
        Instant from = NOW.minus(Duration.ofDays(1));
        Instant to = NOW.plus(Duration.ofDays(90));
        String[] files = signingFiles(dir, KeyPairs.rsa(1024), from, to);
        var e = assertThrows(ConfigurationException.class, () -> checks(files).throwIfAny());
        assertEquals(Set.of("hook.signing.key-file", "hook.signing.chain-file"), e.getConfigKeys());
        assertTrue(e.getMessage().contains("the key of hook.signing.key-file (" + files[1] + ") and of the signing"
                + " certificate, the first of hook.signing.chain-file (" + files[3] + ") (CN=hooks.platform.example,"
                + " valid from " + from + " to " + to + "), is one receivers refuse: The RSA key has 1024 bits; 2048"
                + " to 8192 are accepted; they refuse every hook (CERT_KEY_UNSUPPORTED)"), e.getMessage());
    }

    /**
     * A signing file that cannot be read or parsed stopped the start with "Cannot read ..." or "The private key file is
     * empty", naming no setting: now each problem names the setting, the path and the reason, never the key.
     */
    @Test
    void aSigningFileThatCannotBeReadOrParsedIsNamedByItsSetting(@TempDir Path dir) throws IOException {
        String[] files = signingFiles(dir, RSA, NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(90)));
        Path missing = dir.resolve("missing.pem");
        var e = assertThrows(ConfigurationException.class,
                () -> checks(files[0], missing.toString(), files[2], files[3]).throwIfAny());
        assertEquals(Set.of("hook.signing.key-file"), e.getConfigKeys());
        assertTrue(e.getMessage().startsWith("hook-service cannot work with this configuration (1 problem):\n  -"
                + " hook.signing.key-file (" + missing + ") cannot be read: no such file"), e.getMessage());

        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        assertEquals(List.of("hook.signing.key-file (" + empty + ") is not a usable private key: The private key file"
                + " is empty"), problems(files[0], empty.toString(), files[2], files[3]));

        // swapped: the key where the chain goes and the chain where the key goes; the key is never printed
        e = assertThrows(ConfigurationException.class,
                () -> checks(files[0], files[3], files[2], files[1]).throwIfAny());
        assertEquals(Set.of("hook.signing.key-file", "hook.signing.chain-file"), e.getConfigKeys());
        List<String> found = problems(files[0], files[3], files[2], files[1]);
        assertEquals(2, found.size(), found.toString());
        assertTrue(found.get(0).startsWith("hook.signing.key-file (" + files[3] + ") is not a usable private key: "),
                found.get(0));
        assertTrue(found.get(1).startsWith("hook.signing.chain-file (" + files[1] + ") is not a usable PEM"
                + " certificate chain: "), found.get(1));
        String keyBase64 = Base64.getEncoder().encodeToString(RSA.getPrivate().getEncoded());
        assertTrue(!e.getMessage().contains(keyBase64.substring(100, 140)), e.getMessage());
        assertTrue(!e.getMessage().contains("PRIVATE KEY-----"), e.getMessage());
    }

    /**
     * The generated identity is kept under hook.data-dir across starts; once its certificate has expired, the start
     * stops the same way, naming hook.data-dir and what to do.
     */
    @Test
    void anExpiredGeneratedIdentityStopsTheStartNamingTheDataDir(@TempDir Path dir) {
        HookConfig config = config("hook.data-dir", dir.toString());
        new SigningIdentity(config, CLOCK, new DevelopmentCa(config)); // generated, valid for 397 days
        Clock later = Clock.fixed(NOW.plus(Duration.ofDays(400)), ZoneOffset.UTC);
        var e = assertThrows(ConfigurationException.class,
                () -> new SigningIdentity(config, later, new DevelopmentCa(config)));
        assertEquals(Set.of("hook.data-dir"), e.getConfigKeys());
        assertTrue(e.getMessage().contains("the signing certificate, the first of the signing chain generated under"
                + " hook.data-dir (" + dir.resolve("signing").resolve("chain.pem") + ") (CN=hooks.platform.example),"
                + " is valid from "), e.getMessage());
        assertTrue(e.getMessage().contains("and has expired (now " + NOW.plus(Duration.ofDays(400)) + "): receivers"
                + " refuse every hook (CERT_EXPIRED); delete " + dir.resolve("signing") + " for a new generated one,"
                + " or set hook.signing.key-file and hook.signing.chain-file"), e.getMessage());
    }
}
