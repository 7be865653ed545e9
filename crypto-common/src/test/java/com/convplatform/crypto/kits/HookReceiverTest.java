package com.convplatform.crypto.kits;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.hook.HookHeaders;
import com.convplatform.crypto.receiver.HookReceiver;
import com.convplatform.crypto.testing.TestPki;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@link HookReceiver} with the recorded hooks of the shared vectors: the raw bytes handed on untouched when a hook
 * verifies, and a 400 with {@code {"error_code", "error_message"}} naming the failure for every refused one.
 */
class HookReceiverTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static TestPki tls;
    static JsonNode hooks;

    @BeforeAll
    static void load() {
        tls = TestPki.create();
        hooks = KitVectors.json("hooks.json");
    }

    static JsonNode hookCase(String name) {
        for (JsonNode c : hooks.get("cases")) {
            if (c.get("name").asText().equals(name)) {
                return c;
            }
        }
        throw new IllegalStateException("hooks.json has no case '" + name + "'");
    }

    static String header(JsonNode c, String name) {
        return KitVectors.stringOrNull(c.get("headers").get(name));
    }

    @Test
    void aGoodHookIsAcceptedWithItsExactBytes() throws Exception {
        JsonNode good = hookCase("good-non-ascii-body");
        byte[] body = KitVectors.base64(good.get("body_b64"));
        try (VectorPlatform platform = VectorPlatform.forCase(tls, hooks, good)) {
            platform.serve(good.get("served"));
            HookReceiver receiver = new HookReceiver(platform.verifier);
            HookReceiver.Outcome outcome = receiver.receive(header(good, HookHeaders.SIGNATURE),
                    header(good, HookHeaders.CERTIFICATE_URL), new ByteArrayInputStream(body));
            HookReceiver.Accepted ok = assertInstanceOf(HookReceiver.Accepted.class, outcome);
            assertArrayEquals(body, ok.body());
            assertEquals("https://hooks.platform.test/platform/hooks/certificate/", ok.verified().certificateUrl());
            assertEquals(Instant.parse(good.get("now").asText()), ok.verified().signatureTimestamp());
        }
    }

    @TestFactory
    Stream<DynamicTest> everyRefusedHookIsA400NamingItsFailure() {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : hooks.get("cases")) {
            String expected = c.get("expected").asText();
            if (expected.equals("OK") || !c.get("prime").isNull()) {
                continue;
            }
            tests.add(dynamicTest(c.get("name").asText() + " -> 400 " + expected, () -> {
                try (VectorPlatform platform = VectorPlatform.forCase(tls, hooks, c)) {
                    platform.serve(c.get("served"));
                    HookReceiver.Outcome outcome = new HookReceiver(platform.verifier).receive(
                            header(c, HookHeaders.SIGNATURE), header(c, HookHeaders.CERTIFICATE_URL),
                            new ByteArrayInputStream(KitVectors.base64(c.get("body_b64"))));
                    HookReceiver.Rejected refused = assertInstanceOf(HookReceiver.Rejected.class, outcome);
                    assertEquals(400, refused.status());
                    assertEquals(expected, refused.errorCode());
                    JsonNode json = JSON.readTree(refused.jsonBody());
                    assertEquals(Set.of("error_code", "error_message"), fieldNames(json));
                    assertEquals(expected, json.get("error_code").asText());
                    assertEquals(refused.errorMessage(), json.get("error_message").asText());
                    assertTrue(refused.errorMessage().length() > 10, refused.errorMessage());
                }
            }));
        }
        assertTrue(tests.size() > 50);
        return tests.stream();
    }

    @Test
    void aBodyOverTheLimitIsRefusedUnreadAndUnverified() throws Exception {
        JsonNode good = hookCase("good");
        byte[] body = KitVectors.base64(good.get("body_b64"));
        try (VectorPlatform platform = VectorPlatform.forCase(tls, hooks, good)) {
            platform.serve(good.get("served"));
            String sig = header(good, HookHeaders.SIGNATURE);
            String url = header(good, HookHeaders.CERTIFICATE_URL);

            HookReceiver tight = new HookReceiver(platform.verifier, body.length - 1);
            CountingStream stream = new CountingStream(body);
            HookReceiver.Rejected tooLarge = assertInstanceOf(HookReceiver.Rejected.class,
                    tight.receive(sig, url, stream));
            assertEquals(413, tooLarge.status());
            assertEquals(HookReceiver.BODY_TOO_LARGE, tooLarge.errorCode());
            assertEquals(body.length, stream.read, "reads the limit plus one byte, no more");
            assertEquals(0, platform.downloads(), "nothing is verified");
            assertInstanceOf(HookReceiver.Rejected.class, tight.receive(sig, url, body));

            HookReceiver exact = new HookReceiver(platform.verifier, body.length);
            assertInstanceOf(HookReceiver.Accepted.class, exact.receive(sig, url, new ByteArrayInputStream(body)));
        }
    }

    @Test
    void theAcceptedBodyIsACopy() throws Exception {
        JsonNode good = hookCase("good");
        byte[] body = KitVectors.base64(good.get("body_b64"));
        try (VectorPlatform platform = VectorPlatform.forCase(tls, hooks, good)) {
            platform.serve(good.get("served"));
            byte[] mine = body.clone();
            HookReceiver.Accepted ok = assertInstanceOf(HookReceiver.Accepted.class, new HookReceiver(
                    platform.verifier).receive(header(good, HookHeaders.SIGNATURE),
                            header(good, HookHeaders.CERTIFICATE_URL), mine));
            mine[0] = 'X';
            assertArrayEquals(body, ok.body());
        }
    }

    @Test
    void aBrokenConnectionIsAnIoErrorNotAVerdict() throws Exception {
        JsonNode good = hookCase("good");
        try (VectorPlatform platform = VectorPlatform.forCase(tls, hooks, good)) {
            InputStream broken = new InputStream() {
                @Override
                public int read() throws IOException {
                    throw new IOException("connection reset");
                }
            };
            HookReceiver receiver = new HookReceiver(platform.verifier);
            assertThrows(IOException.class, () -> receiver.receive("x", "y", broken));
        }
    }

    @Test
    void theErrorBodyIsJsonWhateverTheMessageHolds() throws Exception {
        String message = "quote \" backslash \\ newline \n tab \t control \u0001 non-ASCII é 日本 🙂";
        HookReceiver.Rejected r = new HookReceiver.Rejected(400, FailureCode.CERT_URL_HOST.name(), message);
        JsonNode json = JSON.readTree(r.jsonBody());
        assertEquals("CERT_URL_HOST", json.get("error_code").asText());
        assertEquals(message, json.get("error_message").asText());
    }

    @Test
    void theReceiverRefusesNonsenseConfiguration() throws Exception {
        JsonNode good = hookCase("good");
        try (VectorPlatform platform = VectorPlatform.forCase(tls, hooks, good)) {
            assertThrows(IllegalArgumentException.class, () -> new HookReceiver(platform.verifier, 0));
            assertThrows(NullPointerException.class, () -> new HookReceiver(null));
            assertEquals(HookReceiver.DEFAULT_MAX_BODY_BYTES, new HookReceiver(platform.verifier).maxBodyBytes());
        }
    }

    static Set<String> fieldNames(JsonNode json) {
        Set<String> names = new java.util.TreeSet<>();
        json.properties().forEach(e -> names.add(e.getKey()));
        return names;
    }

    /** A body stream that counts the bytes taken from it. */
    static final class CountingStream extends ByteArrayInputStream {
        int read;

        CountingStream(byte[] body) {
            super(body);
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) {
            int n = super.read(b, off, len);
            read += Math.max(n, 0);
            return n;
        }

        @Override
        public synchronized int read() {
            int c = super.read();
            read += c >= 0 ? 1 : 0;
            return c;
        }
    }
}
