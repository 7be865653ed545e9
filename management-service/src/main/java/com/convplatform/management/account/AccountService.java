package com.convplatform.management.account;

import java.net.URI;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;

import com.convplatform.management.account.AccountViews.AccountSettings;
import com.convplatform.management.account.AccountViews.AccountView;
import com.convplatform.management.account.AccountViews.NewAccount;
import com.convplatform.management.config.ManagementConfig;
import com.convplatform.support.ApiException;
import com.convplatform.support.Workers;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/** Accounts: their creation, search, settings and disabling, and the lookups of the signed API. */
@ApplicationScoped
public class AccountService {
    static final int CACHED = 10_000;
    private static final Pattern FQDN = Pattern.compile(NewAccount.FQDN, Pattern.CASE_INSENSITIVE);

    private final Clock clock;
    private final ManagementConfig config;
    private final AccountRepository repository;
    private final DirectReads direct;
    private final Cache<String, Signer> signers = Caffeine.newBuilder().maximumSize(CACHED).build();

    private final DisabledSet disabled;
    private final Event<DisabledSet.Changed> disabledChanged;
    private final Event<ChangeFeed.Changed> changed;

    public AccountService(Clock clock, ManagementConfig config, AccountRepository repository, DirectReads direct,
            DisabledSet disabled, Event<DisabledSet.Changed> disabledChanged, Event<ChangeFeed.Changed> changed) {
        this.clock = clock;
        this.config = config;
        this.repository = repository;
        this.direct = direct;
        this.disabled = disabled;
        this.disabledChanged = disabledChanged;
        this.changed = changed;
    }

    @Transactional
    public AccountView create(NewAccount in) {
        String fqdn = in.fqdn().toLowerCase(Locale.ROOT);
        String webhook = checkWebhook(in.webhookUrl());
        Account a = new Account();
        a.id = UUID.randomUUID().toString();
        a.name = in.name().strip();
        a.fqdn = fqdn;
        a.businessId = in.businessId();
        a.webhookUrl = webhook;
        a.createdAt = clock.instant().truncatedTo(ChronoUnit.MICROS); // as the column keeps it
        a.requireSha256 = Boolean.TRUE.equals(in.requireSha256());
        if (!repository.insertIfFree(a)) {
            taken(fqdn, in.businessId()); // taken before, or meanwhile by a create that committed first
            throw new IllegalStateException("The account's insert was refused, yet neither its FQDN nor its"
                    + " business is taken");
        }
        return AccountView.of(a);
    }

    /** Refuses an FQDN or a business that an account has (409). */
    private void taken(String fqdn, String businessId) {
        if (repository.countByFqdn(fqdn) > 0) {
            throw new ApiException(409, "FQDN_TAKEN", "An account with the FQDN " + fqdn + " already exists");
        }
        if (repository.countByBusinessId(businessId) > 0) {
            throw new ApiException(409, "BUSINESS_TAKEN",
                    "business_id " + businessId + " already belongs to an account (one business per account)");
        }
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
        return repository.search(query, after, limit).stream().map(AccountView::of).toList();
    }

    public AccountView get(String accountId) {
        return AccountView.of(account(repository.find(accountId), accountId));
    }

    public record Signer(String id, String fqdn, String businessId) {
    }

    /** Accounts never change their FQDN or go, so one found is cached; one not found is not (new ones work at once). */
    public Optional<Signer> byFqdn(String fqdn) {
        return Optional.ofNullable(cached(signers, fqdn.toLowerCase(Locale.ROOT), key -> repository.findByFqdn(key)
                .map(a -> new Signer(a.id, a.fqdn, a.businessId)).orElse(null), "reading the account"));
    }

    /**
     * The cached value, else the one loaded, off the event loop only: a token is issued on the event loop while what it
     * needs is cached (Workers.inMemoryOrOnWorker), and a load holds its key's lock, which an event loop must not wait on.
     */
    static <K, V> V cached(Cache<K, V> cache, K key, Function<K, V> load, String step) {
        V kept = cache.getIfPresent(key);
        if (kept != null) {
            return kept;
        }
        Workers.requireBlockingAllowed(step);
        return cache.get(key, load);
    }

    @Transactional
    public AccountView change(String accountId, AccountSettings settings) {
        Account a = account(repository.find(accountId), accountId);
        a.requireSha256 = settings.requireSha256();
        changed.fire(new ChangeFeed.Changed()); // at once here; the other replicas hear it from the table's trigger
        return AccountView.of(a);
    }

    /**
     * Disables or enables an account; disabling again keeps the first date. The first disable sets
     * tokens_issued_before to the whole second after it (a token's iat has whole seconds), which enabling keeps.
     */
    @Transactional
    public AccountView setDisabled(String accountId, boolean disabled) {
        Account a = account(repository.findForUpdate(accountId), accountId);
        if (disabled && a.disabledAt == null) {
            a.disabledAt = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS); // as stored, and shown
            a.tokensIssuedBefore = later(a.tokensIssuedBefore, nextSecond(a.disabledAt));
        } else if (!disabled) {
            a.disabledAt = null;
        }
        disabledChanged.fire(new DisabledSet.Changed());
        return AccountView.of(a);
    }

    /** The whole second after {@code t}: every token issued at or before t has an iat before it. */
    public static java.time.Instant nextSecond(java.time.Instant t) {
        return t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(1);
    }

    static java.time.Instant later(java.time.Instant a, java.time.Instant b) {
        return a == null || b.isAfter(a) ? b : a;
    }

    /** From memory (DisabledSet): at once on this replica, within management.blocks.refresh on the others. */
    public boolean accountDisabled(String accountId) {
        return disabled.accountDisabled(accountId);
    }

    /** From memory while the change feed listens (DirectReads): at once on this replica, within ms on the others. */
    public boolean requiresSha256(String accountId) {
        return direct.requiresSha256(accountId);
    }

    /** The account found, or 404 ACCOUNT_NOT_FOUND. */
    static Account account(Optional<Account> found, String accountId) {
        return found.orElseThrow(() -> new ApiException(404, "ACCOUNT_NOT_FOUND", "No account " + accountId));
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

    static ApiException bad(String code, String message) {
        return new ApiException(400, code, message);
    }
}
