package com.convplatform.cli.support;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;

/**
 * What to do about each {@link FailureCode}, worded for the person who reads it: for {@link Side#MANAGEMENT} the
 * integrator who signs requests; for {@link Side#HOOK} the one who runs the receiver, who cannot change what the sender
 * sent but decides what to do with the hook and what to check on their own side. The switch has no default, so a
 * code added to crypto-common does not compile here until it has a fix; the README's troubleshooting table mirrors
 * this class.
 */
public final class Hints {

    /** Whose certificate and URL are being checked. */
    public enum Side {
        /** The integrator's own certificate, chain URL and signed management request (spec 5.1). */
        MANAGEMENT,
        /** The platform's hook certificate, as the integrator's receiver checks it (spec 5.2). */
        HOOK
    }

    private static final String CONTACT = " If the platform's own hooks fail this way, contact the platform.";

    private Hints() {
    }

    /** One or two sentences saying how to fix {@code code}. */
    public static String fix(FailureCode code, Side side) {
        boolean hook = side == Side.HOOK;
        return switch (code) {
            case CERT_HEADERS -> "Send exactly one of SignatureCertChainUrl (CA-signed certificate, --cert-url) and"
                    + " SignatureCertUUID (registered self-signed certificate, --cert-uuid).";
            case CERT_URL_MALFORMED -> hook
                    ? "The hook's certificate URL is not a plain https://host/path, which the platform never sends:"
                            + " do not act on this hook." + CONTACT
                    : "Use a plain absolute URL https://host/path: no user@, no ?query, no #fragment,"
                            + " no %2e/%2f encodings, no backslashes or spaces.";
            case CERT_URL_SCHEME -> hook
                    ? "The hook's certificate URL is not https, which the platform never sends: do not act on this"
                            + " hook." + CONTACT
                    : "Serve the chain over https and send an https:// URL.";
            case CERT_URL_HOST -> hook
                    ? "The certificate URL's host is not a subdomain of a platform domain this receiver trusts: check"
                            + " the domain you configured (--domain); otherwise the hook did not come from the platform:"
                            + " do not act on it."
                    : "Host the chain on the FQDN registered for your account (the body's fqdn), no IP address,"
                            + " no trailing dot.";
            case CERT_URL_PATH -> hook
                    ? "The platform's certificate URL path is exactly /platform/hooks/certificate/; this hook names"
                            + " another, so it did not come from the platform: do not act on it."
                    : "Put the chain file under /client.api/ (case-sensitive), for example"
                            + " https://<fqdn>/client.api/chain.pem.";
            case CERT_URL_PORT -> hook
                    ? "The platform's certificate URL has no port (or :443); this hook names another, so it did not"
                            + " come from the platform: do not act on it."
                    : "Drop the port from the URL, or use :443.";
            case CERT_FETCH_FAILED -> hook
                    ? "The platform's certificate could not be downloaded: check that this machine reaches the"
                            + " certificate URL over HTTPS (for a local or staging platform add its CA with --trust,"
                            + " and point the host at it with --resolve host=address:port)." + CONTACT
                    : "The chain URL must answer 200 with the PEM file directly (no redirect) within 5 s, from a"
                            + " server whose TLS certificate is publicly trusted for that host.";
            case CERT_FETCH_BUSY ->
                "Downloads from that host are already running at the most allowed at once: wait a few"
                        + " seconds and send the request again (the answer's Retry-After says how long).";
            case CERT_MALFORMED -> hook
                    ? "The certificate URL did not answer with the platform's certificate document (a JSON object"
                            + " whose 'certificate' holds PEM blocks): check that --resolve, if you use it, points at"
                            + " the platform." + CONTACT
                    : "The file must hold only -----BEGIN CERTIFICATE----- blocks, signing certificate first, then"
                            + " the intermediates; never a private key.";
            case CERT_UNKNOWN -> "Register the self-signed certificate with the platform operator and send the"
                    + " certificate_uuid it returned; check it was not revoked and belongs to this account's FQDN.";
            case CERT_NOT_YET_VALID -> "A certificate's Not Before is in the future: check this machine's and the"
                    + " issuer's clocks, or wait until it becomes valid.";
            case CERT_EXPIRED -> hook
                    ? "The platform's certificate has expired: contact the platform; if you are replaying an old"
                            + " hook, pass --at with the time it was sent."
                    : "Renew the certificate, and replace the file at the chain URL (or register the new"
                            + " self-signed certificate).";
            case CERT_NAME_MISMATCH -> hook
                    ? "The platform certificate must name the certificate URL's host in its Subject Alternative"
                            + " Names; contact the platform."
                    : "Reissue the certificate with your FQDN as a DNS Subject Alternative Name (the subject CN is"
                            + " ignored): platform-cli cert create --fqdn <fqdn>.";
            case CERT_UNTRUSTED -> hook
                    ? "The chain does not lead to a root this machine trusts; for a local or staging platform pass"
                            + " its CA with --trust FILE."
                    : "Send the intermediates after the signing certificate, and use a CA the platform trusts (for"
                            + " a local test CA, pass its root with --trust FILE). A self-signed certificate is"
                            + " registered instead and sent with --cert-uuid (check it with --self-signed).";
            case CERT_CHAIN_INVALID -> hook
                    ? "The platform's certificate chain is broken (the message names the certificate and the check):"
                            + " do not act on this hook, and contact the platform."
                    : "The chain is broken (the message names the certificate and the check): reissue from a proper"
                            + " CA, or register a self-signed certificate instead.";
            case CERT_KEY_UNSUPPORTED -> hook
                    ? "Hooks are signed with RSA (2048 bits or more); the platform's certificate has another key."
                    : "Use an RSA key of 2048 bits or more, or an EC key on P-256, P-384 or P-521.";
            case SIGNATURE_MALFORMED -> hook
                    ? "The hook's signature header is not one line of standard padded Base64, which the platform"
                            + " always sends: check that nothing between the platform and this receiver (a proxy)"
                            + " rewrites headers; otherwise the hook is not the platform's: do not act on it."
                    : "Send standard padded Base64 of the raw signature, on one line, with nothing"
                            + " else in the header (platform-cli sign prints exactly that). A signature of the wrong length"
                            + " or shape usually means the key type does not match the certificate (an EC key for an RSA"
                            + " certificate, or the other way round).";
            case SIGNATURE_MISMATCH -> hook
                    ? "The body is not what the platform signed: it was changed on the way, or signed with another"
                            + " key. Do not act on this hook. If the platform's own hooks fail this way, verify the body"
                            + " bytes exactly as received (before any JSON parsing or re-encoding), and check that"
                            + " nothing on the way (a proxy) rewrites them."
                    : "Sign exactly the bytes you send (no re-serialising after signing) with the private key of"
                            + " the certificate you named.";
            case TIMESTAMP_MALFORMED -> hook
                    ? "The body has no signature_timestamp of the form YYYY-MM-DDThh:mm:ssZ, which the platform always"
                            + " sends: do not act on this hook; check that the body is passed on exactly as received."
                    : "Send timestamp as UTC whole seconds: YYYY-MM-DDThh:mm:ssZ (capital T and Z).";
            case TIMESTAMP_OUT_OF_WINDOW -> hook
                    ? "Hooks are fresh for 120 s: check this machine's clock (NTP); to replay a captured hook pass"
                            + " --at with the time it was received."
                    : "Sync your clock with NTP and sign just before sending; the platform accepts 150 s either way.";
        };
    }

