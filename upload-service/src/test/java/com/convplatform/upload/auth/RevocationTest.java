package com.convplatform.upload.auth;

import static com.convplatform.upload.message.UploadTest.PATH;
import static com.convplatform.upload.message.UploadTest.PNG;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * Tokens of what management-service has revoked stop working at the upload within upload.revocations.refresh (1 s
 * here, 5 s by default), a token the service remembers as verified included: a revoked certificate's tokens issued
 * before its revocation, every token of a disabled client or account; the others go on. If the list cannot be read,
 * the one read last stays in force.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class RevocationTest {
    /** The refresh interval here (1 s), plus a download and the awaited upload's own time, with room for a busy CI. */
    static final Duration WITHIN = Duration.ofSeconds(10);

    @BeforeEach
    void user() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
    }

    @AfterEach
    void nothingRevoked() {
        PlatformStubs.revoked = "[]";
        PlatformStubs.revocationsDown = false;
    }

    static String token(String account, String client, String cert, Instant issuedAt) {
        Map<String, Object> claims = new HashMap<>(Map.of("account_id", account, "client_id", client, "sub", client,
                "iat", issuedAt.getEpochSecond()));
        if (cert != null) {
            claims.put("cert_sha256", cert);
        }
        return PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256", claims);
    }

    static ValidatableResponse upload(String token, String client) {
        return given().header("Authorization", "Bearer " + token).header("client-id", client)
                .multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "a.png", PNG, "image/png").post(PATH).then();
    }

    @Test
    void aRevokedCertificatesTokensStopWorkingWithinTheRefreshAndLaterOnesAndOthersGoOn() {
        String cert = "ab".repeat(32);
        Instant issued = Instant.now().minusSeconds(60);
        String before = token("acct-rev", "client-1", cert, issued);
        String otherCert = token("acct-rev", "client-1", "cd".repeat(32), issued);
        upload(before, "client-1").statusCode(200); // verified, and remembered as such
        Instant revokedAt = Instant.now().minusSeconds(10);
        PlatformStubs.revoked = "[{\"kind\":\"certificate\",\"id\":\"" + cert.toUpperCase() + "\","
                + "\"tokens_issued_before\":\"" + revokedAt + "\",\"disabled\":false}]";
        await().atMost(WITHIN).untilAsserted(() -> upload(before, "client-1").statusCode(401)
                .body("error_code", equalTo("TOKEN_REVOKED"))
                .body("error_message", startsWith("Invalid authorization details: this token no longer works"))
                .body("error_message", containsString("the certificate it was issued to is revoked")));
        upload(otherCert, "client-1").statusCode(200);
        upload(token("acct-rev", "client-1", cert, revokedAt.plusSeconds(5)), "client-1").statusCode(200);
    }

    @Test
    void aDisabledClientOrAccountHasEveryTokenRefusedHoweverNew() {
        String client = token("acct-a", "client-9", null, Instant.now());
        String account = token("acct-b", "client-1", null, Instant.now());
        String bystander = token("acct-c", "client-1", null, Instant.now());
        upload(client, "client-9").statusCode(200);
        upload(account, "client-1").statusCode(200);
        PlatformStubs.revoked = "[{\"kind\":\"client\",\"id\":\"client-9\",\"tokens_issued_before\":null,"
                + "\"disabled\":true},{\"kind\":\"account\",\"id\":\"acct-b\",\"tokens_issued_before\":\""
                + Instant.now().minusSeconds(3600) + "\",\"disabled\":true}]";
        await().atMost(WITHIN).untilAsserted(() -> upload(client, "client-9").statusCode(401)
                .body("error_code", equalTo("TOKEN_REVOKED"))
                .body("error_message", containsString("client is disabled")));
        upload(account, "client-1").statusCode(401).body("error_message", containsString("account is disabled"));
        upload(token("acct-b", "client-1", null, Instant.now()), "client-1").statusCode(401);
        upload(bystander, "client-1").statusCode(200);
    }

    @Test
    void whenTheListCannotBeReadTheLastOneStaysInForce() {
        String t = token("acct-down", "client-1", null, Instant.now());
        PlatformStubs.revoked = "[{\"kind\":\"account\",\"id\":\"acct-down\",\"tokens_issued_before\":null,"
                + "\"disabled\":true}]";
        await().atMost(WITHIN).untilAsserted(() -> upload(t, "client-1").statusCode(401));
        double failures = failures();
        PlatformStubs.revocationsDown = true;
        PlatformStubs.revoked = "[]";
        await().atMost(WITHIN).until(() -> failures() > failures);
        upload(t, "client-1").statusCode(401).body("error_code", equalTo("TOKEN_REVOKED"));
        PlatformStubs.revocationsDown = false;
        await().atMost(WITHIN).untilAsserted(() -> upload(t, "client-1").statusCode(200));
        assertTrue(failures() > failures);
    }

    private static double failures() {
        return given().get(ManagementInterface.url("/q/metrics")).then().extract().asString().lines()
                .filter(l -> l.startsWith("upload_revocations_refresh_failures_total"))
                .map(l -> l.contains(" # ") ? l.substring(0, l.indexOf(" # ")) : l)
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(0);
    }
}
