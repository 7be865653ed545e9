package com.convplatform.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.media.MediaType;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

import io.quarkus.smallrye.openapi.OpenApiFilter;

/**
 * Completes each service's generated OpenAPI document: every error response of every operation carries the
 * {@link ApiError} body, the responses Quarkus adds to secured operations (401, 403) say which codes they carry, and
 * every operation documents the 500 that any of them may answer.
 * <p>
 * Each error response gets an example of its own: the first code its description lists, with the sentence that
 * follows that code there ({@code "CODE: sentence; OTHER: ..."}), so that Swagger UI shows a code the operation really
 * answers rather than the schema's one example. An example given by the operation's own annotations is kept.
 * <p>
 * Swagger UI's "Try it out" fills each parameter and each field of a form with its example and sends it as if a
 * person had typed it (an optional header, a filter, a form's text). So no parameter and no form field keeps an
 * example: it moves into the description ("Example: ..."), where a person reads it and nothing sends it. A form field
 * gets the empty example instead, since without one Swagger UI fills in a sample made from its schema. A JSON body's
 * examples stay: the body is shown in full, to be edited, and sent as it is shown.
 */
@OpenApiFilter(OpenApiFilter.RunStage.BUILD)
public class OpenApiErrors implements OASFilter {
    static final String SCHEMA = "Error";
    /** A stable code: upper case with an underscore, or one of the one-word codes. */
    static final Pattern CODE = Pattern.compile("\\b(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|UNAUTHORIZED|FORBIDDEN)\\b");
    private static final String FORM = "multipart/form-data";
    private static final String URLENCODED = "application/x-www-form-urlencoded";
    private static final Map<String, String> GENERIC = Map.of(
            "Not Authorized", "UNAUTHORIZED: no key, an Authorization header that is not 'Bearer <key>', or a key"
                    + " that is not the one configured (the message says which); " + ErrorMappers.LOCAL_KEYS
                    + "; API_DISABLED: no key is configured for this API on the service",
            "Not Allowed", "FORBIDDEN: a valid key, but for another API",
            "Bad Request",
            "The request is malformed (MALFORMED_JSON, BAD_REQUEST) or a field is not valid (INVALID_*)");

    /** The answers as the services give them (ErrorMappers), for the responses Quarkus adds. */
    private static final Map<String, String> GENERIC_EXAMPLES = Map.of("Not Authorized",
            "The key given is not the one configured on this service for this API; " + ErrorMappers.LOCAL_KEYS,
            "Not Allowed", "This key does not open this API (operator or internal); send that API's key", "Bad Request",
            "The body is not valid JSON for this operation");

    @Override
    public void filterOpenAPI(OpenAPI api) {
        if (api.getComponents() == null) {
            api.setComponents(OASFactory.createComponents());
        }
        api.getComponents().addSchema(SCHEMA, OASFactory.createSchema()
                .type(List.of(Schema.SchemaType.OBJECT))
                .description("The body of every refusal")
                .addProperty("error_code", OASFactory.createSchema().type(List.of(Schema.SchemaType.STRING))
                        .description("Stable, machine-readable; the service README lists them").examples(
                                List.of("UNAUTHORIZED")))
                .addProperty("error_message", OASFactory.createSchema()
                        .type(List.of(Schema.SchemaType.STRING)).description("What to do about it")
                        .examples(List.of("Send the operator key as 'Authorization: Bearer <key>'")))
                .required(List.of("error_code", "error_message")));
        if (api.getPaths() == null || api.getPaths().getPathItems() == null) {
            return;
        }
        api.getPaths().getPathItems().values().forEach(item -> {
            noExamples(item.getParameters());
            item.getOperations().values().forEach(operation -> {
                complete(operation);
                noExamples(operation.getParameters());
                noFormExamples(api, operation);
            });
        });
    }

    /** The codes a response's description lists, in their order. */
    public static List<String> codes(String description) {
        List<String> codes = new ArrayList<>();
        if (description != null) {
            Matcher m = CODE.matcher(description);
            while (m.find()) {
                if (!codes.contains(m.group())) {
                    codes.add(m.group());
                }
            }
        }
        return codes;
    }

    private static void noExamples(List<Parameter> parameters) {
        if (parameters == null) {
            return;
        }
        for (Parameter p : parameters) {
            Object example = p.getExample();
            if (example == null && p.getSchema() != null && p.getSchema().getExamples() != null
                    && !p.getSchema().getExamples().isEmpty()) {
                example = p.getSchema().getExamples().get(0);
            }
            p.setExample(null);
            p.setExamples(null);
            if (p.getSchema() != null) {
                p.getSchema().setExamples(null);
                p.getSchema().setExample(null);
            }
            if (example != null) {
                p.setDescription(withExample(p.getDescription(), example));
            }
        }
    }

