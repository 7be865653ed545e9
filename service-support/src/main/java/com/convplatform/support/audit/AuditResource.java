package com.convplatform.support.audit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import com.convplatform.support.ApiException;
import com.convplatform.support.QueryParameters;
import com.convplatform.support.Roles;

import io.quarkus.arc.properties.IfBuildProperty;

/** The audit trail of the operator actions of this service ({@link OperatorAudit}), newest first. */
@Path("/admin/v1/audit")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@Tag(name = "Audit", description = "Who did what to what, when, and how it ended: every state-changing operator call")
@IfBuildProperty(name = "platform.audit.enabled", stringValue = "true", enableIfMissing = true)
public class AuditResource {
    static final int PAGE = 100;
    static final int MAX = 1000;
    private static final Set<String> QUERY = Set.of("before_id", "limit", "operator", "credential");
    private static final String COLUMNS = "select id, at, credential, operator, method, path, action, target,"
            + " request_id, source, finished_at, status, outcome from operator_action";

    private final DataSource dataSource;

    public AuditResource(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @GET
    @Operation(summary = "The operator actions recorded by this service, newest first", description = "Every"
            + " POST, PUT, PATCH and DELETE made with the operator key (or with the internal key on an operator's"
            + " behalf), whatever its outcome. The next page: the same query with before_id = the id of the last"
            + " action of this one; a page shorter than limit is the last.")
    @APIResponse(responseCode = "200", description = "At most limit actions")
    @APIResponse(responseCode = "400", description = "INVALID_CURSOR: before_id is not a whole number; INVALID_LIMIT:"
            + " limit is not 1 to 1000; UNKNOWN_PARAMETER, REPEATED_PARAMETER")
    public List<OperatorAction> list(@Context UriInfo uri,
            @QueryParam("before_id") @Parameter(description = "The id of the last action of the page before") String beforeId,
            @QueryParam("limit") @Parameter(description = "1 to " + MAX + "; " + PAGE + " when absent") String limit,
            @QueryParam("operator") @Parameter(description = "Only the actions of this operator, as named in"
                    + " X-Operator") String operator,
            @QueryParam("credential") @Parameter(description = "Only the actions made with this key: operator-key,"
                    + " or internal-key (another service, on an operator's behalf)") String credential)
            throws SQLException {
        QueryParameters.onlyKnown(uri.getQueryParameters(), QUERY);
        int n = QueryParameters.limit(limit, PAGE, MAX);
        Long before = cursor(beforeId);
        StringBuilder sql = new StringBuilder(COLUMNS).append(" where true");
        List<Object> args = new ArrayList<>();
        if (operator != null && !operator.isBlank()) {
            sql.append(" and operator = ?");
            args.add(operator.strip());
        }
        if (credential != null && !credential.isBlank()) {
            sql.append(" and credential = ?");
            args.add(credential.strip());
        }
        if (before != null) {
            sql.append(" and id < ?");
            args.add(before);
        }
        sql.append(" order by id desc limit ?");
        args.add(n);
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < args.size(); i++) {
                s.setObject(i + 1, args.get(i));
            }
            List<OperatorAction> out = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    Integer status = r.getObject(12) == null ? null : r.getInt(12);
                    out.add(new OperatorAction(r.getLong(1), instant(r.getTimestamp(2)), r.getString(3),
                            r.getString(4), r.getString(5), r.getString(6), r.getString(7), r.getString(8),
                            r.getString(9), r.getString(10), instant(r.getTimestamp(11)), status, r.getString(13)));
                }
            }
            return out;
        }
    }

    private static Long cursor(String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            return Long.parseLong(raw.strip());
        } catch (NumberFormatException e) {
            throw new ApiException(400, "INVALID_CURSOR", "before_id is the id of an action (a whole number); got '"
                    + (raw.length() > 40 ? raw.substring(0, 40) + "…" : raw) + "'");
        }
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }
}
