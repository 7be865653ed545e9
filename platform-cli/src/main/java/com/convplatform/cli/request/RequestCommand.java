package com.convplatform.cli.request;

import picocli.CommandLine.Command;

/** {@code request}: send a signed management request to the platform. */
@Command(name = "request", mixinStandardHelpOptions = true, description = {
        "Send a signed management request (spec 5.1) and print the status and body.",
        "Exit 0 on 2xx, 1 on any other answer, 2 on a usage error, 3 when the platform cannot be reached."}, subcommands = {
                TokenCommand.class, ClientsCommand.class})
public final class RequestCommand {
}
