package com.convplatform.support;

import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.ext.Provider;

/**
 * Passes the id of the request being served ({@link RequestIds}) on with every REST client call to another service,
 * so one upload can be followed through the logs of all three. A call made outside any request (a background sender)
 * carries none, unless it sets its own.
 */
@Provider
public class RequestIdPropagation implements ClientRequestFilter {
    @Override
    public void filter(ClientRequestContext request) {
        String id = RequestIds.current();
        if (id != null && !request.getHeaders().containsKey(RequestIds.HEADER)) {
            request.getHeaders().putSingle(RequestIds.HEADER, id);
        }
    }
}
