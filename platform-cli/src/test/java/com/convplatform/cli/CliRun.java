package com.convplatform.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Arrays;

import picocli.CommandLine;

/** Runs the command line in-process, as {@code main} would, capturing standard output and standard error. */
public final class CliRun {
    /**
     * @param exitCode what main would exit with
     * @param out standard output
     * @param err standard error
     */
    public record Result(int exitCode, String out, String err) {
        /** Both streams, for failure messages. */
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- out ---\n" + out + "--- err ---\n" + err;
        }
    }

    private CliRun() {
    }

    public static Result run(String... args) {
        return run(Clock.systemUTC(), InputStream.nullInputStream(), args);
    }

    public static Result runWithStdin(byte[] stdin, String... args) {
        return run(Clock.systemUTC(), new ByteArrayInputStream(stdin), args);
    }

    public static Result run(Clock clock, InputStream stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = PlatformCli.commandLine(new PlatformCli(clock, stdin));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        Result result = new Result(code, out.toString(), err.toString());
        boolean verbose = Arrays.asList(args).contains("--verbose");
        if (!verbose) {
            // Never a stack trace without --verbose, whatever happened.
            assertFalse(result.err().contains("\tat ") || result.out().contains("\tat "),
                    () -> "stack trace printed without --verbose:\n" + result);
        }
        return result;
    }
}
