package com.convplatform.crypto.fetch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.net.ssl.SSLContext;

/**
 * A TLS peer on 127.0.0.1 that writes raw bytes, for the responses an ordinary HTTP server will not produce: chunked
 * bodies of any size, bodies without a length, slow or silent servers. It records each request head it received.
 */
final class RawHttpsPeer implements AutoCloseable {
    /** Writes the response; the request head has been read. */
    @FunctionalInterface
    interface Handler {
        void respond(OutputStream out) throws IOException, InterruptedException;
    }

    private final ServerSocket server;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    RawHttpsPeer(SSLContext tls, Handler handler) throws IOException {
        server = tls.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread t = new Thread(() -> serve(s, handler), "raw-https-peer-conn");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "raw-https-peer");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void serve(Socket s, Handler handler) {
        try (s) {
            InputStream in = s.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) >= 0) {
                head.write(b);
                String text = head.toString(StandardCharsets.US_ASCII);
                if (text.endsWith("\r\n\r\n")) {
                    break;
                }
            }
            requests.add(head.toString(StandardCharsets.US_ASCII));
            OutputStream out = s.getOutputStream();
            handler.respond(out);
            out.flush();
        } catch (IOException | InterruptedException e) {
            // the client went away (time-out or limit): nothing to do
        }
    }

    int port() {
        return server.getLocalPort();
    }

    /** The request heads received so far. */
    List<String> requests() {
        return requests;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
