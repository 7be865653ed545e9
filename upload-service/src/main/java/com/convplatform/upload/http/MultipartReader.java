package com.convplatform.upload.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.regex.Pattern;

/**
 * Reads a {@code multipart/form-data} body (RFC 7578, framed as RFC 2046 5.1.1 says) part by part as it arrives,
 * through one fixed buffer: a part's content is handed on in pieces of up to the buffer's size and is never held
 * whole. The caller takes the next part's headers with {@link #nextPart()}, then its content with
 * {@link #copyTo(WritableByteChannel, long)}, {@link #readText(int)} or not at all (the next call skips it).
 *
 * <p>
 * A preamble before the first delimiter and an epilogue after the last are ignored, as RFC 2046 says. Anything else
 * that is not well-formed, and a body that ends before its closing delimiter, throws {@link MalformedException}.
 */
public final class MultipartReader {
    /** The body is not well-formed multipart; the message says where. */
    public static final class MalformedException extends IOException {
        private static final long serialVersionUID = 1L;

        MalformedException(String message) {
            super(message);
        }
    }

    /** One part's headers: the form field's name, the file name if it is a file, and its declared type. */
    public record Part(String name, String fileName, String contentType) {
    }

    static final int BUFFER_SIZE = 64 * 1024;
    /** A boundary RFC 2046 allows: 1 to 70 characters from its set, not ending in a space. */
    private static final Pattern BOUNDARY = Pattern
            .compile("[0-9A-Za-z'()+_,\\-./:=? ]{0,69}[0-9A-Za-z'()+_,\\-./:=?]");
    /** All header lines of one part together. */
    static final int MAX_HEADER_BYTES = 8 * 1024;

    private final InputStream in;
    /** CR LF "--" boundary. */
    private final byte[] delimiter;
    /**
     * Per byte value, the offsets in {@link #delimiter} where it occurs, highest first (so the starts they give come
     * lowest first); null for a byte the delimiter does not hold.
     */
    private final int[][] offsetsOf = new int[256][];
    /**
     * Buffers of readers that were {@link #release() released}, for the next ones: without them each upload allocated
     * 64 KiB, at 100 KB per upload a third of what the service allocated. At most 64 are kept.
     */
    static final ArrayBlockingQueue<byte[]> SPARE = new ArrayBlockingQueue<>(64);

    private byte[] buf;
    private int pos;
    private int lim;
    private boolean eof;
    /** Inside a part's content (its headers have been read, its delimiter not yet). */
    private boolean inContent;
    /** The closing delimiter has been read. */
    private boolean finished;

    /**
     * @param boundary the {@code boundary} parameter of the request's Content-Type (see {@link #boundary(String)})
     */
    public MultipartReader(InputStream in, String boundary) {
        this.in = in;
        byte[] spare = SPARE.poll();
        this.buf = spare != null ? spare : new byte[BUFFER_SIZE];
        this.delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        for (int k = delimiter.length - 1; k >= 0; k--) {
            int b = delimiter[k] & 0xff;
            int[] known = offsetsOf[b];
            offsetsOf[b] = known == null ? new int[]{k} : append(known, k);
        }
        // The first delimiter may open the body without the CR LF in front of it: read as if the body began with one.
        buf[0] = '\r';
        buf[1] = '\n';
        lim = 2;
        inContent = true; // the preamble, skipped by the first nextPart()
    }

    private static int[] append(int[] values, int value) {
        int[] out = Arrays.copyOf(values, values.length + 1);
        out[values.length] = value;
        return out;
    }

