package com.convplatform.crypto.chain;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Matches a DNS name (or an IP address) against a certificate's Subject Alternative Names, per RFC 6125: DNS names
 * compare case-insensitively with trailing dots ignored; the subject common name is never consulted; a wildcard is
 * honoured only as the whole left-most label ({@code *.example.com}), matches exactly one label, never a bare
 * domain, and needs at least two labels after it. Partial wildcards ({@code f*.example.com}), wildcards in other
 * labels and wildcards over IDN A-labels ({@code xn--}) do not match.
 */
public final class HostnameMatcher {
    private static final int SAN_DNS = 2;
    private static final int SAN_IP = 7;

    private HostnameMatcher() {
    }

    /** True when {@code name} (a DNS name or an IP literal) is among the certificate's SANs. */
    public static boolean matches(X509Certificate cert, String name) {
        Collection<List<?>> sans;
        try {
            sans = cert.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return false;
        }
        if (sans == null || name == null || name.isEmpty()) {
            return false;
        }
        boolean ip = isIpLiteral(name);
        for (List<?> san : sans) {
            int type = (Integer) san.get(0);
            Object value = san.get(1);
            if (ip && type == SAN_IP && value instanceof String s && sameAddress(s, name)) {
                return true;
            }
            if (!ip && type == SAN_DNS && value instanceof String s && dnsMatches(s, name)) {
                return true;
            }
        }
        return false;
    }

    /** RFC 6125 DNS-ID matching of one SAN pattern against one reference name. */
    public static boolean dnsMatches(String pattern, String name) {
        String p = stripDot(pattern.toLowerCase(Locale.ROOT));
        String n = stripDot(name.toLowerCase(Locale.ROOT));
        if (p.isEmpty() || n.isEmpty() || !isAscii(p) || !isAscii(n)) {
            return false;
        }
        if (!isLdhName(p.startsWith("*.") ? p.substring(2) : p)) {
            return false; // a SAN that is not a valid DNS name (e.g. with '_') never matches
        }
        if (!p.contains("*")) {
            return p.equals(n);
        }
        if (!p.startsWith("*.") || p.indexOf('*', 1) >= 0) {
            return false;
        }
        String suffix = p.substring(1); // ".example.com"
        if (suffix.chars().filter(c -> c == '.').count() < 2) {
            return false; // "*.com" and similar: too broad
        }
        if (!n.endsWith(suffix)) {
            return false;
        }
        String first = n.substring(0, n.length() - suffix.length());
        return !first.isEmpty() && first.indexOf('.') < 0 && !first.startsWith("xn--");
    }

    /** Lower-case LDH labels of 1 to 63 characters, none starting or ending with '-'. */
    static boolean isLdhName(String name) {
        for (String label : name.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63 || label.startsWith("-") || label.endsWith("-")) {
                return false;
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean isIpLiteral(String name) {
        return name.contains(":") || name.matches("[0-9.]+");
    }

    private static boolean sameAddress(String a, String b) {
        try {
            return InetAddress.getByName(a).equals(InetAddress.getByName(b.replace("[", "").replace("]", "")));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String stripDot(String s) {
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0x7e || s.charAt(i) < 0x21) {
                return false;
            }
        }
        return true;
    }
}
