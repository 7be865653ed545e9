package com.convplatform.management.signed;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

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
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * Requests whose chain URL names a host that never answers (issue 22, the download storm): two downloads from that host
 * run at once; more requests naming it are answered at once, 503 CERT_FETCH_BUSY with Retry-After, without a download;
 * and another tenant's token request meanwhile answers as usual. The download deadline is set far beyond the test here
 * and the silent host holds its connections until the test releases them, so that only the test ends the two hanging
 * downloads: what is checked is the order of events, never how long a request took.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
@TestProfile(ChainDownloadBusyTest.NoDeadline.class)
class ChainDownloadBusyTest {
    public static class NoDeadline implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("management.cert-fetch.total-timeout", "PT10M");
        }
    }

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
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> hanging = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                int n = i;
                hanging.add(pool.submit(() -> tokenRequest(ClientPkiResource.SILENT_FQDN, silentClient, junk,
                        "https://" + ClientPkiResource.SILENT_FQDN + "/client.api/hang-" + n + ".pem").then()
                        .statusCode(400).body("error_code", equalTo("NOT_AUTHENTICATED"))));
            }
            // both downloads are connected and held by the silent host until the release below
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> ClientPkiResource.silentConnections() >= connectedBefore + 2);
            int connected = ClientPkiResource.silentConnections();
            // Only the release ends the hanging downloads, so a refusal that waited for a slot would never come: the
            // overall timeout is a guard against hanging, not a measure.
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                for (int i = 0; i < 3; i++) {
                    tokenRequest(ClientPkiResource.SILENT_FQDN, silentClient, junk,
                            "https://" + ClientPkiResource.SILENT_FQDN + "/client.api/more-" + i + ".pem").then()
                            .statusCode(503).header("Retry-After", "5")
                            .body("error_code", equalTo("CERT_FETCH_BUSY"));
                }
                assertEquals(connected, ClientPkiResource.silentConnections(),
                        "a busy refusal started a download from the silent host");
                tokenRequest(ClientPkiResource.FQDN, otherClient, ClientPkiResource.ecLeaf.key().getPrivate(),
                        "https://" + ClientPkiResource.FQDN + "/client.api/ec.pem").then().statusCode(200);
            }, "a request waited for the hanging downloads");
            for (Future<?> f : hanging) {
                assertFalse(f.isDone(), "a hanging download ended before the silent host let it go");
            }
            ClientPkiResource.releaseSilentConnections();
            for (Future<?> f : hanging) {
                f.get(30, TimeUnit.SECONDS); // the released download fails: 400 NOT_AUTHENTICATED
            }
        } finally {
            ClientPkiResource.releaseSilentConnections();
            pool.shutdownNow();
        }
    }
}
