package com.convplatform.crypto.sig;

/** The signature algorithms this library signs or verifies, with their JCA names. */
public enum SignatureAlgorithm {
    /** Management requests signed with an RSA key (spec 5.1). */
    SHA1_WITH_RSA("SHA1withRSA", "RSA"),
    /** Management requests signed with an EC key (spec 5.1). */
    SHA1_WITH_ECDSA("SHA1withECDSA", "EC"),
    /** Hook requests (spec 5.2). */
    SHA256_WITH_RSA("SHA256withRSA", "RSA"),
    /** Used by tests against public vectors and for EC certificates. */
    SHA256_WITH_ECDSA("SHA256withECDSA", "EC"),
    /** Used by tests against public vectors (P-384 certificates usually sign with SHA-384). */
    SHA384_WITH_ECDSA("SHA384withECDSA", "EC");

    private final String jcaName;
    private final String keyAlgorithm;

    SignatureAlgorithm(String jcaName, String keyAlgorithm) {
        this.jcaName = jcaName;
        this.keyAlgorithm = keyAlgorithm;
    }

    /** The JCA algorithm name, for example {@code SHA1withRSA}. */
    public String jcaName() {
        return jcaName;
    }

    /** The key algorithm this signature needs: {@code RSA} or {@code EC}. */
    public String keyAlgorithm() {
        return keyAlgorithm;
    }

    /** True for the ECDSA family. */
    public boolean isEcdsa() {
        return keyAlgorithm.equals("EC");
    }
}
