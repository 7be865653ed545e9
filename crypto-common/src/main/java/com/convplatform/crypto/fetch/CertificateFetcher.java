package com.convplatform.crypto.fetch;

import static com.convplatform.crypto.FailureCode.CERT_FETCH_BUSY;
import static com.convplatform.crypto.FailureCode.CERT_FETCH_FAILED;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.net.OutboundAddresses;
import com.convplatform.crypto.url.CertificateUrl;

/**
 * Downloads a certificate document over HTTPS with hard limits: the host resolved once through the outbound-address
 * guard ({@link OutboundAddresses}: public addresses only), one GET, HTTP/1.1, TLS 1.2 or 1.3 with host name
 * verification, a connect time-out, one overall deadline from the lookup to the last byte, a byte limit enforced while
 * reading, status 200 only, and redirects never followed. Failures are said in plain words, never with an exception's
 * text (which can describe the inside of a network). Small on purpose: every byte it accepts is under our
 * control, and the {@link HostOverrides} seam can point a host at a test server without weakening TLS. Not a REST
 * client nor the JDK's HttpClient: neither connects to an address resolved and checked beforehand while verifying
 * the certificate against the URL's host name (a client that resolves again can be pointed at a private address
 * between the check and the connect), nor stops reading at a byte limit with one deadline for the whole download;
 * and this library is plain Java, used by the CLI and the integrators' kits too.
 */
public final class CertificateFetcher {
    /** Default limit for a downloaded document: 64 KiB. */
    public static final int DEFAULT_MAX_BYTES = 64 * 1024;
    /** Default time allowed to open the connection. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** Default time allowed for the whole download, from the host name lookup to the last byte. */
    public static final Duration DEFAULT_TOTAL_TIMEOUT = Duration.ofSeconds(5);
    /** Default most downloads from one host at once. */
    public static final int DEFAULT_PER_HOST = 2;
    private static final int MAX_HEADER_BYTES = 16 * 1024;

    private final SSLContext sslContext;
    private final Duration connectTimeout;
    private final Duration totalTimeout;
    private final int maxBytes;
    private final HostOverrides overrides;
    private final OutboundAddresses addresses;
    private final int perHost;
    /** Downloads running, per host; a host leaves the map when its last download ends. */
    private final ConcurrentHashMap<String, Integer> running = new ConcurrentHashMap<>();

    /**
     * A fetcher behind the outbound-address guard over the system's resolver ({@link OutboundAddresses#guarded()}).
     *
     * @param sslContext trust for the download's TLS; {@link #defaultSslContext()} for the JVM's roots
     * @param connectTimeout time allowed to resolve the host, and to open the TCP connection to one address
     * @param totalTimeout time allowed for the whole download, from the lookup to the last byte
     * @param maxBytes largest response body accepted
     * @param overrides where to connect instead of DNS, normally {@link HostOverrides#none()}
     */
    public CertificateFetcher(SSLContext sslContext, Duration connectTimeout, Duration totalTimeout, int maxBytes,
            HostOverrides overrides) {
        this(sslContext, connectTimeout, totalTimeout, maxBytes, overrides, OutboundAddresses.guarded());
    }

    /** As above, with the given address guard (for a seam that allows private networks, or another resolver). */
    public CertificateFetcher(SSLContext sslContext, Duration connectTimeout, Duration totalTimeout, int maxBytes,
            HostOverrides overrides, OutboundAddresses addresses) {
        this(sslContext, connectTimeout, totalTimeout, maxBytes, overrides, addresses, DEFAULT_PER_HOST);
    }

    /**
     * As above, with at most {@code perHost} downloads from one host at once: a request that would start one more is
     * refused at once ({@code CERT_FETCH_BUSY}), so requests naming one host (junk signatures under random paths of a
     * registered FQDN, say) hold a bounded number of threads and never flood that host, whatever their number.
     */
    public CertificateFetcher(SSLContext sslContext, Duration connectTimeout, Duration totalTimeout, int maxBytes,
            HostOverrides overrides, OutboundAddresses addresses, int perHost) {
        this.sslContext = Objects.requireNonNull(sslContext, "sslContext");
        this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
        this.totalTimeout = Objects.requireNonNull(totalTimeout, "totalTimeout");
        this.overrides = Objects.requireNonNull(overrides, "overrides");
        this.addresses = Objects.requireNonNull(addresses, "addresses");
        if (maxBytes <= 0 || perHost <= 0) {
            throw new IllegalArgumentException("maxBytes and perHost must be positive");
        }
        this.perHost = perHost;
        this.maxBytes = maxBytes;
    }

