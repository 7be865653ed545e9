package com.convplatform.testsupport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

import org.jboss.logging.Logger;

import com.convplatform.localpostgres.LocalPostgres;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * A database of its own for each start of the service under test, on the PostgreSQL the run is given, else on a
 * private one: the services' tests run on the database production runs.
 * <ul>
 * <li>{@code PLATFORM_TEST_POSTGRES} (environment or system property): the JDBC URL of a database to connect to as an
 * administrator, user and password in the URL ({@code jdbc:postgresql://db:5432/postgres?user=me&password=...}), or
 * {@code private} for the private server whatever else runs;</li>
 * <li>else a PostgreSQL on 127.0.0.1:5432 that lets the user {@code postgres} in without a password (CI's);</li>
 * <li>else a private server ({@link LocalPostgres}) started once for this JVM in the temporary directory and removed
 * when the JVM ends.</li>
 * </ul>
 * Each start creates {@code t_<module>_<time>_<random>} and each stop drops it, so no test class sees another's rows
 * unless they share one start of the application; databases of this kind older than a day, left by runs that were
 * killed, are dropped at the first start.
 */
public class PostgresTestResource implements QuarkusTestResourceLifecycleManager {
    private static final Logger LOG = Logger.getLogger(PostgresTestResource.class);
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");
    private static final long SESSIONS_GONE_MILLIS = 30_000;
    private static Server server;

    private String database;

    /** Where the databases are made: an administrator connection's URL and credentials. */
    record Server(String adminUrl, String host, String user, String password) {
        Connection admin() throws SQLException {
            Properties p = new Properties();
            if (user != null) {
                p.setProperty("user", user);
            }
            if (password != null) {
                p.setProperty("password", password);
            }
            return DriverManager.getConnection(adminUrl, p);
        }

        String url(String database) {
            return "jdbc:postgresql://" + host + "/" + database;
        }
    }

    @Override
    public Map<String, String> start() {
        try {
            Server s = server();
            String module = Path.of(System.getProperty("user.dir")).getFileName().toString()
                    .replaceAll("[^a-zA-Z0-9]", "_").toLowerCase();
            database = "t_" + module + "_" + LocalDateTime.now(ZoneOffset.UTC).format(STAMP) + "_"
                    + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 24, 1 << 30), 36);
            try (Connection c = s.admin()) {
                c.createStatement().execute("create database " + database);
            }
            Map<String, String> config = new HashMap<>();
            config.put("quarkus.datasource.jdbc.url", s.url(database));
            config.put("quarkus.datasource.username", s.user() == null ? "postgres" : s.user());
            if (s.password() != null && !s.password().isEmpty()) {
                config.put("quarkus.datasource.password", s.password());
            }
            return config;
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("No PostgreSQL for the tests: " + e.getMessage()
                    + " (set PLATFORM_TEST_POSTGRES to an administrator's JDBC URL to use a PostgreSQL of your own)",
                    e);
        }
    }

    /**
     * Drops the database. A {@code @QuarkusIntegrationTest} stops its test resources before the artifact it launched,
     * so the service may still hold sessions on it: then the drop waits, on a thread of its own, until they are gone
     * (up to {@link #SESSIONS_GONE_MILLIS}), so that the service's own shutdown work (handing back its leases) meets
     * its database and logs no error, and forces the drop only after that.
     */
    @Override
    public void stop() {
        if (database == null) {
            return;
        }
        String name = database;
        database = null;
        if (sessionsOn(name) == 0) {
            dropNow(name);
        } else {
            Thread later = new Thread(() -> {
                long until = System.currentTimeMillis() + SESSIONS_GONE_MILLIS;
                while (sessionsOn(name) > 0 && System.currentTimeMillis() < until) {
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                dropNow(name);
            }, "test-database-drop");
            later.start(); // not a daemon: the JVM waits for the drop
        }
    }

    /** Sessions other than ours on the database; -1 (go on and force the drop) when it cannot be asked. */
    private static int sessionsOn(String name) {
        try (Connection c = server().admin();
                ResultSet r = c.createStatement().executeQuery("select count(*) from pg_stat_activity where datname = '"
                        + name + "' and pid <> pg_backend_pid()")) {
            r.next();
            return r.getInt(1);
        } catch (SQLException | IOException e) {
            return -1;
        }
    }

    private static void dropNow(String name) {
        try (Connection c = server().admin()) {
            c.createStatement().execute("drop database if exists " + name + " with (force)");
        } catch (SQLException | IOException e) {
            LOG.warnf("Could not drop the test database %s: %s", name, e.getMessage());
        }
    }

    /** A database of its own for a test that starts services itself (a replica's jar); drop it with {@link #drop}. */
    public record Database(String name, String url, String user, String password) {
        /** A plain data source on it (no pool), for a test of a class that takes one. */
        public javax.sql.DataSource dataSource() {
            org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
            ds.setUrl(url);
            ds.setUser(user);
            if (password != null) {
                ds.setPassword(password);
            }
            return ds;
        }
    }

    /**
     * Asserts that a connection of the service's pool has the bounds on waiting every service configures
     * (docs/operations.md, Database time limits): {@code lock_timeout} 30 s, {@code idle_in_transaction_session_timeout}
     * 60 s; they reach the server only if the driver passed the {@code options} on.
     */
    public static void assertSessionLimits(javax.sql.DataSource pool) throws SQLException {
        try (Connection c = pool.getConnection(); java.sql.Statement s = c.createStatement()) {
            for (String[] expected : new String[][]{{"lock_timeout", "30s"},
                    {"idle_in_transaction_session_timeout", "1min"}}) {
                try (java.sql.ResultSet r = s.executeQuery("show " + expected[0])) {
                    r.next();
                    org.junit.jupiter.api.Assertions.assertEquals(expected[1], r.getString(1), expected[0]);
                }
            }
        }
    }

    /** Creates a database of its own on the run's PostgreSQL, named after {@code purpose}. */
    public static Database create(String purpose) {
        try {
            Server s = server();
            String name = "t_" + purpose.replaceAll("[^a-zA-Z0-9]", "_").toLowerCase() + "_"
                    + LocalDateTime.now(ZoneOffset.UTC).format(STAMP) + "_"
                    + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 24, 1 << 30), 36);
            try (Connection c = s.admin()) {
                c.createStatement().execute("create database " + name);
            }
            return new Database(name, s.url(name), s.user() == null ? "postgres" : s.user(), s.password());
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("No PostgreSQL for the test: " + e.getMessage(), e);
        }
    }

    /** Drops a database made by {@link #create}, closing its sessions. */
    public static void drop(Database database) {
        dropNow(database.name());
    }

    /** The connection details of the test database of the running service, for tests that read it directly. */
    public static synchronized Server server() throws IOException, SQLException {
        if (server != null) {
            return server;
        }
        String given = System.getenv("PLATFORM_TEST_POSTGRES");
        if (given == null || given.isBlank()) {
            given = System.getProperty("PLATFORM_TEST_POSTGRES");
        }
        given = given == null || given.isBlank() ? null : given.trim();
        if (given != null && !given.isBlank() && !given.equals("private")) {
            server = fromUrl(given);
        } else if (given == null && listening("127.0.0.1", 5432) && acceptsPostgres()) {
            server = new Server("jdbc:postgresql://127.0.0.1:5432/postgres", "127.0.0.1:5432", "postgres", null);
        } else {
            Path dir = Files.createTempDirectory("platform-test-postgres-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            LocalPostgres pg = LocalPostgres.start(dir.resolve("data"), 0,
                    Map.of("fsync", "off", "synchronous_commit", "off", "full_page_writes", "off"));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                pg.close();
                deleteQuietly(dir);
            }, "test-postgres-stop"));
            LOG.infof("No PostgreSQL given (PLATFORM_TEST_POSTGRES) or on 127.0.0.1:5432: started a private one on"
                    + " port %d for this run", pg.port());
            server = new Server(pg.jdbcUrl("postgres"), "127.0.0.1:" + pg.port(), LocalPostgres.USER, null);
        }
        dropLeftovers(server);
        return server;
    }

    private static Server fromUrl(String url) {
        String rest = url.substring(url.indexOf("//") + 2);
        String host = rest.substring(0, rest.indexOf('/'));
        String user = null;
        String password = null;
        int q = url.indexOf('?');
        if (q > 0) {
            for (String pair : url.substring(q + 1).split("&")) {
                String[] kv = pair.split("=", 2);
                if (kv[0].equals("user")) {
                    user = kv.length > 1 ? kv[1] : null;
                } else if (kv[0].equals("password")) {
                    password = kv.length > 1 ? kv[1] : null;
                }
            }
        }
        return new Server(url, host, user, password);
    }

    private static boolean listening(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean acceptsPostgres() {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres")) {
            return true;
        } catch (SQLException e) {
            LOG.infof("A server listens on 127.0.0.1:5432 but does not let the user postgres in without a password"
                    + " (%s): using a private PostgreSQL instead", e.getMessage());
            return false;
        }
    }

    /** Test databases of killed runs: the time in their name is over a day ago. */
    private static void dropLeftovers(Server s) {
        String dayAgo = LocalDateTime.now(ZoneOffset.UTC).minusDays(1).format(STAMP);
        try (Connection c = s.admin();
                ResultSet r = c.createStatement().executeQuery("select datname from pg_database where datname ~"
                        + " '^t_[a-z0-9_]+_[0-9]{14}_[a-z0-9]+$'")) {
            while (r.next()) {
                String name = r.getString(1);
                String stamp = name.replaceAll("^.*_([0-9]{14})_[a-z0-9]+$", "$1");
                if (stamp.compareTo(dayAgo) < 0) {
                    try (Connection d = s.admin()) {
                        d.createStatement().execute("drop database if exists " + name + " with (force)");
                    }
                }
            }
        } catch (SQLException e) {
            LOG.debugf("Leftover test databases not dropped: %s", e.getMessage());
        }
    }

    private static void deleteQuietly(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // the temporary directory is the system's to clean
        }
    }
}
