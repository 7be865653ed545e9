package com.convplatform.load.management;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.testing.Http1Connection;
import com.convplatform.crypto.testing.LoadMeasure;
import com.convplatform.crypto.time.TimestampWindow;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Load test of a running management-service (run by {@code management-service/load-test/run.sh}, never by the
 * build). It registers an account, a client and a self-signed certificate through the operator API, then drives
 * token issuing and client enumeration with freshly signed requests from W workers for D seconds each, and prints
 * requests/s, p50/p99 latency and errors. In the same run it measures the crypto ceiling of the machine on all cores:
 * 1 / (1/verify_rate + 1/jwt_sign_rate), the best rate a service that verifies one signature and signs one ES256
 * token per request could reach.
 *
 * <p>
 * Each operation is first driven for {@code warmup} seconds, unmeasured: the JVM's JIT compiler keeps compiling the
 * service's paths for about half a minute under this load, and a measurement that overlaps it reports the compiler,
 * not the service (the warm-up rates are printed too, so the difference stays visible).
 *
 * <p>
 * System properties: {@code base} (default http://localhost:8081), {@code adminKey}, {@code workers} (16),
 * {@code seconds} (30), {@code warmup} (30), {@code keyType} (rsa or ec; default rsa).
 */
public final class ManagementLoadTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ManagementLoadTest() {
    }

    public static void main(String[] args) throws Exception {
        String base = System.getProperty("base", "http://localhost:8081");
        String adminKey = System.getProperty("adminKey", "load-test-operator-key");
        int workers = Integer.getInteger("workers", 16);
        int seconds = Integer.getInteger("seconds", 30);
        int warmup = Integer.getInteger("warmup", 30);
        boolean rsa = !"ec".equals(System.getProperty("keyType", "rsa"));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        String fqdn = "load-" + UUID.randomUUID().toString().substring(0, 8) + ".example.org";
        KeyPair kp = rsa ? KeyPairs.rsa(2048) : KeyPairs.ecP256();
        var cert = CertificateBuilder.selfSigned(kp, fqdn, Instant.now().plus(Duration.ofDays(2)), fqdn);
        String accountId = admin(http, base, adminKey, "/admin/v1/accounts",
                Map.of("name", "load test", "fqdn", fqdn, "business_id",
                        String.valueOf(Math.abs(UUID.randomUUID().getLeastSignificantBits() % 1_000_000_000L)),
                        "webhook_url", "https://" + fqdn + "/hooks"),
                "account_id");
        String clientId = admin(http, base, adminKey, "/admin/v1/accounts/" + accountId + "/clients",
                Map.of("name", "load"), "client_id");
        String certUuid = admin(http, base, adminKey, "/admin/v1/accounts/" + accountId + "/certificates",
                Map.of("certificate", Pem.toPem(cert)), "certificate_uuid");
        ManagementRequestSigner signer = new ManagementRequestSigner(kp.getPrivate());

        System.out.printf(
                "management-service load test: %s, %d workers, %d s warm-up and %d s measured per operation, %s client key%n",
                base, workers, warmup, seconds, rsa ? "RSA-2048" : "EC P-256");
        String clientsUrl = base + "/platform/management/clients/";
        String tokenUrl = base + "/platform/management/token/issue/";
        // Built once per worker and second (each body is signed, and re-signed when the second changes).
        Body clientsBody = ts -> JSON.createObjectNode().put("fqdn", fqdn).put("timestamp", ts).toString();
        Body tokenBody = ts -> JSON.createObjectNode().put("client_id", clientId).put("fqdn", fqdn)
                .put("timestamp", ts).toString();
        Result clientsWarmup = drive(clientsUrl, workers, warmup, signer, certUuid, clientsBody);
        Result tokenWarmup = drive(tokenUrl, workers, warmup, signer, certUuid, tokenBody);
        Result clients = drive(clientsUrl, workers, seconds, signer, certUuid, clientsBody);
        Result token = drive(tokenUrl, workers, seconds, signer, certUuid, tokenBody);

        int ceilingSeconds = Math.max(3, seconds / 3);
        double verify = LoadMeasure.ceiling(() -> verifyOnce(kp, rsa), ceilingSeconds);
        double jwt = LoadMeasure.ceiling(ManagementLoadTest::jwtSignOnce, ceilingSeconds);
        double ceiling = 1 / (1 / verify + 1 / jwt);
        System.out.printf("%n%-22s %10s %10s %10s %8s %8s %12s %12s %12s%n", "operation", "requests", "req/s",
                "p50 ms", "p99 ms", "errors", "svc CPU ms/r", "PG CPU ms/r", "gen CPU ms/r");
        token.print("token issuing");
        clients.print("client enumeration");
        tokenWarmup.print("(warm-up) token");
        clientsWarmup.print("(warm-up) clients");
        System.out.printf("%ncrypto ceiling on %d cores: verify %s %.0f/s, ES256 sign %.0f/s -> 1/(1/v+1/s) = %.0f/s%n",
                Runtime.getRuntime().availableProcessors(), rsa ? "SHA1withRSA" : "SHA1withECDSA", verify, jwt,
                ceiling);
        System.out.printf("token issuing / ceiling = %.2f (goal >= 0.50, no errors: %s)%n", token.rate() / ceiling,
                token.errors == 0 ? "yes" : "NO");
    }

    interface Body {
        String of(String timestamp);
    }

    static final class Result {
        long[] latencies;
        long count;
        long errors;
        double seconds;
        /**
         * CPU time per request of the service (-1: no servicePid given), of PostgreSQL's processes (-1: no /proc)
         * and of this generator, in ms.
         */
        double serviceCpuMs;
        double postgresCpuMs;
        double ownCpuMs;

        double rate() {
            return count / seconds;
        }

        void print(String name) {
            System.out.printf("%-22s %10d %10.0f %10.2f %8.2f %8d %12s %12s %12.3f%n", name, count, rate(),
                    LoadMeasure.percentileMs(latencies, 0.50), LoadMeasure.percentileMs(latencies, 0.99), errors,
                    serviceCpuMs < 0 ? "-" : String.format("%.3f", serviceCpuMs),
                    postgresCpuMs < 0 ? "-" : String.format("%.3f", postgresCpuMs), ownCpuMs);
        }
    }

    /** W workers send signed requests for D seconds; each worker re-signs whenever the timestamp's second changes. */
    static Result drive(String url, int workers, int seconds, ManagementRequestSigner signer,
            String certUuid, Body body) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        AtomicLong count = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<long[]> perWorker = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Future<?>> futures = new ArrayList<>();
        long[] cpuAtStart = cpu();
        long start = System.nanoTime();
        for (int w = 0; w < workers; w++) {
            long[] lat = new long[2_000_000 / workers];
            perWorker.add(lat);
            futures.add(pool.submit(() -> {
                @SuppressWarnings("resource") // closed when the worker ends
                Http1Connection connection = new Http1Connection(URI.create(url), 10_000);
                String path = URI.create(url).getRawPath();
                int n = 0;
                String signedFor = null;
                String b = null;
                String sig = null;
                while (System.nanoTime() < end) {
                    String ts = TimestampWindow.format(Instant.now());
                    if (!ts.equals(signedFor)) {
                        b = body.of(ts);
                        sig = signer.sign(b);
                        signedFor = ts;
                    }
                    Map<String, String> headers = Map.of("Content-Type", "application/json", "Signature", sig,
                            "SignatureCertUUID", certUuid);
                    long t0 = System.nanoTime();
                    try {
                        if (connection.post(path, headers, b.getBytes(StandardCharsets.UTF_8)).status() != 200) {
                            errors.incrementAndGet();
                        }
                    } catch (Exception e) {
                        errors.incrementAndGet();
                    }
                    if (n < lat.length) {
                        lat[n++] = System.nanoTime() - t0;
                    }
                    count.incrementAndGet();
                }
                connection.close();
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        Result r = new Result();
        r.seconds = (System.nanoTime() - start) / 1e9;
        r.count = count.get();
        r.errors = errors.get();
        r.latencies = perWorker.stream().flatMapToLong(a -> Arrays.stream(a).filter(x -> x > 0)).toArray();
        long[] cpu = cpu();
        r.serviceCpuMs = cpu[0] < 0 ? -1 : (cpu[0] - cpuAtStart[0]) / 1e6 / Math.max(1, r.count);
        r.ownCpuMs = (cpu[1] - cpuAtStart[1]) / 1e6 / Math.max(1, r.count);
        r.postgresCpuMs = cpu[2] < 0 || cpuAtStart[2] < 0 ? -1 : (cpu[2] - cpuAtStart[2]) / 1e6 / Math.max(1, r.count);
        return r;
    }

    /** The service's process ({@code servicePid}, given by run.sh), for its CPU time. */
    private static final java.util.Optional<ProcessHandle> SERVICE = java.util.Optional
            .ofNullable(System.getProperty("servicePid")).flatMap(pid -> ProcessHandle.of(Long.parseLong(pid)));

    /** CPU time used so far by the service (-1 without its pid), this program and PostgreSQL, in nanoseconds. */
    private static long[] cpu() {
        long own = ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
        long svc = SERVICE.flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos).orElse(-1L);
        return new long[]{svc, own, com.convplatform.load.PostgresCpu.nanos()};
    }

    private static final byte[] SAMPLE = "{\"client_id\":\"c\",\"fqdn\":\"f.example.org\",\"timestamp\":\"2026-01-01T00:00:00Z\"}"
            .getBytes(StandardCharsets.UTF_8);
    private static volatile byte[] rsaSig;
    private static volatile byte[] ecSig;

    private static void verifyOnce(KeyPair kp, boolean rsa) throws Exception {
        SignatureAlgorithm alg = rsa ? SignatureAlgorithm.SHA1_WITH_RSA : SignatureAlgorithm.SHA1_WITH_ECDSA;
        byte[] sig = rsa ? rsaSig : ecSig;
        if (sig == null) {
            sig = java.util.Base64.getDecoder()
                    .decode(Signatures.sign(alg, kp.getPrivate(), SAMPLE, CryptoProviders.recommended()));
            if (rsa) {
                rsaSig = sig;
            } else {
                ecSig = sig;
            }
        }
        Signature v = CryptoProviders.recommended().signature(alg);
        v.initVerify(CryptoProviders.recommended().verificationKey(alg, kp.getPublic()));
        v.update(SAMPLE);
        if (!v.verify(sig)) {
            throw new IllegalStateException("does not verify");
        }
    }

    /** The JWT key as the signing provider's own key object, as TokenService holds it (the fastest way to sign). */
    private static final PrivateKey JWT_KEY = bcKey(KeyPairs.ecP256().getPrivate());

    private static PrivateKey bcKey(PrivateKey key) {
        try {
            return KeyFactory.getInstance("EC", CryptoProviders.recommended().ecdsa())
                    .generatePrivate(new PKCS8EncodedKeySpec(key.getEncoded()));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void jwtSignOnce() throws Exception {
        Signature s = Signature.getInstance("SHA256withPLAIN-ECDSA", CryptoProviders.recommended().ecdsa());
        s.initSign(JWT_KEY);
        s.update(SAMPLE);
        s.sign();
    }

    private static String admin(HttpClient http, String base, String key, String path, Map<String, ?> body,
            String field) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body()).get(field).asText();
    }
}
