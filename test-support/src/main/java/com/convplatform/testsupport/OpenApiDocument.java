package com.convplatform.testsupport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A service's OpenAPI document ({@code /q/openapi?format=json}) as Swagger UI shows it, checked the way a person meets
 * it there: every error response (4xx, 5xx) of every operation has an example whose {@code error_code} is one of the
 * codes its description lists, and "Try it out" fills in nothing a person did not type (no parameter and no field of a
 * form carries an example, which Swagger UI would send). Each service's test then shows, for a representative set,
 * that the service really answers the example's code ({@link #exampleCode}).
 */
public final class OpenApiDocument {
    /** A stable code as the descriptions write them (service-support's OpenApiErrors reads them the same way). */
    private static final Pattern CODE = Pattern
            .compile("\\b(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|UNAUTHORIZED|FORBIDDEN)\\b");
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    private final JsonNode root;

    private OpenApiDocument(JsonNode root) {
        this.root = root;
    }

    /** Parses the JSON form of the document. */
    public static OpenApiDocument parse(String json) {
        try {
            return new OpenApiDocument(new ObjectMapper().readTree(json));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The document itself. */
    public JsonNode root() {
        return root;
    }

    /**
     * Checks every error response of every operation; returns how many were checked ("POST /path 400" to the example's
     * code), so that a caller can see that there were some.
     */
    public Map<String, String> checkErrorExamples() {
        Map<String, String> checked = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        forEachOperation((name, operation) -> operation.path("responses").fields().forEachRemaining(r -> {
            String status = r.getKey();
            if (!status.startsWith("4") && !status.startsWith("5")) {
                return;
            }
            String where = name + " " + status;
            JsonNode response = r.getValue();
            List<String> listed = codes(response.path("description").asText(""));
            JsonNode media = response.path("content").path("application/json");
            JsonNode example = media.path("example");
            if (example.isMissingNode() || example.isNull()) {
                problems.add(where + ": no example");
                return;
            }
            JsonNode code = example.path("error_code");
            if (!code.isTextual()) {
                problems.add(where + ": the example has no error_code: " + example);
            } else if (!listed.contains(code.asText())) {
                problems.add(where + ": the example's " + code.asText() + " is not among the description's codes "
                        + listed);
            } else if (!example.path("error_message").isTextual() || example.path("error_message").asText().isBlank()) {
                problems.add(where + ": the example has no error_message");
            } else {
                checked.put(where, code.asText());
            }
        }));
        if (!problems.isEmpty()) {
            fail(problems.size() + " error responses without a fitting example:\n" + String.join("\n", problems));
        }
        assertFalse(checked.isEmpty(), "no error response in the document");
        return checked;
    }

    /**
     * Every operation lists its success (a 2xx response): what a person gets when it works, in Swagger UI's Responses
     * (an operation that declares only its errors gets no success from SmallRye). Returns each operation's 2xx.
     */
    public Map<String, List<String>> checkSuccessesDocumented() {
        Map<String, List<String>> successes = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        forEachOperation((name, operation) -> {
            List<String> ok = new ArrayList<>();
            operation.path("responses").fieldNames().forEachRemaining(status -> {
                if (status.startsWith("2")) {
                    ok.add(status);
                }
            });
            if (ok.isEmpty()) {
                problems.add(name);
            }
            successes.put(name, ok);
        });
        assertTrue(problems.isEmpty(), "operations whose success the document does not list:\n"
                + String.join("\n", problems));
        assertFalse(successes.isEmpty(), "no operation in the document");
        return successes;
    }

    /** No parameter (path, query, header) and no field of a form body has an example for "Try it out" to send. */
    public void checkNothingPrefilled() {
        List<String> problems = new ArrayList<>();
        forEachOperation((name, operation) -> {
            for (JsonNode p : operation.path("parameters")) {
                JsonNode param = resolve(p);
                if (hasExample(param) || hasExample(param.path("schema"))) {
                    problems.add(name + ": parameter " + param.path("name").asText() + " has an example");
                }
            }
            operation.path("requestBody").path("content").fields().forEachRemaining(c -> {
                if (!c.getKey().startsWith("multipart/") && !c.getKey().startsWith("application/x-www-form")) {
                    return;
                }
                JsonNode form = resolve(c.getValue().path("schema"));
                form.path("properties").fields().forEachRemaining(f -> {
                    // Swagger UI fills a form field with its example, else with a sample from its schema ("string",
                    // a string matching its pattern): only an empty example leaves it empty. A file has no sample;
                    // a required list of allowed values shows its first as chosen, and must hold it (no example).
                    JsonNode field = resolve(f.getValue());
                    boolean unsampled = field.path("format").asText().equals("binary") || field.has("enum")
                            && form.path("required").toString().contains("\"" + f.getKey() + "\"");
                    boolean empty = field.path("examples").isArray() && field.path("examples").size() == 1
                            && field.path("examples").path(0).asText("x").isEmpty();
                    if (unsampled ? hasExample(field) : !empty || !field.path("example").isMissingNode()) {
                        problems.add(name + ": form field " + f.getKey() + " is not empty in Swagger UI: " + field);
                    }
                });
            });
        });
        assertTrue(problems.isEmpty(), "Swagger UI would send values nobody typed:\n" + String.join("\n", problems));
    }

    /** The code of the example of {@code status} at {@code method path}. */
    public String exampleCode(String method, String path, int status) {
        JsonNode example = root.path("paths").path(path).path(method.toLowerCase()).path("responses")
                .path(String.valueOf(status)).path("content").path("application/json").path("example");
        assertTrue(example.isObject(), method + " " + path + " " + status + " has no example");
        return example.path("error_code").asText();
    }

    /** The codes a description lists, in their order. */
    public static List<String> codes(String description) {
        List<String> codes = new ArrayList<>();
        Matcher m = CODE.matcher(description);
        while (m.find()) {
            if (!codes.contains(m.group())) {
                codes.add(m.group());
            }
        }
        return codes;
    }

    private interface OperationVisitor {
        void visit(String name, JsonNode operation);
    }

    private void forEachOperation(OperationVisitor visitor) {
        Iterator<Map.Entry<String, JsonNode>> paths = root.path("paths").fields();
        while (paths.hasNext()) {
            Map.Entry<String, JsonNode> path = paths.next();
            path.getValue().fields().forEachRemaining(op -> {
                if (METHODS.contains(op.getKey())) {
                    visitor.visit(op.getKey().toUpperCase() + " " + path.getKey(), op.getValue());
                }
            });
        }
    }

    private JsonNode resolve(JsonNode node) {
        String ref = node.path("$ref").asText(null);
        if (ref == null || !ref.startsWith("#/")) {
            return node;
        }
        JsonNode target = root;
        for (String part : ref.substring(2).split("/")) {
            target = target.path(part);
        }
        return target;
    }

    private static boolean hasExample(JsonNode node) {
        JsonNode examples = node.path("examples");
        return !node.path("example").isMissingNode() && !node.path("example").isNull()
                || examples.isObject() && examples.size() > 0 || examples.isArray() && examples.size() > 0;
    }
}
