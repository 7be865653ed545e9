package com.convplatform.crypto;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;

/** How the platform names a certificate: the SHA-256 of its DER encoding, lower-case hex. */
public final class Fingerprints {
    private Fingerprints() {
    }

    /** The lower-case hex SHA-256 of the certificate's DER encoding, as the operator API shows and takes it. */
    public static String sha256(X509Certificate cert) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException("Cannot take the certificate's SHA-256 fingerprint", e);
        }
    }
}
