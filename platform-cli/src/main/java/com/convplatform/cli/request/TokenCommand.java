package com.convplatform.cli.request;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code request token}: issue an access token for a client (spec 4.1). */
@Command(name = "token", mixinStandardHelpOptions = true, description = {
        "Issue an access token: POST /platform/management/token/issue/ with"
                + " {\"client_id\",\"fqdn\",\"timestamp\"}."})
public final class TokenCommand extends SignedRequestCommand {
    /** The canonical token path (spec 4.1). */
    public static final String PATH = "/platform/management/token/issue/";

    @Option(names = "--client-id", required = true, paramLabel = "C", description = "The client the token is for (see 'request clients').")
    String clientId;

    @Option(names = "--token-only", description = "On success print only the access token (for TOKEN=$(...)); on failure print the status"
            + " and body as usual.")
    boolean tokenOnly;

    @Override
    Optional<String> onlyField() {
        return tokenOnly ? Optional.of("access_token") : Optional.empty();
    }

    @Override
    String path() {
        return PATH;
    }

    @Override
    Map<String, String> fields(String timestamp) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("client_id", clientId);
        fields.put("fqdn", fqdn);
        fields.put("timestamp", timestamp);
        return fields;
    }
}
