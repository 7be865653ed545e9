package com.convplatform.console.api;

import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;

import com.convplatform.console.security.Operator;

import io.quarkus.arc.Arc;
import io.quarkus.arc.InstanceHandle;

/**
 * Every call the console makes to a service names the signed-in operator in {@code X-Operator} (service-support's
 * OperatorAudit records it with each action): the identity's name, never something typed on a page. A name the
 * services would not take (an identity provider's name outside {@code [A-Za-z0-9._@+-]{1,64}}) is not sent; the
 * services then record the call as made with the operator key alone.
 */
public class OperatorHeader implements ClientRequestFilter {
    public static final String HEADER = "X-Operator";

    @Override
    public void filter(ClientRequestContext request) {
        if (Arc.container() == null || !Arc.container().requestContext().isActive()) {
            return;
        }
        try (InstanceHandle<Operator> operator = Arc.container().instance(Operator.class)) {
            String name = operator.get().headerValue();
            if (name != null) {
                request.getHeaders().putSingle(HEADER, name);
            }
        }
    }
}
