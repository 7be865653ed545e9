package com.convplatform.crypto.url;

import static com.convplatform.crypto.FailureCode.CERT_URL_HOST;
import static com.convplatform.crypto.FailureCode.CERT_URL_PATH;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.convplatform.crypto.VerificationException;

/**
 * The {@code signature-certificate-url} rule of spec 5.2 step 1: https; host a subdomain (one or more labels) of one
 * of the configured platform domains, never the bare domain; path exactly {@value #PATH} after normalisation (so a
 * doubled slash before the path is accepted); port 443 if given.
 */
public final class HookCertUrlRule implements CertificateUrlRule {
    /** The only path a hook certificate URL may have after normalisation. */
    public static final String PATH = "/platform/hooks/certificate/";

    private final List<String> domains;

    /** @param domains the platform domains, for example the production and the staging one; at least one */
    public HookCertUrlRule(List<String> domains) {
        if (domains == null || domains.isEmpty()) {
            throw new IllegalArgumentException("At least one platform domain is required");
        }
        List<String> lower = new ArrayList<>();
        for (String d : domains) {
            String s = d.trim().toLowerCase(Locale.ROOT);
            if (s.startsWith(".")) {
                s = s.substring(1);
            }
            if (s.isEmpty() || s.endsWith(".") || !s.contains(".")) {
                throw new IllegalArgumentException("Not a platform domain: '" + d + "'");
            }
            lower.add(s);
        }
        this.domains = List.copyOf(lower);
    }

    /** Convenience for one or more domains. */
    public static HookCertUrlRule forDomains(String... domains) {
        return new HookCertUrlRule(List.of(domains));
    }

    @Override
    public CertificateUrl check(String rawUrl) throws VerificationException {
        UrlParts parts = UrlParts.parse(rawUrl);
        if (!isSubdomain(parts.host)) {
            throw new VerificationException(CERT_URL_HOST, "The certificate URL's host '" + parts.host
                    + "' is not a subdomain of " + String.join(" or ", domains));
        }
        if (!parts.path.equals(PATH)) {
            throw new VerificationException(CERT_URL_PATH,
                    "The certificate URL's path '" + parts.path + "' (after normalisation) must be exactly " + PATH);
        }
        parts.checkPort();
        return new CertificateUrl(parts.host, parts.path);
    }

    private boolean isSubdomain(String host) {
        for (String domain : domains) {
            if (host.length() > domain.length() + 1 && host.endsWith(domain)
                    && host.charAt(host.length() - domain.length() - 1) == '.') {
                return true;
            }
        }
        return false;
    }

    /** The configured platform domains, lower case. */
    public List<String> domains() {
        return domains;
    }
}
