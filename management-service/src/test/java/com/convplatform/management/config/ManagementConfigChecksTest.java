package com.convplatform.management.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

/** Each relation {@link ManagementConfigChecks} keeps, on the real mapping with its defaults and the settings given. */
class ManagementConfigChecksTest {
    static List<String> problems(String... settings) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < settings.length; i += 2) {
            values.put(settings[i], settings[i + 1]);
        }
        ManagementConfig config = new SmallRyeConfigBuilder().withMapping(ManagementConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(values, "test", 500)).build()
                .getConfigMapping(ManagementConfig.class);
        return ManagementConfigChecks.of(config).problems();
    }

    @Test
    void theDefaultsPass() {
        assertEquals(List.of(), problems());
    }

    @Test
    void theConnectTimeOutFitsInTheWholeDownloadsTimeOut() {
        assertEquals(List.of("management.cert-fetch.connect-timeout (PT10S) must not be longer than"
                + " management.cert-fetch.total-timeout (PT5S), the time allowed for the whole download, connection"
                + " included"), problems("management.cert-fetch.connect-timeout", "10s"));
        assertEquals(List.of(), problems("management.cert-fetch.connect-timeout", "5s"));
    }

    @Test
    void periodsAndTimeOutsArePositiveAndTheFailureMemoryNotNegative() {
        assertEquals(List.of("management.jwt.lifetime (PT0S) must be longer than zero"),
                problems("management.jwt.lifetime", "0s"));
        assertEquals(List.of("management.rate-limit.window (PT0S) must be at least 1 s"),
                problems("management.rate-limit.window", "0s"));
        assertEquals(List.of("management.blocks.refresh (PT-1S) must be longer than zero"),
                problems("management.blocks.refresh", "-1s"));
        assertEquals(List.of("management.cert-fetch.cache-max-age (PT0S) must be longer than zero"),
                problems("management.cert-fetch.cache-max-age", "0s"));
        assertEquals(List.of("management.cert-fetch.failure-memory (PT-1S) must not be negative (zero: none)"),
                problems("management.cert-fetch.failure-memory", "-1s"));
        assertEquals(List.of(), problems("management.cert-fetch.failure-memory", "0s"));
        assertEquals(List.of("management.cert-fetch.total-timeout (PT0S) must be longer than zero",
                "management.cert-fetch.connect-timeout (PT2S) must not be longer than management.cert-fetch.total-timeout"
                        + " (PT0S), the time allowed for the whole download, connection included"),
                problems("management.cert-fetch.total-timeout", "0s"));
    }
}
