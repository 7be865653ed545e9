package com.convplatform.upload.auth;

import static com.convplatform.upload.auth.TokenRulesTest.refused;
import static com.convplatform.upload.auth.TokenRulesTest.upload;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

/**
 * A key removed from the JWKS stops being accepted once the background download has seen it gone
 * (upload.jwks-refresh, 1 s here) and the verified token has been forgotten (upload.verified-token-ttl, 1 s here): the
 * same token and a new one of that key are refused, the other keys still work. Its own profile, so that the JWKS is
 * first downloaded by this test.
 */
@QuarkusTest
@TestProfile(JwksRefreshTest.ShortLives.class)
@QuarkusTestResource(PlatformStubsResource.class)
class JwksRefreshTest {
    public static class ShortLives implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("upload.verified-token-ttl", "PT1S", "upload.jwks-refresh", "PT1S");
        }
    }

    @AfterEach
    void restored() {
        PlatformStubs.PUBLISHED.remove("rotated");
        PlatformStubs.jwksMaxAge = 0;
    }

    @Test
    void aKeyRemovedFromTheJwksStopsBeingAccepted() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        KeyPair rotated = KeyPairs.ecP256();
        PlatformStubs.PUBLISHED.put("rotated", rotated);
        PlatformStubs.jwksMaxAge = 1;
        String token = PlatformStubs.token(rotated, "rotated", "ES256", Map.of("jti", "r1"));
        upload(token, "client-1").statusCode(200);
        upload(token, "client-1").statusCode(200);

        PlatformStubs.PUBLISHED.remove("rotated");
        long removed = System.nanoTime();
        // Tried until refused; every upload sent 4.5 s or more after the removal must be refused: the key lives on
        // until the next background download (every 1 s, on the scheduler's 1 s tick: up to 2 s), and a token
        // verified just before it at most its verified-token-ttl (1 s) more; the rest is margin for a loaded machine.
        List<Long> acceptedAfterMillis = new CopyOnWriteArrayList<>();
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            long sent = (System.nanoTime() - removed) / 1_000_000;
            try {
                refused(token, "the token's key is not one of the platform's");
            } catch (AssertionError notYet) {
                acceptedAfterMillis.add(sent);
                throw notYet;
            }
        });
        assertTrue(acceptedAfterMillis.stream().allMatch(ms -> ms < 4500),
                "the removed key was still accepted " + acceptedAfterMillis + " ms after its removal");
        refused(PlatformStubs.token(rotated, "rotated", "ES256", Map.of("jti", "r2")),
                "the token's key is not one of the platform's");
        upload(PlatformStubs.token(), "client-1").statusCode(200);
    }
}
