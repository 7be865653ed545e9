package com.convplatform.crypto.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpExchange;

/** Answers for the JDK {@code HttpServer} stand-ins of the services' tests and load tests. */
public final class JsonExchanges {
    private JsonExchanges() {
    }

    /** Answers {@code status} with a JSON body, its length declared. */
    public static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, b.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(b);
        }
    }
}
