package com.convplatform.upload.config;

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

/** Each relation {@link UploadConfigChecks} keeps, on the real mapping with its defaults and the settings given. */
class UploadConfigChecksTest {
    static final String MANAGEMENT_KEY = "upload.management.internal-api-key";
    static final long BODY = 11534336;
    static final long FIELD = 16 * 1024;
    static final String INTERNAL_KEY = "upload.hook-service.internal-api-key";

    /** The defaults, the internal key (whose default, none, cannot work) and the settings given (null: unset). */
    static UploadConfig config(String... settings) {
        Map<String, String> values = new HashMap<>(Map.of(INTERNAL_KEY, "test-internal-key", MANAGEMENT_KEY,
                "test-internal-key"));
        for (int i = 0; i < settings.length; i += 2) {
            if (settings[i + 1] == null) {
                values.remove(settings[i]);
            } else {
                values.put(settings[i], settings[i + 1]);
            }
        }
        return new SmallRyeConfigBuilder().withMapping(UploadConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(values, "test", 500)).build()
                .getConfigMapping(UploadConfig.class);
    }

    static List<String> problems(String... settings) {
        return UploadConfigChecks.of(config(settings), BODY, FIELD).problems();
    }

    /** The settings the exception that stops the start names (its config keys). */
    static Set<String> keysNamed(String... settings) {
        ConfigurationException stop = assertThrows(ConfigurationException.class,
                () -> UploadConfigChecks.of(config(settings), BODY, FIELD).throwIfAny());
        return stop.getConfigKeys();
    }

    @Test
    void theDefaultsPassWithTheInternalKey() {
        assertEquals(List.of(), problems());
    }

    @Test
    void retentionShorterThanADayOrRunLessThanDailyIsRefusedAsAreZeroWaits() {
        assertEquals(List.of("upload.retention.period (PT12H) must be at least P1D: messages and their files are kept"
                + " and dropped a day at a time"), problems("upload.retention.period", "PT12H"));
        assertEquals(List.of("upload.retention.interval (PT48H) must be at most P1D: each run makes the next days'"
                + " partitions, and a message of a day with none could not be logged"),
                problems("upload.retention.interval", "P2D"));
        assertEquals(List.of("upload.erasure.retry-after (PT0S) must be longer than zero"),
                problems("upload.erasure.retry-after", "0s"));
    }

    @Test
    void theSecondPassOfAnErasureComesTwoOutboxLeasesLater() {
        assertEquals(List.of("upload.erasure.second-pass-after (PT1M) must be at least two outbox leases (PT2M): an"
                + " erased user's event already on its way to hook-service can arrive until then, and the second pass"
                + " is what removes its delivery"), problems("upload.erasure.second-pass-after", "PT1M"));
        assertEquals(List.of(), problems("upload.erasure.second-pass-after", "PT2M"));
    }

    @Test
    void theInternalKeyOfManagementServiceIsSetAndTheRevocationListReadOftenEnough() {
        assertEquals(List.of(MANAGEMENT_KEY + " is not set: management-service refuses the revocation list (401), so a"
                + " revoked client's or certificate's tokens would keep working until they expire"),
                problems(MANAGEMENT_KEY, null));
        assertEquals(Set.of(MANAGEMENT_KEY), keysNamed(MANAGEMENT_KEY, " "));
        assertEquals(List.of("upload.revocations.refresh (PT5M) must be from 1 s to 1 min: a revoked token keeps"
                + " working that long"), problems("upload.revocations.refresh", "PT5M"));
        assertEquals(Set.of("upload.management.url"), keysNamed("upload.management.url", "management:8081"));
    }

    @Test
    void theTokenLeewayIsAClockSkewNotAnExtension() {
        assertEquals(List.of("upload.jwt-leeway (3600) must be at most 300 seconds: a token would be taken that long"
                + " past its expiry"), problems("upload.jwt-leeway", "3600"));
        assertEquals(Set.of("upload.jwt-leeway"), keysNamed("upload.jwt-leeway", "301"));
        assertEquals(List.of(), problems("upload.jwt-leeway", "300"));
    }

