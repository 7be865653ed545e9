package com.convplatform.management.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;

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
    void theOperatorKeyAndTheInternalKeyDiffer() {
        assertEquals(List.of("management.admin.api-key and management.internal.api-key are the same value: each opens a"
                + " different API, so the service that holds management.internal.api-key would also hold"
                + " management.admin.api-key's; give each its own"),
                problems("management.admin.api-key", "same", "management.internal.api-key", "same"));
        assertEquals(List.of(), problems("management.admin.api-key", "one", "management.internal.api-key", "other"));
    }

    @Test
    void theConnectTimeOutFitsInTheWholeDownloadsTimeOut() {
        assertEquals(List.of("management.cert-fetch.connect-timeout (PT10S) must not be longer than"
                + " management.cert-fetch.total-timeout (PT5S), the time allowed for the whole download, connection"
                + " included"), problems("management.cert-fetch.connect-timeout", "10s"));
        assertEquals(List.of(), problems("management.cert-fetch.connect-timeout", "5s"));
    }

    @Test
    void theTokenLifetimeIsAtMostAnHour() {
        assertEquals(List.of("management.jwt.lifetime (PT1H0.001S) must be at most PT1H: a token outlives a disable"
                + " or a block by at most its lifetime where nothing polls the revocation list"),
                problems("management.jwt.lifetime", "PT1H0.001S"));
        assertEquals(List.of(), problems("management.jwt.lifetime", "PT1H"));
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

    /** A key file that cannot serve stops the start with the other problems, naming the setting and the file. */
    @Test
    void theKeyFilesAreReadableEcP256Keys(@TempDir Path dir) throws Exception {
        Path rsa = Files.writeString(dir.resolve("rsa.pem"), Pem.toPem(KeyPairs.rsa(2048).getPrivate()));
        Path ec = Files.writeString(dir.resolve("ec.pem"), Pem.toPem(KeyPairs.ecP256().getPrivate()));
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a key");
        Path missing = dir.resolve("missing.pem");
        assertEquals(List.of(), problems("management.jwt.key-file", ec.toString(),
                "management.jwt.published-key-files", ec.toString()));
        List<String> found = problems("management.jwt.key-file", rsa.toString(), "management.jwt.published-key-files",
                ec + "," + garbage + "," + missing);
        assertEquals(3, found.size(), found.toString());
        assertTrue(found.get(0).startsWith("management.jwt.key-file: " + rsa + " is not a readable EC P-256 private"
                + " key in PEM (The JWT signing key must be an EC P-256 key"), found.get(0));
        assertTrue(found.get(1).startsWith("management.jwt.published-key-files: " + garbage + " is not an EC P-256"
                + " public or private key in PEM"), found.get(1));
        assertTrue(found.get(2).startsWith("management.jwt.published-key-files: " + missing + " is not an EC P-256"
                + " public or private key in PEM (Cannot read " + missing), found.get(2));
        assertTrue(problems("management.jwt.key-file", missing.toString()).get(0)
                .startsWith("management.jwt.key-file: " + missing + " is not a readable"));
        String rsaBody = Files.readString(rsa).lines().skip(1).findFirst().orElseThrow();
        assertTrue(found.stream().noneMatch(p -> p.contains(rsaBody)), "a key is never written out");
    }

    /** The test seams' files and host overrides: one that cannot be read names its setting, with the others. */
    @Test
    void theSeamsFilesAndOverridesAreReadable(@TempDir Path dir) throws Exception {
        Path garbage = Files.writeString(dir.resolve("roots.pem"), "not a certificate");
        Path missing = dir.resolve("missing.pem");
        List<String> found = problems("management.cert-fetch.trust-store", garbage.toString(),
                "management.trust-anchors", missing.toString(), "management.cert-fetch.resolve",
                "client.example=127.0.0.1");
        assertEquals(3, found.size(), found.toString());
        assertTrue(found.get(0).startsWith("management.cert-fetch.trust-store: Cannot read the PEM certificates in "
                + garbage), found.get(0));
        assertTrue(found.get(1).startsWith("management.trust-anchors: Cannot read the PEM certificates in " + missing),
                found.get(1));
        assertEquals("management.cert-fetch.resolve: Not of the form host=address:port: 'client.example=127.0.0.1'",
                found.get(2));
        Path roots = Files.writeString(dir.resolve("good.pem"), Pem.toPem(List.of(CertificateBuilder.selfSigned(
                KeyPairs.ecP256(), "root", Instant.now().plus(Duration.ofDays(1))))));
        assertEquals(List.of(), problems("management.cert-fetch.trust-store", roots.toString(),
                "management.trust-anchors", roots.toString(), "management.cert-fetch.resolve",
                "client.example=127.0.0.1:8443"));
    }
}