    /**
     * The {@code boundary} parameter of a {@code multipart/form-data} Content-Type (quoted or not), if it is one RFC
     * 2046 allows: 1 to 70 characters from its set, not ending in a space.
     */
    public static Optional<String> boundary(String contentType) {
        if (contentType == null) {
            return Optional.empty();
        }
        String[] params = contentType.split(";");
        if (!params[0].trim().toLowerCase(Locale.ROOT).equals("multipart/form-data")) {
            return Optional.empty();
        }
        for (int i = 1; i < params.length; i++) {
            String p = params[i].trim();
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).trim().equalsIgnoreCase("boundary")) {
                String b = p.substring(eq + 1).trim();
                if (b.length() >= 2 && b.startsWith("\"") && b.endsWith("\"")) {
                    b = b.substring(1, b.length() - 1);
                }
                return BOUNDARY.matcher(b).matches() ? Optional.of(b) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /**
     * Skips what is left of the current part (or the preamble) and reads the next part's headers; empty after the
     * closing delimiter.
     */
    public Optional<Part> nextPart() throws IOException {
        if (finished) {
            return Optional.empty();
        }
        while (inContent) {
            int n = available();
            if (n > 0) {
                pos += n;
            }
        }
        // After a delimiter: "--" closes the body; otherwise optional white space, CR LF, then the part's headers.
        ensure(2);
        if (buf[pos] == '-' && buf[pos + 1] == '-') {
            finished = true;
            drainInput();
            return Optional.empty();
        }
        while (true) {
            ensure(1);
            if (buf[pos] != ' ' && buf[pos] != '\t') {
                break;
            }
            pos++;
        }
        ensure(2);
        if (buf[pos] != '\r' || buf[pos + 1] != '\n') {
            throw new MalformedException("a boundary line is followed by something other than a line end");
        }
        pos += 2;
        Part part = readHeaders();
        inContent = true;
        return Optional.of(part);
    }

    /**
     * Writes the current part's content to {@code out}, at most {@code max} bytes of it. Returns the content's length,
     * or {@code max + 1} when it is longer: then only {@code max} bytes were written and the rest is skipped.
     */
    public long copyTo(WritableByteChannel out, long max) throws IOException {
        long total = 0;
        while (inContent) {
            int n = available();
            if (n <= 0) {
                continue;
            }
            if (total <= max) {
                int write = (int) Math.min(n, max - total);
                ByteBuffer b = ByteBuffer.wrap(buf, pos, write);
                while (b.hasRemaining()) {
                    out.write(b);
                }
            }
            total = Math.min(total + n, max + 1);
            pos += n;
        }
        return total;
    }

    /**
     * The current part's content as UTF-8 text (malformed sequences replaced), or empty when it is longer than
     * {@code maxBytes}; the rest is skipped either way.
     */
    public Optional<String> readText(int maxBytes) throws IOException {
        byte[] text = new byte[Math.min(maxBytes, 1024)];
        int len = 0;
        boolean tooLong = false;
        while (inContent) {
            int n = available();
            if (n <= 0) {
                continue;
            }
            if (!tooLong && len + n <= maxBytes) {
                if (len + n > text.length) {
                    text = Arrays.copyOf(text, Math.min(maxBytes, Math.max(len + n, text.length * 2)));
                }
                System.arraycopy(buf, pos, text, len, n);
                len += n;
            } else {
                tooLong = true;
            }
            pos += n;
        }
        return tooLong ? Optional.empty() : Optional.of(new String(text, 0, len, StandardCharsets.UTF_8));
    }

    /**
     * Hands this reader's buffer on to the next reader; this one may not be used afterwards. Only what was read into
     * it from this body lies in it, and a reader never looks past what it read itself.
     */
    public void release() {
        byte[] b = buf;
        buf = null;
        if (b != null) {
            SPARE.offer(b);
        }
    }

    /** Reads and drops the rest of the body. */
    public void drainInput() throws IOException {
        pos = lim;
        while (!eof) {
            fill();
            pos = lim;
        }
    }

    /**
     * How many bytes from {@code pos} are certainly the current part's content (more than zero), or -1 once the
     * delimiter that ends it has been consumed ({@code inContent} is then false). May return 0 after reading more.
     */
    private int available() throws IOException {
        int at = indexOfDelimiter();
        if (at == pos) {
            pos += delimiter.length;
            inContent = false;
            return -1;
        }
        if (at > pos) {
            return at - pos;
        }
        // No whole delimiter here; its first bytes may be at the end, so keep those back.
        int safe = lim - (delimiter.length - 1);
        if (safe > pos) {
            return safe - pos;
        }
        if (eof) {
            throw new MalformedException("the body ended before its closing boundary");
        }
        fill();
        return 0;
    }

    /**
     * The first delimiter in buf[pos, lim), or -1. It reads one byte in every {@code m} (the delimiter's length): any
     * delimiter in the buffer covers exactly one of those bytes, so where that byte does not occur in the delimiter at
     * all, no delimiter covers it, and the search moves on by {@code m}. Where it does occur, the starts it allows are
     * compared, lowest first; a delimiter that starts earlier covers the same sampled byte (two sampled bytes are
     * {@code m} apart), so the first match is the first delimiter. The sampled positions do not depend on the bytes
     * read, so the processor overlaps the reads. Horspool's search, before, waited at every step for the byte that gave
     * its next shift, and a search for CR eight bytes at a time after it still read every word: at 100 KB per upload
     * either took about 20 microseconds, 6-7 % of the service's CPU in the load test.
     */
    private int indexOfDelimiter() {
        int m = delimiter.length;
        int lastStart = lim - m;
        for (int j = pos + m - 1; j < lim; j += m) {
            int[] offsets = offsetsOf[buf[j] & 0xff];
            if (offsets == null) {
                continue;
            }
            for (int k : offsets) {
                int p = j - k;
                if (p >= pos && p <= lastStart && buf[p] == '\r'
                        && Arrays.equals(buf, p, p + m, delimiter, 0, m)) {
                    return p;
                }
            }
        }
        return -1;
    }

    /** Makes at least {@code n} unread bytes available, or throws if the body ends first. */
    private void ensure(int n) throws IOException {
        while (lim - pos < n) {
            if (eof) {
                throw new MalformedException("the body ended inside a part's framing");
            }
            fill();
        }
    }

    /** Moves the unread bytes to the front and reads more behind them (or sets eof). */
    private void fill() throws IOException {
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
        }
        int r = in.read(buf, lim, buf.length - lim);
        if (r < 0) {
            eof = true;
        } else {
            lim += r;
        }
    }

