package com.convplatform.support;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.annotation.security.RolesAllowed;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.validation.Path;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.vertx.core.http.HttpServerRequest;

/**
 * The one place where every service turns a refusal into its {@link ApiError} body: its own {@link ApiException}s,
 * the framework's refusals (no such path, wrong method or media type, malformed JSON), constraint violations, and
 * authentication. No answer is sent with an empty body or a framework default message, and no stack trace reaches a
 * client: anything else is a logged 500.
 */
public class ErrorMappers {
    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);
    private static final WarningPace DATABASE_DOWN = new WarningPace(Duration.ofSeconds(10));
    /** A constraint message that names its code: {@code "INVALID_FQDN: fqdn must be ..."}. */
    private static final Pattern CODED = Pattern.compile("([A-Z][A-Z0-9_]+): (.+)", Pattern.DOTALL);

    private static final String BEARER = "Bearer ";
    /** Where ./run-local.sh keeps the keys it generates (its --data directory, by default data/local). */
    public static final String LOCAL_KEYS = "a local run (./run-local.sh) keeps the keys in data/local/keys.env"
            + " (under its --data directory when one is given), the operator key as OPERATOR_KEY";

    private final ApiKeys keys;
    private final AllowedMethods allowed;
    private final WrongService elsewhere;
    private final MeterRegistry metrics;
    private final WarningPace refusedKeys = new WarningPace(Duration.ofMinutes(1));

    public ErrorMappers(ApiKeys keys, AllowedMethods allowed, WrongService elsewhere, MeterRegistry metrics) {
        this.keys = keys;
        this.allowed = allowed;
        this.elsewhere = elsewhere;
        this.metrics = metrics;
    }

    /** The error response; for the services' own code too. */
    public static Response error(int status, String code, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(new ApiError(code, message)).build();
    }

    @ServerExceptionMapper
    public Response api(ApiException e) {
        Response r = error(e.status(), e.code(), e.getMessage());
        return e.retryAfterSeconds() > 0
                ? Response.fromResponse(r).header("Retry-After", e.retryAfterSeconds()).build()
                : r;
    }

    /** No credentials, or none this service knows, at an endpoint that needs a role. */
    @ServerExceptionMapper
    public Response unauthenticated(UnauthorizedException e, ResourceInfo resource, HttpHeaders headers,
            ServerRequestContext request) {
        return notAuthenticated(resource, headers, request);
    }

    /** Credentials that a mechanism refused; a mechanism's own refusal ({@link ApiException} cause) as it is. */
    @ServerExceptionMapper
    public Response authenticationFailed(AuthenticationFailedException e, ResourceInfo resource,
            HttpHeaders headers, ServerRequestContext request) {
        return e.getCause() instanceof ApiException api ? api(api) : notAuthenticated(resource, headers, request);
    }

    /** A valid key, but for another role. */
    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e, ResourceInfo resource, ServerRequestContext request) {
        String role = role(resource);
        refusedKey(role, "FORBIDDEN", request);
        return error(403, "FORBIDDEN", "This key does not open the " + (role == null ? "requested" : role)
                + " API; send the " + (role == null ? "right" : role) + " key");
    }

    @ServerExceptionMapper
    public Response invalid(ConstraintViolationException e) {
        ConstraintViolation<?> first = e.getConstraintViolations().stream()
                .min((a, b) -> a.getPropertyPath().toString().compareTo(b.getPropertyPath().toString())).orElse(null);
        if (first == null) {
            return error(400, "INVALID_REQUEST", "The request is not valid");
        }
        Matcher coded = CODED.matcher(first.getMessage());
        if (coded.matches()) {
            return error(400, coded.group(1), coded.group(2));
        }
        String field = leaf(first.getPropertyPath());
        return error(400, "INVALID_" + upperSnake(field), snake(field) + " " + first.getMessage());
    }

    @ServerExceptionMapper
    public Response malformedJson(JsonProcessingException e) {
        return error(400, "MALFORMED_JSON", "The body is not valid JSON for this operation: " + e.getOriginalMessage());
    }

    /** Well-formed JSON of the wrong shape; Quarkus has its own mapper for exactly this type, with an empty body. */
    @ServerExceptionMapper
    public Response mismatchedJson(MismatchedInputException e) {
        return malformedJson(e);
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, UriInfo uri) {
        if (e.getCause() instanceof JsonProcessingException json) {
            return malformedJson(json);
        }
        int status = e.getResponse().getStatus();
        return switch (status) {
            case 400 -> error(400, "BAD_REQUEST", "The request is malformed" + detail(e));
            case 404 -> {
                String owner = elsewhere.owner(uri.getPath());
                yield owner == null
                        ? error(404, "NOT_FOUND", "Nothing is served at " + uri.getPath()
                                + "; the endpoints are listed at /q/openapi")
                        : error(404, "WRONG_SERVICE", "This is " + elsewhere.self() + ", not the service of "
                                + uri.getPath() + ": send it to " + owner);
            }
            case 405 -> {
                String allow = allowed.of(uri.getPath());
                Response r = error(405, "METHOD_NOT_ALLOWED", "This path does not take that method"
                        + (allow == null ? "; see /q/openapi" : "; it takes " + allow));
                yield allow == null ? r : Response.fromResponse(r).header(HttpHeaders.ALLOW, allow).build();
            }
            case 406 -> error(406, "NOT_ACCEPTABLE", "This endpoint answers application/json; accept that");
            case 413 -> error(413, "BODY_TOO_LARGE", "The body is larger than this endpoint takes");
            case 415 -> error(415, "UNSUPPORTED_MEDIA_TYPE",
                    "This endpoint does not take a body of that Content-Type; see /q/openapi for the one it takes");
            default -> status >= 500
                    ? unexpected(e)
                    : error(status, "BAD_REQUEST", "The request was refused (HTTP " + status + ")" + detail(e));
        };
    }

    /**
     * A commit whose connection was lost, or that passed the commit deadline on its way: it may have taken effect, so
     * the answer must not say it changed nothing.
     */
    @ServerExceptionMapper
    public Response outcomeUnknown(LocalTransaction.OutcomeUnknown e) {
        LOG.error("A request's commit may or may not have happened", e);
        return Response.fromResponse(error(503, "OUTCOME_UNKNOWN", "The database did not confirm this request's"
                + " commit (the connection was lost, or it did not answer within the commit deadline): it may have"
                + " taken effect. Check before sending it again"))
                .header("Retry-After", 5).build();
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        LocalTransaction.OutcomeUnknown unknown = cause(e, LocalTransaction.OutcomeUnknown.class);
        if (unknown != null) {
            return outcomeUnknown(unknown);
        }
        if (databaseUnavailable(e)) {
            return api(databaseDown(e));
        }
        if (stopping(e)) {
            return api(stopping());
        }
        LOG.error("Unexpected failure", e);
        return error(500, "INTERNAL_ERROR", "The request could not be processed; it changed nothing");
    }

    /**
     * The refusal of a request that found the database out of reach ({@link #databaseUnavailable}): it changed nothing
     * and may be sent again. Warned of at most every 10 s, whichever path refused it (these mappers, or a route of a
     * service's own).
     */
    public static ApiException databaseDown(Throwable cause) {
        if (DATABASE_DOWN.tryWarn()) {
            LOG.warn("Requests are refused 503 DATABASE_UNAVAILABLE: the database cannot be reached, or a lock is held"
                    + " past lock_timeout (this warning at most every 10 s)", cause);
        }
        return new ApiException(503, "DATABASE_UNAVAILABLE", "The service cannot reach its database just now; the"
                + " request changed nothing. Send it again shortly", 5);
    }

    /**
     * The refusal of a write that found this replica's writer stopped ({@link GroupCommit.Closed}): the replica is
     * stopping, which is expected, so it is answered without an error logged. Nothing was written; another replica (or
     * this one, restarted) takes the request.
     */
    public static ApiException stopping() {
        LOG.debug("A request was refused 503 SERVICE_STOPPING: this replica is stopping");
        return new ApiException(503, "SERVICE_STOPPING", "This replica of the service is stopping; the request changed"
                + " nothing. Send it again", 1);
    }

    /** Whether the failure is a write refused because this replica's writer has stopped. */
    public static boolean stopping(Throwable e) {
        return cause(e, GroupCommit.Closed.class) != null;
    }

    /** The failure itself or its first cause of that type; null if none is. */
    private static <X extends Throwable> X cause(Throwable e, Class<X> type) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }

    /**
     * A failure that says the database is out of reach for now, not that the request or the service is wrong: a lost or
     * refused connection (SQLState class 08), the server shutting sessions (57P), a lock not had within lock_timeout
     * (55P03), no pooled connection within the pool's acquisition time-out, or a write withdrawn unwritten after it
     * waited past its deadline behind a commit the database did not answer ({@link GroupCommit.NotWritten}).
     */
    public static boolean databaseUnavailable(Throwable e) {
        if (cause(e, GroupCommit.NotWritten.class) != null) {
            return true;
        }
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.sql.SQLException sql) {
                String state = sql.getSQLState() == null ? "" : sql.getSQLState();
                if (state.startsWith("08") || state.startsWith("57P") || state.equals("55P03")
                        || String.valueOf(sql.getMessage()).toLowerCase(Locale.ROOT).contains("acquisition timeout")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A bearer refused at an API that takes a configured key (the operator's or the internal one): counted by role and
     * reason, and logged at most once a minute with its source, so that a caller trying keys shows in a metric and the
     * log (docs/operations.md, Operator audit trail). The key itself is never logged.
     */
    private void refusedKey(String role, String reason, ServerRequestContext request) {
        if (role == null || keys.setting(role) == null) {
            return;
        }
        Counter refused = Counter.builder("platform.key.refusals").tag("role", role).tag("reason", reason)
                .description("Requests refused a key at an API that takes a configured key").register(metrics);
        refused.increment();
        if (refusedKeys.tryWarn()) {
            HttpServerRequest http = ((ResteasyReactiveRequestContext) request).serverRequest()
                    .unwrap(HttpServerRequest.class);
            LOG.warnf("Refused a key (%s) at the %s API: %s %s from %s; %.0f refused so far, counted in"
                    + " platform_key_refusals_total (this warning at most once a minute)", reason, role, http.method(),
                    http.path(), http.remoteAddress() == null ? "unknown" : http.remoteAddress().hostAddress(),
                    refused.count());
        }
    }

    private Response notAuthenticated(ResourceInfo resource, HttpHeaders headers, ServerRequestContext request) {
        String role = role(resource);
        String setting = role == null ? null : keys.setting(role);
        if (setting == null) {
            ApiException refusal = role == null ? null : keys.refusal(role);
            return refusal != null
                    ? api(refusal)
                    : error(401, "UNAUTHORIZED",
                            "This endpoint needs credentials; send them as 'Authorization: Bearer'");
        }
        if (!keys.open(role)) {
            return error(401, "API_DISABLED",
                    "The " + role + " API is disabled: no key is configured on this service (" + setting + ")");
        }
        String authorization = headers == null ? null : headers.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (authorization == null || authorization.isBlank()) {
            return error(401, "UNAUTHORIZED", "No Authorization header: send the " + role
                    + " key as 'Authorization: Bearer <key>'");
        }
        if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
                || authorization.substring(BEARER.length()).isBlank()) {
            return error(401, "UNAUTHORIZED", "The Authorization header is not of the form 'Bearer <key>': send the "
                    + role + " key as 'Authorization: Bearer <key>'");
        }
        refusedKey(role, "UNAUTHORIZED", request);
        return error(401, "UNAUTHORIZED", "The key given is not the " + role + " key configured on this service ("
                + setting + "); " + LOCAL_KEYS);
    }

    /** The first role the matched endpoint allows, from its method or else its class. */
    private static String role(ResourceInfo resource) {
        Method method = resource == null ? null : resource.getResourceMethod();
        if (method == null) {
            return null;
        }
        RolesAllowed allowed = method.getAnnotation(RolesAllowed.class);
        if (allowed == null) {
            allowed = resource.getResourceClass().getAnnotation(RolesAllowed.class);
        }
        return allowed == null || allowed.value().length == 0 ? null : allowed.value()[0];
    }

    private static String detail(WebApplicationException e) {
        String m = e.getMessage();
        return m == null || m.startsWith("HTTP ") ? "" : ": " + m;
    }

    private static String leaf(Path path) {
        String name = "request";
        for (Path.Node node : path) {
            if (node.getName() != null) {
                name = node.getName();
            }
        }
        return name;
    }

    private static String snake(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
    }

    private static String upperSnake(String camel) {
        return snake(camel).toUpperCase(Locale.ROOT);
    }
}
