package com.convplatform.support;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.smallrye.openapi.runtime.OpenApiConstants;
import io.quarkus.smallrye.openapi.runtime.OpenApiDocumentService;
import io.smallrye.openapi.runtime.io.Format;

/**
 * The methods a path takes, for the {@code Allow} header that a 405 must carry (RFC 9110, 15.5.6), which Quarkus REST
 * leaves out. Read from the service's generated OpenAPI document, which lists every endpoint from the resources
 * themselves: the templates of the most literal characters that match the path (as JAX-RS picks one), their methods,
 * HEAD beside GET and OPTIONS, which Quarkus REST answers for every path. Read once, at the first 405.
 */
@ApplicationScoped
public class AllowedMethods {
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");
    private final OpenApiDocumentService documents;
    private final ObjectMapper json;
    private volatile List<Template> templates;

    public AllowedMethods(OpenApiDocumentService documents, ObjectMapper json) {
        this.documents = documents;
        this.json = json;
    }

    private record Template(Pattern path, int literals, Set<String> methods) {
    }

    /** The {@code Allow} value for {@code path}; null when no endpoint has that path. */
    public String of(String path) {
        int best = -1;
        Set<String> allowed = new TreeSet<>();
        for (Template t : templates()) {
            if (t.literals() >= best && t.path().matcher(path).matches()) {
                if (t.literals() > best) {
                    allowed.clear();
                    best = t.literals();
                }
                allowed.addAll(t.methods());
            }
        }
        if (allowed.isEmpty()) {
            return null;
        }
        if (allowed.contains("GET")) {
            allowed.add("HEAD");
        }
        allowed.add("OPTIONS");
        return String.join(", ", allowed);
    }

    private List<Template> templates() {
        if (templates == null) {
            List<Template> read = new ArrayList<>();
            try {
                JsonNode paths = json.readTree(documents.getDocument(OpenApiConstants.DEFAULT_DOCUMENT_NAME,
                        Format.JSON)).path("paths");
                paths.fieldNames().forEachRemaining(name -> {
                    Set<String> methods = new TreeSet<>();
                    paths.get(name).fieldNames().forEachRemaining(m -> {
                        if (METHODS.contains(m)) {
                            methods.add(m.toUpperCase(Locale.ROOT));
                        }
                    });
                    String base = name.length() > 1 && name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
                    String literal = base.replaceAll("\\{[^}]*}", "");
                    String regex = Pattern.quote(base).replaceAll("\\{[^}]*}", "\\\\E[^/]+\\\\Q");
                    read.add(new Template(Pattern.compile(regex + "/?"), literal.length(), methods));
                });
            } catch (IOException | RuntimeException e) {
                return List.of(); // no document: no Allow header, the 405 itself stands
            }
            templates = read;
        }
        return templates;
    }
}