    private Part readHeaders() throws IOException {
        String name = null;
        String fileName = null;
        String contentType = null;
        int used = 0;
        while (true) {
            String line = readLine(MAX_HEADER_BYTES - used);
            used += line.length() + 2;
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new MalformedException("a part header line has no name");
            }
            String header = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            if (header.equals("content-disposition")) {
                Disposition d = Disposition.parse(value);
                name = d.name;
                fileName = d.fileName;
            } else if (header.equals("content-type")) {
                contentType = value;
            }
        }
        if (name == null) {
            throw new MalformedException("a part has no Content-Disposition form-data name");
        }
        return new Part(name, fileName, contentType);
    }

    /** One header line without its CR LF, decoded as UTF-8 (RFC 7578 4.2 allows UTF-8 file names). */
    private String readLine(int max) throws IOException {
        while (true) {
            for (int i = pos; i + 1 < lim; i++) {
                if (buf[i] == '\r' && buf[i + 1] == '\n') {
                    if (i - pos > max) {
                        break;
                    }
                    String line = new String(buf, pos, i - pos, StandardCharsets.UTF_8);
                    pos = i + 2;
                    return line;
                }
            }
            if (lim - pos > max) {
                throw new MalformedException("a part's headers are longer than " + MAX_HEADER_BYTES + " bytes");
            }
            if (eof) {
                throw new MalformedException("the body ended inside a part's headers");
            }
            fill();
        }
    }

    /** The form-data parameters of a Content-Disposition value. */
    private static final class Disposition {
        String name;
        String fileName;

        static Disposition parse(String value) throws MalformedException {
            Disposition d = new Disposition();
            int i = value.indexOf(';');
            String type = (i < 0 ? value : value.substring(0, i)).trim();
            if (!type.equalsIgnoreCase("form-data")) {
                throw new MalformedException("a part's Content-Disposition is not form-data");
            }
            while (i >= 0 && i < value.length()) {
                i++; // past ';'
                int eq = value.indexOf('=', i);
                if (eq < 0) {
                    break;
                }
                String key = value.substring(i, eq).trim().toLowerCase(Locale.ROOT);
                StringBuilder v = new StringBuilder();
                int j = eq + 1;
                while (j < value.length() && value.charAt(j) == ' ') {
                    j++;
                }
                if (j < value.length() && value.charAt(j) == '"') {
                    j++;
                    while (j < value.length() && value.charAt(j) != '"') {
                        char c = value.charAt(j);
                        if (c == '\\' && j + 1 < value.length()) {
                            c = value.charAt(++j);
                        }
                        v.append(c);
                        j++;
                    }
                    if (j >= value.length()) {
                        throw new MalformedException("a Content-Disposition parameter's quotes are not closed");
                    }
                    j++;
                    i = value.indexOf(';', j);
                } else {
                    int end = value.indexOf(';', j);
                    v.append((end < 0 ? value.substring(j) : value.substring(j, end)).trim());
                    i = end;
                }
                if (key.equals("name") && d.name == null) {
                    d.name = v.toString();
                } else if (key.equals("filename") && d.fileName == null) {
                    d.fileName = v.toString();
                }
            }
            return d;
        }
    }
}
