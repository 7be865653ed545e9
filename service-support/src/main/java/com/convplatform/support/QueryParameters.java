package com.convplatform.support;

import java.util.Set;

import jakarta.ws.rs.core.MultivaluedMap;

/**
 * The query parameters of the operator APIs' list and state endpoints, checked the same way everywhere: a parameter the
 * endpoint does not know is refused (400 {@code UNKNOWN_PARAMETER}), so that a misspelt filter ({@code ?qq=acme}) is
 * never answered with the unfiltered list; a page size outside its bounds is refused (400 {@code INVALID_LIMIT}), not
 * quietly changed.
 */
public final class QueryParameters {
    private QueryParameters() {
    }

    /** Refuses a query that names a parameter outside {@code known}, or names one of them twice. */
    public static void onlyKnown(MultivaluedMap<String, String> query, Set<String> known) {
        for (var e : query.entrySet()) {
            if (!known.contains(e.getKey())) {
                throw new ApiException(400, "UNKNOWN_PARAMETER", "Unknown query parameter '" + abbreviate(e.getKey())
                        + "': this endpoint takes " + (known.isEmpty()
                                ? "none"
                                : "only " + String.join(", ", known.stream().sorted().toList())));
            }
            if (e.getValue().size() > 1) {
                throw new ApiException(400, "REPEATED_PARAMETER", "'" + e.getKey() + "' is given "
                        + e.getValue().size() + " times; give it once");
            }
        }
    }

    /** The page size: {@code 1} to {@code max}, {@code dflt} when absent or blank (an empty form field). */
    public static int limit(String raw, int dflt, int max) {
        if (raw == null || raw.isBlank()) {
            return dflt;
        }
        int n;
        try {
            n = Integer.parseInt(raw.strip());
        } catch (NumberFormatException e) {
            n = 0;
        }
        if (n < 1 || n > max) {
            throw new ApiException(400, "INVALID_LIMIT", "limit must be a whole number from 1 to " + max
                    + " (" + dflt + " when absent); got '" + abbreviate(raw) + "'");
        }
        return n;
    }

    static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