    @Test
    void theInternalKeyOfHookServiceIsSet() {
        String problem = INTERNAL_KEY + " is not set: hook-service refuses every hand-off (401), so no upload reaches"
                + " a receiver";
        assertEquals(List.of(problem), problems(INTERNAL_KEY, null));
        assertEquals(List.of(problem), problems(INTERNAL_KEY, "  "));
        assertEquals(Set.of(INTERNAL_KEY), keysNamed(INTERNAL_KEY, null));
    }

    @Test
    void theUrlsAreAbsoluteHttpUrlsThatPathsCanBeAppendedTo() {
        assertEquals(List.of("upload.hook-service.url (hook-service:8082) is not an absolute http or https URL with a"
                + " host (for example http://hook-service:8082)"), problems("upload.hook-service.url",
                        "hook-service:8082"));
        assertEquals(List.of("upload.hook-service.url (http://hook-service/) must not end with a slash, a query or a"
                + " fragment: paths are appended to it"), problems("upload.hook-service.url", "http://hook-service/"));
        // file_url = base + /files/...: written into the events receivers get, it cannot be corrected later
        assertEquals(List.of("upload.public-base-url (https://files.example.com/) must not end with a slash, a query or"
                + " a fragment: paths are appended to it"), problems("upload.public-base-url",
                        "https://files.example.com/"));
        assertEquals(List.of("upload.public-base-url (files.example.com) is not an absolute http or https URL with a"
                + " host (for example http://hook-service:8082)"), problems("upload.public-base-url",
                        "files.example.com"));
        // a bad JWKS URL: every upload refused 401, and only a warning in the log
        assertEquals(List.of("upload.jwks-url (management-service/platform/management/jwks.json) is not an absolute"
                + " http or https URL with a host (for example http://hook-service:8082)"),
                problems("upload.jwks-url", "management-service/platform/management/jwks.json"));
        assertEquals(Set.of("upload.hook-service.url", "upload.public-base-url", "upload.jwks-url"),
                keysNamed("upload.hook-service.url", "hook-service:8082", "upload.public-base-url",
                        "https://files.example.com/", "upload.jwks-url", "ftp://management-service/jwks.json"));
        // what the manifests and launchers pass: a path (the JWKS), https, a port
        assertEquals(List.of(), problems("upload.hook-service.url", "http://hook-service", "upload.jwks-url",
                "http://management-service/platform/management/jwks.json", "upload.public-base-url",
                "https://api.platform.example"));
        assertEquals(List.of(), problems("upload.hook-service.url", "http://127.0.0.1:8082", "upload.public-base-url",
                "http://localhost:8083"));
    }

    @Test
    void theOutboxIsPolledAtAnIntervalLongerThanZero() {
        assertEquals(List.of("upload.hook-service.poll-interval (PT0S) must be longer than zero"),
                problems("upload.hook-service.poll-interval", "0s"));
        assertEquals(Set.of("upload.hook-service.poll-interval"), keysNamed("upload.hook-service.poll-interval",
                "-1s"));
        assertEquals(List.of(), problems("upload.hook-service.poll-interval", "0.2s"));
    }

    @Test
    void theOutboxPollIsNeverOff() {
        // "off" would be the scheduler's "never": no retry of a failed hand-off; it is not a duration, so the mapping
        // refuses it, naming the setting
        RuntimeException off = assertThrows(RuntimeException.class,
                () -> config("upload.hook-service.poll-interval", "off"));
        assertTrue(off.getMessage().contains("upload.hook-service.poll-interval"), off.getMessage());
    }

