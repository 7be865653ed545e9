package com.convplatform.crypto.management;

/** Header names of signed management requests (spec 5.1). HTTP header names are case-insensitive. */
public final class ManagementHeaders {
    /** Base64 of the signature over the body. */
    public static final String SIGNATURE = "Signature";
    /**
     * Base64 of the SHA-256 signature over the same body (SHA256withRSA or SHA256withECDSA): an extension of spec
     * 5.1, sent beside or instead of {@link #SIGNATURE}. Every signature header sent must verify.
     */
    public static final String SIGNATURE_256 = "Signature-256";
    /** URL of the PEM chain, for CA-signed certificates. */
    public static final String CERT_CHAIN_URL = "SignatureCertChainUrl";
    /** Identifier of a registered self-signed certificate. */
    public static final String CERT_UUID = "SignatureCertUUID";

    private ManagementHeaders() {
    }
}
