package com.convplatform.management.token;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainTest;

/**
 * A {@code management.jwt.key-file} that holds an RSA key, not an EC P-256 one: the service does not start, and its
 * output names the setting and the file, so the operator knows which secret to mend.
 */
@QuarkusMainTest
@TestProfile(BadKeyFileTest.RsaKeyFile.class)
class BadKeyFileTest {
    static final String FILE_NAME = "rsa-instead-of-ec.pem";

    public static class RsaKeyFile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            try {
                Path file = Files.createTempDirectory("jwt-keys").resolve(FILE_NAME);
                Files.writeString(file, Pem.toPem(KeyPairs.rsa(2048).getPrivate()));
                return Map.of("management.jwt.key-file", file.toString());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    @Launch(value = {}, exitCode = 1)
    void theServiceDoesNotStartAndNamesTheSettingAndTheFile(LaunchResult result) {
        String output = result.getOutput() + result.getErrorOutput();
        assertEquals(1, result.exitCode());
        assertTrue(output.matches("(?s).*management\\.jwt\\.key-file: \\S*" + FILE_NAME.replace(".", "\\.")
                + " is not an EC P-256 private key in PEM \\(The JWT signing key must be an EC P-256 key.*"), output);
        assertFalse(output.contains("BEGIN PRIVATE KEY"), "the key itself is never written out: " + output);
    }
}
