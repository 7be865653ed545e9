package com.convplatform.support;

import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

import io.quarkus.smallrye.openapi.OpenApiFilter;

/**
 * Completes each service's generated OpenAPI document: every error response of every operation carries the
 * {@link ApiError} body, the responses Quarkus adds to secured operations (401, 403) say which codes they carry, and
 * every operation documents the 500 that any of them may answer.
 */
@OpenApiFilter(OpenApiFilter.RunStage.BUILD)
public class OpenApiErrors implements OASFilter {
    static final String SCHEMA = "Error";
    private static final Map<String, String> GENERIC = Map.of(
            "Not Authorized", "UNAUTHORIZED: no key or another one (send it as 'Authorization: Bearer <key>');"
                    + " API_DISABLED: no key is configured for this API on the service",
            "Not Allowed", "FORBIDDEN: a valid key, but for another API",
            "Bad Request",
            "The request is malformed (MALFORMED_JSON, BAD_REQUEST) or a field is not valid (INVALID_*)");

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
        api.getPaths().getPathItems().values().forEach(item -> item.getOperations().values().forEach(this::complete));
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
            }
        });
    }

    private static void withErrorBody(APIResponse response) {
        String generic = response.getDescription() == null ? null : GENERIC.get(response.getDescription());
        if (generic != null) {
            response.setDescription(generic);
        }
        if (response.getContent() == null || response.getContent().getMediaTypes().isEmpty()) {
            response.setContent(OASFactory.createContent().addMediaType("application/json", OASFactory
                    .createMediaType().schema(OASFactory.createSchema().ref("#/components/schemas/" + SCHEMA))));
        }
    }
}
