package com.convplatform.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Objects;

import com.convplatform.cli.cert.CertCommand;
import com.convplatform.cli.check.CheckChainCommand;
import com.convplatform.cli.check.CheckUrlCommand;
import com.convplatform.cli.hook.ReceiveHooksCommand;
import com.convplatform.cli.hook.VerifyHookCommand;
import com.convplatform.cli.request.RequestCommand;
import com.convplatform.cli.sign.SignCommand;
import com.convplatform.cli.support.CliException;
import com.convplatform.cli.support.ExitCodes;
import com.convplatform.cli.support.VersionProvider;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The integrators' and operators' command line: make a key and certificate, sign a body, send a signed management
 * request, and check certificate URLs, chains and hooks with exactly the rules the platform applies (all from
 * crypto-common). Exit codes are in {@link ExitCodes}.
 */
@Command(name = "platform-cli", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, description = {
        "Sign and check what crosses the platform's signed interfaces, with the platform's own rules.",
        "Exit codes: 0 ok, 1 check failed or error answer, 2 usage error, 3 platform unreachable,"
                + " 4 internal error."}, subcommands = {CertCommand.class, SignCommand.class, RequestCommand.class,
                        CheckUrlCommand.class,
                        CheckChainCommand.class, VerifyHookCommand.class, ReceiveHooksCommand.class,
                        CommandLine.HelpCommand.class})
public final class PlatformCli {

    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Show more: the request sent and the answer's headers (request), and stack traces of errors.")
    boolean verbose;

    private final Clock clock;
    private final InputStream stdin;

    /** The real command line: system clock, standard input. */
    public PlatformCli() {
        this(Clock.systemUTC(), System.in);
    }

    /** A command line with its own clock (time stamps, validity) and standard input, for tests. */
    public PlatformCli(Clock clock, InputStream stdin) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.stdin = Objects.requireNonNull(stdin, "stdin");
    }

    public static void main(String[] args) {
        System.exit(commandLine(new PlatformCli()).execute(args));
    }

    /** The configured picocli command line around {@code root}: our exit codes and error messages. */
    public static CommandLine commandLine(PlatformCli root) {
        CommandLine cl = new CommandLine(root);
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> handleExecutionError(root, ex, cmd));
        cl.setParameterExceptionHandler(PlatformCli::handleUsageError);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        return cl;
    }

    /** The root of {@code spec}'s command hierarchy. */
    public static PlatformCli root(CommandSpec spec) {
        CommandSpec s = spec;
        while (s.parent() != null) {
            s = s.parent();
        }
        return (PlatformCli) s.userObject();
    }

    public Clock clock() {
        return clock;
    }

    public InputStream stdin() {
        return stdin;
    }

    public boolean verbose() {
        return verbose;
    }

    private static int handleExecutionError(PlatformCli root, Exception ex, CommandLine cmd) {
        PrintWriter err = cmd.getErr();
        int code;
        if (ex instanceof CliException ce) {
            err.println("error: " + ce.getMessage());
            code = ce.exitCode();
        } else {
            err.println("error: unexpected " + ex.getClass().getSimpleName()
                    + (ex.getMessage() == null ? "" : ": " + ex.getMessage()));
            err.println("This is a bug in platform-cli. Rerun with --verbose and report the stack trace.");
            code = ExitCodes.INTERNAL;
        }
        if (root.verbose) {
            ex.printStackTrace(err);
        } else if (ex.getCause() != null && code == ExitCodes.UNREACHABLE) {
            err.println("(rerun with --verbose for the underlying error)");
        }
        err.flush();
        return code;
    }

    private static int handleUsageError(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        // picocli starts some of its messages (argument groups) with "Error: " itself; say it once.
        String message = String.valueOf(ex.getMessage()).replaceFirst("^Error: ", "");
        err.println("error: " + message);
        UnmatchedArgumentException.printSuggestions(ex, err);
        if (cmd.getCommandSpec().subcommands().isEmpty() || !message.startsWith("Missing")) {
            err.print(cmd.getHelp().synopsisHeading() + cmd.getHelp().synopsis(0));
        } else {
            err.print(cmd.getUsageMessage());
        }
        err.println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for every option.");
        err.flush();
        return ExitCodes.USAGE;
    }
}
