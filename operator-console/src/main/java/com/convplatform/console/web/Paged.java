package com.convplatform.console.web;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** One page of a list the console holds whole (the accounts), numbered from 1. */
public record Paged<T>(List<T> rows, int page, int pages, int total) {
    static <T> Paged<T> of(List<T> all, Integer page, int size) {
        int pages = Math.max(1, (all.size() + size - 1) / size);
        int p = page == null ? 1 : Math.max(1, Math.min(page, pages));
        return new Paged<>(all.subList((p - 1) * size, Math.min(all.size(), p * size)), p, pages, all.size());
    }

    public boolean hasPrevious() {
        return page > 1;
    }

    public boolean hasNext() {
        return page < pages;
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
