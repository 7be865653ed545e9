package com.convplatform.hook.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

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
                "hook.management.cache-ttl", "PT30S"));
        for (int i = 0; i < settings.length; i += 2) {
            values.put(settings[i], settings[i + 1]);
        }
        return new SmallRyeConfigBuilder().withMapping(HookConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(values, "test", 500)).build()
                .getConfigMapping(HookConfig.class);
    }

    static List<String> problems(String... settings) {
        return HookConfigChecks.of(config(settings)).problems();
    }

    @Test
    void theDefaultsPass() {
        assertEquals(List.of(), problems());
    }

    @Test
    void aLeaseShorterThanAnAttemptAndItsMarginIsRefusedWithTheSettingsNamed() {
        // before this check, a 10 s lease made hook-service accept every event and deliver none, silently
        var checks = HookConfigChecks.of(config("hook.delivery.lease", "10s"));
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
        assertEquals(List.of(), problems("hook.signing.key-file", "/k.pem", "hook.signing.chain-file", "/c.pem"));
    }

    @Test
    void everyProblemIsListedAtOnce() {
        var e = assertThrows(ConfigurationException.class, () -> HookConfigChecks.of(config("hook.delivery.lease",
                "10s", "hook.delivery.poll-interval", "0s", "hook.delivery.retry-schedule", "PT1M,PT1S"))
                .throwIfAny());
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
}
