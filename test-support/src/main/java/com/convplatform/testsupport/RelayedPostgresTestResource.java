package com.convplatform.testsupport;

import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * A database of its own for a test profile, reached through a {@link TcpRelay} that the test turns into an outage
 * ({@link #relay}). Ordered after {@link PostgresTestResource}, so the service's data source is this one.
 */
public class RelayedPostgresTestResource implements QuarkusTestResourceLifecycleManager {
    /**
     * The test profile of an outage test: this resource, a pool that answers a refused connection within the second
     * rather than after its default 5 s, and a commit deadline of 3 s rather than 35 s.
     */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.datasource.jdbc.acquisition-timeout", "PT1S", "platform.database.commit-deadline",
                    "PT3S");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(RelayedPostgresTestResource.class));
        }
    }

    /**
     * Before a freeze: leaves {@code n} live connections idle in the pool. A write made during the freeze then waits on
     * a connection that the frozen relay holds, as a write on a partitioned network does; without a live idle one (taken
     * by a background task just then, or closed by an earlier test's outage) it would wait for a new connection instead,
     * which the freeze holds until the pool's acquisition time-out (1 s here), and be refused before any commit started.
     */
    public static void liveConnections(AgroalDataSource pool, int n) throws SQLException {
        pool.flush(AgroalDataSource.FlushMode.GRACEFUL); // an earlier outage's closed connections
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                held.add(pool.getConnection());
                try (Statement s = held.get(i).createStatement()) {
                    s.execute("select 1");
                }
            }
        } finally {
            for (Connection c : held) {
                c.close();
            }
        }
    }

    /** The relay of the running test's service. */
    public static volatile TcpRelay relay;
    private PostgresTestResource.Database database;

    @Override
    public Map<String, String> start() {
        database = PostgresTestResource.create("relayed");
        URI server = URI.create(database.url().substring("jdbc:".length()));
        try {
            relay = new TcpRelay(server.getHost(), server.getPort() < 0 ? 5432 : server.getPort());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Map<String, String> config = new HashMap<>();
        config.put("quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:" + relay.port() + server.getPath());
        config.put("quarkus.datasource.username", database.user());
        if (database.password() != null && !database.password().isEmpty()) {
            config.put("quarkus.datasource.password", database.password());
        }
        return config;
    }

    @Override
    public int order() {
        return 1;
    }

    @Override
    public void stop() {
        try {
            relay.close();
        } catch (IOException e) {
            // closing
        }
        PostgresTestResource.drop(database);
    }
}
