package com.convplatform.crypto.url;

import com.convplatform.crypto.VerificationException;

/** Checks a certificate URL received in a request header and returns the normalised URL to download. */
@FunctionalInterface
public interface CertificateUrlRule {

    /**
     * @param rawUrl the header value as received
     * @return the normalised URL, safe to download
     * @throws VerificationException with a {@code CERT_URL_*} code naming the first criterion that failed
     */
    CertificateUrl check(String rawUrl) throws VerificationException;
}
