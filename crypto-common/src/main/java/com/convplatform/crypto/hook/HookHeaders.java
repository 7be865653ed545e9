package com.convplatform.crypto.hook;

/** Header and field names of signed hook requests (spec 4.4 and 5.2). */
public final class HookHeaders {
    /** Base64 of the SHA256withRSA signature over the raw body. */
    public static final String SIGNATURE = "signature";
    /** Where to download the platform's signing certificate. */
    public static final String CERTIFICATE_URL = "signature-certificate-url";
    /** The body field holding the signing time. */
    public static final String SIGNATURE_TIMESTAMP_FIELD = "signature_timestamp";

    private HookHeaders() {
    }
}