    /** The JVM's roots, 2 s to connect, 5 s in all, 64 KiB, no overrides. */
    public static CertificateFetcher withDefaults() {
        return withDefaults(defaultSslContext(), HostOverrides.none());
    }

    /** The default limits (2 s to connect, 5 s in all, 64 KiB) with the given trust and overrides. */
    public static CertificateFetcher withDefaults(SSLContext sslContext, HostOverrides overrides) {
        return new CertificateFetcher(sslContext, DEFAULT_CONNECT_TIMEOUT, DEFAULT_TOTAL_TIMEOUT, DEFAULT_MAX_BYTES,
                overrides);
    }

    /** The JVM's default SSL context (its roots). */
    public static SSLContext defaultSslContext() {
        try {
            return SSLContext.getDefault();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("TLS is not available", e);
        }
    }

    public int maxBytes() {
        return maxBytes;
    }

    /**
     * Downloads {@code url} and returns the response body. The host is resolved once through the address guard
     * (unless a {@link HostOverrides} entry names where to connect), and the connection goes to exactly the checked
     * addresses, the first that opens; the total deadline runs from the lookup to the last byte.
     */
    public byte[] fetch(CertificateUrl url) throws VerificationException {
        String host = url.host();
        if (running.merge(host, 1, Integer::sum) > perHost) {
            done(host);
            throw new VerificationException(CERT_FETCH_BUSY, perHost + " certificate downloads from " + host
                    + " are already running (the most at once); try again in a few seconds");
        }
        try {
            return download(url);
        } finally {
            done(host);
        }
    }

    private void done(String host) {
        running.computeIfPresent(host, (h, n) -> n == 1 ? null : n - 1);
    }

