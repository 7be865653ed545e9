package com.convplatform.support.audit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Clock;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.mapping.RuntimeResource;
import org.jboss.resteasy.reactive.server.spi.ServerRequestContext;

import com.convplatform.support.ApiError;
import com.convplatform.support.ErrorMappers;
import com.convplatform.support.RequestIds;
import com.convplatform.support.Roles;
import com.convplatform.support.Sha256;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.properties.IfBuildProperty;
import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.http.HttpServerRequest;

/**
 * The audit trail of operator actions: every state-changing call (not GET, HEAD or OPTIONS) made with the operator key,
 * or with the internal key on an operator's behalf (another service passing {@value #OPERATOR_HEADER}, as
 * upload-service does when it erases a user's deliveries), is recorded in the {@code operator_action} table: the key,
 * the person the caller named in {@value #OPERATOR_HEADER} (the console sends its signed-in operator; a call with only
 * the key is recorded as the key), the operation and its target, when, from where, and how it ended.
 * <p>
 * The row is written before the action runs, and an action whose row cannot be written is not carried out (503
 * {@code AUDIT_UNAVAILABLE}); the answer's status and outcome complete it. A completion that cannot be written leaves
 * the row without an outcome, logs an ERROR and counts {@code platform_audit_failures_total}. Each completed action is
 * also logged (category {@code com.convplatform.audit}), so that the log pipeline holds a second copy. The table is
 * append-only (a trigger refuses DELETE, TRUNCATE and any other UPDATE) and no retention job touches it.
 * <p>
 * The operator console has no database and records nothing itself: it builds with {@code platform.audit.enabled=false}.
 */
@IfBuildProperty(name = "platform.audit.enabled", stringValue = "true", enableIfMissing = true)
public class OperatorAudit {
    public static final String OPERATOR_HEADER = "X-Operator";
    private static final Pattern OPERATOR = Pattern.compile("[A-Za-z0-9._@+-]{1,64}");
    private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");
    /**
     * Path parameters that are personal data (upload-service's users' auth_id): the trail is never erased, so it holds
     * only their SHA-256, the form in which an erasure's record names a user.
     */
    private static final Set<String> PERSONAL = Set.of("authId");
    private static final String STARTED = OperatorAudit.class.getName() + ".started";
    private static final Logger LOG = Logger.getLogger("com.convplatform.audit");

    private final DataSource dataSource;
    private final CurrentIdentityAssociation identities;
    private final Clock clock;
    private final Counter failures;

    public OperatorAudit(DataSource dataSource, CurrentIdentityAssociation identities, Clock clock,
            MeterRegistry registry) {
        this.dataSource = dataSource;
        this.identities = identities;
        this.clock = clock;
        this.failures = Counter.builder("platform.audit.failures")
                .description("Operator actions whose audit record could not be written (refused with 503) or"
                        + " completed (carried out, outcome not recorded)")
                .register(registry);
    }

    /** The row an audited call is recorded in, while it runs. */
    private record Started(long id, String credential, String operator, String action, String target) {
    }

