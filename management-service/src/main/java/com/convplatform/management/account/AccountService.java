package com.convplatform.management.account;

import java.net.URI;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.persistence.LockModeType;
import jakarta.transaction.Transactional;

import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.ChainValidator;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.sig.KeyPolicy;
import com.convplatform.management.account.AccountViews.AccountSettings;
import com.convplatform.management.account.AccountViews.AccountView;
import com.convplatform.management.account.AccountViews.CertificateView;
import com.convplatform.management.account.AccountViews.ClientView;
import com.convplatform.management.account.AccountViews.NewAccount;
import com.convplatform.management.config.ManagementConfig;
import com.convplatform.support.ApiException;
import com.convplatform.support.SqlExists;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.quarkus.panache.common.Page;
import io.quarkus.panache.common.Parameters;
import io.quarkus.panache.common.Sort;

@ApplicationScoped
public class AccountService {
    private static final int CACHED = 10_000;
    private static final Pattern FQDN = Pattern.compile(NewAccount.FQDN, Pattern.CASE_INSENSITIVE);

    private final Clock clock;
    private final ManagementConfig config;
    private final DataSource dataSource;
    private final Cache<String, X509Certificate> parsed = Caffeine.newBuilder().maximumSize(CACHED).build();
    private final Cache<String, Signer> signers = Caffeine.newBuilder().maximumSize(CACHED).build();
    private final Cache<String, String> clientAccounts = Caffeine.newBuilder().maximumSize(CACHED).build();

    private final DisabledSet disabled;
    private final Event<DisabledSet.Changed> disabledChanged;

    public AccountService(Clock clock, ManagementConfig config, DataSource dataSource, DisabledSet disabled,
            Event<DisabledSet.Changed> disabledChanged) {
        this.clock = clock;
        this.config = config;
        this.dataSource = dataSource;
        this.disabled = disabled;
        this.disabledChanged = disabledChanged;
    }

    @Transactional
    public AccountView create(NewAccount in) {
        String fqdn = in.fqdn().toLowerCase(Locale.ROOT);
        String webhook = checkWebhook(in.webhookUrl());
        if (Account.count("fqdn", fqdn) > 0) {
            throw new ApiException(409, "FQDN_TAKEN", "An account with the FQDN " + fqdn + " already exists");
        }
        if (Account.count("businessId", in.businessId()) > 0) {
            throw new ApiException(409, "BUSINESS_TAKEN",
                    "business_id " + in.businessId() + " already belongs to an account (one business per account)");
        }
        Account a = new Account();
        a.id = UUID.randomUUID().toString();
        a.name = in.name().strip();
        a.fqdn = fqdn;
        a.businessId = in.businessId();
        a.webhookUrl = webhook;
        a.createdAt = clock.instant();
        a.requireSha256 = Boolean.TRUE.equals(in.requireSha256());
        a.persistAndFlush(); // a race lost on a unique key fails here, for the caller's one retry
        return AccountView.of(a);
    }

    /** A substring search reads the whole table (no index serves one): milliseconds for tens of thousands. */
    public List<AccountView> search(String q, String after, int limit) {
        String query = q == null || q.isBlank() ? null : q.strip();
        if (query != null && query.length() > 253) {
            throw bad("INVALID_QUERY", "q is at most 253 characters (the longest FQDN)");
        }
        if (after != null && (after.length() > 253 || !FQDN.matcher(after).matches())) {
            throw bad("INVALID_CURSOR", "after is the fqdn of the last account of the page before, such as"
                    + " acme.example");
        }
        String where = "fqdn > :after"; // '' for the first page: every FQDN is after it
        Parameters params = Parameters.with("after", after == null ? "" : after.toLowerCase(Locale.ROOT));
        if (query != null) {
            where += " and (fqdn like :pattern escape '!' or lower(name) like :pattern escape '!'"
                    + " or businessId = :exact or id = :exact)";
            params.and("pattern", "%" + query.toLowerCase(Locale.ROOT).replace("!", "!!").replace("%", "!%")
                    .replace("_", "!_") + "%").and("exact", query);
        }
        return Account.<Account>find(where, Sort.by("fqdn"), params).page(Page.ofSize(limit)).list().stream()
                .map(AccountView::of).toList();
    }

    public AccountView get(String accountId) {
        return AccountView.of(account(accountId));
    }

    public record Signer(String id, String fqdn, String businessId) {
    }

