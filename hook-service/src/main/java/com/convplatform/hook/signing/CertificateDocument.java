package com.convplatform.hook.signing;

import java.time.Instant;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** What receivers download to verify hooks (spec 4.3): the chain, its end of validity and fingerprint. */
public record CertificateDocument(
        @Schema(description = "PEM chain, signing certificate first", example = "-----BEGIN CERTIFICATE-----\nMIIC...\n-----END CERTIFICATE-----\n") String certificate,
        Instant notAfter,
        @Schema(example = "77bc571e3d150a4f60ead280f014a2e0d71c5441cb99b7a8aecf7136a31831c2") String sha256Fingerprint) {
}
