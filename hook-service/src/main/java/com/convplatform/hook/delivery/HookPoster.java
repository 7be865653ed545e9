package com.convplatform.hook.delivery;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.TlsTrust;
import com.convplatform.crypto.net.OutboundAddresses;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;
import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.delivery.DeliveryStore.Outcome;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.TrustOptions;
import io.vertx.core.tracing.TracingPolicy;

/**
 * Sends one hook only to the addresses the SSRF guard checked, the URL's host kept for Host, SNI and the certificate,
 * so DNS rebinding cannot reach an internal address: hence a Vert.x client, as a REST client resolves the host again.
 * Dependent: closed only once the bean it serves has stopped, after that bean's drain.
 */
@Dependent
final class HookPoster implements AutoCloseable {
    static final int MAX_DISCARDED = 1024 * 1024;

    /** Not sent, for a reason about the endpoint (its URL, its name, its addresses). */
    static final class NotSent extends Exception {
        NotSent(String message) {
            super(message, null, false, false);
        }
    }

    private final HttpClient client;
    private final OutboundAddresses guard;
    private final Duration connectTimeout;
    private final Duration readTimeout;

    @Inject
    HookPoster(Vertx vertx, HookConfig config) {
        this(vertx, resolver(config.delivery().resolve()), config.delivery().allowPrivateNetworks(),
                config.delivery().connectTimeout(), config.delivery().readTimeout(),
                trust(config.delivery().trustStore()), config.delivery().perEndpoint());
    }

