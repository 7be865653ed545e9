package com.convplatform.upload.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The streaming multipart reader on bodies built here, fed through streams that hand out a few bytes per read, so
 * that delimiters, part headers and line ends fall across reads and across the reader's buffer refills.
 */
class MultipartReaderTest {
    static final String B = "x-b0undary-42";

    /** Hands out at most {@code step} bytes per read. */
    static InputStream trickle(byte[] body, int step) {
        return new ByteArrayInputStream(body) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, step));
            }
        };
    }

    static byte[] body(Object... partsThenClose) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : partsThenClose) {
            out.writeBytes(p instanceof byte[] b ? b : ((String) p).getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    static String field(String name, String value) {
        return "--" + B + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n";
    }

    static String fileHead(String name, String fileName) {
        return "--" + B + "\r\nContent-Disposition: form-data; name=\"" + name + "\"; filename=\"" + fileName
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n";
    }

    static final String CLOSE = "--" + B + "--\r\n";

    record Read(MultipartReader.Part part, byte[] content) {
    }

    static List<Read> readAll(InputStream in) throws IOException {
        MultipartReader r = new MultipartReader(in, B);
        List<Read> out = new ArrayList<>();
        for (Optional<MultipartReader.Part> p = r.nextPart(); p.isPresent(); p = r.nextPart()) {
            ByteArrayOutputStream content = new ByteArrayOutputStream();
            long n = r.copyTo(Channels.newChannel(content), Long.MAX_VALUE - 1);
            assertEquals(content.size(), n);
            out.add(new Read(p.get(), content.toByteArray()));
        }
        return out;
    }

    @Test
    void fieldsAndABinaryFileArriveWholeWhateverTheReadSizes() throws IOException {
        byte[] file = new byte[300_000];
        new Random(7).nextBytes(file);
        // Content that almost holds the delimiter: CR LF "--" and most of the boundary, then a different byte.
        byte[] near = ("\r\n--" + B.substring(0, B.length() - 1) + "!").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(near, 0, file, 65_530, near.length);
        System.arraycopy(near, 0, file, file.length - near.length, near.length);
        byte[] body = body("preamble to be ignored\r\n", field("auth_id", "user42"), fileHead("file", "a b.png"), file,
                "\r\n", field("message_body", "héllo\r\nsecond line"), CLOSE, "epilogue");
        for (int step : new int[]{1, 3, 7, 64, 4096, 65_536, Integer.MAX_VALUE}) {
            List<Read> parts = readAll(trickle(body, step));
            assertEquals(3, parts.size(), "read size " + step);
            assertEquals(new MultipartReader.Part("auth_id", null, null), parts.get(0).part());
            assertEquals("user42", new String(parts.get(0).content(), StandardCharsets.UTF_8));
            assertEquals(new MultipartReader.Part("file", "a b.png", "application/octet-stream"), parts.get(1).part());
            assertArrayEquals(file, parts.get(1).content(), "read size " + step);
            assertEquals("héllo\r\nsecond line", new String(parts.get(2).content(), StandardCharsets.UTF_8));
        }
    }

    /**
     * The delimiter search looks at eight bytes at a time for the CR that starts a delimiter: content dense with CRs
     * (text with CR LF line ends, CR runs, near-delimiters), of every length modulo 16, so that CRs and the real
     * delimiter fall at every position within such a group of eight, and at the buffer's end.
     */
    @Test
    void contentFullOfLineEndsAndNearDelimitersAtEveryAlignment() throws IOException {
        String near = "\r\n--" + B.substring(0, B.length() - 1) + "?";
        for (int extra = 0; extra < 16; extra++) {
            StringBuilder text = new StringBuilder("x".repeat(extra));
            for (int line = 0; line < 2_000; line++) {
                text.append("line ").append(line).append(line % 7 == 0 ? "\r\r\r\n" : "\r\n");
                if (line % 97 == 0) {
                    text.append(near).append("\r\n-\r\n--").append("\r");
                }
            }
            byte[] file = text.append("\r").toString().getBytes(StandardCharsets.US_ASCII);
            byte[] body = body(fileHead("file", "t.csv"), file, "\r\n", field("auth_id", "u" + extra), CLOSE);
            for (int step : new int[]{5, 4096, Integer.MAX_VALUE}) {
                List<Read> parts = readAll(trickle(body, step));
                assertEquals(2, parts.size(), "extra " + extra + ", read size " + step);
                assertArrayEquals(file, parts.get(0).content(), "extra " + extra + ", read size " + step);
                assertEquals("u" + extra, new String(parts.get(1).content(), StandardCharsets.UTF_8));
            }
        }
    }

    /** Content without any CR, of every length up to 80: only the delimiter's own CR stops the search. */
    @Test
    void theDelimiterIsFoundAtEveryDistanceInContentWithoutLineEnds() throws IOException {
        for (int length = 0; length <= 80; length++) {
            byte[] file = "abcdefgh".repeat(11).substring(0, length).getBytes(StandardCharsets.US_ASCII);
            byte[] body = body(fileHead("file", "a.bin"), file, "\r\n", field("auth_id", "u"), CLOSE);
            for (int step : new int[]{1, 9, Integer.MAX_VALUE}) {
                List<Read> parts = readAll(trickle(body, step));
                assertEquals(2, parts.size(), "length " + length + ", read size " + step);
                assertArrayEquals(file, parts.get(0).content(), "length " + length + ", read size " + step);
            }
        }
    }

    @Test
    void anEmptyPartAnEmptyFormAndPartsLeftUnreadAreHandled() throws IOException {
        List<Read> parts = readAll(trickle(body(field("empty", ""), CLOSE), 5));
        assertEquals(1, parts.size());
        assertEquals(0, parts.get(0).content().length);

        assertTrue(new MultipartReader(trickle(body(CLOSE), 2), B).nextPart().isEmpty());

        MultipartReader r = new MultipartReader(trickle(body(field("a", "x".repeat(200_000)), field("b", "2"), CLOSE),
                1000), B);
        assertEquals("a", r.nextPart().orElseThrow().name());
        assertEquals("b", r.nextPart().orElseThrow().name(), "the unread part is skipped");
        assertEquals(Optional.of("2"), r.readText(10));
        assertTrue(r.nextPart().isEmpty());
        assertTrue(r.nextPart().isEmpty(), "and stays at the end");
    }

    @Test
    void copyToStopsWritingAfterTheLimitAndSaysItWasLonger() throws IOException {
        MultipartReader r = new MultipartReader(trickle(body(fileHead("file", "f"), "0123456789", "\r\n",
                field("after", "yes"), CLOSE), 4), B);
        r.nextPart();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(7, r.copyTo(Channels.newChannel(out), 6));
        assertEquals("012345", out.toString(StandardCharsets.US_ASCII));
        assertEquals("after", r.nextPart().orElseThrow().name());

        r = new MultipartReader(trickle(body(fileHead("file", "f"), "012345", "\r\n", CLOSE), 4), B);
        r.nextPart();
        out.reset();
        assertEquals(6, r.copyTo(Channels.newChannel(out), 6), "exactly the limit is not over it");
    }

    @Test
    void readTextRefusesTextOverItsLimit() throws IOException {
        MultipartReader r = new MultipartReader(
                trickle(body(field("a", "x".repeat(5000)), field("b", "y".repeat(4096)), CLOSE), 333), B);
        r.nextPart();
        assertEquals(Optional.empty(), r.readText(4096));
        r.nextPart();
        assertEquals(Optional.of("y".repeat(4096)), r.readText(4096));
    }

    @Test
    void dispositionParametersQuotedEscapedUnquotedAndInAnyCase() throws IOException {
        String head = "--" + B + "\r\ncontent-disposition: FORM-DATA; filename=\"say \\\"hi\\\".txt\"; name=file\r\n"
                + "CONTENT-TYPE:text/plain\r\n\r\n";
        MultipartReader r = new MultipartReader(trickle(body(head, "hi\r\n", CLOSE), 9), B);
        assertEquals(new MultipartReader.Part("file", "say \"hi\".txt", "text/plain"), r.nextPart().orElseThrow());

        head = "--" + B + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"名前.png\"\r\n\r\n";
        r = new MultipartReader(trickle(body(head, "x\r\n", CLOSE), 9), B);
        assertEquals("名前.png", r.nextPart().orElseThrow().fileName(), "UTF-8 file names (RFC 7578 4.2)");
    }

    @Test
    void boundaryParameterRules() {
        assertEquals(Optional.of(B), MultipartReader.boundary("multipart/form-data; boundary=" + B));
        assertEquals(Optional.of("a b:c"),
                MultipartReader.boundary("Multipart/Form-Data;charset=x;BOUNDARY=\"a b:c\""));
        assertEquals(Optional.empty(), MultipartReader.boundary("multipart/form-data"));
        assertEquals(Optional.empty(), MultipartReader.boundary("multipart/mixed; boundary=abc"));
        assertEquals(Optional.empty(), MultipartReader.boundary("multipart/form-data; boundary="));
        assertEquals(Optional.empty(), MultipartReader.boundary("multipart/form-data; boundary=" + "a".repeat(71)));
        assertEquals(Optional.empty(), MultipartReader.boundary("multipart/form-data; boundary=\"ends in space \""));
        assertEquals(Optional.empty(), MultipartReader.boundary("multipart/form-data; boundary=semi\u00e9"));
        assertEquals(Optional.empty(), MultipartReader.boundary(null));
    }

    /**
     * A released reader's buffer goes to the next reader with the last body's bytes still in it. Those bytes must
     * never be read as the next body's. Here the second body is the first cut off just before its closing "--": the
     * buffer still holds that "--" right where the second body ends, and the second must be refused as incomplete,
     * not read as closed.
     */
    @Test
    void aReusedBufferNeverShowsTheLastBodysBytes() throws IOException {
        MultipartReader.SPARE.clear();
        MultipartReader first = new MultipartReader(new ByteArrayInputStream(body(field("a", "y"), CLOSE)), B);
        assertEquals("a", first.nextPart().orElseThrow().name());
        assertEquals(Optional.of("y"), first.readText(100));
        assertTrue(first.nextPart().isEmpty(), "the first body is whole");
        first.release();
        first.release(); // a second release gives nothing back twice
        assertEquals(1, MultipartReader.SPARE.size(), "the buffer is kept for the next reader");

        byte[] cut = body(field("a", "y"), "--" + B);
        MultipartReader second = new MultipartReader(new ByteArrayInputStream(cut), B);
        assertEquals(0, MultipartReader.SPARE.size(), "the next reader took it");
        assertEquals("a", second.nextPart().orElseThrow().name());
        assertEquals(Optional.of("y"), second.readText(100));
        assertThrows(MultipartReader.MalformedException.class, second::nextPart,
                "the stale closing \"--\" in the buffer is not this body's");
        second.release();
    }

    static void malformed(String why, byte[] body) {
        MultipartReader.MalformedException e = assertThrows(MultipartReader.MalformedException.class,
                () -> readAll(trickle(body, 11)), why);
        assertFalse(e.getMessage().isBlank());
    }

    @Test
    void malformedBodiesAreRefusedWithAReason() {
        malformed("no closing delimiter", body(field("a", "1")));
        malformed("ends inside content", body(fileHead("file", "f"), "abc"));
        malformed("nothing at all", new byte[0]);
        malformed("no delimiter at all", body("just some text"));
        malformed("garbage after a delimiter", body("--" + B + "xyz\r\n\r\n", CLOSE));
        malformed("header without a colon", body("--" + B + "\r\nnot a header\r\n\r\nx\r\n", CLOSE));
        malformed("no Content-Disposition", body("--" + B + "\r\nContent-Type: text/plain\r\n\r\nx\r\n", CLOSE));
        malformed("not form-data", body("--" + B + "\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nx\r\n",
                CLOSE));
        malformed("unclosed quote", body("--" + B + "\r\nContent-Disposition: form-data; name=\"a\r\n\r\nx\r\n",
                CLOSE));
        malformed("headers too long", body("--" + B + "\r\nContent-Disposition: form-data; name=\"a\"\r\nX-Pad: "
                + "p".repeat(MultipartReader.MAX_HEADER_BYTES) + "\r\n\r\nx\r\n", CLOSE));
        malformed("body ends in the headers", body("--" + B + "\r\nContent-Disposition: form-data; name=\"a\""));
    }

    @Test
    void whitespaceAfterADelimiterIsTransportPadding() throws IOException {
        List<Read> parts = readAll(trickle(body("--" + B + " \t\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1",
                "\r\n--" + B + "--"), 2));
        assertEquals(1, parts.size());
        assertNull(parts.get(0).part().fileName());
        assertEquals("1", new String(parts.get(0).content(), StandardCharsets.US_ASCII));
    }
}
