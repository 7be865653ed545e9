package com.convplatform.crypto.receiver;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Objects;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.hook.HookHeaders;
import com.convplatform.crypto.hook.HookVerifier;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * The receiving end of a hook delivery (spec 4.4 and 5.2) for any HTTP stack: reads the raw body, verifies it with a
 * {@link HookVerifier} before anything parses it, and says what to answer. A servlet filter, a JAX-RS
 * {@code ContainerRequestFilter} or a plain handler wraps it in a few lines: on {@link Accepted} hand
 * {@link Accepted#body()} (the exact bytes, the stream having been consumed) to the application; on {@link Rejected}
 * answer {@link Rejected#status()} with {@link Rejected#jsonBody()}. Thread-safe when the verifier is (it is).
 *
 * <pre>{@code
 * HookReceiver receiver = new HookReceiver(HookVerifier.builder().platformDomains("platform.example").build());
 * HookReceiver.Outcome outcome = receiver.receive(header("signature"), header("signature-certificate-url"), in);
 * if (outcome instanceof HookReceiver.Rejected r) {
 *     respond(r.status(), "application/json", r.jsonBody());   // 400 {"error_code": "SIGNATURE_MISMATCH", ...}
 * } else if (outcome instanceof HookReceiver.Accepted ok) {
 *     handle(ok.body());                                      // parse the JSON only now
 * }
 * }</pre>
 */
public final class HookReceiver {
    /** Default largest body read: 1 MiB (1,048,576 bytes); hook bodies are a few hundred bytes. */
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
    /** The status for a hook that fails verification (spec 4.4). */
    public static final int REJECTED_STATUS = 400;
    /** The status for a body over the size limit, before any verification. */
    public static final int TOO_LARGE_STATUS = 413;
    /** The error code of a body over the size limit (not a {@code FailureCode}: nothing was verified). */
    public static final String BODY_TOO_LARGE = "BODY_TOO_LARGE";

    private static final JsonFactory JSON = new JsonFactory();

    private final HookVerifier verifier;
    private final int maxBodyBytes;

    /** A receiver reading at most {@link #DEFAULT_MAX_BODY_BYTES}. */
    public HookReceiver(HookVerifier verifier) {
        this(verifier, DEFAULT_MAX_BODY_BYTES);
    }

    /**
     * @param verifier the verifier (build one per application and keep it: it caches the platform certificate)
     * @param maxBodyBytes the largest body read; a longer one is refused with 413 without being verified
     */
    public HookReceiver(HookVerifier verifier, int maxBodyBytes) {
        this.verifier = Objects.requireNonNull(verifier, "verifier");
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("maxBodyBytes must be positive");
        }
        this.maxBodyBytes = maxBodyBytes;
    }

    /**
     * Reads {@code body} to its end (at most the limit plus one byte) and verifies it.
     *
     * @param signature the {@code signature} header ({@value HookHeaders#SIGNATURE}), null when absent
     * @param certificateUrl the {@code signature-certificate-url} header, null when absent
     * @param body the request body exactly as received, not yet read by anything else
     * @throws IOException when reading the body fails (the connection broke): answer nothing, or 400
     */
    public Outcome receive(String signature, String certificateUrl, InputStream body) throws IOException {
        Objects.requireNonNull(body, "body");
        byte[] raw = body.readNBytes(maxBodyBytes + 1);
        if (raw.length > maxBodyBytes) {
            return new Rejected(TOO_LARGE_STATUS, BODY_TOO_LARGE,
                    "The hook body is larger than " + maxBodyBytes + " bytes");
        }
        return receive(signature, certificateUrl, raw);
    }

    /** Verifies a body already read in full (the exact bytes received). */
    public Outcome receive(String signature, String certificateUrl, byte[] body) {
        Objects.requireNonNull(body, "body");
        if (body.length > maxBodyBytes) {
            return new Rejected(TOO_LARGE_STATUS, BODY_TOO_LARGE,
                    "The hook body is larger than " + maxBodyBytes + " bytes");
        }
        try {
            return new Accepted(body.clone(), verifier.verify(signature, certificateUrl, body));
        } catch (VerificationException e) {
            return new Rejected(REJECTED_STATUS, e.code().name(), e.getMessage());
        }
    }

    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** What to do with a received hook: {@link Accepted} or {@link Rejected}. */
    public sealed interface Outcome permits Accepted, Rejected {
    }

    /**
     * A hook that passed every check.
     *
     * @param body the exact body bytes received, to give to the application in place of the consumed stream
     * @param verified what was verified: the certificate URL, the chain and the signature_timestamp
     */
    public record Accepted(byte[] body, HookVerifier.Verified verified) implements Outcome {
        public Accepted {
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(verified, "verified");
        }
    }

    /**
     * A hook to refuse.
     *
     * @param status the HTTP status to answer: 400, or 413 for a body over the limit
     * @param errorCode a {@code FailureCode} name, or {@link #BODY_TOO_LARGE}
     * @param errorMessage which check failed, in words
     */
    public record Rejected(int status, String errorCode, String errorMessage) implements Outcome {
        public Rejected {
            Objects.requireNonNull(errorCode, "errorCode");
            Objects.requireNonNull(errorMessage, "errorMessage");
        }

        /** The response body: {@code {"error_code": "...", "error_message": "..."}} in UTF-8. */
        public byte[] jsonBody() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (JsonGenerator g = JSON.createGenerator(out)) {
                g.writeStartObject();
                g.writeStringField("error_code", errorCode);
                g.writeStringField("error_message", errorMessage);
                g.writeEndObject();
            } catch (IOException e) {
                throw new UncheckedIOException("Writing to memory failed", e);
            }
            return out.toByteArray();
        }
    }
}