    @ServerRequestFilter
    public Uni<Response> onRequest(ContainerRequestContext request, ServerRequestContext context,
            HttpServerRequest http) {
        if (SAFE.contains(request.getMethod()) || request.getHeaderString(HttpHeaders.AUTHORIZATION) == null) {
            // Every credential of these services is a bearer: without one the caller is anonymous, never audited.
            // No Uni at all, so the request goes on without the suspend and resume that even an empty one costs
            // (4 % of the token path's JFR samples in management-service's load test; docs/capacity.md).
            return null;
        }
        String operator = request.getHeaderString(OPERATOR_HEADER);
        return identities.getDeferredIdentity().onItem().transformToUni(identity -> {
            if (!audited(identity, operator)) {
                return Uni.createFrom().nullItem();
            }
            if (operator != null && !OPERATOR.matcher(operator).matches()) {
                return Uni.createFrom().item(ErrorMappers.error(400, "INVALID_OPERATOR", OPERATOR_HEADER
                        + " names the person who acts: 1 to 64 letters, digits and . _ @ + -"));
            }
            String credential = identity.getPrincipal().getName();
            String action = action(request, context);
            Map<String, String> params = pathParameters(request, action);
            String target = params.isEmpty()
                    ? null
                    : params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(", "));
            String path = params.keySet().stream().anyMatch(PERSONAL::contains)
                    ? substitute(action.substring(action.indexOf(' ') + 1), params)
                    : request.getUriInfo().getPath();
            String source = http.remoteAddress() == null ? null : http.remoteAddress().hostAddress();
            String requestId = RequestIds.current();
            return blocking(() -> {
                long id = insert(credential, operator, request.getMethod(), path, action, target, requestId, source);
                request.setProperty(STARTED, new Started(id, credential, operator, action, target));
                return (Response) null;
            }).onFailure().recoverWithItem(e -> {
                failures.increment();
                LOG.errorf(e, "Operator action refused, its audit record could not be written: credential=%s"
                        + " operator=%s %s target=%s", credential, operator, action, oneLine(target));
                return ErrorMappers.error(503, "AUDIT_UNAVAILABLE", "The action was not carried out: its audit"
                        + " record could not be written (the database did not answer); try again shortly");
            });
        });
    }

    @ServerResponseFilter
    public Uni<Void> onResponse(ContainerRequestContext request, ContainerResponseContext response) {
        if (!(request.getProperty(STARTED) instanceof Started started)) {
            return null; // nothing to complete: the request goes on without a Uni
        }
        request.removeProperty(STARTED);
        int status = response.getStatus();
        Object entity = response.getEntity();
        String outcome = status < 400 ? "ok" : entity instanceof ApiError e ? e.errorCode() : "HTTP_" + status;
        String target = entity instanceof AuditTarget t ? withAnswer(started.target(), t.auditTarget()) : null;
        return blocking(() -> {
            complete(started.id(), status, outcome, target);
            return (Void) null;
        }).invoke(() -> LOG.infof("Operator action %d: credential=%s operator=%s %s target=%s status=%d outcome=%s",
                started.id(), started.credential(), started.operator(), started.action(),
                oneLine(target != null ? target : started.target()), status, outcome))
                .onFailure().recoverWithItem(e -> {
                    failures.increment();
                    LOG.errorf(e, "Operator action %d was carried out but its outcome could not be recorded:"
                            + " credential=%s operator=%s %s target=%s status=%d outcome=%s", started.id(),
                            started.credential(), started.operator(), started.action(), oneLine(started.target()),
                            status, outcome);
                    return null;
                });
    }

    /**
     * The target to complete the row with: what the answer names (a created client's id, say) after the path's
     * parameters; null (the path's target stays) when the answer names nothing or what the path already names.
     */
    static String withAnswer(String path, String answer) {
        if (answer == null || path == null) {
            return answer;
        }
        return path.contains(answer.substring(answer.indexOf('=') + 1)) ? null : path + ", " + answer;
    }

    /**
     * A value from the request (a decoded path parameter may hold a line break) as it goes into the log: control
     * characters escaped, so that no value can write a line of its own into the audit log.
     */
    static String oneLine(String value) {
        if (value == null || value.chars().allMatch(c -> c >= 0x20 && c != 0x7f)) {
            return value;
        }
        StringBuilder out = new StringBuilder(value.length() + 8);
        value.chars().forEach(c -> out.append(c >= 0x20 && c != 0x7f
                ? String.valueOf((char) c)
                : String.format("\\u%04x", c)));
        return out.toString();
    }

    /** The operator key; or the internal key naming the operator it acts for. */
    private static boolean audited(SecurityIdentity identity, String operator) {
        return !identity.isAnonymous()
                && (identity.hasRole(Roles.OPERATOR) || operator != null && identity.hasRole(Roles.INTERNAL));
    }

    /** The method and the path template: {@code DELETE /admin/v1/certificate-blocks/{sha256}}. */
    private static String action(ContainerRequestContext request, ServerRequestContext context) {
        if (context instanceof ResteasyReactiveRequestContext rc && rc.getTarget() != null) {
            RuntimeResource target = rc.getTarget();
            String method = target.getPath() == null || target.getPath().template.equals("/")
                    ? ""
                    : target.getPath().template; // a method without @Path is matched as "/"
            String path = (target.getClassPath() == null ? "" : target.getClassPath().template) + method;
            return request.getMethod() + " " + path.replace("//", "/");
        }
        return request.getMethod() + " " + request.getUriInfo().getPath();
    }

    /** The path's parameters by name, personal ones as their digest. */
    private static Map<String, String> pathParameters(ContainerRequestContext request, String template) {
        Map<String, String> params = new LinkedHashMap<>();
        request.getUriInfo().getPathParameters().entrySet().stream()
                .sorted(Comparator.comparingInt(e -> template.indexOf("{" + e.getKey()))) // in the path's order
                .forEach(e -> {
                    String value = String.join(",", e.getValue());
                    params.put(e.getKey(), PERSONAL.contains(e.getKey()) ? personal(value) : value);
                });
        return params;
    }

    /** The path template with its parameters filled in. */
    private static String substitute(String template, Map<String, String> params) {
        String path = template;
        for (Map.Entry<String, String> p : params.entrySet()) {
            path = path.replace("{" + p.getKey() + "}", p.getValue());
        }
        return path;
    }

    /** How the trail names a piece of personal data: {@code sha256:} and the SHA-256 (hex) of its UTF-8 bytes. */
    public static String personal(String value) {
        return "sha256:" + Sha256.hex(value);
    }

    private long insert(String credential, String operator, String method, String path, String action, String target,
            String requestId, String source) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("insert into operator_action (at, credential, operator,"
                        + " method, path, action, target, request_id, source) values (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        + " returning id")) {
            s.setTimestamp(1, Timestamp.from(clock.instant()));
            s.setString(2, credential);
            s.setString(3, operator);
            s.setString(4, method);
            s.setString(5, abbreviate(path));
            s.setString(6, abbreviate(action));
            s.setString(7, abbreviate(target));
            s.setString(8, requestId);
            s.setString(9, source);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    private void complete(long id, int status, String outcome, String target) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("update operator_action set finished_at = ?, status = ?,"
                        + " outcome = ?, target = coalesce(?, target) where id = ? and status is null")) {
            s.setTimestamp(1, Timestamp.from(clock.instant()));
            s.setInt(2, status);
            s.setString(3, outcome);
            if (target == null) {
                s.setNull(4, Types.VARCHAR);
            } else {
                s.setString(4, abbreviate(target));
            }
            s.setLong(5, id);
            s.executeUpdate();
        }
    }

    private static String abbreviate(String s) {
        return s == null || s.length() <= 1000 ? s : s.substring(0, 1000) + "…";
    }

    /** Database work of a filter. */
    private interface SqlWork<T> {
        T run() throws SQLException;
    }

    /** Database work: here when this thread may block (a blocking endpoint's worker), else on a worker. */
    private static <T> Uni<T> blocking(SqlWork<T> work) {
        Executor here = command -> {
            if (BlockingOperationControl.isBlockingAllowed()) {
                command.run();
            } else {
                Infrastructure.getDefaultWorkerPool().execute(command);
            }
        };
        return Uni.createFrom().<T>emitter(e -> {
            try {
                e.complete(work.run());
            } catch (SQLException | RuntimeException failure) {
                e.fail(failure);
            }
        }).runSubscriptionOn(here);
    }
}