    /** The fields of a form body (the schema, or the component it names): their examples into their descriptions. */
    private static void noFormExamples(OpenAPI api, Operation operation) {
        if (operation.getRequestBody() == null || operation.getRequestBody().getContent() == null) {
            return;
        }
        operation.getRequestBody().getContent().getMediaTypes().forEach((type, media) -> {
            if (!type.startsWith(FORM) && !type.startsWith(URLENCODED) || media.getSchema() == null) {
                return;
            }
            media.setExample(null);
            media.setExamples(null);
            Schema form = resolve(api, media.getSchema());
            if (form != null && form.getProperties() != null) {
                form.getProperties().forEach((name, field) -> {
                    Schema f = resolve(api, field);
                    if (f == null) {
                        return;
                    }
                    Object example = f.getExamples() == null || f.getExamples().isEmpty()
                            ? f.getExample()
                            : f.getExamples().get(0);
                    f.setExample(null);
                    // Without an example Swagger UI fills a form field with a sample made from its schema ("string",
                    // or a string matching its pattern) and sends it: an empty example leaves the field empty (an
                    // optional one is sent empty, "Send empty value" being ticked by default: the services take an
                    // empty field as none). A file field has no sample. A required field with allowed values is a
                    // list without an empty choice that shows its first value as chosen: that value (the sample) has
                    // to be the field's, or Execute marks the field invalid and sends nothing.
                    boolean file = "binary".equals(f.getFormat()) || "base64".equals(f.getFormat());
                    boolean list = f.getEnumeration() != null && form.getRequired() != null
                            && form.getRequired().contains(name);
                    f.setExamples(file || list ? null : List.of(""));
                    if (example != null && !"".equals(example)) {
                        f.setDescription(withExample(f.getDescription(), example));
                    }
                });
            }
        });
    }

    private static Schema resolve(OpenAPI api, Schema schema) {
        String ref = schema.getRef();
        if (ref == null) {
            return schema;
        }
        String name = ref.substring(ref.lastIndexOf('/') + 1);
        return api.getComponents() == null || api.getComponents().getSchemas() == null
                ? null
                : api.getComponents().getSchemas().get(name);
    }

    private static String withExample(String description, Object example) {
        String shown = "Example: " + example + " (shown here only: Try it out sends what you type)";
        if (description == null || description.isBlank()) {
            return shown;
        }
        String d = description.strip();
        return d + (d.endsWith(".") ? " " : ". ") + shown;
    }

    private void complete(Operation operation) {
        if (operation.getResponses() == null) {
            return;
        }
        if (!operation.getResponses().hasAPIResponse("500")) {
            operation.getResponses().addAPIResponse("500", OASFactory.createAPIResponse()
                    .description("INTERNAL_ERROR: the request could not be processed and changed nothing"));
        }
        operation.getResponses().getAPIResponses().forEach((status, response) -> {
            if (status.startsWith("4") || status.startsWith("5")) {
                withErrorBody(response);
                withExample(response);
            }
        });
    }

    /** The first code the description lists, with its sentence, on each error body that has no example yet. */
    private static void withExample(APIResponse response) {
        List<String> codes = codes(response.getDescription());
        if (codes.isEmpty() || response.getContent() == null) {
            return;
        }
        String code = codes.get(0);
        for (MediaType media : response.getContent().getMediaTypes().values()) {
            boolean errorBody = media.getSchema() != null
                    && ("#/components/schemas/" + SCHEMA).equals(media.getSchema().getRef());
            if (errorBody && media.getExample() == null
                    && (media.getExamples() == null || media.getExamples().isEmpty())) {
                media.setExample(errorBody(code, sentence(response.getDescription(), code)));
            }
        }
    }

    /**
     * The text after {@code "CODE: "} up to the first {@code ';'} (where the descriptions go on to the next code) or
     * the end, first letter in upper case; for a description that only lists codes, a pointer to it.
     */
    static String sentence(String description, String code) {
        int at = description.indexOf(code + ": ");
        if (at < 0) {
            return "Refused with " + code + "; the response's description above says what each code means";
        }
        String rest = description.substring(at + code.length() + 2);
        int end = rest.indexOf(';');
        if (end >= 0) {
            rest = rest.substring(0, end);
        }
        rest = rest.strip();
        return rest.isEmpty() ? code : Character.toUpperCase(rest.charAt(0)) + rest.substring(1);
    }

    private static Map<String, Object> errorBody(String code, String message) {
        Map<String, Object> example = new LinkedHashMap<>();
        example.put("error_code", code);
        example.put("error_message", message);
        return example;
    }

    private static void withErrorBody(APIResponse response) {
        String generic = response.getDescription() == null ? null : GENERIC.get(response.getDescription());
        if (generic != null) {
            String example = GENERIC_EXAMPLES.get(response.getDescription());
            response.setDescription(generic);
            if (response.getContent() == null || response.getContent().getMediaTypes().isEmpty()) {
                response.setContent(OASFactory.createContent().addMediaType("application/json",
                        OASFactory.createMediaType()
                                .schema(OASFactory.createSchema().ref("#/components/schemas/" + SCHEMA))
                                .example(errorBody(codes(generic).get(0), example))));
            }
        }
        if (response.getContent() == null || response.getContent().getMediaTypes().isEmpty()) {
            response.setContent(OASFactory.createContent().addMediaType("application/json", OASFactory
                    .createMediaType().schema(OASFactory.createSchema().ref("#/components/schemas/" + SCHEMA))));
        }
    }
}
