package com.convplatform.management.account;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;

/**
 * Tells this replica when the accounts, clients or registered certificates change, through any replica or by hand: a
 * connection of its own listens on {@code management_changes}, where the tables' triggers notify at each commit
 * (V6__change_notifications.sql). What a signed request reads from those tables is held in memory ({@link DirectReads},
 * {@link DisabledSet}) and dropped at each notification, so issuing a token reads no row (issue 38) while a change
 * through another replica still applies within milliseconds.
 * <p>
 * A read made while the feed listens may be kept: every commit after the feed started listening is notified, and a read
 * that raced a change is not kept ({@link #generation}). While the feed does not listen (at start, or its connection
 * lost) nothing is kept and every read goes to the database; the feed reconnects every second, logs the loss and the
 * return, and {@code management.change.feed.listening} shows it. A connection lost without a word from the network
 * is found by a probe every {@value #PROBE_MILLIS} ms, which waits at most {@value #NETWORK_SECONDS} s for the
 * network: a change in that window applies on this replica at most that late.
 */
@ApplicationScoped
public class ChangeFeed {
    private static final Logger LOG = Logger.getLogger(ChangeFeed.class);
    static final String CHANNEL = "management_changes";
    static final int PROBE_MILLIS = 5_000;
    /**
     * How long the feed's own statements (LISTEN, the probe) and its connecting may wait on the network, in seconds:
     * without it a probe sent to a host that vanished without a reset waits until TCP gives up (about 15 minutes),
     * and the feed shows listening all that time while changes through other replicas go unheard.
     */
    static final int NETWORK_SECONDS = 10;

    /** Fired by a change made through this replica; observed once its transaction has committed. */
    public record Changed() {
    }

    private final String url;
    private final Properties login = new Properties();
    private final DisabledSet disabled;
    private final AtomicLong generation = new AtomicLong();
    private volatile boolean listening;
    private volatile String lastHeard;
    private volatile boolean running = true;
    private volatile Runnable onChange = () -> {
    };
    private Thread thread;

    /**
     * The feed's connection is its own, not the pool's: it is held for the replica's life, and one that breaks is
     * closed, never handed back to the pool.
     */
    public ChangeFeed(@ConfigProperty(name = "quarkus.datasource.jdbc.url") String url,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password, DisabledSet disabled,
            MeterRegistry metrics) {
        this.url = url;
        user.ifPresent(u -> login.setProperty("user", u));
        password.ifPresent(p -> login.setProperty("password", p));
        login.setProperty("ApplicationName", "management-change-feed"); // to be found in pg_stat_activity
        login.setProperty("socketTimeout", Integer.toString(NETWORK_SECONDS)); // waits for notifications set their own
        login.setProperty("connectTimeout", Integer.toString(NETWORK_SECONDS));
        login.setProperty("tcpKeepAlive", "true");
        this.disabled = disabled;
        Gauge.builder("management.change.feed.listening", () -> listening ? 1 : 0)
                .description("1 while this replica hears of changes to accounts, clients and certificates (and so"
                        + " serves them from memory), 0 while it reads them from the database on every request")
                .register(metrics);
    }

    void atStart(@Observes StartupEvent event) {
        thread = new Thread(this::listen, "management-change-feed");
        thread.setDaemon(true);
        thread.start();
    }

    @PreDestroy
    void stop() {
        running = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether a read made now may be kept, if {@link #generation} is the same once it is done. */
    boolean listening() {
        return listening;
    }

    /** Moves on at every change heard (and whenever the feed starts or stops listening). */
    long generation() {
        return generation.get();
    }

    /**
     * The payload of the last change heard (the table's name, from the triggers): notifications arrive in the order of
     * their commits, so once one sent after a commit is heard, so has that commit's been.
     */
    public String lastHeard() {
        return lastHeard;
    }

    /** What to drop at each change (DirectReads' caches). */
    void onChange(Runnable dropAll) {
        this.onChange = dropAll;
    }

    void changedHere(@Observes(during = TransactionPhase.AFTER_SUCCESS) Changed event) {
        changed();
    }

    private void changed() {
        generation.incrementAndGet();
        onChange.run();
    }

    private void listen() {
        boolean lost = false;
        while (running) {
            try (Connection c = DriverManager.getConnection(url, login); Statement s = c.createStatement()) {
                s.execute("listen " + CHANNEL);
                PGConnection feed = c.unwrap(PGConnection.class);
                listening = true;
                changed(); // whatever changed while it was not listening
                disabled.refresh();
                if (lost) {
                    LOG.infof("Listening again on %s: accounts, clients and certificates are served from memory",
                            CHANNEL);
                    lost = false;
                }
                // The probe: a notification to itself every PROBE_MILLIS, which must be heard before the next. A
                // connection that died without a word, or a pooler that does not carry LISTEN, fails it.
                String probe = "probe:" + UUID.randomUUID();
                long probed = System.nanoTime();
                boolean heardProbe = true;
                while (running) {
                    PGNotification[] heard = feed.getNotifications(1_000);
                    boolean change = false;
                    for (PGNotification n : heard == null ? new PGNotification[0] : heard) {
                        if (probe.equals(n.getParameter())) {
                            heardProbe = true;
                        } else {
                            change = true;
                            lastHeard = n.getParameter();
                        }
                    }
                    if (change) {
                        changed();
                        disabled.refresh();
                    }
                    if (System.nanoTime() - probed > PROBE_MILLIS * 1_000_000L) {
                        if (!heardProbe) {
                            throw new SQLException("its own probe was not heard within " + PROBE_MILLIS + " ms (a"
                                    + " pooler in transaction mode does not carry LISTEN)");
                        }
                        s.execute("select pg_notify('" + CHANNEL + "', '" + probe + "')");
                        heardProbe = false;
                        probed = System.nanoTime();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                changed();
                if (running) {
                    if (!lost) {
                        LOG.warnf("The change feed (%s) is lost (%s): accounts, clients and certificates are read"
                                + " from the database on every request until it is back", CHANNEL, e.getMessage());
                    }
                    lost = true;
                    try {
                        Thread.sleep(1_000);
                    } catch (InterruptedException interrupted) {
                        return;
                    }
                }
            }
        }
        listening = false;
    }
}
