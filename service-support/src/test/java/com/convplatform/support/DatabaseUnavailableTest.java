package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * A request that fails because the database is out of reach for now is answered 503 DATABASE_UNAVAILABLE with
 * Retry-After, as the docs tell clients to retry; any other failure stays a 500. The causes as the driver and the pool
 * raise them, under the wrappers the services add.
 */
class DatabaseUnavailableTest {
    private final ErrorMappers mappers = new ErrorMappers(null, null, null, new SimpleMeterRegistry());

    private Response answer(Throwable cause) {
        return mappers.unexpected(new IllegalStateException("Recording the uploads failed", cause));
    }

    @Test
    void aLostConnectionALockNotHadOrNoPooledConnectionIs503WithRetryAfter() {
        for (SQLException cause : new SQLException[]{
                new SQLException("An I/O error occurred while sending to the backend.", "08006"),
                new SQLException("Connection to 127.0.0.1:5432 refused.", "08001"),
                new SQLException("terminating connection due to administrator command", "57P01"),
                new SQLException("canceling statement due to lock timeout", "55P03"),
                new SQLTransientConnectionException("Sorry, acquisition timeout!"),
                new SQLException("Acquisition timeout while waiting for new connection")}) {
            Response r = answer(cause);
            assertEquals(503, r.getStatus(), cause.getMessage());
            assertEquals("5", String.valueOf(r.getHeaderString("Retry-After")), cause.getMessage());
            assertEquals("DATABASE_UNAVAILABLE", ((ApiError) r.getEntity()).errorCode());
        }
    }

    @Test
    void otherFailuresStay500() {
        Response r = answer(new SQLException("duplicate key value violates unique constraint", "23505"));
        assertEquals(500, r.getStatus());
        assertEquals("INTERNAL_ERROR", ((ApiError) r.getEntity()).errorCode());
        assertEquals(500, mappers.unexpected(new NullPointerException()).getStatus());
    }
}
