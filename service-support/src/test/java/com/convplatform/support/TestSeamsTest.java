package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

/** A seam that is on is named at start; one that is off, or set to its safe value, is not. */
class TestSeamsTest {
    private static Config config(Map<String, String> values) {
        return new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(values, "test", 500)).build();
    }

    @Test
    void eachSeamThatIsOnIsNamed() {
        assertEquals(List.of("Test seam management.trust-anchors is set: signing chains that lead to these extra roots"
                + " are trusted. Leave it unset in production (docs/security.md, Test seams)",
                "Test seam hook.delivery.allow-private-networks is set: hooks may be sent to private addresses. Leave it"
                        + " unset in production (docs/security.md, Test seams)",
                "Test seam console.secure-cookies is set: session cookies are sent over plain http. Leave it unset in"
                        + " production (docs/security.md, Test seams)"),
                TestSeams.on(config(Map.of("management.trust-anchors", "/etc/extra-root.pem",
                        "hook.delivery.allow-private-networks", "true", "console.secure-cookies", "false"))));
    }

    @Test
    void safeValuesAndUnsetSeamsAreNotNamed() {
        assertEquals(List.of(), TestSeams.on(config(Map.of("hook.delivery.allow-private-networks", "false",
                "console.secure-cookies", "true", "hook.signing.development-ca", "false", "unrelated", "x"))));
    }
}
