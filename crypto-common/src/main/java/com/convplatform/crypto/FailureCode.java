package com.convplatform.crypto;

/**
 * Every way a signed request, a hook or a certificate can be refused. The names are stable: services send them as
 * {@code error_code}, integrators match on them, and the documentation lists each one with its fix.
 */
public enum FailureCode {
    /** Neither or both of the certificate headers were sent; exactly one is required. */
    CERT_HEADERS("Exactly one certificate header (chain URL or registered certificate id) is required"),
    /** The certificate URL is not a well-formed absolute URL, or has parts we refuse (userinfo, query, ...). */
    CERT_URL_MALFORMED("The certificate URL is malformed or has parts that are not allowed"),
    /** The certificate URL's scheme is not https. */
    CERT_URL_SCHEME("The certificate URL must use https"),
    /** The certificate URL's host is not the one the rules allow. */
    CERT_URL_HOST("The certificate URL's host is not allowed"),
    /** The certificate URL's path is not the one the rules allow. */
    CERT_URL_PATH("The certificate URL's path is not allowed"),
    /** The certificate URL names a port other than 443. */
    CERT_URL_PORT("The certificate URL may only name port 443"),
    /** The certificate could not be downloaded (connection, TLS, status, size or time-out). */
    CERT_FETCH_FAILED("The certificate could not be downloaded"),
    /** As many downloads from the certificate URL's host as allowed at once are already running; try again shortly. */
    CERT_FETCH_BUSY("Certificates are already being downloaded from this host; try again shortly"),
    /** The downloaded or registered certificate data is not valid PEM / X.509. */
    CERT_MALFORMED("The certificate data is not a valid PEM X.509 certificate chain"),
    /** No registered self-signed certificate has this identifier for this account (or it was revoked). */
    CERT_UNKNOWN("No registered certificate has this identifier for this account"),
    /** A certificate of the chain is not valid yet. */
    CERT_NOT_YET_VALID("A certificate is not valid yet"),
    /** A certificate of the chain has expired. */
    CERT_EXPIRED("A certificate has expired"),
    /** The required DNS name is not among the signing certificate's Subject Alternative Names. */
    CERT_NAME_MISMATCH("The signing certificate does not name the required host in its Subject Alternative Names"),
    /** The chain does not lead to a trusted root. */
    CERT_UNTRUSTED("The certificate chain does not lead to a trusted root"),
    /** The chain is broken: a CA flag, key usage, path length, signature or extension check failed. */
    CERT_CHAIN_INVALID("The certificate chain is not valid"),
    /** The signing certificate's key is of an unsupported type or too weak. */
    CERT_KEY_UNSUPPORTED("The signing certificate's key is of an unsupported type or too weak"),
    /** The signature header is missing, is not strict Base64, or is not a well-formed signature encoding. */
    SIGNATURE_MALFORMED("The signature is missing or not well formed"),
    /** The signature does not match the body. */
    SIGNATURE_MISMATCH("The signature does not match the request body"),
    /** The timestamp is missing or not of the form YYYY-MM-DDThh:mm:ssZ. */
    TIMESTAMP_MALFORMED("The timestamp is missing or not of the form YYYY-MM-DDThh:mm:ssZ"),
    /** The timestamp is outside the allowed window around the current time. */
    TIMESTAMP_OUT_OF_WINDOW("The timestamp is too far from the current time");

    private final String summary;

    FailureCode(String summary) {
        this.summary = summary;
    }

    /** One sentence describing the failure in general terms. */
    public String summary() {
        return summary;
    }
}
