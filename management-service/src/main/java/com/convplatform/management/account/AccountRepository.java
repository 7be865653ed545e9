package com.convplatform.management.account;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;

import io.quarkus.panache.common.Page;
import io.quarkus.panache.common.Parameters;
import io.quarkus.panache.common.Sort;

/** Accounts, their clients and their certificates, through their Panache entities. */
@ApplicationScoped
class AccountRepository {
    Optional<Account> find(String accountId) {
        return Account.findByIdOptional(accountId);
    }

    /** Locks the account's row until the transaction ends. */
    Optional<Account> findForUpdate(String accountId) {
        return Account.findByIdOptional(accountId, LockModeType.PESSIMISTIC_WRITE);
    }

    Optional<Account> findByFqdn(String fqdn) {
        return Account.<Account>find("fqdn", fqdn).firstResultOptional();
    }

    long countByFqdn(String fqdn) {
        return Account.count("fqdn", fqdn);
    }

    long countByBusinessId(String businessId) {
        return Account.count("businessId", businessId);
    }

    /**
     * Inserts the account unless its FQDN or business is taken; false when one is. A concurrent create of either waits
     * for the other and then inserts nothing, so a lost race is an answer, not a failed insert in the log.
     */
    boolean insertIfFree(Account a) {
        return Account.getEntityManager().createNativeQuery("insert into account (id, name, fqdn, business_id,"
                + " webhook_url, created_at, require_sha256) values (?1, ?2, ?3, ?4, ?5, ?6, ?7) on conflict do nothing")
                .setParameter(1, a.id).setParameter(2, a.name).setParameter(3, a.fqdn).setParameter(4, a.businessId)
                .setParameter(5, a.webhookUrl).setParameter(6, a.createdAt).setParameter(7, a.requireSha256)
                .executeUpdate() == 1;
    }

    /** A page in FQDN order after {@code after} ('' for the first), those matching {@code query} if not null. */
    List<Account> search(String query, String after, int limit) {
        String where = "fqdn > :after"; // '' for the first page: every FQDN is after it
        Parameters params = Parameters.with("after", after == null ? "" : after.toLowerCase(Locale.ROOT));
        if (query != null) {
            where += " and (fqdn like :pattern escape '!' or lower(name) like :pattern escape '!'"
                    + " or businessId = :exact or id = :exact)";
            params.and("pattern", "%" + query.toLowerCase(Locale.ROOT).replace("!", "!!").replace("%", "!%")
                    .replace("_", "!_") + "%").and("exact", query);
        }
        return Account.<Account>find(where, Sort.by("fqdn"), params).page(Page.ofSize(limit)).list();
    }

    Optional<Client> findClient(String clientId) {
        return Client.findByIdOptional(clientId);
    }

    /** Locks the client's row until the transaction ends. */
    Optional<Client> findClientForUpdate(String clientId) {
        return Client.findByIdOptional(clientId, LockModeType.PESSIMISTIC_WRITE);
    }

    List<Client> clientsOf(String accountId) {
        return Client.list("accountId = ?1 order by createdAt", accountId);
    }

    void persist(Client c) {
        c.persist();
    }

    Optional<RegisteredCertificate> findCertificate(String certificateUuid) {
        return RegisteredCertificate.findByIdOptional(certificateUuid);
    }

    /** The account's first registration of the certificate, or null. */
    RegisteredCertificate firstByFingerprint(String accountId, String fingerprint) {
        return RegisteredCertificate.find("accountId = ?1 and sha256Fingerprint = ?2 order by"
                + " createdAt", accountId, fingerprint).firstResult();
    }

    List<RegisteredCertificate> certificatesOf(String accountId) {
        return RegisteredCertificate.list("accountId = ?1 order by createdAt", accountId);
    }

    void persist(RegisteredCertificate r) {
        r.persist();
    }
}
