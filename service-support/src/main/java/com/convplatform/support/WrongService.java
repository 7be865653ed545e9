package com.convplatform.support;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Which of the platform's services serves a path that this one does not: a request sent to the wrong port (a token
 * request at upload-service, an upload at management-service) is answered 404 {@code WRONG_SERVICE} naming the right
 * service, rather than a bare "nothing is served here". Only the paths an integrator calls are listed; the operator and
 * internal APIs ({@code /admin/v1}, {@code /internal/v1}) are on every service.
 */
@ApplicationScoped
public class WrongService {
    private record Owner(String prefix, String service, int localPort) {
    }

    private static final List<Owner> OWNERS = List.of(new Owner("/platform/management/", "management-service", 8081),
            new Owner("/jwt/issue", "management-service", 8081),
            new Owner("/platform/hooks/", "hook-service", 8082),
            new Owner("/v1.0/log_file_from_user", "upload-service", 8083));

    private final String self;

    public WrongService(@ConfigProperty(name = "quarkus.application.name") String self) {
        this.self = self;
    }

    /** This service's name. */
    public String self() {
        return self;
    }

    /** The service that serves {@code path} and where a local run has it, or null (this one's, or nobody's). */
    public String owner(String path) {
        if (path == null) {
            return null;
        }
        String p = path.endsWith("/") ? path : path + "/";
        for (Owner o : OWNERS) {
            String prefix = o.prefix().endsWith("/") ? o.prefix() : o.prefix() + "/";
            if (p.startsWith(prefix) && !o.service().equals(self)) {
                return o.service() + " (by default on port " + o.localPort()
                        + "; ./run-local.sh prints the ports of its run and writes them to data/local/demo/demo.env)";
            }
        }
        return null;
    }
}
