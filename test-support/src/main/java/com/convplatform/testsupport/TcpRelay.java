package com.convplatform.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on 127.0.0.1 between a service and a server (PostgreSQL), which a test turns into the network's
 * failures: {@link #freeze()} holds every byte and every new connection and closes nothing (a host gone without a
 * word, a partition); {@link #down()} closes every connection and each new one at once (a server restarting or out of
 * reach). {@link #open()} lets everything through again.
 */
public final class TcpRelay implements AutoCloseable {
    private enum State {
        OPEN, FROZEN, DOWN
    }

    private final String host;
    private final int port;
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private State state = State.OPEN;

    /** Relays to {@code host:port} from a free port of its own. */
    public TcpRelay(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        Thread accepter = new Thread(this::accept, "relay-accept");
        accepter.setDaemon(true);
        accepter.start();
    }

    /** The port the relay listens on. */
    public int port() {
        return server.getLocalPort();
    }

    /** Holds every byte and every new connection; closes nothing. */
    public void freeze() {
        set(State.FROZEN);
    }

    /** Closes every connection, and each new one once accepted. */
    public void down() {
        set(State.DOWN);
        sockets.forEach(TcpRelay::closeQuietly);
        sockets.clear();
    }

    /** Lets everything through again (what was held goes on). */
    public void open() {
        set(State.OPEN);
    }

    private void set(State next) {
        synchronized (gate) {
            state = next;
            gate.notifyAll();
        }
    }

    /** Returns once bytes may pass; false when the relay is down. */
    private boolean passes() throws InterruptedException {
        synchronized (gate) {
            while (state == State.FROZEN) {
                gate.wait();
            }
            return state == State.OPEN;
        }
    }

    private void accept() {
        try {
            while (true) {
                Socket client = server.accept();
                sockets.add(client);
                daemon("relay-open", () -> connect(client));
            }
        } catch (IOException closed) {
            // the relay is closed
        }
    }

    private void connect(Socket client) {
        try {
            if (!passes()) {
                closeQuietly(client);
                return;
            }
            Socket upstream = new Socket(host, port);
            sockets.add(upstream);
            daemon("relay-pump", () -> pump(client, upstream));
            daemon("relay-pump", () -> pump(upstream, client));
        } catch (IOException | InterruptedException e) {
            closeQuietly(client);
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (!passes()) {
                    break;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // one side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    private static void daemon(String name, Runnable task) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        open();
        server.close();
        sockets.forEach(TcpRelay::closeQuietly);
    }
}
