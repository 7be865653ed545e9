package com.convplatform.cli.hook;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.convplatform.cli.PlatformCli;
import com.convplatform.cli.support.CliException;
import com.convplatform.cli.support.ExitCodes;
import com.convplatform.cli.support.Hints;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.hook.HookVerifier;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code receive-hooks}: a local hook receiver for trying an integration. Every POST is verified with crypto-common's
 * {@link HookVerifier}, exactly as {@code verify-hook} does, and answered 200 when verified and 400 when not (spec 4.4
 * and 5.2: what a receiver must do), with one line per hook on standard output.
 */
@Command(name = "receive-hooks", mixinStandardHelpOptions = true, description = {
        "Listen for hooks on this machine and verify each one as a receiver must (the checks of verify-hook).",
        "Answers 200 to a verified hook and 400 to any other POST (spec 4.4, 5.2); prints VERIFIED or NOT VERIFIED.",
        "With --count N it exits after N hooks: 0 when all were verified, 1 otherwise or when --timeout passes."})
public final class ReceiveHooksCommand implements Callable<Integer> {
    private static final int MAX_BODY = 1024 * 1024;

    @Spec
    CommandSpec spec;

    @Option(names = "--port", required = true, paramLabel = "PORT", description = "Port to listen on.")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1", paramLabel = "ADDRESS", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--count", defaultValue = "0", paramLabel = "N", description = "Exit after N hooks (default: run until stopped).")
    int count;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "With --count: give up after this many seconds (exit 1).")
    Long timeoutSeconds;

    @Option(names = "--out-dir", paramLabel = "DIR", description = "Save each hook's raw body as <delivery id>-<attempt>.json in DIR.")
    Path outDir;

    @Mixin
    VerifierOptions verifierOptions;

    @Override
    public Integer call() throws Exception {
        PlatformCli root = PlatformCli.root(spec);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (port < 1 || port > 65535) {
            throw CliException.usage("--port must be 1 to 65535, got " + port);
        }
        if (count < 0 || (timeoutSeconds != null && timeoutSeconds <= 0)) {
            throw CliException.usage("--count must be 0 or more and --timeout more than 0");
        }
        if (outDir != null) {
            Files.createDirectories(outDir);
        }
        HookVerifier verifier = verifierOptions.build(root.clock());
        CountDownLatch done = new CountDownLatch(count == 0 ? 1 : count);
        AtomicInteger failed = new AtomicInteger();
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 64);
        } catch (BindException e) {
            throw CliException.usage("--port " + port + " on " + host + " is in use or not allowed: " + e.getMessage(),
                    e);
        }
        server.setExecutor(Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "receive-hooks");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", exchange -> {
            try {
                handle(exchange, verifier, out, failed);
                if (count > 0) {
                    done.countDown();
                }
            } finally {
                exchange.close();
            }
        });
        server.start();
        err.println("receiving hooks on http://" + host + ":" + server.getAddress().getPort() + "/ (any path)"
                + (count > 0 ? "; exits after " + count + " hook(s)" : "; Ctrl-C stops"));
        err.flush();
        try {
            if (timeoutSeconds == null) {
                done.await();
            } else if (!done.await(timeoutSeconds, TimeUnit.SECONDS)) {
                err.println("timed out after " + timeoutSeconds + " s with " + (count - done.getCount()) + " of "
                        + count + " hook(s)");
                return ExitCodes.FAILED;
            }
            return failed.get() == 0 ? ExitCodes.OK : ExitCodes.FAILED;
        } finally {
            server.stop(0);
        }
    }

    private void handle(HttpExchange exchange, HookVerifier verifier, PrintWriter out, AtomicInteger failed)
            throws IOException {
        String delivery = header(exchange, "X-Hook-Delivery-Id", "-");
        String attempt = header(exchange, "X-Hook-Attempt", "-");
        if (!"POST".equals(exchange.getRequestMethod())) {
            respond(exchange, 405, "{\"error\":\"hooks are POSTed\"}");
            return;
        }
        byte[] body = exchange.getRequestBody().readNBytes(MAX_BODY + 1);
        StringWriter report = new StringWriter();
        PrintWriter line = new PrintWriter(report);
        boolean ok;
        String refusal = "{\"error_code\":\"BODY_TOO_LARGE\",\"error_message\":\"not verified\"}";
        if (body.length > MAX_BODY) {
            line.println("NOT VERIFIED delivery=" + delivery + ": body over " + MAX_BODY + " bytes");
            ok = false;
        } else {
            try {
                HookVerifier.Verified v = verifier.verify(header(exchange, "signature", null),
                        header(exchange, "signature-certificate-url", null), body);
                line.println("VERIFIED delivery=" + delivery + " attempt=" + attempt + " path="
                        + exchange.getRequestURI().getPath() + " signed by "
                        + v.chain().leaf().getSubjectX500Principal().getName() + " at " + v.signatureTimestamp());
                line.println("  " + new String(body, StandardCharsets.UTF_8));
                ok = true;
            } catch (VerificationException e) {
                Hints.print(line, "NOT VERIFIED delivery=" + delivery + ":", e, Hints.Side.HOOK);
                refusal = "{\"error_code\":\"" + e.code() + "\",\"error_message\":\"not verified\"}";
                ok = false;
            }
        }
        if (outDir != null && body.length <= MAX_BODY) {
            String name = (delivery + "-" + attempt).replaceAll("[^A-Za-z0-9._-]", "_") + ".json";
            try {
                Files.write(outDir.resolve(name), body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (!ok) {
            failed.incrementAndGet();
        }
        synchronized (out) {
            line.flush();
            out.print(report);
            out.flush();
        }
        respond(exchange, ok ? 200 : 400, ok ? "{}" : refusal);
    }

    private static String header(HttpExchange exchange, String name, String otherwise) {
        String v = exchange.getRequestHeaders().getFirst(name);
        return v == null ? otherwise : v;
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, b.length);
        try (OutputStream o = exchange.getResponseBody()) {
            o.write(b);
        }
    }
}
