package com.convplatform.console.web;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.resteasy.reactive.RestForm;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

import com.convplatform.api.hook.HookAdmin;
import com.convplatform.console.ConsoleConfig;
import com.convplatform.console.api.HookApi;
import com.convplatform.console.api.ManagementApi;
import com.convplatform.console.api.ManagementApi.Account;
import com.convplatform.console.api.UploadApi;
import com.convplatform.console.security.Operator;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import io.quarkus.qute.TemplateInstance;

/**
 * The console's pages. Every page is a GET whose query holds all of its state (shareable, bookmarkable); every action
 * is a POST form with its CSRF token, answered with a redirect to the page that shows its effect, and logged with the
 * operator's name. Each service call that fails is named on the page; the rest of the page is still shown.
 */
@Path("/")
@Produces(MediaType.TEXT_HTML)
public class ConsolePages {
    static final Set<String> STATUSES = Set.of("PENDING", "DELIVERED", "DEAD");
    static final Map<String, Duration> SINCE = new LinkedHashMap<>();
    static {
        SINCE.put("1h", Duration.ofHours(1));
        SINCE.put("24h", Duration.ofDays(1));
        SINCE.put("7d", Duration.ofDays(7));
    }
    /**
     * The accounts read to name accounts by their FQDN on the overview and the deliveries page: the first page of
     * management-service's list at its largest (its maximum page); accounts beyond it are shown by their id.
     */
    static final int NAMED = 1000;
    /** The newest deliveries and uploads an account's page shows. */
    static final int RECENT = 10;
    /** What a redirect after an action says; only these fixed sentences are shown (nothing from the query). */
    static final Map<String, String> NOTICES = Map.of(
            "retried", "Queued again: the delivery is due now, with its full retry schedule.",
            "replayed", "The account's dead-lettered deliveries are queued again.",
            "disabled", "The endpoint is disabled: its deliveries are held until it is enabled.",
            "enabled", "The endpoint is enabled: held deliveries are sent now.",
            "revoked", "The certificate is revoked.",
            "account-disabled", "The account is disabled: no token and no client list for it, its tokens refused.",
            "account-enabled", "The account is enabled: tokens are issued again.",
            "client-disabled", "The client is disabled: no token for it, its tokens refused.",
            "client-enabled", "The client is enabled: tokens are issued for it again.");

    @Location("overview.html")
    Template overview;
    @Location("accounts.html")
    Template accounts;
    @Location("account.html")
    Template account;
    @Location("deliveries.html")
    Template deliveries;
    @Location("delivery.html")
    Template delivery;
    @Location("confirm.html")
    Template confirm;
    @Location("result.html")
    Template result;

    @RestClient
    ManagementApi management;
    @RestClient
    HookApi hook;
    @RestClient
    UploadApi upload;

    private final ConsoleConfig config;
    private final Operator operator;

    public ConsolePages(ConsoleConfig config, Operator operator) {
        this.config = config;
        this.operator = operator;
    }

