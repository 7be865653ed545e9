package com.convplatform.upload.message;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

import com.convplatform.support.ApiException;
import com.convplatform.support.RequestIds;
import com.convplatform.upload.auth.TokenVerifier;
import com.convplatform.upload.config.UploadConfig;
import com.convplatform.upload.http.BoundedInputStream;
import com.convplatform.upload.http.RequestBody;
import com.convplatform.upload.http.RequestSizeLimit;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /v1.0/log_file_from_user/} (spec 4.5), served as a route of its own (documented in
 * {@code META-INF/openapi.yaml}).
 * <p>
 * How a request is read: a body that declares a Content-Length of at most {@code upload.buffered-body-bytes} (256 KiB)
 * is received whole by the event loop, within a memory budget shared by all uploads; then one task on
 * {@link UploadThreads} checks the token, reads the form ({@link IncomingForm}), checks and stores the upload, and
 * queues its message for the group commit, and the answer is sent when the commit completes, from the thread that
 * completed it. No thread waits for a piece of the body or for the commit. A larger, chunked or over-budget body is
 * handed to a worker at once and read as it arrives ({@link RequestBody}), so it is never held whole. A refused request's body is still read (and dropped) to
 * its end, within upload.max-request-bytes, so the client gets the answer on a connection that stays usable.
 */
@ApplicationScoped
public class UploadRoute {
    private static final Logger LOG = Logger.getLogger(UploadRoute.class);
    static final String PATH = "/v1.0/log_file_from_user/";
    /** A worker reading a body as it arrives pauses the request when this much waits unread. */
    private static final long STREAM_HIGH_WATER = 256 * 1024;
    /**
     * A body received whole that has not ended after this long is handed to a worker, to be read as it arrives (and
     * given up after the read time-out).
     */
    private static final long COLLECT_PATIENCE_MS = 1000;

    /** Spec 2.3. */
    public record UploadedFileMessage(@JsonProperty("message_id") long messageId,
            @JsonProperty("message_body") String messageBody, @JsonProperty("created_at") String createdAt,
            @JsonProperty("message_type") int messageType, @JsonProperty("file_url") String fileUrl) {
    }

    /** Every refusal (spec 7 names error_message). */
    record ErrorBody(@JsonProperty("error_message") String errorMessage, @JsonProperty("error_code") String errorCode) {
    }

    private final TokenVerifier tokens;
    private final UploadService uploads;
    private final IncomingDirectory incoming;
    private final UploadThreads threads;
    private final UploadConfig config;
    private final ObjectMapper json;
    private final Duration readTimeout;
    /** Bytes of bodies being received whole, across all uploads. */
    private final AtomicLong buffered = new AtomicLong();

    public UploadRoute(TokenVerifier tokens, UploadService uploads, IncomingDirectory incoming, UploadThreads threads,
            UploadConfig config, ObjectMapper json,
            @ConfigProperty(name = "quarkus.http.read-timeout", defaultValue = "60s") Duration readTimeout) {
        this.tokens = tokens;
        this.uploads = uploads;
        this.incoming = incoming;
        this.threads = threads;
        this.config = config;
        this.json = json;
        this.readTimeout = readTimeout;
    }

    /** The path, with and without its trailing slash (as the JAX-RS resource before it answered both). */
    void install(@Observes Router router) {
        router.route(PATH).order(RouteConstants.ROUTE_ORDER_BEFORE_DEFAULT).handler(this::handle);
        router.route(PATH.substring(0, PATH.length() - 1)).order(RouteConstants.ROUTE_ORDER_BEFORE_DEFAULT)
                .handler(this::handle);
    }

