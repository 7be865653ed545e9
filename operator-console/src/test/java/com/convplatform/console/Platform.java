package com.convplatform.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.testsupport.PostgresTestResource;
import com.convplatform.testsupport.StubServer;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * The real platform for the browser test: the built jars of management-service, hook-service and upload-service on
 * free loopback ports (their management interfaces too), each on embedded storage in a fresh directory under target/,
 * wired as run-local.sh wires them (private-network delivery on, HTTP webhooks allowed), and a webhook receiver on
 * loopback that answers {@link #RECEIVER_STATUS}. management-service's JWT signing key is a file dated
 * {@link #KEY_MADE}. The console under test is pointed at the three.
 */
public class Platform implements QuarkusTestResourceLifecycleManager {
    public static final String OPERATOR_KEY = "browser-operator-key";
    static final String MANAGEMENT_INTERNAL_KEY = "browser-management-internal-key";
    public static final String HOOK_INTERNAL_KEY = "browser-hook-internal-key";
    /** When the JWT signing key's file was made, 85 days before the test: its rotate-by date is 5 days ahead. */
    public static final Instant KEY_MADE = Instant.now().minus(Duration.ofDays(85)).truncatedTo(ChronoUnit.SECONDS);
    /** What the receiver answers to every hook. */
    public static final AtomicInteger RECEIVER_STATUS = new AtomicInteger(500);
    /** The signature header of every hook the receiver got, in order. */
    public static final List<String> SIGNATURES = new java.util.concurrent.CopyOnWriteArrayList<>();
    public static final AtomicInteger RECEIVED = new AtomicInteger();
    public static int managementPort;
    public static int hookPort;
    public static int uploadPort;
    public static int receiverPort;

    private final List<Process> processes = new ArrayList<>();
    private final List<Integer> healthPorts = new ArrayList<>();
    private StubServer receiver;

    /** The repository's root (the parent of this module). */
    static Path root() {
        return Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    }

    /** The jars the test needs, or null when all are built. */
    public static String missingJars() {
        for (String service : List.of("management-service", "hook-service", "upload-service")) {
            if (!Files.isRegularFile(jar(service))) {
                return jar(service) + " is not built: ./mvnw -B -ntp -pl management-service,hook-service,"
                        + "upload-service -am package -DskipTests";
            }
        }
        return null;
    }

    private static Path jar(String service) {
        return root().resolve(service).resolve("target/quarkus-app/quarkus-run.jar");
    }

    @Override
    public Map<String, String> start() {
        String missing = missingJars();
        if (missing != null) {
            throw new IllegalStateException(missing);
        }
        // the receiver's state is static (the tests read it): each platform starts from the same one
        RECEIVER_STATUS.set(500);
        SIGNATURES.clear();
        RECEIVED.set(0);
        try {
            Path data = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "platform-");
            receiver = StubServer.http().route("/", exchange -> {
                exchange.getRequestBody().readAllBytes();
                SIGNATURES.add(String.valueOf(exchange.getRequestHeaders().getFirst("signature")));
                RECEIVED.incrementAndGet();
                exchange.sendResponseHeaders(RECEIVER_STATUS.get(), -1);
                exchange.close();
            });
            receiverPort = receiver.port();
            managementPort = freePort();
            hookPort = freePort();
            uploadPort = freePort();
            // The JWT signing key made 85 days ago: management-service takes the file's date as the key's first use,
            // so the overview shows it five days before its rotate-by date (the warning colour).
            Path key = data.resolve("management/jwt/current-key.pem");
            PemFiles.writeOwnerOnly(key, Pem.toPem(KeyPairs.ecP256().getPrivate()));
            Files.setLastModifiedTime(key, FileTime.from(KEY_MADE));
            start("management-service", data, Map.of("QUARKUS_HTTP_PORT", "" + managementPort,
                    "MANAGEMENT_DATA_DIR", data.resolve("management").toString(),
                    "MANAGEMENT_ADMIN_API_KEY", OPERATOR_KEY, "MANAGEMENT_INTERNAL_API_KEY", MANAGEMENT_INTERNAL_KEY,
                    "MANAGEMENT_ADMIN_ALLOW_HTTP_WEBHOOKS", "true"));
            Map<String, String> hook = new HashMap<>(Map.of("QUARKUS_HTTP_PORT", "" + hookPort,
                    "HOOK_DATA_DIR", data.resolve("hook").toString(), "HOOK_ADMIN_API_KEY", OPERATOR_KEY,
                    "HOOK_INTERNAL_API_KEY", HOOK_INTERNAL_KEY, "HOOK_MANAGEMENT_URL",
                    "http://127.0.0.1:" + managementPort, "HOOK_MANAGEMENT_INTERNAL_API_KEY", MANAGEMENT_INTERNAL_KEY,
                    "HOOK_DELIVERY_ALLOW_PRIVATE_NETWORKS", "true", "HOOK_SIGNING_DEVELOPMENT_CA", "true"));
            // Two quick attempts, then the dead-letter queue: a failed hook within a second, not hours.
            hook.put("HOOK_DELIVERY_RETRY_SCHEDULE", "PT0.5S");
            start("hook-service", data, hook);
            start("upload-service", data, Map.of("QUARKUS_HTTP_PORT", "" + uploadPort,
                    "UPLOAD_DATA_DIR", data.resolve("upload").toString(),
                    "UPLOAD_STORAGE_DIR", data.resolve("upload/files").toString(), "UPLOAD_ADMIN_API_KEY", OPERATOR_KEY,
                    "UPLOAD_JWKS_URL", "http://127.0.0.1:" + managementPort + "/platform/management/jwks.json",
                    "UPLOAD_HOOK_SERVICE_URL", "http://127.0.0.1:" + hookPort,
                    "UPLOAD_HOOK_SERVICE_INTERNAL_API_KEY", HOOK_INTERNAL_KEY,
                    "UPLOAD_MANAGEMENT_URL", "http://127.0.0.1:" + managementPort,
                    "UPLOAD_MANAGEMENT_INTERNAL_API_KEY", MANAGEMENT_INTERNAL_KEY,
                    "UPLOAD_PUBLIC_BASE_URL", "http://localhost:" + uploadPort));
            HttpClient http = HttpClient.newHttpClient();
            String[] names = {"management-service", "hook-service", "upload-service"};
            for (int i = 0; i < names.length; i++) {
                int port = healthPorts.get(i);
                Process process = processes.get(i);
                String name = names[i];
                Path log = data.resolve(name + ".log");
                Awaitility.await(name + " to be ready (management interface on port " + port + ")")
                        .atMost(Duration.ofSeconds(180))
                        .pollInterval(Duration.ofMillis(500)).until(() -> {
                            if (!process.isAlive()) {
                                throw new IllegalStateException(name + " stopped at start; see " + log);
                            }
                            try {
                                return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                                        + "/q/health/ready")).build(), HttpResponse.BodyHandlers.discarding())
                                        .statusCode() == 200;
                            } catch (IOException e) {
                                return false;
                            }
                        });
            }
        } catch (IOException e) {
            stop();
            throw new UncheckedIOException(e);
        }
        return Map.of("console.management.url", "http://127.0.0.1:" + managementPort,
                "console.hook.url", "http://127.0.0.1:" + hookPort,
                "console.upload.url", "http://127.0.0.1:" + uploadPort,
                "console.management.api-key", OPERATOR_KEY, "console.hook.api-key", OPERATOR_KEY,
                "console.upload.api-key", OPERATOR_KEY);
    }

    /** Each service on a PostgreSQL database of its own (test-support's PostgresTestResource), dropped at stop. */
    private final java.util.List<PostgresTestResource.Database> databases = new java.util.ArrayList<>();

    private void start(String service, Path data, Map<String, String> env) throws IOException {
        PostgresTestResource.Database db = PostgresTestResource.create("console_" + service);
        databases.add(db);
        env = new HashMap<>(env);
        healthPorts.add(freePort()); // its management interface (health): not the 908x of every other start
        env.put("QUARKUS_MANAGEMENT_PORT", "" + healthPorts.get(healthPorts.size() - 1));
        env.put("QUARKUS_DATASOURCE_JDBC_URL", db.url());
        env.put("QUARKUS_DATASOURCE_USERNAME", db.user());
        env.put("QUARKUS_SWAGGER_UI_ENABLED", "true"); // off unless configured, as in production; SwaggerUiJourneyTest
        if (db.password() != null) {
            env.put("QUARKUS_DATASOURCE_PASSWORD", db.password());
        }
        Path log = data.resolve(service + ".log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", jar(service).toString())
                .directory(data.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        processes.add(pb.start());
    }

    @Override
    public void stop() {
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        processes.clear();
        healthPorts.clear();
        databases.forEach(PostgresTestResource::drop);
        databases.clear();
        if (receiver != null) {
            receiver.close();
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
