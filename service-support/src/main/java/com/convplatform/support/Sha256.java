package com.convplatform.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The SHA-256 of a text's UTF-8 bytes: how the audit trail, erasure records and the console name personal data. */
public final class Sha256 {
    private Sha256() {
    }

    public static byte[] of(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    /** Lower-case hex. */
    public static String hex(String text) {
        return HexFormat.of().formatHex(of(text));
    }
}
