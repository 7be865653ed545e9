package com.convplatform.upload.message;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import com.convplatform.support.ApiError;
import com.convplatform.support.ApiException;
import com.convplatform.support.BodyGuard;
import com.convplatform.support.ErrorMappers;
import com.convplatform.support.LocalTransaction;
import com.convplatform.support.RequestIds;
import com.convplatform.upload.auth.TokenIdentityProvider;
import com.convplatform.upload.auth.TokenIdentityProvider.Caller;
import com.convplatform.upload.config.UploadConfig;
import com.convplatform.upload.quota.UploadQuota;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.FileUpload;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * Reads the upload's form with Vert.x Web's BodyHandler once the token has been accepted, and leaves it to Quarkus REST
 * as the parsed form ({@link UploadForm}); its refusals are the README's. Not Quarkus REST's own form reader: it parses
 * a byte at a time (MultipartParser, about 4 ns a byte), 42 % of the service's CPU at 100 KB and 85 % at 5 MB in the
 * load test (JFR); Netty's decoder finds the boundary with an indexed search. The bounds on bodies read at once (in
 * all, and per account) keep slow clients from piling up and one tenant's slow uploads from stalling the others'.
 */
@ApplicationScoped
public class UploadBody {
    private static final long DRAIN_MILLIS = 1000;
    /**
     * How long after a body's end its form may take to be handed on before it counts as ending inside a part: closing
     * the parts on Vert.x's workers took over 2 s at a load average of 30 on two cores (2 s refused valid uploads).
     */
    private static final long UNFINISHED_PART_MILLIS = 10_000;
    private static final String READ = "upload.body-read";
    private static final String FAILED = "upload.failed";
    private static final String REFUSED = "upload.refused";
    private static final String PASSED = "upload.form-read";
    private static final String TIMER = "upload.timer";
    private static final Logger LOG = Logger.getLogger(UploadBody.class);
    private final UploadService uploads;
    private final UploadConfig config;
    private final UploadQuota quota;
    private final AtomicInteger bodies = new AtomicInteger();
    private final ConcurrentHashMap<String, Integer> bodiesByAccount = new ConcurrentHashMap<>();

    public UploadBody(UploadService uploads, UploadConfig config, UploadQuota quota) {
        this.uploads = uploads;
        this.config = config;
        this.quota = quota;
    }

    void install(@Observes Router router,
            @ConfigProperty(name = "quarkus.http.body.uploads-directory") String directory) {
        BodyHandler body = BodyHandler.create(directory).setBodyLimit(config.maxRequestBytes())
                .setDeleteUploadedFilesOnEnd(true).setMergeFormAttributes(false);
        router.route(UploadResource.PATH + "*").order(RouteConstants.ROUTE_ORDER_BEFORE_DEFAULT).handler(ctx -> {
            String type = ctx.request().getHeader(HttpHeaderNames.CONTENT_TYPE);
            if (ctx.request().method() != HttpMethod.POST || type == null
                    || !type.regionMatches(true, 0, "multipart/form-data", 0, 19)) {
                ctx.next(); // refused by Quarkus REST (405, 415)
                return;
            }
            Context context = Vertx.currentContext();
            QuarkusHttpUser.getSecurityIdentity(ctx, null).subscribe().with(identity -> context.runOnContext(v -> {
                if (identity == null || !identity.hasRole(TokenIdentityProvider.CLIENT)) {
                    ctx.next(); // refused by Quarkus REST (401), its body not read
                    return;
                }
                if (ctx.response().closed()) {
                    return; // gone while its token was checked: a slot taken now would never come back (no end
                            // handler fires for a connection closed before it was added)
                }
                String account = identity.<Caller>getAttribute(TokenIdentityProvider.CALLER).accountId();
                if (!type.contains("boundary=")) {
                    refuse(ctx, new ApiException(400, "INVALID_MULTIPART",
                            "The Content-Type needs a valid multipart boundary parameter"));
                } else if (!takeAccountSlot(account)) {
                    refuse(ctx, new ApiException(429, "TOO_MANY_UPLOADS", "Your account is sending as many uploads at"
                            + " once as it may (" + config.maxConcurrentBodiesPerAccount() + "); send this one again"
                            + " when one of them has been answered", 1));
                } else if (bodies.incrementAndGet() > config.maxConcurrentBodies()) {
                    bodies.decrementAndGet();
                    releaseAccountSlot(account);
                    refuse(ctx, new ApiException(503, "TOO_MANY_UPLOADS", "The service is reading as many uploads as it"
                            + " takes at once (" + config.maxConcurrentBodies() + "); send this one again shortly", 1));
                } else {
                    ctx.addEndHandler(ended -> {
                        bodies.decrementAndGet();
                        releaseAccountSlot(account);
                    });
                    if (!quota.enabled()) {
                        read(ctx, body);
                        return;
                    }
                    long bytes = declaredLength(ctx);
                    boolean declared = ctx.request().getHeader(HttpHeaderNames.CONTENT_LENGTH) != null;
                    quota.reserve(account, bytes, declared).whenComplete((reserved, failure) -> context
                            .runOnContext(next -> {
                                if (failure != null) {
                                    refuse(ctx, failure instanceof ApiException refusal
                                            ? refusal
                                            : quotaUnavailable(failure));
                                } else if (ctx.response().closed()) { // gone meanwhile: no end handler would fire
                                    giveBack(ctx, reserved);
                                } else {
                                    ctx.addEndHandler(ended -> giveBack(ctx, reserved));
                                    read(ctx, body);
                                }
                            }));
                }
            }), failure -> context.runOnContext(v -> ctx.next()));
        }).handler(ctx -> {
            ctx.put(PASSED, true);
            cancelTimer(ctx);
            // Quarkus REST reads a form itself unless it has a field or a file
            if (ctx.get(READ) != null && ctx.fileUploads().isEmpty() && ctx.request().formAttributes().isEmpty()) {
                refuse(ctx, new ApiException(400, "INVALID_AUTH_ID", UploadChecks.AUTH_ID_REQUIRED));
            } else {
                ctx.next();
            }
        }).failureHandler(this::refuse);
    }

