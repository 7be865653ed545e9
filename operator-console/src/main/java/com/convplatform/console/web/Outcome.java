package com.convplatform.console.web;

import java.util.function.Supplier;

import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;

import com.convplatform.support.ApiError;

/**
 * One call to a service: its value, or the sentence a page shows instead: the service's own refusal
 * ({@code error_code: error_message}) or that it could not be reached. A page shows what it has and names what failed.
 */
public record Outcome<T>(T value, String error, int status) {
    public static <T> Outcome<T> of(String service, Supplier<T> call) {
        try {
            return new Outcome<>(call.get(), null, 200);
        } catch (WebApplicationException e) {
            int status = e.getResponse().getStatus();
            String why;
            try {
                ApiError body = e.getResponse().readEntity(ApiError.class);
                why = body.errorCode() + ": " + body.errorMessage();
            } catch (RuntimeException unreadable) {
                why = "HTTP " + status;
            }
            return new Outcome<>(null, service + " refused: " + why, status);
        } catch (ProcessingException e) {
            return new Outcome<>(null, service + " could not be reached (" + rootMessage(e) + ")", 0);
        }
    }

    public boolean ok() {
        return error == null;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