    /**
     * What the platform checked before its one refusal for an unknown FQDN and for every failed check of the account's
     * certificate or signature (management-service's NOT_AUTHENTICATED, which does not say which), in its order, each
     * with the command that checks it here. {@code certUrl} or {@code certUuid} is the one sent; {@code requestId} the
     * answer's X-Request-Id, or null.
     */
    public static List<String> notAuthenticated(String fqdn, String certUrl, String certUuid, Path key,
            String requestId) {
        String cert = certUrl != null
                ? "the chain at " + certUrl + " downloads (https, 200, PEM, no redirect), is valid now, has " + fqdn
                        + " as a DNS SAN and leads to a trusted root: platform-cli check-url --kind management --fqdn "
                        + fqdn + " '" + certUrl + "', then platform-cli check-chain --chain <the file served there>"
                        + " --fqdn " + fqdn
                : "SignatureCertUUID " + certUuid + " is the certificate_uuid the operator registered for this account"
                        + " (not revoked), valid now, with " + fqdn + " as a DNS SAN: platform-cli check-chain --chain"
                        + " <that certificate's PEM> --fqdn " + fqdn + " --self-signed";
        return List.of("  means: one answer for an unknown FQDN and for every failed check of the account's"
                + " certificate or signature, so that nobody learns whether an FQDN is a customer's. The platform"
                + " checked, in order:",
                "  1. an account has the fqdn '" + fqdn + "': the FQDN registered for your account (ask the operator)",
                "  2. the certificate: " + cert,
                "  3. the signature: Signature (SHA-1: SHA1withRSA or SHA1withECDSA, by the key's type) and, when"
                        + " sent, Signature-256 (SHA-256) verify over the exact body bytes with that certificate's key."
                        + " This command signs the bytes it sends, so the question is whether --key " + key + " is that"
                        + " certificate's private key: openssl pkey -pubout -in " + key + " and openssl x509 -pubkey"
                        + " -noout -in <certificate> print the same key. For your own client: platform-cli sign --key "
                        + key + " --body FILE signs FILE's bytes, to compare with its signature",
                "  then:  the timestamp, within 150 s of the platform's clock (NTP), is checked after these and refused"
                        + " with its own code, TIMESTAMP_OUT_OF_WINDOW",
                "  fix:   run those checks; if all pass, give the platform operator this answer's X-Request-Id"
                        + (requestId == null ? "" : " (" + requestId + ")") + ": its log names the reason");
    }

    /**
     * Prints a failed check as three lines: {@code <prefix> <CODE>: <message>}, what the code means, and the fix.
     */
    public static void print(PrintWriter out, String prefix, VerificationException e, Side side) {
        out.println(prefix + " " + e.code() + ": " + e.getMessage());
        out.println("  means: " + e.code().summary());
        out.println("  fix:   " + fix(e.code(), side));
    }
}
