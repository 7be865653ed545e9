package com.convplatform.crypto.pki;

import java.math.BigInteger;
import java.security.interfaces.ECPublicKey;
import java.util.Base64;

/**
 * The coordinates of a P-256 public key as a JWK carries them (RFC 7518 section 6.2.1.2 and 6.2.1.3: base64url
 * without padding of the coordinate as exactly 32 bytes, big-endian, zero-padded on the left).
 */
public final class EcJwk {
    private EcJwk() {
    }

    /** The JWK {@code x} of a P-256 key. */
    public static String x(ECPublicKey key) {
        return coordinate(key.getW().getAffineX());
    }

    /** The JWK {@code y} of a P-256 key. */
    public static String y(ECPublicKey key) {
        return coordinate(key.getW().getAffineY());
    }

    /** One coordinate (0 to 2^256 - 1) in JWK form. */
    public static String coordinate(BigInteger v) {
        if (v.signum() < 0 || v.bitLength() > 256) {
            throw new IllegalArgumentException("not a P-256 coordinate");
        }
        byte[] raw = v.toByteArray();
        byte[] out = new byte[32];
        int len = Math.min(raw.length, 32);
        System.arraycopy(raw, raw.length - len, out, 32 - len, len);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    }
}