    /** Starts reading the body: the token is accepted and the slots and quota are taken. */
    private void read(RoutingContext ctx, BodyHandler body) {
        ctx.put(READ, true);
        ctx.put(BodyGuard.OWN_DEADLINE, true);
        timer(ctx, config.bodyDeadline().toMillis(), 408);
        ctx.request().resume();
        body.handle(ctx);
        ctx.request().exceptionHandler(failure -> { // the body handler's own, with a safe clean-up
            cleanUp(ctx);
            boolean malformed = failure instanceof DecoderException;
            ctx.fail(malformed ? 400 : 500,
                    malformed && failure.getCause() != null ? failure.getCause() : failure);
        });
        // A file part without its closing boundary is never complete, and the form never handed on.
        ctx.request().end().onSuccess(ended -> {
            if (ctx.get(PASSED) == null) {
                timer(ctx, UNFINISHED_PART_MILLIS, 400);
            }
        });
    }

    /** Counts one more body for the account unless it already has its most; entries go when they reach zero. */
    private boolean takeAccountSlot(String account) {
        boolean[] taken = {false};
        bodiesByAccount.compute(account, (key, n) -> {
            int now = n == null ? 0 : n;
            taken[0] = now < config.maxConcurrentBodiesPerAccount();
            return taken[0] ? now + 1 : now;
        });
        return taken[0];
    }

    /** Gives back what the upload reserved and did not use: all of it unless it was logged (200). */
    private void giveBack(RoutingContext ctx, UploadQuota.Reservation reservation) {
        long used = ctx.response().ended() && ctx.response().getStatusCode() == 200 ? ctx.request().bytesRead() : 0;
        long unused = reservation.bytes() - used;
        quota.giveBack(reservation, unused);
    }

    /** The length the request declares; the body limit for one that declares none (chunked). */
    private long declaredLength(RoutingContext ctx) {
        String declared = ctx.request().getHeader(HttpHeaderNames.CONTENT_LENGTH);
        try {
            return declared == null
                    ? config.maxRequestBytes()
                    : Math.min(Long.parseLong(declared.trim()),
                            config.maxRequestBytes());
        } catch (NumberFormatException e) {
            return config.maxRequestBytes();
        }
    }

    /**
     * The database out of reach: the outage's own answer (ErrorMappers'). The replica stopping: its own answer
     * (SERVICE_STOPPING), expected, so not logged as an error. Anything else: QUOTA_UNAVAILABLE and an error.
     */
    private ApiException quotaUnavailable(Throwable cause) {
        // past the commit deadline on its way (OutcomeUnknown): the upload was not read; at most its reservation counts
        if (ErrorMappers.databaseUnavailable(cause) || cause instanceof LocalTransaction.OutcomeUnknown) {
            return ErrorMappers.databaseDown(cause);
        }
        if (ErrorMappers.stopping(cause)) {
            return ErrorMappers.stopping();
        }
        LOG.errorf(cause, "An upload was refused: its account's quota could not be checked");
        return new ApiException(503, "QUOTA_UNAVAILABLE", "The upload quota could not be checked; send this upload"
                + " again shortly", 5);
    }

    private void releaseAccountSlot(String account) {
        bodiesByAccount.computeIfPresent(account, (key, n) -> n <= 1 ? null : n - 1);
    }