    /** On the event loop: the cheap refusals, then the body is received and handed to a worker. */
    void handle(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        String requestId = RequestIds.accept(request.getHeader(RequestIds.HEADER));
        ctx.response().putHeader(RequestIds.HEADER, requestId);
        if (request.method() != HttpMethod.POST) {
            ctx.response().putHeader(HttpHeaderNames.ALLOW, "POST");
            refuseWithoutBody(ctx, new ApiException(405, "METHOD_NOT_ALLOWED", "Send the upload with POST"));
            return;
        }
        if (!isMultipartForm(request.getHeader(HttpHeaderNames.CONTENT_TYPE))) {
            refuseWithoutBody(ctx, uploads.refused(
                    new ApiException(415, "UNSUPPORTED_MEDIA_TYPE", "Send the upload as multipart/form-data")));
            return;
        }
        long declared = declaredLength(request);
        boolean whole = declared >= 0 && declared <= config.bufferedBodyBytes() && reserve(declared);
        Context context = Vertx.currentContext();
        RequestBody body = new RequestBody(request, context, readTimeout, STREAM_HIGH_WATER);
        Upload upload = new Upload(ctx, context, body, requestId, whole ? declared : 0);
        request.handler(body::offer);
        request.exceptionHandler(failure -> {
            body.fail(failure);
            upload.start(false); // a body received whole goes to its worker, which finds the failure
        });
        if (whole) {
            long timer = context.owner().setTimer(COLLECT_PATIENCE_MS, t -> upload.start(false));
            request.endHandler(v -> {
                context.owner().cancelTimer(timer);
                body.end();
                upload.start(true);
            });
        } else {
            request.endHandler(v -> body.end());
            upload.start(false);
        }
        if (request.headers().contains(HttpHeaderNames.EXPECT, HttpHeaderValues.CONTINUE, true)) {
            ctx.response().writeContinue();
        }
        request.resume();
    }

    /** One upload's passage from the event loop to a worker; started once, on the event loop. */
    private final class Upload {
        private final RoutingContext ctx;
        private final Context context;
        private final RequestBody body;
        private final String requestId;
        private final long reserved;
        private boolean started;

        Upload(RoutingContext ctx, Context context, RequestBody body, String requestId, long reserved) {
            this.ctx = ctx;
            this.context = context;
            this.body = body;
            this.requestId = requestId;
            this.reserved = reserved;
        }

        /**
         * Hands the upload to {@link UploadThreads} when its whole body has {@code arrived} (and there is such a pool),
         * otherwise to a worker thread, which reads the body as it arrives.
         */
        void start(boolean arrived) {
            if (started) {
                return;
            }
            started = true;
            if (!(arrived && threads.execute(this::work))) {
                context.executeBlocking(() -> {
                    work();
                    return null;
                }, false);
            }
        }

        /** On a worker or processing thread. */
        private void work() {
            MDC.put(RequestIds.MDC_KEY, requestId);
            BoundedInputStream in = new BoundedInputStream(body, config.maxRequestBytes());
            try {
                CompletableFuture<UploadService.Logged> logged = accept(ctx.request(), in);
                logged.whenComplete((l, failure) -> {
                    if (failure == null) {
                        answer(ctx, 200, new UploadedFileMessage(l.messageId(), l.messageBody(), l.createdAt(),
                                l.messageType(), l.fileUrl()));
                    } else {
                        unexpected(ctx, failure instanceof CompletionException c && c.getCause() != null
                                ? c.getCause()
                                : failure);
                    }
                });
            } catch (ApiException e) {
                if (in.exceeded()) {
                    closeAfterAnswer(ctx);
                }
                refuse(ctx, e);
            } catch (BoundedInputStream.TooLarge e) {
                closeAfterAnswer(ctx);
                refuse(ctx, uploads.refused(new ApiException(413, "FILE_TOO_LARGE", RequestSizeLimit.MESSAGE)));
            } catch (IOException e) {
                LOG.debugf("An upload's body could not be read: %s", e.getMessage());
                closeAfterAnswer(ctx);
                refuse(ctx, uploads.refused(
                        new ApiException(400, "INCOMPLETE_BODY", "The request body could not be read to its end")));
            } catch (RuntimeException e) {
                unexpected(ctx, e);
            } finally {
                if (reserved > 0) {
                    buffered.addAndGet(-reserved);
                }
                MDC.remove(RequestIds.MDC_KEY);
            }
        }
    }

