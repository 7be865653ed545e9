package com.convplatform.crypto.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import java.util.Base64;

import org.junit.jupiter.api.Test;

/** JWK coordinates: the P-256 example key of RFC 7517 appendix A.1, and the zero-padding of short coordinates. */
class EcJwkTest {
    static final String RFC_X = "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4";
    static final String RFC_Y = "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM";

    static BigInteger decode(String b64url) {
        return new BigInteger(1, Base64.getUrlDecoder().decode(b64url));
    }

    @Test
    void theRfcExampleKeysCoordinatesComeOutAsPublished() {
        assertEquals(RFC_X, EcJwk.coordinate(decode(RFC_X)));
        assertEquals(RFC_Y, EcJwk.coordinate(decode(RFC_Y)), "a coordinate with its top bit set has no sign byte");
    }

    @Test
    void shortCoordinatesArePaddedToThirtyTwoBytesAndOthersRefused() {
        assertEquals("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE", EcJwk.coordinate(BigInteger.ONE));
        assertThrows(IllegalArgumentException.class, () -> EcJwk.coordinate(BigInteger.ONE.shiftLeft(256)));
        assertThrows(IllegalArgumentException.class, () -> EcJwk.coordinate(BigInteger.ONE.negate()));
    }
}
