package com.convplatform.upload.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;

import org.junit.jupiter.api.Test;

class BoundedInputStreamTest {
    @Test
    void aBodyUpToTheBoundReadsWhole() throws IOException {
        byte[] body = new byte[10_000];
        body[9_999] = 7;
        BoundedInputStream in = new BoundedInputStream(new ByteArrayInputStream(body), 10_000);
        assertArrayEquals(body, in.readAllBytes());
        assertEquals(-1, in.read());
        assertFalse(in.exceeded());
    }

    @Test
    void theReadThatPassesTheBoundFailsAndSoDoEveryReadAfterIt() throws IOException {
        BoundedInputStream in = new BoundedInputStream(new ByteArrayInputStream(new byte[10_001]), 10_000);
        assertThrows(BoundedInputStream.TooLarge.class, () -> in.transferTo(OutputStream.nullOutputStream()));
        assertTrue(in.exceeded());
        assertThrows(BoundedInputStream.TooLarge.class, in::read);
        assertThrows(BoundedInputStream.TooLarge.class, () -> in.skip(1));
    }
}
