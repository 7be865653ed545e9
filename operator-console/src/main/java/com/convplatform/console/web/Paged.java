package com.convplatform.console.web;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Collectors;

/** The query strings of the lists' page links: each page's URL holds its filters and its cursor. */
final class Paged {
    private Paged() {
    }

    /** A query string of the non-empty parameters, plus one more when {@code name} is given. */
    static String query(Map<String, String> params, String name, String value) {
        String q = params.entrySet().stream().filter(e -> e.getValue() != null && !e.getValue().isEmpty())
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        if (name != null) {
            q = (q.isEmpty() ? "" : q + "&") + name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
        }
        return "?" + q;
    }
}
