package com.convplatform.management.signed;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.time.TimestampWindow;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * Requests whose chain URL names a host that never answers (issue 22, the download storm): two downloads from that host
 * run at once, each to its 5 s deadline; more requests naming it are answered at once, 503 CERT_FETCH_BUSY with
 * Retry-After, without a download; and another tenant's token request meanwhile answers as usual.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class ChainDownloadBusyTest {

    static Response tokenRequest(String fqdn, String clientId, PrivateKey key, String chainUrl) {
        String body = "{\"client_id\":\"" + clientId + "\",\"fqdn\":\"" + fqdn + "\",\"timestamp\":\""
                + TimestampWindow.format(Instant.now()) + "\"}";
        return given().contentType(ContentType.JSON).body(body.getBytes(StandardCharsets.UTF_8))
                .header("Signature", new ManagementRequestSigner(key).sign(body))
                .header("SignatureCertChainUrl", chainUrl).post("/platform/management/token/issue/");
    }

    @Test
    void aHostThatNeverAnswersHoldsTwoDownloadsAndTheRestAreRefusedAtOnce() throws Exception {
        String silentClient = Fixtures.client(Fixtures.account(ClientPkiResource.SILENT_FQDN), "storm");
        String otherClient = Fixtures.client(Fixtures.account(ClientPkiResource.FQDN), "other tenant");
        PrivateKey junk = KeyPairs.ecP256().getPrivate();
        int connectedBefore = ClientPkiResource.silentConnections();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<Long>> hanging = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                int n = i;
                hanging.add(pool.submit(() -> {
                    long start = System.nanoTime();
                    tokenRequest(ClientPkiResource.SILENT_FQDN, silentClient, junk,
                            "https://" + ClientPkiResource.SILENT_FQDN + "/client.api/hang-" + n + ".pem").then()
                            .statusCode(400).body("error_code", equalTo("NOT_AUTHENTICATED"));
                    return (System.nanoTime() - start) / 1_000_000;
                }));
            }
            // both downloads are connected and waiting (their deadline is 5 s)
            await().atMost(Duration.ofSeconds(4))
                    .until(() -> ClientPkiResource.silentConnections() >= connectedBefore + 2);
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                Response busy = tokenRequest(ClientPkiResource.SILENT_FQDN, silentClient, junk,
                        "https://" + ClientPkiResource.SILENT_FQDN + "/client.api/more-" + i + ".pem");
                long ms = (System.nanoTime() - start) / 1_000_000;
                busy.then().statusCode(503).header("Retry-After", "5").body("error_code", equalTo("CERT_FETCH_BUSY"));
                assertTrue(ms < 1_000, "the busy refusal took " + ms + " ms");
            }
            long start = System.nanoTime();
            tokenRequest(ClientPkiResource.FQDN, otherClient, ClientPkiResource.ecLeaf.key().getPrivate(),
                    "https://" + ClientPkiResource.FQDN + "/client.api/ec.pem").then().statusCode(200);
            long otherMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(otherMs < 2_000, "the other tenant's token took " + otherMs + " ms");
            for (Future<Long> f : hanging) {
                long ms = f.get();
                assertTrue(ms >= 4_000, "a hanging download ended after " + ms + " ms");
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