    /** Accounts never change their FQDN or go, so one found is cached; one not found is not (new ones work at once). */
    public Optional<Signer> byFqdn(String fqdn) {
        return Optional.ofNullable(signers.get(fqdn.toLowerCase(Locale.ROOT),
                key -> Account.<Account>find("fqdn", key).firstResultOptional()
                        .map(a -> new Signer(a.id, a.fqdn, a.businessId)).orElse(null)));
    }

    @Transactional
    public AccountView change(String accountId, AccountSettings settings) {
        Account a = account(accountId);
        a.requireSha256 = settings.requireSha256();
        return AccountView.of(a);
    }

    /**
     * Disables or enables an account; disabling again keeps the first date. The first disable sets
     * tokens_issued_before to the whole second after it (a token's iat has whole seconds), which enabling keeps.
     */
    @Transactional
    public AccountView setDisabled(String accountId, boolean disabled) {
        Account a = Account.<Account>findByIdOptional(accountId, LockModeType.PESSIMISTIC_WRITE)
                .orElseThrow(() -> new ApiException(404, "ACCOUNT_NOT_FOUND", "No account " + accountId));
        if (disabled && a.disabledAt == null) {
            a.disabledAt = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS); // as stored, and shown
            a.tokensIssuedBefore = later(a.tokensIssuedBefore, nextSecond(a.disabledAt));
        } else if (!disabled) {
            a.disabledAt = null;
        }
        disabledChanged.fire(new DisabledSet.Changed());
        return AccountView.of(a);
    }

    /** The same for one client of the account (404 CLIENT_NOT_FOUND for a client of another account). */
    @Transactional
    public ClientView setClientDisabled(String accountId, String clientId, boolean disabled) {
        account(accountId);
        Client c = Client.<Client>findByIdOptional(clientId, LockModeType.PESSIMISTIC_WRITE)
                .filter(x -> x.accountId.equals(accountId))
                .orElseThrow(() -> new ApiException(404, "CLIENT_NOT_FOUND",
                        "Account " + accountId + " has no client " + AccountViews.abbreviate(clientId, 80)));
        if (disabled && c.disabledAt == null) {
            c.disabledAt = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
            c.tokensIssuedBefore = later(c.tokensIssuedBefore, nextSecond(c.disabledAt));
        } else if (!disabled) {
            c.disabledAt = null;
        }
        disabledChanged.fire(new DisabledSet.Changed());
        return ClientView.of(c);
    }

    /** The whole second after {@code t}: every token issued at or before t has an iat before it. */
    public static java.time.Instant nextSecond(java.time.Instant t) {
        return t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(1);
    }

    private static java.time.Instant later(java.time.Instant a, java.time.Instant b) {
        return a == null || b.isAfter(a) ? b : a;
    }

    /** From memory (DisabledSet): at once on this replica, within management.blocks.refresh on the others. */
    public boolean accountDisabled(String accountId) {
        return disabled.accountDisabled(accountId);
    }

    /** The same for a client. */
    public boolean clientDisabled(String clientId) {
        return disabled.clientDisabled(clientId);
    }

    /** Read from the database on every call (by primary key), so a change through any replica applies at once. */
    public boolean requiresSha256(String accountId) {
        return SqlExists.exists(dataSource, "the account's SHA-256 requirement",
                "select 1 from account where id = ? and require_sha256 = true", accountId);
    }

    @Transactional
    public ClientView addClient(String accountId, String name) {
        account(accountId);
        Client c = new Client();
        c.id = UUID.randomUUID().toString();
        c.accountId = accountId;
        c.name = name.strip();
        c.createdAt = clock.instant();
        c.persist();
        return ClientView.of(c);
    }

    public List<ClientView> clients(String accountId) {
        account(accountId);
        return Client.<Client>list("accountId = ?1 order by createdAt", accountId).stream().map(ClientView::of)
                .toList();
    }

    /** Clients are never moved or removed, so a client's account is cached once found. */
    public boolean isClientOf(String accountId, String clientId) {
        return accountId.equals(clientAccounts.get(clientId, id -> Client.<Client>findByIdOptional(id)
                .map(c -> c.accountId).orElse(null)));
    }

    public record Registration(CertificateView certificate, boolean created) {
    }

    /**
     * Once per certificate, and a revoked one stays revoked (README, Decisions). The lock on the account's row
     * serialises its registrations, so two concurrent calls with one certificate make one registration.
     */
    @Transactional
    public Registration register(String accountId, String pem) {
        Account a = Account.<Account>findByIdOptional(accountId, LockModeType.PESSIMISTIC_WRITE)
                .orElseThrow(() -> new ApiException(404, "ACCOUNT_NOT_FOUND", "No account " + accountId));
        X509Certificate cert;
        try {
            List<X509Certificate> certs = Pem.parseCertificates(pem);
            if (certs.size() != 1) {
                throw bad("CERT_MALFORMED", "Send exactly one certificate, not " + certs.size());
            }
            cert = certs.get(0);
            ChainValidator.validateSelfSigned(cert, a.fqdn, clock.instant());
            KeyPolicy.check(cert.getPublicKey());
        } catch (VerificationException e) {
            throw bad(e.code().name(), e.getMessage());
        }
        String fingerprint = Fingerprints.sha256(cert);
        RegisteredCertificate r = RegisteredCertificate.find("accountId = ?1 and sha256Fingerprint = ?2 order by"
                + " createdAt", accountId, fingerprint).firstResult();
        if (r != null) {
            if (r.revokedAt != null) {
                throw new ApiException(409, "CERTIFICATE_REVOKED", "This certificate was registered as " + r.id
                        + " and revoked at " + r.revokedAt + "; a revoked certificate stays revoked: create a new key"
                        + " pair and certificate and register that");
            }
            return new Registration(CertificateView.of(r), false);
        }
        r = new RegisteredCertificate();
        r.id = UUID.randomUUID().toString();
        r.accountId = accountId;
        r.pem = Pem.toPem(cert);
        r.sha256Fingerprint = fingerprint;
        r.notAfter = cert.getNotAfter().toInstant();
        r.createdAt = clock.instant();
        r.persist();
        return new Registration(CertificateView.of(r), true);
    }

    public List<CertificateView> certificates(String accountId) {
        account(accountId);
        return RegisteredCertificate.<RegisteredCertificate>list("accountId = ?1 order by createdAt", accountId)
                .stream().map(CertificateView::of).toList();
    }

    @Transactional
    public void revoke(String accountId, String certificateUuid) {
        RegisteredCertificate r = RegisteredCertificate.<RegisteredCertificate>findByIdOptional(certificateUuid)
                .filter(c -> c.accountId.equals(accountId))
                .orElseThrow(() -> new ApiException(404, "CERTIFICATE_NOT_FOUND",
                        "Account " + accountId + " has no certificate " + certificateUuid));
        if (r.revokedAt == null) {
            r.revokedAt = clock.instant();
        }
    }

    /** Revocation is read on every call (by primary key): one revoked through any replica is refused at once by all. */
    public Optional<X509Certificate> activeCertificate(String accountId, String certificateUuid) {
        if (certificateUuid == null || certificateUuid.length() > 64
                || !SqlExists.exists(dataSource, "the certificate's revocation",
                        "select 1 from registered_certificate where id = ? and account_id = ? and revoked_at is null",
                        certificateUuid, accountId)) {
            return Optional.empty();
        }
        return Optional.of(parsed.get(certificateUuid,
                id -> parse(RegisteredCertificate.<RegisteredCertificate>findById(id).pem)));
    }

    private static Account account(String accountId) {
        return Account.<Account>findByIdOptional(accountId)
                .orElseThrow(() -> new ApiException(404, "ACCOUNT_NOT_FOUND", "No account " + accountId));
    }

    private static X509Certificate parse(String pem) {
        try {
            return Pem.parseCertificates(pem).get(0);
        } catch (VerificationException e) {
            throw new IllegalStateException("A stored certificate no longer parses", e);
        }
    }

    private String checkWebhook(String url) {
        try {
            URI u = new URI(url);
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            boolean schemeOk = scheme.equals("https") || (scheme.equals("http") && config.admin().allowHttpWebhooks());
            if (!schemeOk || u.getHost() == null || u.getRawUserInfo() != null || u.getRawFragment() != null) {
                throw bad("INVALID_WEBHOOK_URL", "webhook_url must be an absolute https URL without user"
                        + " information or fragment" + (config.admin().allowHttpWebhooks() ? " (http allowed)" : ""));
            }
            return u.toString();
        } catch (java.net.URISyntaxException e) {
            throw bad("INVALID_WEBHOOK_URL", "webhook_url is not a valid URL: " + e.getReason());
        }
    }

    private static ApiException bad(String code, String message) {
        return new ApiException(400, code, message);
    }
}
