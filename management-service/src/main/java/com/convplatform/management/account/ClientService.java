package com.convplatform.management.account;

import java.time.Clock;
import java.util.List;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.transaction.Transactional;

import com.convplatform.management.account.AccountViews.ClientView;
import com.convplatform.support.ApiException;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/** An account's clients: adding, listing and disabling them, and which account a client belongs to. */
@ApplicationScoped
public class ClientService {
    private final Clock clock;
    private final AccountRepository repository;
    private final DisabledSet disabled;
    private final Event<DisabledSet.Changed> disabledChanged;
    private final DirectReads direct;
    private final Event<ChangeFeed.Changed> changed;
    private final Cache<String, String> clientAccounts = Caffeine.newBuilder().maximumSize(AccountService.CACHED)
            .build();

    public ClientService(Clock clock, AccountRepository repository, DisabledSet disabled,
            Event<DisabledSet.Changed> disabledChanged, DirectReads direct, Event<ChangeFeed.Changed> changed) {
        this.clock = clock;
        this.direct = direct;
        this.changed = changed;
        this.repository = repository;
        this.disabled = disabled;
        this.disabledChanged = disabledChanged;
    }

    /** As AccountService.setDisabled, for one client of the account (404 CLIENT_NOT_FOUND for another's client). */
    @Transactional
    public ClientView setClientDisabled(String accountId, String clientId, boolean disabled) {
        AccountService.account(repository.find(accountId), accountId);
        Client c = repository.findClientForUpdate(clientId).filter(x -> x.accountId.equals(accountId))
                .orElseThrow(() -> new ApiException(404, "CLIENT_NOT_FOUND",
                        "Account " + accountId + " has no client " + AccountViews.abbreviate(clientId, 80)));
        if (disabled && c.disabledAt == null) {
            c.disabledAt = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
            c.tokensIssuedBefore = AccountService.later(c.tokensIssuedBefore, AccountService.nextSecond(c.disabledAt));
        } else if (!disabled) {
            c.disabledAt = null;
        }
        disabledChanged.fire(new DisabledSet.Changed());
        return ClientView.of(c);
    }

    /** From memory (DisabledSet): at once on this replica, within management.blocks.refresh on the others. */
    public boolean clientDisabled(String clientId) {
        return disabled.clientDisabled(clientId);
    }

    @Transactional
    public ClientView addClient(String accountId, String name) {
        AccountService.account(repository.find(accountId), accountId);
        Client c = new Client();
        c.id = UUID.randomUUID().toString();
        c.accountId = accountId;
        c.name = name.strip();
        c.createdAt = clock.instant();
        repository.persist(c);
        changed.fire(new ChangeFeed.Changed()); // the enumeration held in memory: at once here, elsewhere by trigger
        return ClientView.of(c);
    }

    /** The client enumeration of spec 4.2, from memory while the change feed listens (DirectReads). */
    public List<ClientView> enumeration(String accountId) {
        return direct.clientsOf(accountId);
    }

    public List<ClientView> clients(String accountId) {
        AccountService.account(repository.find(accountId), accountId);
        return repository.clientsOf(accountId).stream().map(ClientView::of).toList();
    }

    /** Clients are never moved or removed, so a client's account is cached once found. */
    public boolean isClientOf(String accountId, String clientId) {
        return accountId.equals(AccountService.cached(clientAccounts, clientId, id -> repository.findClient(id)
                .map(c -> c.accountId).orElse(null), "reading the client"));
    }
}
