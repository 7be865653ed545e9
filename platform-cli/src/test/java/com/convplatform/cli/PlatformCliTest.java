package com.convplatform.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlatformCliTest {
    @TempDir
    Path dir;

    @Test
    void helpListsEveryCommand() {
        CliRun.Result r = CliRun.run("--help");

        assertEquals(0, r.exitCode(), r::toString);
        for (String command : new String[]{"cert", "sign", "request", "check-url", "check-chain", "verify-hook"}) {
            assertTrue(r.out().contains("  " + command + " "), () -> command + " missing from\n" + r);
        }
        assertTrue(r.out().contains("Exit codes"), r::toString);
    }

    @Test
    void everyCommandHasHelp() {
        String[][] commands = {{"cert", "create"}, {"sign"}, {"request", "token"}, {"request", "clients"},
                {"check-url"}, {"check-chain"}, {"verify-hook"}};
        for (String[] command : commands) {
            String[] args = Arrays.copyOf(command, command.length + 1);
            args[command.length] = "--help";
            CliRun.Result r = CliRun.run(args);
            assertEquals(0, r.exitCode(), r::toString);
            assertTrue(r.out().startsWith("Usage: platform-cli " + String.join(" ", command)), r::toString);
        }
        CliRun.Result viaHelp = CliRun.run("help", "check-url");
        assertEquals(0, viaHelp.exitCode(), viaHelp::toString);
        assertTrue(viaHelp.out().contains("--kind"), viaHelp::toString);
    }

    @Test
    void versionNamesTheBuild() {
        CliRun.Result r = CliRun.run("--version");

        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(r.out().matches("(?s)platform-cli \\d+\\.\\d+\\.\\d+.*"), r::toString);
    }

    @Test
    void noCommandIsAUsageErrorThatListsTheCommands() {
        CliRun.Result r = CliRun.run();

        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains("Missing required subcommand"), r::toString);
        assertTrue(r.err().contains("check-chain"), "lists the commands: " + r);
    }

    @Test
    void aUsageErrorSaysErrorOnce() {
        // picocli's argument-group messages carry their own "Error: " prefix: one of each kind.
        CliRun.Result exclusive = CliRun.run("cert", "create", "--fqdn", "a.example", "--rsa", "--ec");
        CliRun.Result missing = CliRun.run("request", "token", "--base-url", "http://127.0.0.1:9", "--fqdn",
                "a.example", "--client-id", "c", "--key", dir.resolve("key.pem").toString());

        assertEquals(2, exclusive.exitCode(), exclusive::toString);
        assertTrue(exclusive.err().startsWith("error: --rsa, --ec are mutually exclusive"), exclusive::toString);
        assertEquals(2, missing.exitCode(), missing::toString);
        assertTrue(missing.err().startsWith("error: Missing required argument"), missing::toString);
        for (CliRun.Result r : new CliRun.Result[]{exclusive, missing}) {
            assertFalse(r.err().toLowerCase(Locale.ROOT).contains("error: error"), r::toString);
            assertTrue(r.err().contains("Usage: platform-cli "), "the synopsis follows: " + r);
        }
    }

    @Test
    void unknownCommandSuggestsTheNearestOne() {
        CliRun.Result r = CliRun.run("check-urls");

        assertEquals(2, r.exitCode(), r::toString);
        assertTrue(r.err().contains("check-url"), r::toString);
        assertTrue(r.err().contains("Run 'platform-cli --help'"), r::toString);
    }

    @Test
    void unexpectedErrorsAreExitCodeFourWithAStackTraceOnlyWhenVerbose() {
        Clock broken = new Clock() {
            @Override
            public Instant instant() {
                throw new IllegalStateException("clock exploded");
            }

            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }
        };
        String[] args = {"cert", "create", "--fqdn", "client.example.com", "--out-key",
                dir.resolve("k.pem").toString(), "--out-cert", dir.resolve("c.pem").toString()};

        CliRun.Result quiet = CliRun.run(broken, InputStream.nullInputStream(), args);
        assertEquals(4, quiet.exitCode(), quiet::toString);
        assertTrue(quiet.err().contains("clock exploded") && quiet.err().contains("--verbose"), quiet::toString);

        String[] verboseArgs = Arrays.copyOf(args, args.length + 1);
        verboseArgs[args.length] = "--verbose";
        CliRun.Result verbose = CliRun.run(broken, InputStream.nullInputStream(), verboseArgs);
        assertEquals(4, verbose.exitCode(), verbose::toString);
        assertTrue(verbose.err().contains("\tat "), "stack trace with --verbose: " + verbose);
        assertFalse(dir.resolve("k.pem").toFile().exists(), "nothing written");
    }
}
