package com.convplatform.management.signed;

import static com.convplatform.management.signed.ChainDownloadBusyTest.tokenRequest;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * Issue 22's storm: 200 hostile requests in flight at all times (70 bodies that stall after their first bytes, 70
 * token requests whose chain URL hangs, 60 junk signatures, each sent again as soon as it is answered), and meanwhile another tenant's valid token requests each answer within
 * one second. Prints the figures. The rate limits are off in the test profile, and the bound on bodies arriving at once
 * from one address is lifted here (the whole storm comes from 127.0.0.1): this shows what holds without them.
 */
@QuarkusTest
@Tag("storm")
@QuarkusTestResource(ClientPkiResource.class)
@TestProfile(HostileStormTest.OneAddress.class)
class HostileStormTest {
    public static class OneAddress implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("platform.http.max-bodies-per-source", "10000");
        }
    }

    @ConfigProperty(name = "quarkus.http.test-port")
    int port;

    @Test
    void aValidTokenRequestAnswersWithinOneSecondDuringAStormOf200HostileRequests() throws Exception {
        String silentClient = Fixtures.client(Fixtures.account(ClientPkiResource.SILENT_FQDN), "storm");
        String validClient = Fixtures.client(Fixtures.account(ClientPkiResource.FQDN), "good tenant");
        PrivateKey junk = KeyPairs.ecP256().getPrivate();
        PrivateKey good = ClientPkiResource.ecLeaf.key().getPrivate();
        for (int i = 0; i < 5; i++) { // the valid path is warm and its chain cached, as in production
            tokenRequest(ClientPkiResource.FQDN, validClient, good, chain()).then().statusCode(200);
        }
        // The hostile requests are built once and sent by the JDK's client, so that the load generator in this JVM
        // costs little of the two cores next to the service.
        String hangBody = "{\"client_id\":\"" + silentClient + "\",\"fqdn\":\"" + ClientPkiResource.SILENT_FQDN
                + "\",\"timestamp\":\"" + TimestampWindow.format(Instant.now()) + "\"}";
        String junkBody = "{\"client_id\":\"" + validClient + "\",\"fqdn\":\"" + ClientPkiResource.FQDN
                + "\",\"timestamp\":\"" + TimestampWindow.format(Instant.now()) + "\"}";
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        URI token = URI.create("http://127.0.0.1:" + port + "/platform/management/token/issue/");

        List<Socket> stalled = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(130);
        var outcomes = new ConcurrentHashMap<Integer, Integer>();
        AtomicBoolean storming = new AtomicBoolean(true);
        try {
            for (int i = 0; i < 70; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                OutputStream out = s.getOutputStream();
                out.write(("POST /platform/management/token/issue/ HTTP/1.1\r\nHost: localhost\r\nContent-Type:"
                        + " application/json\r\nContent-Length: 1000\r\nSignature: AAAA\r\n\r\n{\"client_id\":")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                stalled.add(s);
            }
            for (int i = 0; i < 130; i++) {
                int n = i;
                boolean hang = n < 70;
                String body = hang ? hangBody : junkBody;
                String url = hang
                        ? "https://" + ClientPkiResource.SILENT_FQDN + "/client.api/storm-" + n + ".pem"
                        : chain();
                HttpRequest request = HttpRequest.newBuilder(token).timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .header("Signature", new ManagementRequestSigner(junk).sign(body))
                        .header("SignatureCertChainUrl", url)
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
                pool.submit(() -> {
                    while (storming.get()) {
                        try {
                            int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                            outcomes.merge(status, 1, Integer::sum);
                        } catch (Exception e) {
                            outcomes.merge(-1, 1, Integer::sum);
                        }
                    }
                });
            }
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> outcomes.values().stream().mapToInt(Integer::intValue).sum() >= 500);
            long[] ms = new long[10];
            for (int i = 0; i < ms.length; i++) {
                long start = System.nanoTime();
                tokenRequest(ClientPkiResource.FQDN, validClient, good, chain()).then().statusCode(200);
                ms[i] = (System.nanoTime() - start) / 1_000_000;
            }
            storming.set(false);
            pool.shutdown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "hostile requests still unanswered");
            long[] sorted = ms.clone();
            Arrays.sort(sorted);
            System.out.printf("storm of 200 concurrent hostile requests (70 stalled bodies, 70 hanging chain URLs,"
                    + " 60 junk signatures, sent again as each is answered): valid token latency ms %s (median %d,"
                    + " max %d); hostile answers by status %s%n", Arrays.toString(ms), sorted[ms.length / 2],
                    sorted[ms.length - 1], outcomes);
            assertTrue(sorted[ms.length - 1] < 1_000, "a valid token request took " + sorted[ms.length - 1] + " ms");
            assertTrue(outcomes.keySet().stream().allMatch(s -> s == 400 || s == 503), "statuses " + outcomes);
        } finally {
            storming.set(false);
            pool.shutdownNow();
            for (Socket s : stalled) {
                s.close();
            }
        }
    }

    private static String chain() {
        return "https://" + ClientPkiResource.FQDN + "/client.api/ec.pem";
    }
}