    private byte[] download(CertificateUrl url) throws VerificationException {
        long deadline = System.nanoTime() + totalTimeout.toNanos();
        List<InetSocketAddress> targets = targets(url, deadline);
        Socket raw = null;
        ScheduledFuture<?> watchdog = null;
        try {
            raw = connect(url, targets, deadline);
            // Socket time-outs bound each read, not their sum: a server sending its TLS handshake one byte at a
            // time would never trip them. Closing the socket at the deadline bounds the whole exchange.
            watchdog = Watchdog.closeAt(raw, Duration.ofMillis(remainingMillis(deadline)));
            raw.setSoTimeout(remainingMillis(deadline));
            try (SSLSocket tls = (SSLSocket) sslContext.getSocketFactory().createSocket(raw, url.host(), url.port(),
                    true)) {
                SSLParameters params = tls.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS");
                params.setProtocols(new String[]{"TLSv1.3", "TLSv1.2"});
                params.setServerNames(List.of(new javax.net.ssl.SNIHostName(url.host())));
                tls.setSSLParameters(params);
                tls.startHandshake();
                OutputStream out = tls.getOutputStream();
                String request = "GET " + url.path() + " HTTP/1.1\r\nHost: " + url.host()
                        + "\r\nAccept: application/json, application/x-pem-file, text/plain, */*\r\n"
                        + "Accept-Encoding: identity\r\nConnection: close\r\nUser-Agent: platform-cert-fetch/1\r\n\r\n";
                out.write(request.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return readResponse(new DeadlineInput(tls, deadline), url);
            }
        } catch (IOException e) {
            if (watchdog != null && watchdog.isDone() || System.nanoTime() - deadline >= 0
                    || e instanceof SocketTimeoutException && watchdog != null) {
                throw new VerificationException(CERT_FETCH_FAILED,
                        "Downloading " + url + " timed out (limit " + totalTimeout.toMillis() + " ms)", e);
            }
            throw failed(url, e);
        } finally {
            if (watchdog != null) {
                watchdog.cancel(false);
            }
            if (raw != null) {
                try {
                    raw.close();
                } catch (IOException ignored) {
                    // closing is all we want
                }
            }
        }
    }

    /** Where to connect: the override's address (a configured seam, not checked), else the guard's addresses. */
    private List<InetSocketAddress> targets(CertificateUrl url, long deadline) throws VerificationException {
        InetSocketAddress override = overrides.lookup(url.host()).orElse(null);
        if (override != null) {
            if (override.isUnresolved()) {
                throw new VerificationException(CERT_FETCH_FAILED,
                        "Downloading " + url + " failed: the configured address for " + url.host()
                                + " does not resolve");
            }
            return List.of(override);
        }
        try {
            Duration lookup = Duration.ofNanos(Math.min(connectTimeout.toNanos(), deadline - System.nanoTime()));
            return addresses.resolve(url.host(), lookup).stream().map(a -> new InetSocketAddress(a, url.port()))
                    .toList();
        } catch (OutboundAddresses.Refused e) {
            throw new VerificationException(CERT_FETCH_FAILED, "Downloading " + url + " failed: " + e.getMessage(), e);
        }
    }

    /** The first of {@code targets} whose connection opens, each within the connect time-out and the deadline. */
    private Socket connect(CertificateUrl url, List<InetSocketAddress> targets, long deadline)
            throws IOException, VerificationException {
        IOException last = null;
        boolean timedOut = false;
        for (InetSocketAddress target : targets) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                break;
            }
            Socket socket = new Socket();
            try {
                socket.connect(target, (int) Math.max(1, Math.min(connectTimeout.toMillis(), left)));
                return socket;
            } catch (IOException e) {
                socket.close();
                timedOut |= e instanceof SocketTimeoutException;
                last = e;
            }
        }
        throw new VerificationException(CERT_FETCH_FAILED, "Connecting to " + url.host() + " for " + url + " "
                + (timedOut || last == null
                        ? "timed out (limit " + connectTimeout.toMillis() + " ms)"
                        : last instanceof ConnectException
                                ? "failed: the server refused the connection"
                                : "failed: the server could not be reached"),
                last);
    }

    /** A failure after connecting, in plain words: the exception's own text may describe the inside of a network. */
    private static VerificationException failed(CertificateUrl url, IOException e) {
        String why;
        if (e instanceof SSLException) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            why = root instanceof java.security.cert.CertPathValidatorException
                    || root.getClass().getName().endsWith("CertPathBuilderException")
                    || String.valueOf(root.getMessage()).contains("unable to find valid certification path")
                            ? "the server's TLS certificate is not trusted"
                            : root instanceof java.security.cert.CertificateException
                                    ? "the server's TLS certificate is not valid for " + url.host()
                                    : "the TLS handshake failed";
            why += " (the server must present a publicly trusted certificate for the host)";
        } else if (e instanceof java.net.SocketException) {
            why = "the server closed or reset the connection";
        } else {
            why = "the server's answer could not be read";
        }
        return new VerificationException(CERT_FETCH_FAILED, "Downloading " + url + " failed: " + why, e);
    }

    private byte[] readResponse(DeadlineInput in, CertificateUrl url) throws IOException, VerificationException {
        String statusLine = in.readLine(MAX_HEADER_BYTES);
        String[] status = statusLine.split(" ", 3);
        if (status.length < 2 || !status[0].startsWith("HTTP/1.")) {
            throw new VerificationException(CERT_FETCH_FAILED, "Downloading " + url + ": not an HTTP/1.x response");
        }
        int code;
        try {
            code = Integer.parseInt(status[1]);
        } catch (NumberFormatException e) {
            throw new VerificationException(CERT_FETCH_FAILED, "Downloading " + url + ": bad status line");
        }
        long contentLength = -1;
        boolean chunked = false;
        int headerBytes = statusLine.length();
        while (true) {
            String line = in.readLine(MAX_HEADER_BYTES);
            headerBytes += line.length() + 2;
            if (headerBytes > MAX_HEADER_BYTES) {
                throw new VerificationException(CERT_FETCH_FAILED,
                        "Downloading " + url + ": response headers too large");
            }
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            if (name.equals("content-length")) {
                try {
                    long parsed = Long.parseLong(value);
                    if (parsed < 0 || (contentLength >= 0 && contentLength != parsed)) {
                        throw new NumberFormatException("negative or conflicting");
                    }
                    contentLength = parsed;
                } catch (NumberFormatException e) {
                    throw new VerificationException(CERT_FETCH_FAILED, "Downloading " + url + ": bad Content-Length");
                }
            } else if (name.equals("transfer-encoding")) {
                chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
            }
        }
        if (code >= 300 && code < 400) {
            throw new VerificationException(CERT_FETCH_FAILED,
                    "Downloading " + url + ": the server answered " + code
                            + " (a redirect); redirects are not followed");
        }
        if (code != 200) {
            throw new VerificationException(CERT_FETCH_FAILED,
                    "Downloading " + url + ": the server answered " + code + ", not 200");
        }
        if (contentLength > maxBytes) {
            throw tooLarge(url);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            while (true) {
                String sizeLine = in.readLine(1024);
                int semi = sizeLine.indexOf(';');
                long size;
                try {
                    size = Long.parseLong((semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim(), 16);
                } catch (NumberFormatException e) {
                    throw new VerificationException(CERT_FETCH_FAILED, "Downloading " + url + ": bad chunk size");
                }
                if (size < 0) {
                    throw new VerificationException(CERT_FETCH_FAILED, "Downloading " + url + ": bad chunk size");
                }
                if (size == 0) {
                    break;
                }
                if (size > maxBytes - body.size()) {
                    throw tooLarge(url);
                }
                in.copy(body, size);
                in.readLine(2);
            }
        } else if (contentLength >= 0) {
            in.copy(body, contentLength);
        } else {
            in.copyToEnd(body, maxBytes + 1L);
            if (body.size() > maxBytes) {
                throw tooLarge(url);
            }
        }
        return body.toByteArray();
    }

    private VerificationException tooLarge(CertificateUrl url) {
        return new VerificationException(CERT_FETCH_FAILED,
                "Downloading " + url + ": the response is larger than " + maxBytes + " bytes");
    }

    private static int remainingMillis(long deadline) throws SocketTimeoutException {
        long ms = (deadline - System.nanoTime()) / 1_000_000;
        if (ms <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, ms);
    }

    /** One daemon thread that closes sockets whose deadline passed; idle unless a download is running. */
    private static final class Watchdog {
        private static final ScheduledThreadPoolExecutor TIMER;

        static {
            TIMER = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "certificate-fetch-watchdog");
                t.setDaemon(true);
                return t;
            });
            TIMER.setRemoveOnCancelPolicy(true);
        }

        static ScheduledFuture<?> closeAt(Socket socket, Duration after) {
            return TIMER.schedule(() -> {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing is all we want
                }
            }, Math.max(1, after.toMillis()), TimeUnit.MILLISECONDS);
        }
    }

    /** Reads from the socket, re-arming the socket time-out so the whole response respects one deadline. */
    private static final class DeadlineInput {
        private final Socket socket;
        private final InputStream in;
        private final long deadline;

        DeadlineInput(Socket socket, long deadline) throws IOException {
            this.socket = socket;
            this.in = new java.io.BufferedInputStream(socket.getInputStream(), 8192);
            this.deadline = deadline;
        }

        private int read() throws IOException {
            socket.setSoTimeout(remainingMillis(deadline));
            return in.read();
        }

        String readLine(int max) throws IOException {
            StringBuilder sb = new StringBuilder();
            while (true) {
                int b = read();
                if (b < 0) {
                    throw new IOException("connection closed in the middle of the response");
                }
                if (b == '\n') {
                    int len = sb.length();
                    if (len > 0 && sb.charAt(len - 1) == '\r') {
                        sb.setLength(len - 1);
                    }
                    return sb.toString();
                }
                if (sb.length() >= max) {
                    throw new IOException("response line too long");
                }
                sb.append((char) b);
            }
        }

        void copy(ByteArrayOutputStream out, long count) throws IOException {
            byte[] buf = new byte[8192];
            long left = count;
            while (left > 0) {
                socket.setSoTimeout(remainingMillis(deadline));
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) {
                    throw new IOException("connection closed before the whole body arrived");
                }
                out.write(buf, 0, n);
                left -= n;
            }
        }

        void copyToEnd(ByteArrayOutputStream out, long limit) throws IOException {
            byte[] buf = new byte[8192];
            while (out.size() < limit) {
                socket.setSoTimeout(remainingMillis(deadline));
                int n = in.read(buf, 0, (int) Math.min(buf.length, limit - out.size()));
                if (n < 0) {
                    return;
                }
                out.write(buf, 0, n);
            }
        }
    }
}