    @GET
    public TemplateInstance overview() {
        Instant now = Instant.now();
        Outcome<HookAdmin.Summary> summary = Outcome.of("hook-service", hook::summary);
        Outcome<HookApi.CertificateDocument> cert = Outcome.of("hook-service", hook::certificate);
        Outcome<UploadApi.Outbox> outbox = Outcome.of("upload-service", upload::outbox);
        Outcome<ManagementApi.SigningKey> key = Outcome.of("management-service", management::signingKey);
        Outcome<List<Account>> all = Outcome.of("management-service", () -> management.accounts(null, NAMED, null));
        Map<String, Account> byId = index(all);
        HookAdmin.Summary s = summary.value();
        UploadApi.Outbox o = outbox.value();
        // The current hour's failed attempts: an endpoint failing now turns this tile, whatever its deliveries' state.
        HookAdmin.HourView failedNow = s == null || s.hours() == null || s.hours().isEmpty()
                ? null
                : s.hours().get(s.hours().size() - 1);
        return page(overview).data("summary", summary).data("s", s).data("cert", cert)
                .data("names", names(byId)).data("accountCount", all.ok() ? all.value().size() : null)
                .data("accountsMore", all.ok() && all.value().size() >= NAMED)
                .data("outbox", outbox)
                .data("outboxAge", o == null ? null : Duration.ofSeconds(o.oldestAgeSeconds()))
                .data("stuckAfter", o == null ? null : Duration.ofSeconds(o.stuckAfterSeconds()))
                .data("outboxLevel", o == null
                        ? Levels.WARN
                        : Levels.outbox(o.oldestAgeSeconds(),
                                o.stuckAfterSeconds()))
                .data("key", key)
                .data("keyLevel", key.ok() ? Levels.rotation(key.value().rotateBy(), now) : Levels.WARN)
                .data("keyMaxAge", key.ok() ? Duration.parse(key.value().maxAge()) : null)
                .data("certLevel", cert.ok() ? Levels.expiry(cert.value().notAfter(), now) : Levels.WARN)
                .data("deadLevel", s == null ? Levels.OK : Levels.zero(s.dead(), Levels.BAD))
                .data("heldLevel", s == null ? Levels.OK : Levels.zero(s.held(), Levels.WARN))
                .data("oldestLevel", s == null ? Levels.OK : Levels.waiting(s.oldestUndeliveredAt(), now))
                .data("disabledLevel", s == null ? Levels.OK : Levels.zero(s.disabledCount(), Levels.BAD))
                .data("chart", s == null || s.hours() == null ? null : Chart.of(s.hours()))
                .data("failedNow", failedNow)
                .data("failedLevel",
                        failedNow == null ? Levels.OK : Levels.zero(failedNow.failedAttempts(), Levels.WARN))
                .data("statuses", List.of("PENDING", "DELIVERED", "DEAD"));
    }

    /**
     * Accounts in FQDN order, searched by management-service ({@code q}: part of an FQDN or a name, an exact business id
     * or account id), a page at a time: the next page starts after the last FQDN shown.
     */
    @GET
    @Path("accounts")
    public TemplateInstance accounts(@RestQuery String q, @RestQuery String after) {
        String query = q == null ? "" : q.trim();
        String cursor = after == null || after.isBlank() ? null : after.trim();
        int size = config.pageSize();
        Outcome<List<Account>> found = Outcome.of("management-service",
                () -> management.accounts(query.isEmpty() ? null : query, size + 1, cursor));
        List<Account> list = found.ok() ? found.value() : List.of();
        boolean more = list.size() > size;
        List<Account> shown = more ? list.subList(0, size) : list;
        Map<String, String> params = Map.of("q", query);
        return page(accounts).data("q", query).data("outcome", found).data("shown", shown)
                .data("next", more ? Paged.query(params, "after", shown.get(size - 1).fqdn()) : null)
                .data("first", cursor != null ? Paged.query(params, null, null) : null);
    }

    @GET
    @Path("accounts/{id}")
    public TemplateInstance account(@RestPath String id, @RestQuery String notice) {
        Outcome<Account> a = Outcome.of("management-service", () -> management.account(id));
        Outcome<List<ManagementApi.Client>> clients = Outcome.of("management-service", () -> management.clients(id));
        Outcome<List<ManagementApi.Certificate>> certs = Outcome.of("management-service",
                () -> management.certificates(id));
        Outcome<HookAdmin.EndpointView> endpoint = Outcome.of("hook-service", () -> hook.endpoint(id));
        Outcome<List<HookAdmin.DeliveryView>> recent = Outcome.of("hook-service",
                () -> hook.deliveries(null, id, null, null, null, RECENT, null));
        Outcome<List<UploadApi.User>> users = a.ok()
                ? Outcome.of("upload-service", () -> upload.users(a.value().businessId()))
                : new Outcome<>(List.of(), "Not looked up: the account's business id is needed, and the account"
                        + " could not be read", a.status());
        Outcome<List<UploadApi.Message>> uploads = Outcome.of("upload-service",
                () -> upload.messages(id, RECENT, null));
        return page(account).data("id", id).data("a", a)
                .data("endpointLevel", endpoint.ok()
                        ? Levels.endpoint(endpoint.value().enabled(), endpoint.value().consecutiveFailures())
                        : Levels.WARN)
                .data("clients", clients).data("certs", certs)
                .data("endpoint", endpoint).data("recent", recent).data("users", users).data("uploads", uploads)
                .data("notice", notice == null ? null : NOTICES.get(notice));
    }

