package com.convplatform.cli.request;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import com.convplatform.cli.PlatformCli;
import com.convplatform.cli.support.CliException;
import com.convplatform.cli.support.ExitCodes;
import com.convplatform.cli.support.Hints;
import com.convplatform.cli.support.Inputs;
import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.json.JsonFields;
import com.convplatform.crypto.management.ManagementHeaders;
import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.crypto.url.ManagementCertUrlRule;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The common part of {@code request token} and {@code request clients}: build the JSON body with a fresh timestamp,
 * sign its exact bytes with crypto-common's {@link ManagementRequestSigner}, send it with the certificate header, and
 * print the answer.
 */
abstract class SignedRequestCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--base-url", required = true, paramLabel = "URL", description = "The platform's address, e.g. https://platform.example or http://localhost:8081.")
    String baseUrl;

    @Option(names = "--fqdn", required = true, paramLabel = "FQDN", description = "Your account's FQDN, sent in the body as 'fqdn'.")
    String fqdn;

    @Option(names = "--key", required = true, paramLabel = "FILE", description = "PEM private key of the certificate you name (PKCS#8, PKCS#1 RSA or SEC1 EC).")
    Path key;

    @ArgGroup(exclusive = true, multiplicity = "1")
    CertificateRef certificate;

    static final class CertificateRef {
        @Option(names = "--cert-url", required = true, paramLabel = "URL", description = "Sent as SignatureCertChainUrl: where the platform downloads your CA-signed chain"
                + " (https://<fqdn>/client.api/...).")
        String url;

        @Option(names = "--cert-uuid", required = true, paramLabel = "ID", description = "Sent as SignatureCertUUID: the id the platform gave your registered self-signed"
                + " certificate.")
        String uuid;
    }

    @Option(names = "--insecure-trust", paramLabel = "FILE", description = "Also trust these CA certificates (PEM) for the HTTPS connection to the platform, e.g. a"
            + " local or staging CA; repeatable. Off by default: only this JVM's roots are trusted.")
    List<Path> insecureTrust = new ArrayList<>();

    @Option(names = "--connect-timeout", defaultValue = "10", paramLabel = "SECONDS", description = "Seconds to wait for the connection (default: ${DEFAULT-VALUE}).")
    int connectTimeoutSeconds;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "SECONDS", description = "Seconds to wait for the answer (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(names = "--dry-run", description = "Print the signed request instead of sending it.")
    boolean dryRun;

    @Option(names = "--sha1-only", description = "Send the Signature header only (SHA-1, as the specification names"
            + " it), not Signature-256 beside it, for a platform that does not take Signature-256. An account that"
            + " requires SHA-256 refuses such a request.")
    boolean sha1Only;

    /** The endpoint path, appended to the base URL. */
    abstract String path();

    /** The body fields in the order they are written. */
    abstract Map<String, String> fields(String timestamp);

    /** A field of a successful answer to print alone instead of the status and body (for scripts). */
    Optional<String> onlyField() {
        return Optional.empty();
    }

    @Override
    public Integer call() {
        PlatformCli root = PlatformCli.root(spec);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        URI target = target();
        if (connectTimeoutSeconds < 1 || timeoutSeconds < 1) {
            throw CliException.usage("--connect-timeout and --timeout must be at least 1 second");
        }
        PrivateKey privateKey = Inputs.readPrivateKey(key, "--key");
        List<X509Certificate> extraRoots = Inputs.readTrustRoots(insecureTrust, "--insecure-trust");
        ManagementRequestSigner signer;
        try {
            signer = new ManagementRequestSigner(privateKey);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("The --key file '" + key + "' holds a " + privateKey.getAlgorithm()
                    + " key; management requests are signed with RSA or EC keys", e);
        }
        warnAboutCertificateUrl(err);

        byte[] body = json(fields(TimestampWindow.now(root.clock())));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.putAll(signer.headers(body, sha1Only)); // Signature and Signature-256, over these exact bytes
        if (certificate.url != null) {
            headers.put(ManagementHeaders.CERT_CHAIN_URL, certificate.url);
        } else {
            headers.put(ManagementHeaders.CERT_UUID, certificate.uuid);
        }

        if (dryRun) {
            printRequest(out, "", target, headers, body);
            out.println("(not sent: --dry-run; signed with " + signer.algorithm().jcaName()
                    + (sha1Only ? "" : " and " + signer.algorithm256().jcaName()) + ")");
            return ExitCodes.OK;
        }
        if (root.verbose()) {
            printRequest(err, "> ", target, headers, body);
        }
        if (target.getScheme().equalsIgnoreCase("http") && !isLoopback(target.getHost())) {
            err.println("warning: sending over plain http to " + target.getHost()
                    + "; use https for anything but a local service");
        }
        ManagementClient.Answer answer = new ManagementClient(extraRoots, Duration.ofSeconds(connectTimeoutSeconds),
                Duration.ofSeconds(timeoutSeconds)).post(target, headers, body);
        if (root.verbose()) {
            answer.headers().forEach((name, values) -> values.forEach(v -> err.println("< " + name + ": " + v)));
        }
        boolean ok = answer.status() >= 200 && answer.status() < 300;
        Optional<String> only = ok ? onlyField().flatMap(f -> field(answer.body(), f)) : Optional.empty();
        if (only.isPresent()) {
            out.println(only.get());
            out.flush();
            return ExitCodes.OK;
        }
        out.println("HTTP " + answer.status());
        String text = new String(answer.body(), StandardCharsets.UTF_8);
        if (!text.isEmpty()) {
            out.println(text.endsWith("\n") ? text.substring(0, text.length() - 1) : text);
        }
        out.flush();
        if (answer.status() >= 200 && answer.status() < 300) {
            return ExitCodes.OK;
        }
        explain(err, target, answer);
        return ExitCodes.FAILED;
    }

    private URI target() {
        URI base;
        try {
            base = new URI(baseUrl.trim());
        } catch (URISyntaxException e) {
            throw CliException.usage("--base-url '" + baseUrl + "' is not a URL: " + e.getReason()
                    + "; expected e.g. https://platform.example", e);
        }
        String scheme = base.getScheme() == null ? "" : base.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("https") || scheme.equals("http")) || base.getHost() == null) {
            throw CliException.usage("--base-url '" + baseUrl + "' must be an absolute http(s) URL with a host,"
                    + " e.g. https://platform.example or http://localhost:8081");
        }
        if (base.getRawQuery() != null || base.getRawFragment() != null || base.getRawUserInfo() != null) {
            throw CliException.usage("--base-url '" + baseUrl + "' may not have a user, query or fragment; give the"
                    + " platform's address only");
        }
        String prefix = base.getRawPath() == null ? "" : base.getRawPath().replaceAll("/+$", "");
        return URI.create(scheme + "://" + base.getRawAuthority() + prefix + path());
    }

    /** The platform will refuse a chain URL that breaks its rule; say so before sending, but still send. */
    private void warnAboutCertificateUrl(PrintWriter err) {
        if (certificate.url == null) {
            return;
        }
        try {
            new ManagementCertUrlRule(fqdn).check(certificate.url);
        } catch (VerificationException e) {
            err.println("warning: the platform will refuse this --cert-url: " + e.code() + ": " + e.getMessage());
            err.println("  fix: " + Hints.fix(e.code(), Hints.Side.MANAGEMENT));
        }
    }

    private static byte[] json(Map<String, String> fields) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(bytes, JsonEncoding.UTF8)) {
            g.writeStartObject();
            for (Map.Entry<String, String> f : fields.entrySet()) {
                g.writeStringField(f.getKey(), f.getValue());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot write the request body", e);
        }
        return bytes.toByteArray();
    }

    private static void printRequest(PrintWriter w, String prefix, URI target, Map<String, String> headers,
            byte[] body) {
        w.println(prefix + "POST " + target);
        headers.forEach((name, value) -> w.println(prefix + name + ": " + value));
        w.println(prefix.stripTrailing());
        w.println(prefix + new String(body, StandardCharsets.UTF_8));
        w.flush();
    }

    private void explain(PrintWriter err, URI target, ManagementClient.Answer answer) {
        int status = answer.status();
        Optional<String> code = field(answer.body(), "error_code");
        if (status >= 300 && status < 400) {
            err.println("The platform answered with a redirect" + answer.headers().getOrDefault("location",
                    List.of()).stream().findFirst().map(l -> " to " + l).orElse("")
                    + "; signed requests are not followed. If that address is the platform, pass it as --base-url.");
        } else if (status == 404 && code.isEmpty()) {
            err.println("Nothing answers at " + target + ": check --base-url (the platform's address, without the"
                    + " /platform/management/... path).");
        } else if (status >= 500) {
            err.println("The platform failed to handle the request (HTTP " + status + "); this is not your"
                    + " signature. Retry later, and give the platform the time of the request.");
        }
        code.ifPresent(c -> {
            FailureCode failure = failureCode(c);
            String message = field(answer.body(), "error_message").orElse("");
            if (failure != null) {
                err.println("The platform refused the request: " + c + (message.isEmpty() ? "" : ": " + message));
                err.println("  means: " + failure.summary());
                err.println("  fix:   " + Hints.fix(failure, Hints.Side.MANAGEMENT));
            } else {
                err.println("The platform refused the request: " + c + (message.isEmpty() ? "" : ": " + message));
                if (c.equals("NOT_AUTHENTICATED")) {
                    Hints.notAuthenticated(fqdn, certificate.url, certificate.uuid, key, answer.headers()
                            .getOrDefault("x-request-id", List.of()).stream().findFirst().orElse(null))
                            .forEach(err::println);
                }
            }
        });
        err.flush();
    }

    private static FailureCode failureCode(String code) {
        for (FailureCode f : FailureCode.values()) {
            if (f.name().equals(code)) {
                return f;
            }
        }
        return null;
    }

    private static Optional<String> field(byte[] body, String name) {
        try {
            return JsonFields.topLevelString(body, name);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static boolean isLoopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]");
    }
}
