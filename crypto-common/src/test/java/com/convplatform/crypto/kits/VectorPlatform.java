package com.convplatform.crypto.kits;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.fetch.HostOverrides;
import com.convplatform.crypto.hook.HookHeaders;
import com.convplatform.crypto.hook.HookVerifier;
import com.convplatform.crypto.testing.HttpsTestServer;
import com.convplatform.crypto.testing.MutableClock;
import com.convplatform.crypto.testing.TestPki;
import com.convplatform.crypto.url.CertificateUrl;
import com.convplatform.crypto.url.HookCertUrlRule;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The platform's certificate host for one hook case of hooks.json: a local HTTPS server (TLS from a separate test
 * PKI) that every platform host of the case is pointed at, answering each {@code served} URL with its file and every
 * other path the case may download with 404; and a verifier built as the vectors say (their anchors only, their
 * window and refetch interval, a clock at the case's {@code now}) that downloads from it.
 */
final class VectorPlatform implements AutoCloseable {
    /** Platform hosts always pointed at the server, so no case ever reaches DNS. */
    static final List<String> PLATFORM_HOSTS = List.of("hooks.platform.test", "hooks.staging-platform.test");

    final HttpsTestServer server;
    final MutableClock clock;
    final HookVerifier verifier;
    private final Set<String> paths;

    private VectorPlatform(HttpsTestServer server, Set<String> hosts, Set<String> paths, MutableClock clock,
            JsonNode hooks, TestPki tls) {
        this.server = server;
        this.paths = paths;
        this.clock = clock;
        CertificateFetcher fetcher = new CertificateFetcher(tls.clientContext(), Duration.ofSeconds(2),
                Duration.ofSeconds(5), CertificateFetcher.DEFAULT_MAX_BYTES,
                HostOverrides.parse(server.overrides(hosts.toArray(String[]::new))));
        this.verifier = HookVerifier.builder().platformDomains(domains(hooks))
                .trustAnchors(TrustAnchors.of(KitVectors.anchors(hooks.get("anchors"))))
                .tolerance(Duration.ofSeconds(hooks.get("tolerance_seconds").asLong()))
                .refetchAfter(Duration.ofSeconds(hooks.get("refetch_after_seconds").asLong()))
                .fetcher(fetcher).clock(clock).build();
    }

    /** The server and verifier for hook case {@code c} (its prime included), the clock at the case's now. */
    static VectorPlatform forCase(TestPki tls, JsonNode hooks, JsonNode c) {
        HookCertUrlRule rule = new HookCertUrlRule(domains(hooks));
        Set<String> hosts = new LinkedHashSet<>(PLATFORM_HOSTS);
        Set<String> paths = new LinkedHashSet<>();
        JsonNode prime = c.get("prime");
        for (JsonNode part : prime == null || prime.isNull() ? List.of(c) : List.of(prime, c)) {
            part.get("served").properties().forEach(e -> {
                URI u = URI.create(e.getKey());
                hosts.add(u.getHost());
                paths.add(u.getRawPath());
            });
            try {
                CertificateUrl url = rule.check(KitVectors.stringOrNull(part.get("headers")
                        .get(HookHeaders.CERTIFICATE_URL)));
                hosts.add(url.host());
                paths.add(url.path());
            } catch (VerificationException refusedBeforeAnyDownload) {
                // nothing will be downloaded for this URL
            }
        }
        HttpsTestServer server = HttpsTestServer.start(tls, hosts.toArray(String[]::new));
        return new VectorPlatform(server, hosts, paths, new MutableClock(Instant.parse(c.get("now").asText())),
                hooks, tls);
    }

    /** Answers each URL of {@code served} with its file, and every other path of the case with 404. */
    void serve(JsonNode served) {
        Map<String, byte[]> answers = new HashMap<>();
        served.properties().forEach(e -> answers.put(URI.create(e.getKey()).getRawPath(),
                KitVectors.bytes(e.getValue().asText())));
        for (String path : paths) {
            byte[] body = answers.get(path);
            if (body != null) {
                server.serve(path, "application/json", body);
            } else {
                server.respond(path, new HttpsTestServer.Response(404, "text/plain", "not found".getBytes(), Map.of()));
            }
        }
    }

    /** Download attempts so far, all paths together. */
    int downloads() {
        return paths.stream().mapToInt(server::hits).sum();
    }

    static List<String> domains(JsonNode hooks) {
        List<String> out = new ArrayList<>();
        hooks.get("platform_domains").forEach(d -> out.add(d.asText()));
        return out;
    }

    @Override
    public void close() {
        server.close();
    }
}
