package com.convplatform.crypto.sig;

import static com.convplatform.crypto.FailureCode.SIGNATURE_MALFORMED;

import java.math.BigInteger;

import com.convplatform.crypto.VerificationException;

/**
 * A strict reader for the one DER structure we accept from the outside: an ECDSA signature,
 * {@code SEQUENCE { INTEGER r, INTEGER s }}. Definite minimal lengths, minimal positive integers, 0 < r,s < n, and
 * nothing after the sequence. Provider checks differ between versions; this one does not.
 */
final class Der {
    private Der() {
    }

    static void checkEcdsaSignature(byte[] sig, BigInteger order) throws VerificationException {
        int[] pos = {0};
        if (sig.length < 8 || sig[0] != 0x30) {
            throw malformed("it is not a DER SEQUENCE");
        }
        pos[0] = 1;
        int seqLen = readLength(sig, pos);
        if (pos[0] + seqLen != sig.length) {
            throw malformed("the SEQUENCE length does not match the signature length (trailing or missing bytes)");
        }
        BigInteger r = readPositiveInteger(sig, pos);
        BigInteger s = readPositiveInteger(sig, pos);
        if (pos[0] != sig.length) {
            throw malformed("there are bytes after the two integers");
        }
        if (r.compareTo(order) >= 0 || s.compareTo(order) >= 0) {
            throw malformed("r or s is not smaller than the curve order");
        }
    }

    private static int readLength(byte[] b, int[] pos) throws VerificationException {
        if (pos[0] >= b.length) {
            throw malformed("it ends inside a length");
        }
        int first = b[pos[0]++] & 0xff;
        if (first < 0x80) {
            return first;
        }
        if (first == 0x81) {
            if (pos[0] >= b.length) {
                throw malformed("it ends inside a length");
            }
            int len = b[pos[0]++] & 0xff;
            if (len < 0x80) {
                throw malformed("a length is not minimally encoded (BER, not DER)");
            }
            return len;
        }
        throw malformed("a length uses an indefinite or over-long form (BER, not DER)");
    }

    private static BigInteger readPositiveInteger(byte[] b, int[] pos) throws VerificationException {
        if (pos[0] >= b.length || b[pos[0]] != 0x02) {
            throw malformed("an INTEGER was expected");
        }
        pos[0]++;
        int len = readLength(b, pos);
        if (len == 0 || pos[0] + len > b.length) {
            throw malformed("an INTEGER has an impossible length");
        }
        int start = pos[0];
        if ((b[start] & 0x80) != 0) {
            throw malformed("an INTEGER is negative");
        }
        if (len > 1 && b[start] == 0 && (b[start + 1] & 0x80) == 0) {
            throw malformed("an INTEGER has a superfluous leading zero");
        }
        byte[] value = new byte[len];
        System.arraycopy(b, start, value, 0, len);
        pos[0] += len;
        BigInteger v = new BigInteger(1, value);
        if (v.signum() == 0) {
            throw malformed("r or s is zero");
        }
        return v;
    }

    private static VerificationException malformed(String why) {
        return new VerificationException(SIGNATURE_MALFORMED, "The ECDSA signature is not strict DER: " + why);
    }
}
