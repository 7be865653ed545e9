package com.convplatform.upload.http;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A request body that may be read up to a bound: the read that would pass it throws {@link TooLarge} instead, so a
 * body without a declared length (chunked) is refused by the service with its own answer once it is too large.
 */
public final class BoundedInputStream extends FilterInputStream {
    /** The body is longer than the bound. */
    public static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge(long bound) {
            super("The request body is longer than " + bound + " bytes");
        }
    }

    private final long bound;
    private long count;
    private boolean exceeded;

    public BoundedInputStream(InputStream in, long bound) {
        super(in);
        this.bound = bound;
    }

    /** Whether a read passed the bound (the rest of the body was not read). */
    public boolean exceeded() {
        return exceeded;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (exceeded) {
            throw new TooLarge(bound);
        }
        int n = in.read(b, off, len);
        if (n > 0) {
            count += n;
            if (count > bound) {
                exceeded = true;
                throw new TooLarge(bound);
            }
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        byte[] sink = new byte[(int) Math.min(n, 8192)];
        int r = read(sink, 0, sink.length);
        return Math.max(r, 0);
    }

    @Override
    public boolean markSupported() {
        return false;
    }
}
