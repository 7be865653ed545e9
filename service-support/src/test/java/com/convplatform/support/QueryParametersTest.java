package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;

import jakarta.ws.rs.core.MultivaluedHashMap;

import org.junit.jupiter.api.Test;

class QueryParametersTest {
    @Test
    void aKnownParameterOnceIsTakenAnUnknownOrRepeatedOneIsRefused() {
        MultivaluedHashMap<String, String> query = new MultivaluedHashMap<>();
        query.add("q", "acme");
        QueryParameters.onlyKnown(query, Set.of("q", "limit"));
        query.add("qq", "acme");
        ApiException unknown = assertThrows(ApiException.class,
                () -> QueryParameters.onlyKnown(query, Set.of("q", "limit")));
        assertEquals("UNKNOWN_PARAMETER", unknown.code());
        assertEquals("Unknown query parameter 'qq': this endpoint takes only limit, q", unknown.getMessage());
        MultivaluedHashMap<String, String> one = new MultivaluedHashMap<>();
        one.add("q", "acme");
        assertEquals("Unknown query parameter 'q': this endpoint takes none",
                assertThrows(ApiException.class, () -> QueryParameters.onlyKnown(one, Set.of())).getMessage());
        MultivaluedHashMap<String, String> twice = new MultivaluedHashMap<>();
        twice.add("limit", "1");
        twice.add("limit", "2");
        assertEquals("REPEATED_PARAMETER",
                assertThrows(ApiException.class, () -> QueryParameters.onlyKnown(twice, Set.of("limit"))).code());
    }

    @Test
    void theLimitIsOneToTheMaximumAndTheDefaultWhenAbsent() {
        assertEquals(100, QueryParameters.limit(null, 100, 1000));
        assertEquals(100, QueryParameters.limit(" ", 100, 1000));
        assertEquals(1, QueryParameters.limit("1", 100, 1000));
        assertEquals(1000, QueryParameters.limit(" 1000 ", 100, 1000));
        for (String bad : new String[]{"0", "-1", "1001", "abc", "1.5", "99999999999"}) {
            ApiException e = assertThrows(ApiException.class, () -> QueryParameters.limit(bad, 100, 1000), bad);
            assertEquals(400, e.status());
            assertEquals("INVALID_LIMIT", e.code());
        }
    }
}
