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
        int callsAtRemoval = PlatformStubs.JWKS_CALLS.get();
        // Tried until refused. Bound by what the service has been given, not by the clock: once a download that began
        // after the removal has been served (the second one counted from it: the first may have begun before), the
        // key is gone from the service, and a token verified just before lives at most its verified-token-ttl (1 s)
        // more. An upload sent later than that, with half a second for the scheduling of this loop, must be refused.
        long[] goneAt = {Long.MAX_VALUE};
        List<Long> acceptedAfterMillis = new CopyOnWriteArrayList<>();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            long sent = (System.nanoTime() - removed) / 1_000_000;
            if (goneAt[0] == Long.MAX_VALUE && PlatformStubs.JWKS_CALLS.get() >= callsAtRemoval + 2) {
                goneAt[0] = sent;
            }
            try {
                refused(token, "the token's key is not one of the platform's");
            } catch (AssertionError notYet) {
                acceptedAfterMillis.add(sent);
                throw notYet;
            }
        });
        long limit = goneAt[0] == Long.MAX_VALUE ? Long.MAX_VALUE : goneAt[0] + 1500;
        assertTrue(acceptedAfterMillis.stream().allMatch(ms -> ms < limit), "the removed key was still accepted "
                + acceptedAfterMillis + " ms after its removal; a download without it was served by " + goneAt[0]
                + " ms");
        refused(PlatformStubs.token(rotated, "rotated", "ES256", Map.of("jti", "r2")),
                "the token's key is not one of the platform's");
        upload(PlatformStubs.token(), "client-1").statusCode(200);
    }
}
