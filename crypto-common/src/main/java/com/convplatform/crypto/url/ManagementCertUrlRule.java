package com.convplatform.crypto.url;

import static com.convplatform.crypto.FailureCode.CERT_URL_HOST;
import static com.convplatform.crypto.FailureCode.CERT_URL_PATH;

import java.util.Locale;
import java.util.Objects;

import com.convplatform.crypto.VerificationException;

/**
 * The {@code SignatureCertChainUrl} rule of spec 5.1 step 1: scheme https (any case); host equal to the account's FQDN
 * (any case); path, after dot-segment removal, starting with {@code /client.api/} (exact case); port 443 if given.
 * See the module README for the decisions on userinfo, query, fragment, encodings, trailing dots and IP literals.
 */
public final class ManagementCertUrlRule implements CertificateUrlRule {
    /** The path prefix every management certificate URL must have after normalisation. */
    public static final String PATH_PREFIX = "/client.api/";

    private final String fqdn;

    /** @param fqdn the account's fully qualified domain name, as registered with the platform */
    public ManagementCertUrlRule(String fqdn) {
        Objects.requireNonNull(fqdn, "fqdn");
        this.fqdn = fqdn.toLowerCase(Locale.ROOT);
    }

    @Override
    public CertificateUrl check(String rawUrl) throws VerificationException {
        UrlParts parts = UrlParts.parse(rawUrl);
        if (!parts.host.equals(fqdn)) {
            throw new VerificationException(CERT_URL_HOST,
                    "The certificate URL's host '" + parts.host + "' is not the account's FQDN '" + fqdn + "'");
        }
        if (!parts.path.startsWith(PATH_PREFIX)) {
            throw new VerificationException(CERT_URL_PATH, "The certificate URL's path '" + parts.path
                    + "' (after normalisation) must start with " + PATH_PREFIX + " (case-sensitive)");
        }
        parts.checkPort();
        return new CertificateUrl(parts.host, parts.path);
    }

    @Override
    public String toString() {
        return "management certificate URL rule for " + fqdn;
    }
}