    /** {@code trust} null: the JDK's. No tracing: a receiver is outside the platform, so it gets no trace context. */
    HookPoster(Vertx vertx, OutboundAddresses.Resolver resolver, boolean allowPrivateNetworks, Duration connectTimeout,
            Duration readTimeout, TrustOptions trust, int maxConnectionsPerEndpoint) {
        this.client = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_1_1)
                .setConnectTimeout((int) connectTimeout.toMillis()).setKeepAlive(true).setVerifyHost(true)
                .setForceSni(true).setMaxPoolSize(maxConnectionsPerEndpoint).setTryUseCompression(false)
                .setTrustOptions(trust).setTracingPolicy(TracingPolicy.IGNORE));
        this.guard = OutboundAddresses.of(resolver, allowPrivateNetworks);
        this.connectTimeout = connectTimeout;
        this.readTimeout = readTimeout;
    }

    /** The system's resolver behind the pairs of {@code hook.delivery.resolve} (a host named twice: both, in order). */
    static OutboundAddresses.Resolver resolver(Optional<List<String>> pairs) {
        Map<String, List<InetAddress>> fixed = new HashMap<>();
        for (String pair : pairs.orElse(List.of())) {
            int eq = pair.indexOf('=');
            String address = eq < 0 ? "" : pair.substring(eq + 1).trim();
            if (eq <= 0 || !address.matches("[0-9.]+|\\[?[0-9a-fA-F:]+\\]?")) {
                throw new IllegalArgumentException(
                        "hook.delivery.resolve: '" + pair + "' is not host=address (an IP address, no port)");
            }
            try {
                fixed.computeIfAbsent(pair.substring(0, eq).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                        .add(InetAddress.getByName(address));
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("hook.delivery.resolve: '" + address + "' is not an IP address", e);
            }
        }
        return host -> {
            List<InetAddress> given = fixed.get(host.toLowerCase(Locale.ROOT));
            return given != null ? given.toArray(InetAddress[]::new) : InetAddress.getAllByName(host);
        };
    }

    /** The {@code hook.delivery.trust-store} seam: the JDK's CAs and the file's; null (the JDK's alone) without one. */
    static TrustOptions trust(Optional<String> pemFile) {
        if (pemFile.isEmpty()) {
            return null;
        }
        try {
            var extra = Pem.parseCertificates(PemFiles.read(Paths.get(pemFile.get())));
            return TrustOptions.wrap(TlsTrust.trustManagers(TrustAnchors.jdkDefaults().plus(extra)));
        } catch (RuntimeException | VerificationException e) {
            throw new IllegalArgumentException("hook.delivery.trust-store: " + pemFile.get() + " cannot be used: "
                    + e.getMessage(), e);
        }
    }

    InetAddress[] addresses(URI url) throws NotSent {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http") || url.getHost() == null) {
            throw new NotSent("the webhook URL " + url + " is not an absolute http(s) URL");
        }
        try {
            return guard.resolve(host(url), connectTimeout).toArray(InetAddress[]::new);
        } catch (OutboundAddresses.Refused e) {
            throw new NotSent(e.reason() == OutboundAddresses.Reason.ADDRESS_NOT_ALLOWED
                    ? "refused by the SSRF guard: " + e.getMessage()
                    : e.getMessage());
        }
    }

    /** One deadline covers every address: many black-hole addresses cannot make an attempt outlive its lease. */
    Outcome post(URI url, InetAddress[] addresses, Map<String, String> headers, byte[] body)
            throws TimeoutException, IOException, InterruptedException {
        long deadline = System.nanoTime() + connectTimeout.plus(readTimeout).toNanos();
        IOException refused = null;
        for (InetAddress address : addresses) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                throw new TimeoutException();
            }
            try {
                return post(url, address, headers, body, left);
            } catch (IOException e) {
                if (!notConnected(e)) {
                    throw e;
                }
                refused = e;
            }
        }
        throw refused;
    }

    /** The connection never opened: nothing was sent, the next address may be tried. */
    private static boolean notConnected(IOException e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.net.ConnectException || t instanceof io.netty.channel.ConnectTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private Outcome post(URI url, InetAddress address, Map<String, String> headers, byte[] body, long leftMillis)
            throws TimeoutException, IOException, InterruptedException {
        boolean https = "https".equalsIgnoreCase(url.getScheme());
        int port = url.getPort() != -1 ? url.getPort() : https ? 443 : 80;
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST)
                .setServer(SocketAddress.inetSocketAddress(port, address.getHostAddress())).setHost(host(url))
                .setPort(port).setSsl(https).setURI(url.getRawQuery() == null ? path : path + "?" + url.getRawQuery())
                // The request's connect time-out is the wait for a connection from the pool, and it would fire with
                // the TCP connect time-out (the client's, connect-timeout) as a plain time-out, ending the attempt
                // before the next address is tried: it gets the whole time left, so the TCP time-out comes first.
                .setFollowRedirects(false).setConnectTimeout(leftMillis)
                .setIdleTimeout(Math.min(readTimeout.toMillis(), leftMillis));
        headers.forEach(request::putHeader);
        try {
            return client.request(request).compose(r -> r.send(Buffer.buffer(body))).map(HookPoster::answer)
                    .toCompletionStage().toCompletableFuture()
                    .get(leftMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof TimeoutException t) {
                throw t;
            }
            throw new IOException(describe(cause), cause);
        }
    }

    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String top = failure.getClass().getSimpleName() + ": " + failure.getMessage();
        return root == failure ? top : top + " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }

    private static Outcome answer(HttpClientResponse response) {
        AtomicLong dropped = new AtomicLong();
        try {
            response.exceptionHandler(ignored -> { // the status is what counts
            });
            response.handler(chunk -> {
                if (dropped.addAndGet(chunk.length()) > MAX_DISCARDED) {
                    response.request().connection().close();
                }
            });
        } catch (IllegalStateException ended) {
            // a short body has already been read in full by the time this runs: nothing left to drop
        }
        return Outcome.answered(response.statusCode(), retryAfter(response.getHeader("Retry-After")));
    }

    private static Duration retryAfter(String value) {
        try {
            return value == null ? null : Duration.ofSeconds(Math.max(0, Long.parseLong(value.trim())));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String host(URI url) {
        String host = url.getHost();
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    @Override
    @PreDestroy
    public void close() {
        client.close();
    }
}