    @GET
    @Path("deliveries")
    public TemplateInstance deliveries(@RestQuery String account, @RestQuery String status, @RestQuery String since,
            @RestQuery("message_id") String messageId, @RestQuery String before,
            @RestQuery("before_id") String beforeId) {
        Outcome<List<Account>> all = Outcome.of("management-service", () -> management.accounts(null, NAMED, null));
        Map<String, Account> byId = index(all);
        String accountQuery = account == null ? "" : account.trim();
        String wantedStatus = status != null && STATUSES.contains(status) ? status : "";
        String window = since != null && SINCE.containsKey(since) ? since : "";
        // The account is looked up by management-service's search, which the exact id, FQDN or business id matches.
        Outcome<List<Account>> matches = accountQuery.isEmpty()
                ? all
                : Outcome.of("management-service", () -> management.accounts(accountQuery, NAMED, null));
        Account chosen = accountQuery.isEmpty() ? null : resolve(matches, accountQuery);
        Instant cursor = parse(before);
        Long message = parseLong(messageId);
        String problem = !accountQuery.isEmpty() && chosen == null
                ? (matches.ok()
                        ? "No account has the id, FQDN or business id '" + accountQuery + "'."
                        : "The account could not be looked up: " + matches.error())
                : (messageId != null && !messageId.isBlank() && message == null
                        ? "A message id is a whole number."
                        : null);
        if (message != null && chosen == null && problem == null) {
            problem = "A message id is looked up within one account: give the account too.";
        }
        Outcome<List<HookAdmin.DeliveryView>> rows;
        if (problem != null) {
            rows = new Outcome<>(List.of(), null, 200);
        } else {
            String after = window.isEmpty() ? null : Instant.now().minus(SINCE.get(window)).toString();
            int size = config.pageSize();
            String lastId = cursor == null || beforeId == null || beforeId.isBlank() ? null : beforeId;
            rows = Outcome.of("hook-service", () -> hook.deliveries(wantedStatus.isEmpty() ? null : wantedStatus,
                    chosen == null ? null : chosen.accountId(), after, cursor == null ? null : cursor.toString(),
                    lastId, size + 1, message));
        }
        List<HookAdmin.DeliveryView> list = rows.ok() ? rows.value() : List.of();
        boolean more = list.size() > config.pageSize();
        List<HookAdmin.DeliveryView> shown = more ? list.subList(0, config.pageSize()) : list;
        Map<String, String> query = new LinkedHashMap<>();
        query.put("account", accountQuery);
        query.put("status", wantedStatus);
        query.put("since", window);
        query.put("message_id", message == null ? "" : message.toString());
        String next = null;
        if (more) { // the last row's time and id: rows of one intake batch share their created_at
            HookAdmin.DeliveryView last = shown.get(shown.size() - 1);
            Map<String, String> older = new LinkedHashMap<>(query);
            older.put("before", Formats.iso(last.createdAt()));
            next = Paged.query(older, "before_id", last.deliveryId());
        }
        return page(deliveries).data("account", accountQuery).data("status", wantedStatus).data("since", window)
                .data("messageId", message == null ? "" : message.toString()).data("chosen", chosen)
                .data("problem", problem).data("rows", rows).data("shown", shown).data("names", names(byId))
                .data("next", next).data("first", cursor != null ? Paged.query(query, null, null) : null)
                .data("statuses", List.of("PENDING", "DELIVERED", "DEAD")).data("windows", SINCE.keySet());
    }

    @GET
    @Path("deliveries/{id}")
    public TemplateInstance delivery(@RestPath String id, @RestQuery String notice) {
        Outcome<HookAdmin.DeliveryDetail> d = Outcome.of("hook-service", () -> hook.delivery(id));
        // The attempts come with the delivery; a hook-service from before that is asked for them on their own. In the
        // order they were made: attempts of a delivery retried before hook-service numbered on were numbered from 1.
        Outcome<List<HookAdmin.AttemptView>> attempts = d.ok() && d.value().attemptHistory() != null
                ? new Outcome<>(d.value().attemptHistory(), null, 200)
                : Outcome.of("hook-service", () -> hook.attempts(id));
        if (attempts.ok()) {
            attempts = new Outcome<>(attempts.value().stream().sorted(java.util.Comparator.comparing(
                    HookAdmin.AttemptView::startedAt,
                    java.util.Comparator.nullsFirst(java.util.Comparator.naturalOrder())))
                    .toList(), null, 200);
        }
        Outcome<Account> a = d.ok()
                ? Outcome.of("management-service", () -> management.account(d.value().accountId()))
                : new Outcome<>(null, null, 200);
        return page(delivery).data("id", id).data("d", d).data("attempts", attempts).data("a", a)
                .data("notice", notice == null ? null : NOTICES.get(notice));
    }

