package com.convplatform.crypto.bench;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.Signature;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.hook.HookSigner;
import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.time.TimestampWindow;

/**
 * Prints operations per second (one thread) for the bare provider operations and for our code doing the same job, and
 * the ratios. Run with {@code crypto-common/bench.sh}; it is not a test and never runs in the build.
 *
 * <ul>
 * <li>bare verify: SHA1withRSA-2048 and SHA1withECDSA-P256, JDK and BouncyCastle providers;</li>
 * <li>our management verification: {@link ManagementRequestVerifier#verify} with the chain cached (URL rule, cache
 * hit with validity re-check, strict Base64/DER, signature, timestamp);</li>
 * <li>bare SHA256withRSA-2048 sign vs {@link HookSigner#sign}.</li>
 * </ul>
 */
public final class CryptoBenchmark {
    private static final String FQDN = "client.example.com";
    private static final long WARMUP_MS = Long.getLong("bench.warmup.ms", 2000);
    private static final long MEASURE_MS = Long.getLong("bench.measure.ms", 4000);

    private CryptoBenchmark() {
    }

    @FunctionalInterface
    interface Op {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        byte[] body = null;
        Instant now = Instant.now();
        String ts = TimestampWindow.format(now);
        body = ("{\"client_id\":\"c-1\",\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + ts + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        final byte[] b = body;
        KeyPair rsa = KeyPairs.rsa(2048);
        KeyPair ec = KeyPairs.ecP256();
        Map<String, Double> r = new LinkedHashMap<>();

        for (String alg : List.of("SHA1withRSA", "SHA1withECDSA")) {
            KeyPair kp = alg.contains("RSA") ? rsa : ec;
            Signature signer = Signature.getInstance(alg);
            signer.initSign(kp.getPrivate());
            signer.update(b);
            byte[] sig = signer.sign();
            for (var p : Map.of("jdk", CryptoProviders.jdk(), "bc", CryptoProviders.bouncyCastle()).entrySet()) {
                Signature v = p.getKey().equals("jdk")
                        ? Signature.getInstance(alg)
                        : Signature.getInstance(alg, CryptoProviders.bouncyCastle().rsa());
                // Each provider with the key object it verifies fastest with: BouncyCastle's own for ECDSA (it keeps
                // the point's precomputation on the object), the JDK's as generated.
                java.security.PublicKey key = p.getValue().verificationKey(
                        alg.contains("RSA") ? SignatureAlgorithm.SHA1_WITH_RSA : SignatureAlgorithm.SHA1_WITH_ECDSA,
                        kp.getPublic());
                r.put("bare verify " + alg + " [" + p.getKey() + "]", measure(() -> {
                    v.initVerify(key);
                    v.update(b);
                    if (!v.verify(sig)) {
                        throw new IllegalStateException("does not verify");
                    }
                }));
            }
        }

        TestPki pki = TestPki.create();
        TestPki.Leaf rsaLeaf = pki.leaf(rsa, FQDN);
        TestPki.Leaf ecLeaf = pki.leaf(ec, FQDN);
        try (HttpsTestServer server = HttpsTestServer.start(pki, FQDN)) {
            server.serve("/client.api/rsa.pem", "application/x-pem-file", Pem.toPem(rsaLeaf.chain()));
            server.serve("/client.api/ec.pem", "application/x-pem-file", Pem.toPem(ecLeaf.chain()));
            CertificateFetcher fetcher = new CertificateFetcher(pki.clientContext(), Duration.ofSeconds(2),
                    Duration.ofSeconds(5), 65536, HostOverrides.parse(List.of(server.override(FQDN))));
            ManagementRequestVerifier verifier = ManagementRequestVerifier.builder().trustAnchors(pki.anchors())
                    .fetcher(fetcher).clock(Clock.fixed(now, ZoneOffset.UTC)).build();
            for (var leaf : Map.of("SHA1withRSA", rsaLeaf, "SHA1withECDSA", ecLeaf).entrySet()) {
                String sig = new ManagementRequestSigner(leaf.getValue().key().getPrivate()).sign(b);
                String url = "https://" + FQDN + "/client.api/" + (leaf.getKey().contains("RSA") ? "rsa" : "ec")
                        + ".pem";
                var request = new ManagementRequestVerifier.Request(b, FQDN, ts, sig, url, null);
                r.put("our management verify " + leaf.getKey() + " [recommended, cached chain]",
                        measure(() -> verifier.verify(request, uuid -> Optional.empty())));
            }
        }

        Signature rsaSign = Signature.getInstance("SHA256withRSA");
        r.put("bare sign SHA256withRSA-2048 [jdk]", measure(() -> {
            rsaSign.initSign(rsa.getPrivate());
            rsaSign.update(b);
            rsaSign.sign();
        }));
        HookSigner hookSigner = new HookSigner(rsa.getPrivate(),
                "https://hooks.platform.example/platform/hooks/certificate/", CryptoProviders.recommended());
        r.put("our HookSigner.sign SHA256withRSA-2048", measure(() -> hookSigner.sign(b)));

        System.out.printf("%n%-70s %12s%n", "operation (1 thread, " + MEASURE_MS + " ms)", "ops/s");
        r.forEach((k, v) -> System.out.printf("%-70s %12.0f%n", k, v));
        System.out.println();
        ratio(r, "our management verify SHA1withRSA [recommended, cached chain]", "bare verify SHA1withRSA [jdk]");
        ratio(r, "our management verify SHA1withECDSA [recommended, cached chain]", "bare verify SHA1withECDSA [bc]");
        ratio(r, "bare verify SHA1withECDSA [bc]", "bare verify SHA1withECDSA [jdk]");
        ratio(r, "bare verify SHA1withRSA [bc]", "bare verify SHA1withRSA [jdk]");
        ratio(r, "our HookSigner.sign SHA256withRSA-2048", "bare sign SHA256withRSA-2048 [jdk]");
    }

    private static void ratio(Map<String, Double> r, String ours, String bare) {
        System.out.printf("ratio %-62s / %-40s = %.2f%n", ours, bare, r.get(ours) / r.get(bare));
    }

    private static double measure(Op op) throws Exception {
        long end = System.nanoTime() + WARMUP_MS * 1_000_000;
        while (System.nanoTime() < end) {
            op.run();
        }
        long start = System.nanoTime();
        end = start + MEASURE_MS * 1_000_000;
        long n = 0;
        long t;
        do {
            op.run();
            n++;
        } while ((t = System.nanoTime()) < end);
        return n / ((t - start) / 1e9);
    }
}
