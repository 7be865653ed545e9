package com.convplatform.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Hostile clients that declare a body, send most of it and stall: each a raw connection from one of several loopback
 * source addresses (127.0.0.2 and up, {@code perSource} connections each, so that a per-source limit does not refuse
 * them all), as a slow-body attack from many addresses would be.
 */
public final class StalledBodies implements AutoCloseable {
    /** The answer a stalled body gets at its deadline (the services' body deadline, HTTP/1.1). */
    public static final String TIMED_OUT = "HTTP/1.1 408 Request Timeout";
    private final List<Socket> sockets = new ArrayList<>();
    /** The status line each connection has been answered with so far, by index in {@link #sockets}; null for none. */
    private final List<String> answers = new ArrayList<>();

    private StalledBodies() {
    }

    /**
     * Opens {@code count} connections to {@code port}, each sending a POST to {@code path} with {@code headers}, a
     * Content-Length 100 bytes over {@code sent}, and {@code sent} bytes of body, then nothing more.
     */
    public static StalledBodies open(int port, String path, Map<String, String> headers, int count, int sent,
            int perSource) throws IOException {
        return open(port, path, headers, new byte[0], count, sent, perSource);
    }

    /** As {@link #open(int, String, Map, int, int, int)}, the body starting with {@code prefix}, then filler. */
    public static StalledBodies open(int port, String path, Map<String, String> headers, byte[] prefix, int count,
            int sent, int perSource) throws IOException {
        StalledBodies out = new StalledBodies();
        byte[] body = new byte[Math.max(sent, prefix.length)];
        Arrays.fill(body, (byte) 'a');
        System.arraycopy(prefix, 0, body, 0, prefix.length);
        StringBuilder head = new StringBuilder("POST ").append(path).append(" HTTP/1.1\r\nHost: localhost\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Content-Length: ").append(sent + 100).append("\r\n\r\n");
        byte[] start = head.toString().getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < count; i++) {
            Socket s = new Socket();
            s.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[]{127, 0, 0, (byte) (2 + i / perSource)}),
                    0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            OutputStream o = s.getOutputStream();
            o.write(start);
            o.write(body);
            o.flush();
            out.sockets.add(s);
            out.answers.add(null);
        }
        return out;
    }

    /** How many connections are open. */
    public int size() {
        return sockets.size();
    }

    /** Closes the last {@code n} connections opened at once, as clients that gave up would. */
    public void giveUp(int n) throws IOException {
        for (int i = 0; i < n && !sockets.isEmpty(); i++) {
            answers.remove(sockets.size() - 1);
            Socket s = sockets.remove(sockets.size() - 1);
            s.setSoLinger(true, 0); // a reset, as a client killed mid-request sends
            s.close();
        }
    }

    /**
     * How many connections have been answered {@code statusLine} so far, without waiting: a test asserts with it what
     * the service did while the bodies stalled (e.g. that none has reached its deadline yet), by the order of events,
     * not by time.
     */
    public long answeredSoFar(String statusLine) throws IOException {
        long n = 0;
        for (int i = 0; i < sockets.size(); i++) {
            if (answers.get(i) == null && sockets.get(i).getInputStream().available() > 0) {
                answers.set(i, statusLine(sockets.get(i), 1_000));
            }
            n += statusLine.equals(answers.get(i)) ? 1 : 0;
        }
        return n;
    }

    /** The status line each remaining connection got within {@code timeoutMillis} in all (null for none by then). */
    public List<String> statusLines(int timeoutMillis) throws IOException {
        List<String> out = new ArrayList<>();
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        for (int i = 0; i < sockets.size(); i++) {
            if (answers.get(i) == null) {
                answers.set(i,
                        statusLine(sockets.get(i), (int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            }
            out.add(answers.get(i));
        }
        return out;
    }

    /** The connection's status line, read within {@code timeoutMillis}; null for none by then. */
    private static String statusLine(Socket s, int timeoutMillis) throws IOException {
        s.setSoTimeout(timeoutMillis);
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        try {
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                line.append((char) c);
            }
            return line.length() == 0 ? null : line.toString().trim();
        } catch (SocketTimeoutException e) {
            return null;
        } catch (IOException e) {
            return "closed: " + e.getMessage();
        }
    }

    @Override
    public void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        sockets.clear();
        answers.clear();
    }
}
