package com.convplatform.cli.request;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.net.ssl.SSLException;

import com.convplatform.cli.support.CliException;
import com.convplatform.cli.support.ExitCodes;
import com.convplatform.crypto.fetch.TlsTrust;

/**
 * Sends one POST with {@link HttpClient}: HTTP/1.1, redirects never followed, the JVM's roots plus any extra CA for
 * TLS. Failing to reach the platform is a {@link CliException} with exit code {@link ExitCodes#UNREACHABLE} whose
 * message says what to check.
 */
final class ManagementClient {
    /**
     * The platform's answer.
     *
     * @param status the HTTP status
     * @param headers response headers, lower-case names
     * @param body the body bytes
     */
    record Answer(int status, Map<String, List<String>> headers, byte[] body) {
    }

    private final HttpClient client;
    private final Duration timeout;
    private final Duration connectTimeout;
    private final boolean extraTrust;

    ManagementClient(List<X509Certificate> extraRoots, Duration connectTimeout, Duration timeout) {
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(connectTimeout);
        if (!extraRoots.isEmpty()) {
            builder.sslContext(TlsTrust.withExtraRoots(extraRoots));
        }
        this.client = builder.build();
        this.timeout = timeout;
        this.connectTimeout = connectTimeout;
        this.extraTrust = !extraRoots.isEmpty();
    }

    Answer post(URI target, Map<String, String> headers, byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(timeout)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        try {
            HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            Map<String, List<String>> lower = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            lower.putAll(response.headers().map());
            return new Answer(response.statusCode(), lower, response.body());
        } catch (HttpConnectTimeoutException e) {
            throw unreachable(target, "no connection within " + connectTimeout.toSeconds() + " s (is the host"
                    + " reachable from here, and the port open? raise --connect-timeout on a slow link)", e);
        } catch (HttpTimeoutException e) {
            throw unreachable(target, "connected, but no answer within " + timeout.toSeconds() + " s (raise"
                    + " --timeout, or check the platform's health)", e);
        } catch (SSLException e) {
            throw unreachable(target, "the TLS handshake failed: " + e.getMessage() + ". "
                    + (extraTrust
                            ? "Check that --insecure-trust names the CA that issued the platform's"
                                    + " certificate, and that the certificate names this host."
                            : "If the platform uses a private CA (local or staging), pass its root with"
                                    + " --insecure-trust FILE; if the port speaks plain HTTP, use http://."),
                    e);
        } catch (ConnectException e) {
            throw unreachable(target, describeConnect(e, target), e);
        } catch (IOException e) {
            if (hasCause(e, SSLException.class)) {
                throw unreachable(target, "the TLS connection failed: " + rootMessage(e)
                        + ". If the platform uses a private CA, pass it with --insecure-trust FILE.", e);
            }
            throw unreachable(target, "the connection failed: " + rootMessage(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCodes.UNREACHABLE, "Interrupted while waiting for " + target, e);
        }
    }

    private static String describeConnect(ConnectException e, URI target) {
        if (hasCause(e, UnresolvedAddressException.class)) {
            return "the host name '" + target.getHost() + "' does not resolve (check --base-url and DNS)";
        }
        String detail = firstMessage(e);
        return "the connection was refused or closed" + (detail == null ? "" : " (" + detail + ")")
                + "; is the service running on " + target.getHost() + ":" + port(target) + "?";
    }

    private static int port(URI target) {
        if (target.getPort() > 0) {
            return target.getPort();
        }
        return target.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    private static CliException unreachable(URI target, String why, Throwable cause) {
        return new CliException(ExitCodes.UNREACHABLE, "Cannot reach the platform at " + target + ": " + why,
                cause);
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static String firstMessage(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return t.getMessage();
            }
        }
        return null;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }
}
