package com.convplatform.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;

/**
 * The settings that weaken a service for tests and local runs (docs/security.md, Test seams): off unless set, and when
 * set, said at every start with a WARN naming each, so that one carried into production is seen in its log.
 */
public class TestSeams {
    private static final Logger LOG = Logger.getLogger(TestSeams.class);
    /** Each seam, the value that turns it on ("*": any value), and what it weakens. */
    private static final Map<String, String[]> SEAMS = new LinkedHashMap<>();

    static {
        seam("management.trust-anchors", "*", "signing chains that lead to these extra roots are trusted");
        seam("management.cert-fetch.trust-store", "*", "chain downloads trust these extra roots");
        seam("management.cert-fetch.resolve", "*", "chain downloads go to these addresses, not the names' own");
        seam("management.cert-fetch.allow-private-networks", "true", "chain downloads may reach private addresses");
        seam("management.admin.allow-http-webhooks", "true", "webhook URLs may be plain http");
        seam("hook.delivery.trust-store", "*", "hook deliveries trust these extra roots");
        seam("hook.delivery.resolve", "*", "hooks go to these addresses, not the webhook names' own");
        seam("hook.delivery.allow-private-networks", "true", "hooks may be sent to private addresses");
        seam("hook.signing.development-ca", "true", "hooks may be signed with a generated CA no receiver trusts");
        seam("hook.local-https.port", "*", "a second HTTPS listener serves the certificate with the signing key");
        seam("console.secure-cookies", "false", "session cookies are sent over plain http");
    }

    private static void seam(String key, String on, String weakens) {
        SEAMS.put(key, new String[]{on, weakens});
    }

    void atStart(@Observes StartupEvent event, Config config) {
        on(config).forEach(LOG::warn);
    }

    /** One line per seam that is on in {@code config}. */
    public static List<String> on(Config config) {
        List<String> lines = new ArrayList<>();
        SEAMS.forEach((key, seam) -> {
            Optional<String> value = config.getOptionalValue(key, String.class);
            if (value.isPresent() && !value.get().isBlank()
                    && (seam[0].equals("*") || seam[0].equalsIgnoreCase(value.get().trim()))) {
                lines.add("Test seam " + key + " is set: " + seam[1] + ". Leave it unset in production"
                        + " (docs/security.md, Test seams)");
            }
        });
        return lines;
    }
}
