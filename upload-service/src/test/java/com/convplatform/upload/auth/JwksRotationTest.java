package com.convplatform.upload.auth;

import static com.convplatform.upload.auth.TokenRulesTest.upload;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.security.KeyPair;
import java.time.Duration;
import java.util.Map;

import jakarta.inject.Inject;

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
 * A key published just after a background download is found by its first token: the token's unknown key id makes the
 * service download the JWKS at once, however recent the last background download was (jose4j would skip a download
 * asked for within 300 ms of the last one, and refuse the token). Background downloads are an hour apart in this
 * profile, so the one this test makes is the only one near the token.
 */
@QuarkusTest
@TestProfile(JwksRotationTest.HourlyDownloads.class)
@QuarkusTestResource(PlatformStubsResource.class)
class JwksRotationTest {
    public static class HourlyDownloads implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("upload.jwks-refresh", "PT1H", "upload.jwks-min-refresh", "PT10S");
        }
    }

    @Inject
    PlatformKeys keys;

    @AfterEach
    void restored() {
        PlatformStubs.PUBLISHED.remove("published-late");
    }

    @Test
    void aKeyPublishedJustAfterABackgroundDownloadIsFoundByItsFirstToken() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
        await().atMost(Duration.ofSeconds(30)).until(() -> PlatformStubs.JWKS_CALLS.get() >= 1);
        // a background download, then a rotation it did not see, then a token of the new key at once
        keys.refresh();
        KeyPair published = KeyPairs.ecP256();
        PlatformStubs.PUBLISHED.put("published-late", published);
        int before = PlatformStubs.JWKS_CALLS.get();
        upload(PlatformStubs.token(published, "published-late", "ES256", Map.of("jti", "late")), "client-1")
                .statusCode(200);
        assertEquals(before + 1, PlatformStubs.JWKS_CALLS.get(), "the unknown key id caused one download");
    }
}
