package com.convplatform.upload.http;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayDeque;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;

/**
 * A request body as a blocking stream: the event loop hands in each piece as it arrives ({@link #offer}, {@link #end},
 * {@link #fail}), and the upload's worker thread reads them. When more than {@code high} bytes wait unread, the
 * request is paused, and resumed once the reader has taken them down to half of that, so a slow reader holds at most
 * about {@code high} bytes plus one piece of a body in memory.
 * <p>
 * A body that has arrived whole before its reader starts is read without any wait or thread hand-off; that is how
 * small uploads are read (see {@code UploadRoute}). A reader that finds nothing for {@code readTimeout} gets an
 * {@link IOException}, as it does when the connection fails.
 */
public final class RequestBody extends InputStream {
    private final HttpServerRequest request;
    private final Context context;
    private final long readTimeoutNanos;
    private final long high;
    private final ArrayDeque<Buffer> pieces = new ArrayDeque<>();
    private Buffer current;
    private int position;
    private long queued;
    private boolean ended;
    private boolean paused;
    private IOException failure;

    /**
     * @param request the request, paused and resumed from here when the reader falls behind
     * @param context the request's context (its event loop), where a resume is run
     * @param readTimeout the longest a read waits for the next piece
     * @param high pause the request when more than this many bytes wait unread
     */
    public RequestBody(HttpServerRequest request, Context context, Duration readTimeout, long high) {
        this.request = request;
        this.context = context;
        this.readTimeoutNanos = readTimeout.toNanos();
        this.high = high;
    }

    /** The next piece of the body (event loop). */
    public synchronized void offer(Buffer piece) {
        if (piece.length() == 0 || ended || failure != null) {
            return;
        }
        pieces.add(piece);
        queued += piece.length();
        if (queued > high && !paused) {
            paused = true;
            request.pause();
        }
        notifyAll();
    }

    /** The body is complete (event loop). */
    public synchronized void end() {
        ended = true;
        notifyAll();
    }

    /** The body cannot be read to its end: the connection failed or closed (event loop). */
    public synchronized void fail(Throwable cause) {
        if (!ended && failure == null) {
            failure = new IOException("The request body could not be read: " + cause.getMessage(), cause);
            notifyAll();
        }
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        long deadline = 0;
        while (current == null || position == current.length()) {
            current = pieces.poll();
            position = 0;
            if (current != null) {
                continue;
            }
            if (failure != null) {
                throw failure;
            }
            if (ended) {
                return -1;
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + readTimeoutNanos;
            } else if (now - deadline >= 0) {
                throw new IOException("No part of the request body arrived for "
                        + Duration.ofNanos(readTimeoutNanos).toSeconds() + " s");
            }
            try {
                long waitMs = Math.max(1, (deadline - now) / 1_000_000);
                wait(waitMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while waiting for the request body", e);
            }
        }
        int n = Math.min(len, current.length() - position);
        current.getBytes(position, position + n, b, off);
        position += n;
        queued -= n;
        if (paused && queued <= high / 2) {
            paused = false;
            context.runOnContext(v -> request.resume());
        }
        return n;
    }

    @Override
    public synchronized int available() {
        return current == null ? 0 : current.length() - position;
    }
}
