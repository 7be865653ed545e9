package com.convplatform.upload.auth;

import static com.convplatform.upload.auth.TokenRulesTest.refused;
import static com.convplatform.upload.auth.TokenRulesTest.upload;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

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
 * When the JWKS is downloaded (issue 22): in the background, right after start, before any token arrives; and for
 * tokens with key ids it does not know, at most once per upload.jwks-min-refresh however many arrive, so made-up key
 * ids cannot turn requests into downloads. Background downloads are an hour apart in this profile, so every download
 * counted here is one a request caused.
 */
@QuarkusTest
@TestProfile(JwksDownloadTest.HourlyDownloads.class)
@QuarkusTestResource(PlatformStubsResource.class)
class JwksDownloadTest {
    public static class HourlyDownloads implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("upload.jwks-refresh", "PT1H", "upload.jwks-min-refresh", "PT1M");
        }
    }

    @Test
    void keysAreDownloadedBeforeTheFirstTokenAndUnknownKeyIdsCauseOneDownloadAtMost() {
        // the start-up download needs no request
        await().atMost(Duration.ofSeconds(30)).until(() -> PlatformStubs.JWKS_CALLS.get() >= 1);
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        int before = PlatformStubs.JWKS_CALLS.get();
        upload(PlatformStubs.token(), "client-1").statusCode(200);
        assertEquals(before, PlatformStubs.JWKS_CALLS.get(), "a token of a known key made the service download");

        for (int i = 0; i < 20; i++) {
            refused(PlatformStubs.token(KeyPairs.ecP256(), "made-up-" + UUID.randomUUID(), "ES256",
                    Map.of("jti", "u" + i)), "the token's key is not one of the platform's");
        }
        int caused = PlatformStubs.JWKS_CALLS.get() - before;
        assertTrue(caused <= 1, "20 tokens with unknown key ids caused " + caused + " downloads");
        upload(PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256",
                Map.of("jti", "after")), "client-1").statusCode(200);
    }
}
