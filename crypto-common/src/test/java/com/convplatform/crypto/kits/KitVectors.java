package com.convplatform.crypto.kits;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.pem.Pem;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The shared kit vectors in {@code ../clients/vectors} (relative to crypto-common; {@code -Dkit.vectors.dir} points
 * elsewhere). Unlike the public vectors beside the project these are part of the repository, so a missing folder
 * fails the test rather than skipping it.
 */
final class KitVectors {
    private static final ObjectMapper JSON = new ObjectMapper();

    private KitVectors() {
    }

    static Path dir() {
        Path dir = Paths.get(System.getProperty("kit.vectors.dir", "../clients/vectors"));
        if (!Files.isRegularFile(dir.resolve("hooks.json"))) {
            throw new IllegalStateException("The kit vectors are missing: no hooks.json in "
                    + dir.toAbsolutePath().normalize() + "; run the tests from crypto-common in a full checkout, or"
                    + " regenerate them with python3 clients/vectors/generate.py");
        }
        return dir;
    }

    static JsonNode json(String relative) {
        try {
            return JSON.readTree(bytes(relative));
        } catch (IOException e) {
            throw new UncheckedIOException("Vector file " + relative + " is not JSON", e);
        }
    }

    static byte[] bytes(String relative) {
        Path file = dir().resolve(relative);
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read vector file " + file.toAbsolutePath().normalize(), e);
        }
    }

    static String text(String relative) {
        return new String(bytes(relative), StandardCharsets.US_ASCII);
    }

    static List<X509Certificate> certificates(String relative) {
        try {
            return Pem.parseCertificates(text(relative));
        } catch (VerificationException e) {
            throw new IllegalStateException("Vector file " + relative + " is not a PEM certificate chain", e);
        }
    }

    static List<X509Certificate> anchors(JsonNode paths) {
        List<X509Certificate> out = new ArrayList<>();
        paths.forEach(p -> out.addAll(certificates(p.asText())));
        return out;
    }

    static byte[] base64(JsonNode node) {
        return Base64.getDecoder().decode(node.asText());
    }

    /** A JSON string, or null for JSON null or an absent field. */
    static String stringOrNull(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }
}