    @Test
    void theJwksIsDownloadedAtLeastEverySecond() {
        assertEquals(List.of("upload.jwks-refresh (PT0.5S) must be at least 1 s"), problems("upload.jwks-refresh",
                "0.5s"));
        assertEquals(List.of("upload.jwks-min-refresh (PT0S) must be at least 1 s: a token with an unknown key id,"
                + " which anyone can make, would otherwise cause a download of the keys each time"),
                problems("upload.jwks-min-refresh", "0s"));
        assertEquals(List.of(), problems("upload.jwks-min-refresh", "1s"));
        // an on-demand bound longer than the background download's period makes it idle, which works
        assertEquals(List.of(), problems("upload.jwks-refresh", "1s"));
    }

    @Test
    void oneAccountMayNotHaveMoreBodiesThanTheService() {
        assertEquals(List.of("upload.max-concurrent-bodies-per-account (64) must not be more than"
                + " upload.max-concurrent-bodies (16)"), problems("upload.max-concurrent-bodies-per-account", "64",
                        "upload.max-concurrent-bodies", "16"));
        assertEquals(List.of(), problems("upload.max-concurrent-bodies-per-account", "16",
                "upload.max-concurrent-bodies", "16"));
    }

    @Test
    void theBodyHoldsTheLargestFileAndTheFormsOtherFields() {
        assertEquals(List.of("upload.max-request-bytes (10485760) must be at least upload.max-file-bytes (10485760)"
                + " + 65536 bytes for the form's other fields, or a file of the largest size allowed is refused as a"
                + " body too large"), UploadConfigChecks
                        .of(config("upload.max-request-bytes", "10485760"), 10485760,
                                FIELD)
                        .problems());
        assertEquals(List.of("quarkus.http.limits.max-body-size (1048576 bytes) must not be smaller than"
                + " upload.max-request-bytes (11534336; it is set from that setting unless given on its own)"),
                UploadConfigChecks.of(config(), 1048576, FIELD).problems());
        assertEquals(List.of(), UploadConfigChecks.of(config("upload.max-file-bytes", "1000000",
                "upload.max-request-bytes", "1065536"), 1065536, FIELD).problems());
    }

    @Test
    void aMessageBodyWithinItsLimitFitsInAFormField() {
        assertEquals(List.of("quarkus.http.limits.max-form-attribute-size (2048 bytes) must hold"
                + " upload.max-message-body (4096 characters, up to 3 bytes each in UTF-8: 12288 bytes), or a"
                + " message_body within the limit is refused as FIELD_TOO_LONG"),
                UploadConfigChecks.of(config(), BODY, 2048).problems());
        assertEquals(List.of(), UploadConfigChecks.of(config("upload.max-message-body", "500"), BODY, 2048)
                .problems());
    }

    @Test
    void theStuckOutboxIsLookedForMoreOftenThanItsThreshold() {
        assertEquals(List.of("upload.outbox.check-interval (PT10M) must not be longer than upload.outbox.stuck-after"
                + " (PT5M): a stuck outbox would be noticed only that much later"),
                problems("upload.outbox.check-interval", "PT10M"));
        assertEquals(List.of("upload.outbox.stuck-after (PT0S) must be longer than zero",
                "upload.outbox.check-interval (PT10S) must not be longer than upload.outbox.stuck-after (PT0S): a stuck"
                        + " outbox would be noticed only that much later"),
                problems("upload.outbox.stuck-after", "0s"));
    }

    @Test
    void deadlinesArePositiveAndGracesNotNegative() {
        assertEquals(List.of("upload.body-deadline (PT0S) must be longer than zero"),
                problems("upload.body-deadline", "0s"));
        assertEquals(List.of("upload.hook-service.shutdown-grace (PT-1S) must not be negative (zero: none)"),
                problems("upload.hook-service.shutdown-grace", "-1s"));
        assertEquals(List.of("upload.verified-token-ttl (PT-1S) must not be negative (zero: none)"),
                problems("upload.verified-token-ttl", "-1s"));
        assertEquals(List.of(), problems("upload.storage.s3.connect-timeout", "0s"), "local storage: not used");
        assertEquals(List.of("upload.storage.s3.connect-timeout (PT0S) must be longer than zero"),
                problems("upload.storage.kind", "s3", "upload.storage.s3.connect-timeout", "0s"));
    }
}
