package com.convplatform.cli.request;

import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Command;

/** {@code request clients}: enumerate the account's clients (spec 4.2). */
@Command(name = "clients", mixinStandardHelpOptions = true, description = {
        "List the account's clients: POST /platform/management/clients/ with"
                + " {\"fqdn\",\"timestamp\"}."})
public final class ClientsCommand extends SignedRequestCommand {
    /** The client enumeration path (management-service). */
    public static final String PATH = "/platform/management/clients/";

    @Override
    String path() {
        return PATH;
    }

    @Override
    Map<String, String> fields(String timestamp) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("fqdn", fqdn);
        fields.put("timestamp", timestamp);
        return fields;
    }
}
