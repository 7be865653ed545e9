package com.convplatform.crypto.chain;

import static com.convplatform.crypto.FailureCode.CERT_EXPIRED;
import static com.convplatform.crypto.FailureCode.CERT_NOT_YET_VALID;

import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import com.convplatform.crypto.VerificationException;

/**
 * A chain that passed {@link ChainValidator}: the certificates in path order (signing certificate first, the trust
 * anchor excluded) and the window in which all of them and the anchor are valid. Cached chains call
 * {@link #checkValidAt(Instant)} on every use.
 *
 * @param certificates the path, signing certificate first
 * @param notBefore the latest Not Before of the path and its anchor
 * @param notAfter the earliest Not After of the path and its anchor (a root may expire before what it issued)
 * @param anchor the trust anchor the path ends at, as configured; null for a self-signed certificate taken on its own
 */
public record ValidatedChain(List<X509Certificate> certificates, Instant notBefore, Instant notAfter,
        X509Certificate anchor) {

    public ValidatedChain {
        certificates = List.copyOf(certificates);
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException("empty chain");
        }
    }

    /** Builds the record from a path without an anchor (a self-signed certificate), computing its validity window. */
    public static ValidatedChain of(List<X509Certificate> path) {
        return of(path, null);
    }

    /** Builds the record from a path and the anchor it ends at, computing their validity window. */
    public static ValidatedChain of(List<X509Certificate> path, X509Certificate anchor) {
        Instant nb = Instant.MIN;
        Instant na = Instant.MAX;
        for (X509Certificate c : plusAnchor(path, anchor)) {
            Instant b = c.getNotBefore().toInstant();
            Instant a = c.getNotAfter().toInstant();
            nb = b.isAfter(nb) ? b : nb;
            na = a.isBefore(na) ? a : na;
        }
        return new ValidatedChain(path, nb, na, anchor);
    }

    /** The path and then its anchor (when there is one): every certificate the chain's trust rests on. */
    public List<X509Certificate> withAnchor() {
        return plusAnchor(certificates, anchor);
    }

    private static List<X509Certificate> plusAnchor(List<X509Certificate> path, X509Certificate anchor) {
        if (anchor == null) {
            return path;
        }
        List<X509Certificate> all = new ArrayList<>(path);
        all.add(anchor);
        return all;
    }

    /** The signing certificate. */
    public X509Certificate leaf() {
        return certificates.get(0);
    }

    /** The signing certificate's public key. */
    public PublicKey publicKey() {
        return leaf().getPublicKey();
    }

    /**
     * Throws {@code CERT_EXPIRED} or {@code CERT_NOT_YET_VALID} unless every certificate is valid at {@code instant},
     * compared at whole seconds as {@link ChainValidator} does (Not After inclusive).
     */
    public void checkValidAt(Instant instant) throws VerificationException {
        Instant at = instant.truncatedTo(ChronoUnit.SECONDS);
        if (at.isBefore(notBefore)) {
            throw new VerificationException(CERT_NOT_YET_VALID,
                    "A certificate of the chain is valid only from " + notBefore + " (now " + at + ")");
        }
        if (at.isAfter(notAfter)) {
            throw new VerificationException(CERT_EXPIRED,
                    "A certificate of the chain expired at " + notAfter + " (now " + at + ")");
        }
    }
}