    @POST
    @Path("deliveries/{id}/retry")
    public Response retry(@RestPath String id) {
        Outcome<HookAdmin.DeliveryView> done = Outcome.of("hook-service", () -> hook.retry(id));
        operator.audit("retry-delivery", id, done.ok() ? "queued" : done.error());
        return done.ok()
                ? seeOther("/deliveries/" + id + "?notice=retried")
                : failed(done, "/deliveries/" + id, "the delivery");
    }

    @GET
    @Path("accounts/{id}/replay")
    public TemplateInstance confirmReplay(@RestPath String id) {
        Outcome<Account> a = Outcome.of("management-service", () -> management.account(id));
        Outcome<List<HookAdmin.DeliveryView>> dead = Outcome.of("hook-service",
                () -> hook.deliveries("DEAD", id, null, null, null, 1000, null));
        return page(confirm).data("title", "Replay dead letters")
                .data("question", "Queue every dead-lettered delivery of "
                        + (a.ok() ? a.value().fqdn() : id) + " again, now, with its full retry schedule?")
                .data("detail", dead.ok()
                        ? dead.value().size() + (dead.value().size() >= 1000 ? " or more" : "")
                                + " dead-lettered deliveries."
                        : dead.error())
                .data("action", "/accounts/" + id + "/replay").data("button", "Replay dead letters")
                .data("back", "/accounts/" + id).data("reason", false);
    }

    @POST
    @Path("accounts/{id}/replay")
    public Response replay(@RestPath String id) {
        Outcome<HookAdmin.Replayed> done = Outcome.of("hook-service", () -> hook.replay(id));
        operator.audit("replay-dead-letters", id, done.ok() ? done.value().requeued() + " queued" : done.error());
        return done.ok()
                ? seeOther("/accounts/" + id + "?notice=replayed")
                : failed(done, "/accounts/" + id,
                        "the account");
    }

    @POST
    @Path("accounts/{id}/endpoint/disable")
    public Response disable(@RestPath String id, @RestForm String reason) {
        String why = reason == null ? "" : reason.strip();
        if (why.isEmpty() || why.length() > 500) { // the audit line says why the account's hooks were held
            return Response.status(400).entity(page(result).data("message", why.isEmpty()
                    ? "A reason is required: say why the account's hooks are held."
                    : "A reason is at most 500 characters.").data("back", "/accounts/" + id))
                    .type(MediaType.TEXT_HTML).build();
        }
        Outcome<HookAdmin.EndpointView> done = Outcome.of("hook-service",
                () -> hook.disable(id, new HookAdmin.DisableRequest(why)));
        operator.audit("disable-endpoint", id, done.ok()
                ? "disabled (" + why + ")"
                : done.error());
        return done.ok()
                ? seeOther("/accounts/" + id + "?notice=disabled")
                : failed(done, "/accounts/" + id,
                        "the account");
    }

    @POST
    @Path("accounts/{id}/endpoint/enable")
    public Response enable(@RestPath String id) {
        Outcome<HookAdmin.EndpointView> done = Outcome.of("hook-service", () -> hook.enable(id));
        operator.audit("enable-endpoint", id, done.ok() ? "enabled" : done.error());
        return done.ok()
                ? seeOther("/accounts/" + id + "?notice=enabled")
                : failed(done, "/accounts/" + id,
                        "the account");
    }

    @GET
    @Path("accounts/{id}/certificates/{uuid}/revoke")
    public TemplateInstance confirmRevoke(@RestPath String id, @RestPath String uuid) {
        return page(confirm).data("title", "Revoke a certificate")
                .data("question", "Revoke certificate " + uuid + "? Requests signed with it are refused from now on;"
                        + " this cannot be undone.")
                .data("detail", null).data("action", "/accounts/" + id + "/certificates/" + uuid + "/revoke")
                .data("button", "Revoke the certificate").data("back", "/accounts/" + id).data("reason", false);
    }