    private void refuse(RoutingContext ctx) {
        if (ctx.get(READ) == null) {
            ctx.next(); // not the form's failure (Quarkus REST's, e.g. authentication)
            return;
        }
        ApiException refusal = refusal(ctx.statusCode(), ctx.failure());
        ApiException before = ctx.get(FAILED);
        if (before != null) {
            // a decoder's failure cancels the file part, which reaches here first: the failure that says why is kept
            if ("INCOMPLETE_BODY".equals(before.code())) {
                ctx.put(FAILED, refusal);
            }
            return;
        }
        ctx.put(FAILED, refusal);
        // no part is started any more; the body handler has deleted those written (a second clean-up would fail)
        ctx.request().uploadHandler(null);
        ctx.vertx().runOnContext(next -> refuse(ctx, ctx.get(FAILED)));
    }

    /** Fails the form with {@code status} unless it is read within {@code millis}; replaces the timer before. */
    private static void timer(RoutingContext ctx, long millis, int status) {
        cancelTimer(ctx);
        ctx.put(TIMER, ctx.vertx().setTimer(millis, t -> {
            if (ctx.get(PASSED) == null && !ctx.failed()) {
                cleanUp(ctx);
                ctx.fail(status, null);
            }
        }));
    }

    /** The timer holds the request's buffers: kept for every upload, they cost half the CPU in GC at -Xmx128m. */
    private static void cancelTimer(RoutingContext ctx) {
        Long timer = ctx.remove(TIMER);
        if (timer != null) {
            ctx.vertx().cancelTimer(timer);
        }
    }

    /** Deletes the parts written so far, first by name: Vert.x's clean-up fails on a part just written to its end. */
    private static void cleanUp(RoutingContext ctx) {
        for (FileUpload part : ctx.fileUploads()) {
            ctx.vertx().fileSystem().delete(part.uploadedFileName());
        }
        try {
            ctx.cancelAndCleanupFileUploads();
        } catch (IllegalStateException partAlreadyClosed) {
            // its file is deleted above
        }
    }

    private ApiException refusal(int status, Throwable failure) {
        if (status == 413) {
            return new ApiException(413, "FILE_TOO_LARGE", UploadResource.tooLarge(config.maxFileBytes()));
        } else if (status == 408) {
            return new ApiException(408, "BODY_TIMEOUT", "The request body did not arrive in full in time; send it"
                    + " again, on a faster connection or as a smaller file");
        } else if (failure instanceof HttpPostRequestDecoder.TooLongFormFieldException
                || String.valueOf(failure).contains("Size exceed allowed maximum capacity")) {
            return new ApiException(400, "FIELD_TOO_LONG",
                    "A text field of the form is over 16 KiB; message_body may be at most " + config.maxMessageBody()
                            + " characters");
        } else if (failure instanceof HttpPostRequestDecoder.TooManyFormFieldsException) {
            return new ApiException(400, "INVALID_MULTIPART", "The form has more than 32 parts");
        } else if (status == 400) {
            return new ApiException(400, "INVALID_MULTIPART", "The multipart body is malformed: "
                    + (failure instanceof HttpPostRequestDecoder.ErrorDataDecoderException
                            ? failure.getMessage()
                            : "a part's headers are not valid, or a part ends without the closing boundary"));
        }
        return new ApiException(400, "INCOMPLETE_BODY", "The request body could not be read to its end");
    }

    private void refuse(RoutingContext ctx, ApiException refusal) {
        if (ctx.get(REFUSED) != null) {
            return; // a failure after the refusal (the client went away meanwhile)
        }
        ctx.put(REFUSED, true);
        cancelTimer(ctx);
        uploads.refused(refusal);
        if (ctx.response().ended() || ctx.response().closed()) {
            return;
        }
        if (refusal.retryAfterSeconds() > 0) {
            ctx.response().putHeader(HttpHeaderNames.RETRY_AFTER, String.valueOf(refusal.retryAfterSeconds()));
        }
        ctx.response().setStatusCode(refusal.status()).putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .putHeader(RequestIds.HEADER, RequestIds.id());
        if (!ctx.request().isEnded()) {
            // the rest is dropped and Vert.x closes at the body's end (closing now would reset it with the answer
            // unread); a body that does not end within DRAIN_MILLIS is cut off
            ctx.request().handler(null);
            ctx.response().putHeader(HttpHeaderNames.CONNECTION, "close");
            ctx.vertx().setTimer(DRAIN_MILLIS, t -> {
                if (!ctx.request().isEnded()) {
                    ctx.request().connection().close();
                }
            });
        }
        ctx.json(new ApiError(refusal.code(), refusal.getMessage())); // Quarkus's ObjectMapper, through Vert.x's Json
    }
}