    /** The token before the form, the form before the rest; a refusal is thrown once the body has been read. */
    private CompletableFuture<UploadService.Logged> accept(HttpServerRequest request, BoundedInputStream in)
            throws IOException {
        TokenVerifier.Caller caller;
        try {
            caller = tokens.verify(request.getHeader(HttpHeaderNames.AUTHORIZATION), request.getHeader("client-id"));
        } catch (ApiException e) {
            drain(in);
            throw e;
        }
        IncomingForm form;
        String fileId = uploads.newFileId();
        try {
            form = IncomingForm.read(in, request.getHeader(HttpHeaderNames.CONTENT_TYPE),
                    uploads.partFile(fileId, incoming.path()), config.maxFileBytes());
        } catch (ApiException e) {
            drain(in);
            throw uploads.refused(e);
        }
        try (form) {
            return uploads.upload(caller, form.toForm(fileId));
        }
    }

    /** Reserves room for a body received whole; false when the budget is spent. */
    private boolean reserve(long bytes) {
        long max = config.bufferedBodiesMaxBytes();
        for (long now = buffered.get(); now + bytes <= max; now = buffered.get()) {
            if (buffered.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
        return false;
    }

    private static long declaredLength(HttpServerRequest request) {
        String value = request.getHeader(HttpHeaderNames.CONTENT_LENGTH);
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static boolean isMultipartForm(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
        return type.toLowerCase(Locale.ROOT).equals("multipart/form-data");
    }

    /** Reads a refused request's body to its end (or to the bound), so the client can read the answer. */
    private static void drain(BoundedInputStream in) throws IOException {
        try {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (BoundedInputStream.TooLarge e) {
            // the answer closes the connection instead
        }
    }

    /**
     * A refusal decided from the head alone: the body, if any, is read and dropped within the bound before the answer
     * is sent, so the connection stays usable; past the bound the answer closes it.
     */
    private void refuseWithoutBody(RoutingContext ctx, ApiException e) {
        HttpServerRequest request = ctx.request();
        long[] seen = {0};
        boolean[] done = {false};
        request.handler(piece -> {
            seen[0] += piece.length();
            if (seen[0] > config.maxRequestBytes() && !done[0]) {
                done[0] = true;
                closeAfterAnswer(ctx);
                refuse(ctx, e);
            }
        });
        request.exceptionHandler(failure -> done[0] = true);
        request.endHandler(v -> {
            if (!done[0]) {
                done[0] = true;
                refuse(ctx, e);
            }
        });
        request.resume();
    }

    private void refuse(RoutingContext ctx, ApiException e) {
        answer(ctx, e.status(), new ErrorBody(e.getMessage(), e.code()));
    }

    private void unexpected(RoutingContext ctx, Throwable failure) {
        MDC.put(RequestIds.MDC_KEY, ctx.response().headers().get(RequestIds.HEADER));
        LOG.error("Unexpected failure", failure);
        MDC.remove(RequestIds.MDC_KEY);
        refuse(ctx, new ApiException(500, "INTERNAL_ERROR", "The upload could not be processed; nothing was stored"));
    }

    /** Sends the JSON answer; from any thread. */
    private void answer(RoutingContext ctx, int status, Object entity) {
        byte[] bytes;
        try {
            bytes = json.writeValueAsBytes(entity);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        if (ctx.response().ended() || ctx.response().closed()) {
            return;
        }
        ctx.response().setStatusCode(status).putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .end(Buffer.buffer(bytes));
    }

    /** The rest of the body was not read: the connection cannot carry another request. */
    private static void closeAfterAnswer(RoutingContext ctx) {
        ctx.response().putHeader(HttpHeaderNames.CONNECTION, "close");
        ctx.addEndHandler(done -> ctx.request().connection().close());
    }
}
