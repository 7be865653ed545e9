package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static com.convplatform.management.signed.SignedApiTest.BASE;
import static com.convplatform.management.signed.SignedApiTest.TOKEN;
import static com.convplatform.management.signed.SignedApiTest.now;
import static com.convplatform.management.signed.SignedApiTest.refused;
import static com.convplatform.management.signed.SignedApiTest.send;
import static com.convplatform.management.signed.SignedApiTest.tokenBody;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.Fingerprints;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * Withdrawing trust (issue 22): an operator blocks a certificate by fingerprint (signing certificate or CA of the
 * chain), lifts the block, and purges cached chains; what another replica records reaches this one within
 * management.blocks.refresh (1 s in the test profile). Reaches the database itself, so not part of the *IT suites.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class CertificateBlocksTest {
    private static final String BLOCKS = "/admin/v1/certificate-blocks/";

    @Inject
    DataSource database;

    @Test
    void aBlockedSelfSignedCertificateIsRefusedUntilTheBlockIsLifted() throws Exception {
        String accountId = Fixtures.account(FQDN);
        String clientId = Fixtures.client(accountId, "blocked shop");
        var kp = KeyPairs.ecP256();
        var cert = CertificateBuilder.selfSigned(kp, FQDN, Instant.now().plusSeconds(86400), FQDN);
        String uuid = Fixtures.certificate(accountId, cert);
        send(TOKEN, tokenBody(clientId, now()), kp.getPrivate(), null, uuid).statusCode(200);

        String fp = Fingerprints.sha256(cert);
        String withColons = fp.toUpperCase().replaceAll("(..)(?!$)", "$1:");
        given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("reason", "key reported stolen")).put(BLOCKS + withColons).then().statusCode(200)
                .body("sha256_fingerprint", equalTo(fp)).body("reason", equalTo("key reported stolen"));
        var refusedNow = send(TOKEN, tokenBody(clientId, now()), kp.getPrivate(), null, uuid);
        refused(refusedNow, 400, "CERT_BLOCKED");
        refusedNow.body("error_message", containsString(fp));
        given().header("Authorization", Fixtures.OPERATOR).get("/admin/v1/certificate-blocks").then().statusCode(200)
                .body("sha256_fingerprint", hasItem(fp));

        given().header("Authorization", Fixtures.OPERATOR).delete(BLOCKS + fp).then().statusCode(204);
        send(TOKEN, tokenBody(clientId, now()), kp.getPrivate(), null, uuid).statusCode(200);
        refused(given().header("Authorization", Fixtures.OPERATOR).delete(BLOCKS + fp).then(), 404, "BLOCK_NOT_FOUND");
    }

    @Test
    void blockingAChainsIntermediateThroughAnotherReplicaReachesThisOne() throws Exception {
        String clientId = Fixtures.client(Fixtures.account(FQDN), "ca shop");
        var key = ClientPkiResource.rsaLeaf.key().getPrivate();
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "rsa.pem", null).statusCode(200);
        String fp = Fingerprints.sha256(ClientPkiResource.pki.intermediate);
        try (var c = database.getConnection();
                var s = c.prepareStatement(
                        "insert into blocked_certificate (sha256_fingerprint, reason, blocked_at) values (?, ?, ?)")) {
            s.setString(1, fp);
            s.setString(2, "intermediate withdrawn");
            s.setObject(3, OffsetDateTime.now(ZoneOffset.UTC));
            assertEquals(1, s.executeUpdate());
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> refused(
                send(TOKEN, tokenBody(clientId, now()), key, BASE + "rsa.pem", null), 400, "CERT_BLOCKED"));
        given().header("Authorization", Fixtures.OPERATOR).delete(BLOCKS + fp).then().statusCode(204);
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "rsa.pem", null).statusCode(200);
    }

    /** The root a chain ends at is blocked as any certificate of it, though the path itself stops below it. */
    @Test
    void blockingTheRootAChainEndsAtRefusesIt() throws Exception {
        String clientId = Fixtures.client(Fixtures.account(FQDN), "root shop");
        var key = ClientPkiResource.ecLeaf.key().getPrivate();
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200);
        String fp = Fingerprints.sha256(ClientPkiResource.pki.root);
        given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("reason", "root withdrawn")).put(BLOCKS + fp).then().statusCode(200);
        var refusedNow = send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null);
        refused(refusedNow, 400, "CERT_BLOCKED");
        refusedNow.body("error_message", containsString(fp));
        given().header("Authorization", Fixtures.OPERATOR).delete(BLOCKS + fp).then().statusCode(204);
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200);
    }

    @Test
    void aPurgeMakesEveryReplicaDownloadTheChainAgain() throws Exception {
        String clientId = Fixtures.client(Fixtures.account(FQDN), "purged shop");
        var key = ClientPkiResource.ecLeaf.key().getPrivate();
        String path = "/client.api/ec.pem";
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200);
        int hits = ClientPkiResource.server.hits(path);
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200);
        assertEquals(hits, ClientPkiResource.server.hits(path), "a cached chain was downloaded again");

        given().header("Authorization", Fixtures.OPERATOR).queryParam("fqdn", FQDN).post("/admin/v1/chain-cache/purge")
                .then().statusCode(202).body("purged", equalTo(FQDN));
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200);
        assertEquals(hits + 1, ClientPkiResource.server.hits(path), "the purge did not reach the cache");

        // a purge of every account recorded through another replica
        try (var c = database.getConnection();
                var s = c.prepareStatement(
                        "insert into chain_purge (fqdn, requested_at) values (null, ?)")) {
            s.setObject(1, OffsetDateTime.now(ZoneOffset.UTC));
            s.executeUpdate();
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200);
            assertEquals(hits + 2, ClientPkiResource.server.hits(path));
        });

        // a purge whose id was taken before another's but committed after it (two operators at the same moment)
        try (var c = database.getConnection()) {
            c.setAutoCommit(false);
            try (var s = c.prepareStatement("insert into chain_purge (fqdn, requested_at) values (?, ?)")) {
                s.setString(1, FQDN);
                s.setObject(2, OffsetDateTime.now(ZoneOffset.UTC));
                s.executeUpdate(); // its id is taken now, below the next purge's
            }
            given().header("Authorization", Fixtures.OPERATOR).queryParam("fqdn", "other.example.org")
                    .post("/admin/v1/chain-cache/purge").then().statusCode(202); // read at once, past the held id
            c.commit();
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200);
            assertEquals(hits + 3, ClientPkiResource.server.hits(path), "the late purge did not reach the cache");
        });
    }

    @Test
    void badBlockRequestsAreRefusedAndChangeNothing() {
        refused(given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("reason", "x")).put(BLOCKS + "abc").then(), 400, "INVALID_FINGERPRINT");
        refused(given().header("Authorization", Fixtures.OPERATOR).contentType(ContentType.JSON).body("{}")
                .put(BLOCKS + "a".repeat(64)).then(), 400, "MISSING_FIELD");
        given().contentType(ContentType.JSON).body(Map.of("reason", "x")).put(BLOCKS + "a".repeat(64)).then()
                .statusCode(401);
        given().header("Authorization", Fixtures.OPERATOR).get("/admin/v1/certificate-blocks").then().statusCode(200)
                .body("sha256_fingerprint", org.hamcrest.Matchers.not(hasItem("a".repeat(64))));
    }
}
