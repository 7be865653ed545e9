package com.convplatform.crypto.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * One keep-alive HTTP/1.1 connection, for the load generators: a request is one write of its bytes and its answer is
 * read up to its {@code Content-Length}. Per request this costs far less CPU than {@code java.net.http.HttpClient},
 * so a generator sharing the machine's cores with the service under test takes less of them. Answers must carry a
 * {@code Content-Length} (the services' JSON answers do); the connection is opened again after the server closes it.
 */
public final class Http1Connection implements Closeable {
    /** A status code and body. */
    public record Response(int status, byte[] body) {
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final String host;
    private final int port;
    private final int timeoutMillis;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    public Http1Connection(URI base, int timeoutMillis) {
        this.host = base.getHost();
        this.port = base.getPort();
        this.timeoutMillis = timeoutMillis;
    }

    /** POSTs {@code body} to {@code path} with the given headers ({@code Host} and {@code Content-Length} added). */
    public Response post(String path, Map<String, String> headers, byte[] body) throws IOException {
        if (socket == null) {
            socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(timeoutMillis);
            in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            out = socket.getOutputStream();
        }
        StringBuilder head = new StringBuilder(256).append("POST ").append(path).append(" HTTP/1.1\r\nHost: ")
                .append(host).append(':').append(port).append("\r\nContent-Length: ").append(body.length)
                .append("\r\n");
        headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        byte[] h = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        try {
            if (body.length <= 64 * 1024) {
                byte[] request = new byte[h.length + body.length];
                System.arraycopy(h, 0, request, 0, h.length);
                System.arraycopy(body, 0, request, h.length, body.length);
                out.write(request);
            } else {
                out.write(h);
                out.write(body);
            }
            out.flush();
            return read();
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private Response read() throws IOException {
        String status = line();
        if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
            throw new IOException("not an HTTP/1.1 answer: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        int length = -1;
        boolean close = false;
        for (String l = line(); !l.isEmpty(); l = line()) {
            String lower = l.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(lower.substring(15).trim());
            } else if (lower.startsWith("connection:") && lower.contains("close")) {
                close = true;
            }
        }
        if (length < 0) {
            throw new IOException("the answer has no Content-Length");
        }
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new IOException("the connection closed inside the answer");
        }
        if (close) {
            close();
        }
        return new Response(code, body);
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        for (int c; (c = in.read()) >= 0;) {
            if (c == '\n') {
                int n = b.size();
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return n > 0 && s.charAt(n - 1) == '\r' ? s.substring(0, n - 1) : s;
            }
            b.write(c);
        }
        throw new IOException("the connection closed");
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            socket = null;
        }
    }
}
