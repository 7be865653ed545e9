package com.convplatform.console.web;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.resteasy.reactive.RestQuery;

import com.convplatform.console.ConsoleConfig;
import com.convplatform.console.api.AuditRow;
import com.convplatform.console.api.HookApi;
import com.convplatform.console.api.ManagementApi;
import com.convplatform.console.api.UploadApi;
import com.convplatform.console.security.Operator;
import com.convplatform.console.security.Users;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import io.quarkus.qute.TemplateInstance;

/**
 * The audit page: the operator actions the three services recorded ({@code GET /admin/v1/audit} of each), merged
 * newest first, a page at a time. Each service pages by its own ids, so the page's URL carries one cursor per service
 * ({@code management_before}, {@code hook_before}, {@code upload_before}: the last id of that service shown); a
 * service that cannot be read is named and the others are still shown.
 */
@Path("/audit")
@Produces(MediaType.TEXT_HTML)
public class AuditPage {
    static final List<String> SERVICES = List.of("management-service", "hook-service", "upload-service");

    /** One row of the page: a service's action, with the service's name, and what the page writes for each column. */
    public record Row(String service, AuditRow action) {
        /** Who: the operator named in X-Operator, or empty when the call was made with the key alone. */
        public String who() {
            return action.operator() == null ? "" : action.operator();
        }

        public String credential() {
            return action.credential() == null ? "" : action.credential();
        }

        public String from() {
            return action.source() == null ? "" : ", from " + action.source();
        }

        public String what() {
            return action.action() == null ? "" : action.action();
        }

        public String target() {
            return action.target() == null ? "" : action.target();
        }

        /** ok, warn (the outcome was not recorded: the service stopped during the call) or bad (refused). */
        public String level() {
            return action.status() == null ? Levels.WARN : action.status() < 400 ? Levels.OK : Levels.BAD;
        }

        public String outcome() {
            if (action.status() == null) {
                return "not recorded";
            }
            return (action.outcome() != null ? action.outcome() : action.status() < 400 ? "ok" : "refused") + " "
                    + action.status();
        }

        public String rowId() {
            return "audit-" + service + "-" + action.id();
        }
    }

    @Location("audit.html")
    Template audit;

    @RestClient
    ManagementApi management;
    @RestClient
    HookApi hook;
    @RestClient
    UploadApi upload;

    private final ConsoleConfig config;
    private final Operator operator;

    public AuditPage(ConsoleConfig config, Operator operator) {
        this.config = config;
        this.operator = operator;
    }

    @GET
    public TemplateInstance page(@RestQuery("operator") String who, @RestQuery("management_before") String mb,
            @RestQuery("hook_before") String hb, @RestQuery("upload_before") String ub) {
        String name = who == null ? "" : who.strip();
        String problem = !name.isEmpty() && !Users.NAME.matcher(name).matches()
                ? "An operator name is 1 to 64 letters, digits or ._@+- (as the services record it)."
                : null;
        int size = config.pageSize();
        Map<String, Long> cursors = new LinkedHashMap<>();
        cursors.put("management-service", id(mb));
        cursors.put("hook-service", id(hb));
        cursors.put("upload-service", id(ub));
        String filter = name.isEmpty() ? null : name;
        Map<String, Outcome<List<AuditRow>>> read = new LinkedHashMap<>();
        if (problem == null) {
            read.put("management-service", Outcome.of("management-service",
                    () -> management.audit(cursors.get("management-service"), size + 1, filter)));
            read.put("hook-service", Outcome.of("hook-service",
                    () -> hook.audit(cursors.get("hook-service"), size + 1, filter)));
            read.put("upload-service", Outcome.of("upload-service",
                    () -> upload.audit(cursors.get("upload-service"), size + 1, filter)));
        }
        Merged merged = merge(read, size);
        List<String> errors = read.values().stream().filter(o -> !o.ok()).map(Outcome::error).toList();
        String next = null;
        if (merged.more()) {
            Map<String, String> q = new LinkedHashMap<>();
            q.put("operator", name);
            for (String service : SERVICES) {
                Long c = merged.next().containsKey(service) ? merged.next().get(service) : cursors.get(service);
                q.put(key(service), c == null ? "" : c.toString());
            }
            next = Paged.query(q, null, null);
        }
        boolean paged = cursors.values().stream().anyMatch(c -> c != null);
        return audit.data("operator", operator.name()).data("who", name).data("problem", problem)
                .data("errors", errors).data("rows", merged.rows()).data("next", next)
                .data("first", paged ? Paged.query(Map.of("operator", name), null, null) : null);
    }

    /** The page's rows, whether there are more, and each service's cursor for the next page (its last id shown). */
    record Merged(List<Row> rows, boolean more, Map<String, Long> next) {
    }

    /**
     * The newest {@code size} of every service's rows (each newest first by id, as the service pages them, up to
     * {@code size + 1}): the services' lists merged by time, each kept in its own order, so that what is shown of a
     * service is the start of its list and the next page, from the last id shown, misses none of its rows (two actions
     * recorded at once can have their ids and times in opposite orders); more when any service has a row not shown.
     */
    static Merged merge(Map<String, Outcome<List<AuditRow>>> read, int size) {
        List<java.util.ArrayDeque<Row>> lists = new ArrayList<>();
        read.forEach((service, o) -> {
            if (o.ok() && !o.value().isEmpty()) {
                lists.add(new java.util.ArrayDeque<>(o.value().stream().map(a -> new Row(service, a)).toList()));
            }
        });
        Comparator<Row> newestFirst = Comparator
                .comparing((Row r) -> r.action().at(), Comparator.nullsLast(Comparator.reverseOrder()))
                .thenComparing(r -> r.action().id(), Comparator.reverseOrder());
        List<Row> shown = new ArrayList<>();
        Map<String, Long> next = new LinkedHashMap<>();
        while (shown.size() < size) {
            java.util.ArrayDeque<Row> newest = lists.stream().filter(l -> !l.isEmpty())
                    .min(Comparator.comparing(java.util.ArrayDeque::peekFirst, newestFirst)).orElse(null);
            if (newest == null) {
                break;
            }
            Row r = newest.pollFirst();
            shown.add(r);
            next.put(r.service(), r.action().id());
        }
        return new Merged(List.copyOf(shown), lists.stream().anyMatch(l -> !l.isEmpty()), next);
    }

    private static String key(String service) {
        return service.substring(0, service.indexOf('-')) + "_before";
    }

    private static Long id(String value) {
        try {
            return value == null || value.isBlank() ? null : Long.valueOf(value.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
