package com.convplatform.cli.cert;

import picocli.CommandLine.Command;

/** {@code cert}: certificate tasks for integrators. */
@Command(name = "cert", mixinStandardHelpOptions = true, description = "Make keys and certificates.", subcommands = CertCreateCommand.class)
public final class CertCommand {
}
