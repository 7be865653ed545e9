package com.convplatform.management.account;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;

import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;

/**
 * The disabled accounts and clients, held in memory so that issuing a token reads no row (issue 38: no database read
 * per request that a cache can serve). Read whole at start, every {@code management.blocks.refresh} (a disable through
 * another replica applies here within that, as a certificate block does), and after each disable or enable made
 * through this replica, once it is committed (so it applies here at once). Disabled rows are few: an operator's
 * decisions.
 */
@ApplicationScoped
public class DisabledSet {
    private static final Logger LOG = Logger.getLogger(DisabledSet.class);

    /** Fired by a disable or an enable; observed once its transaction has committed. */
    public record Changed() {
    }

    private final DataSource dataSource;
    private volatile Set<String> accounts = Set.of();
    private volatile Set<String> clients = Set.of();

    public DisabledSet(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public boolean accountDisabled(String accountId) {
        return accounts.contains(accountId);
    }

    public boolean clientDisabled(String clientId) {
        return clients.contains(clientId);
    }

    void atStart(@Observes StartupEvent event) {
        refresh();
    }

    void changed(@Observes(during = TransactionPhase.AFTER_SUCCESS) Changed event) {
        refresh();
    }

    @Scheduled(every = "${management.blocks.refresh}", delayed = "${management.blocks.refresh}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    synchronized void refresh() {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            Set<String> a = read(s, "select id from account where disabled_at is not null");
            Set<String> cl = read(s, "select id from client where disabled_at is not null");
            accounts = a;
            clients = cl;
        } catch (SQLException e) {
            LOG.warnf("The disabled accounts and clients could not be read (%s); the set read last stays in use",
                    e.getMessage());
        }
    }

    private static Set<String> read(Statement s, String sql) throws SQLException {
        Set<String> ids = new HashSet<>();
        try (ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                ids.add(r.getString(1));
            }
        }
        return Set.copyOf(ids);
    }
}