    @POST
    @Path("accounts/{id}/certificates/{uuid}/revoke")
    public Response revoke(@RestPath String id, @RestPath String uuid) {
        Outcome<Boolean> done = Outcome.of("management-service", () -> {
            management.revoke(id, uuid);
            return true;
        });
        operator.audit("revoke-certificate", id + "/" + uuid, done.ok() ? "revoked" : done.error());
        return done.ok()
                ? seeOther("/accounts/" + id + "?notice=revoked")
                : failed(done, "/accounts/" + id,
                        "the account");
    }

    @GET
    @Path("accounts/{id}/disable")
    public TemplateInstance confirmDisableAccount(@RestPath String id) {
        Outcome<Account> a = Outcome.of("management-service", () -> management.account(id));
        return confirmDisable(id, "", (a.ok() ? a.value().fqdn() : "account " + id)
                + "? It gets no token and no client list");
    }

    @GET
    @Path("accounts/{id}/clients/{client}/disable")
    public TemplateInstance confirmDisableClient(@RestPath String id, @RestPath String client) {
        return confirmDisable(id, "/clients/" + client, "client " + client + "? It gets no token");
    }

    private TemplateInstance confirmDisable(String id, String path, String question) {
        return page(confirm).data("title", "Disable").data("question", "Disable " + question + " from now on, and its"
                + " tokens are refused within seconds. Enabled again, it gets new tokens; those issued before stay"
                + " refused until they expire.").data("detail", null)
                .data("action", "/accounts/" + id + path + "/disable").data("button", "Disable")
                .data("back", "/accounts/" + id).data("reason", false);
    }

    @POST
    @Path("accounts/{id}/{action: disable|enable}")
    public Response setAccount(@RestPath String id, @RestPath String action) {
        return set(id, null, action, () -> management.setAccount(id, action));
    }

    @POST
    @Path("accounts/{id}/clients/{client}/{action: disable|enable}")
    public Response setClient(@RestPath String id, @RestPath String client, @RestPath String action) {
        return set(id, client, action, () -> management.setClient(id, client, action));
    }

    /** Disables or enables an account, or one of its clients (a client not null), at management-service. */
    private Response set(String id, String client, String action, Supplier<?> call) {
        Outcome<?> done = Outcome.of("management-service", call);
        String what = client == null ? "account" : "client";
        operator.audit(action + "-" + what, client == null ? id : id + "/" + client,
                done.ok() ? action + "d" : done.error());
        return done.ok()
                ? seeOther("/accounts/" + id + "?notice=" + what + "-" + action + "d")
                : failed(done, "/accounts/" + id, "the account");
    }

    /** Every page: the operator's name for the header. */
    private TemplateInstance page(Template t) {
        return t.data("operator", operator.name());
    }

    private Response failed(Outcome<?> outcome, String back, String what) {
        int status = outcome.status() >= 400 && outcome.status() < 500 ? outcome.status() : 502;
        return Response.status(status).type(MediaType.TEXT_HTML)
                .entity(page(result).data("message", outcome.error()).data("back", back).data("what", what)).build();
    }

    private static Response seeOther(String location) {
        return Response.seeOther(URI.create(location)).build();
    }

    private static Map<String, Account> index(Outcome<List<Account>> all) {
        return all.ok()
                ? all.value().stream().collect(Collectors.toMap(Account::accountId, Function.identity(),
                        (x, y) -> x, HashMap::new))
                : Map.of();
    }

    private static Map<String, String> names(Map<String, Account> byId) {
        Map<String, String> names = new HashMap<>();
        byId.forEach((id, a) -> names.put(id, a.fqdn()));
        return names;
    }

    /** An account by its id, its FQDN (any case) or its business id. */
    static Account resolve(Outcome<List<Account>> all, String q) {
        if (!all.ok()) {
            return null;
        }
        return all.value().stream().filter(a -> q.equals(a.accountId()) || q.equalsIgnoreCase(a.fqdn())
                || q.equals(a.businessId())).findFirst().orElse(null);
    }

    private static Instant parse(String at) {
        try {
            return at == null || at.isBlank() ? null : Instant.parse(at);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static Long parseLong(String n) {
        try {
            return n == null || n.isBlank() ? null : Long.valueOf(n.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
