package com.convplatform.crypto.sig;

import static com.convplatform.crypto.FailureCode.CERT_KEY_UNSUPPORTED;
import static com.convplatform.crypto.FailureCode.SIGNATURE_MALFORMED;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.interfaces.ECKey;
import java.security.interfaces.RSAKey;
import java.util.Base64;

import com.convplatform.crypto.VerificationException;

/**
 * Signing and verifying over exact bytes, with strict input rules: the Base64 must be canonical (padding present,
 * unused bits zero, no white space), an ECDSA signature must be canonical DER with nothing after it, and an RSA
 * signature must be exactly as long as the modulus.
 */
public final class Signatures {
    /** Signatures longer than this (decoded) are refused before any work: RSA-8192 is 1024 bytes. */
    public static final int MAX_SIGNATURE_BYTES = 1024;

    private Signatures() {
    }

    /** The management algorithm for a key: SHA1withRSA for RSA, SHA1withECDSA for EC (spec 5.1). */
    public static SignatureAlgorithm managementAlgorithm(java.security.Key key) throws VerificationException {
        if (key instanceof RSAKey) {
            return SignatureAlgorithm.SHA1_WITH_RSA;
        }
        if (key instanceof ECKey) {
            return SignatureAlgorithm.SHA1_WITH_ECDSA;
        }
        throw new VerificationException(CERT_KEY_UNSUPPORTED,
                "The key is " + key.getAlgorithm() + "; management requests are signed with RSA or ECDSA keys");
    }

    /**
     * The SHA-256 management algorithm for a key, for the {@code Signature-256} header (an extension of spec 5.1):
     * SHA256withRSA for RSA, SHA256withECDSA for EC.
     */
    public static SignatureAlgorithm managementAlgorithm256(java.security.Key key) throws VerificationException {
        return managementAlgorithm(key) == SignatureAlgorithm.SHA1_WITH_RSA
                ? SignatureAlgorithm.SHA256_WITH_RSA
                : SignatureAlgorithm.SHA256_WITH_ECDSA;
    }

    /** Signs {@code data} and returns the standard Base64 of the signature. */
    public static String sign(SignatureAlgorithm algorithm, PrivateKey key, byte[] data, CryptoProviders providers) {
        try {
            Signature s = providers.signature(algorithm);
            s.initSign(key);
            s.update(data);
            return Base64.getEncoder().encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("Cannot sign with " + algorithm.jcaName() + " and a "
                    + key.getAlgorithm() + " key: " + e.getMessage(), e);
        }
    }

    /**
     * Decodes a signature header strictly.
     *
     * @throws VerificationException {@code SIGNATURE_MALFORMED} when missing, not canonical Base64, or oversized
     */
    public static byte[] decodeBase64(String header) throws VerificationException {
        return decodeBase64(header, "signature");
    }

    /**
     * Decodes a signature header strictly; the messages name the header ({@code Signature-256}, for example).
     *
     * @throws VerificationException {@code SIGNATURE_MALFORMED} when missing, not canonical Base64, or oversized
     */
    public static byte[] decodeBase64(String header, String headerName) throws VerificationException {
        String the = "The " + headerName;
        if (header == null || header.isEmpty()) {
            throw new VerificationException(SIGNATURE_MALFORMED, the + " header is missing or empty");
        }
        if (header.length() > MAX_SIGNATURE_BYTES * 2) {
            throw new VerificationException(SIGNATURE_MALFORMED, the + " header is too long");
        }
        if (header.length() % 4 != 0) {
            throw new VerificationException(SIGNATURE_MALFORMED,
                    the + " header is not padded standard Base64 (its length is not a multiple of 4)");
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(header);
        } catch (IllegalArgumentException e) {
            throw new VerificationException(SIGNATURE_MALFORMED,
                    the + " header is not standard Base64 (A-Z a-z 0-9 + / and = padding): " + e.getMessage());
        }
        if (!Base64.getEncoder().encodeToString(raw).equals(header)) {
            throw new VerificationException(SIGNATURE_MALFORMED,
                    the + " header is not canonical Base64 (non-zero padding bits)");
        }
        if (raw.length == 0 || raw.length > MAX_SIGNATURE_BYTES) {
            throw new VerificationException(SIGNATURE_MALFORMED, the + " header has an impossible length");
        }
        return raw;
    }

    /**
     * Verifies a decoded signature. Returns false for a well-formed signature that does not match.
     *
     * @throws VerificationException {@code SIGNATURE_MALFORMED} when the encoding is not strict, or
     *         {@code CERT_KEY_UNSUPPORTED} when the key does not fit the algorithm
     */
    public static boolean verify(SignatureAlgorithm algorithm, PublicKey key, byte[] data, byte[] signature,
            CryptoProviders providers) throws VerificationException {
        if (algorithm.isEcdsa()) {
            if (!(key instanceof ECKey ec)) {
                throw new VerificationException(CERT_KEY_UNSUPPORTED, algorithm.jcaName() + " needs an EC key");
            }
            Der.checkEcdsaSignature(signature, ec.getParams().getOrder());
        } else {
            if (!(key instanceof RSAKey rsa)) {
                throw new VerificationException(CERT_KEY_UNSUPPORTED, algorithm.jcaName() + " needs an RSA key");
            }
            int modulusBytes = (rsa.getModulus().bitLength() + 7) / 8;
            if (signature.length != modulusBytes) {
                throw new VerificationException(SIGNATURE_MALFORMED, "The RSA signature is " + signature.length
                        + " bytes; a " + rsa.getModulus().bitLength() + "-bit key makes " + modulusBytes);
            }
        }
        try {
            Signature s = providers.signature(algorithm);
            s.initVerify(providers.verificationKey(algorithm, key));
            s.update(data);
            return s.verify(signature);
        } catch (InvalidKeyException e) {
            throw new VerificationException(CERT_KEY_UNSUPPORTED, "The key cannot verify " + algorithm.jcaName()
                    + ": " + e.getMessage(), e);
        } catch (SignatureException e) {
            // Providers throw here for encodings they cannot parse: that is a signature that does not verify.
            return false;
        }
    }
}
