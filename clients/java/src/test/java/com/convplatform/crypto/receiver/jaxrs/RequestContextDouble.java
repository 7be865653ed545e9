package com.convplatform.crypto.receiver.jaxrs;

import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;

/**
 * A test double of the container's request context: a POST with case-insensitive headers, an entity stream the filter
 * may replace, properties, and the response the filter aborts with. What a filter must not need throws.
 */
final class RequestContextDouble implements ContainerRequestContext {
    private final Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final Map<String, Object> properties = new HashMap<>();
    private InputStream entity;
    private Response abortedWith;

    RequestContextDouble(Map<String, String> headers, InputStream entity) {
        headers.forEach((k, v) -> {
            if (v != null) {
                this.headers.put(k, v);
            }
        });
        this.entity = entity;
    }

    Response abortedWith() {
        return abortedWith;
    }

    @Override
    public Object getProperty(String name) {
        return properties.get(name);
    }

    @Override
    public Collection<String> getPropertyNames() {
        return new ArrayList<>(properties.keySet());
    }

    @Override
    public void setProperty(String name, Object object) {
        properties.put(name, object);
    }

    @Override
    public void removeProperty(String name) {
        properties.remove(name);
    }

    @Override
    public String getHeaderString(String name) {
        return headers.get(name);
    }

    @Override
    public String getMethod() {
        return "POST";
    }

    @Override
    public boolean hasEntity() {
        return entity != null;
    }

    @Override
    public InputStream getEntityStream() {
        return entity;
    }

    @Override
    public void setEntityStream(InputStream input) {
        this.entity = input;
    }

    @Override
    public void abortWith(Response response) {
        if (abortedWith != null) {
            throw new IllegalStateException("abortWith called twice");
        }
        this.abortedWith = response;
    }

    @Override
    public MediaType getMediaType() {
        return MediaType.APPLICATION_JSON_TYPE;
    }

    // ---- not needed by a hook filter

    @Override
    public UriInfo getUriInfo() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void setRequestUri(URI requestUri) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void setRequestUri(URI baseUri, URI requestUri) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Request getRequest() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void setMethod(String method) {
        throw new UnsupportedOperationException();
    }

    @Override
    public MultivaluedMap<String, String> getHeaders() {
        throw new UnsupportedOperationException("read headers with getHeaderString");
    }

    @Override
    public Date getDate() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Locale getLanguage() {
        throw new UnsupportedOperationException();
    }

    @Override
    public int getLength() {
        throw new UnsupportedOperationException("the length header is not to be trusted; read the stream");
    }

    @Override
    public List<MediaType> getAcceptableMediaTypes() {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<Locale> getAcceptableLanguages() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Map<String, Cookie> getCookies() {
        throw new UnsupportedOperationException();
    }

    @Override
    public SecurityContext getSecurityContext() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void setSecurityContext(SecurityContext context) {
        throw new UnsupportedOperationException();
    }
}
