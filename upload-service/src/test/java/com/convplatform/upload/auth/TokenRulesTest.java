package com.convplatform.upload.auth;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * The token rules as SmallRye JWT and TokenIdentityProvider apply them: ES256 only, the JWKS's keys, iss, aud, exp and
 * iat within the 30 s leeway, the client-id; each refusal a 401 INVALID_AUTHORIZATION saying why. And the token is
 * checked from the headers alone, before the body is read.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class TokenRulesTest {
    static final String PATH = "/v1.0/log_file_from_user/";
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3};

    @BeforeEach
    void registeredUser() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
    }

    static ValidatableResponse upload(String token, String clientId) {
        var spec = given().header("Authorization", "Bearer " + token);
        if (clientId != null) {
            spec.header("client-id", clientId);
        }
        return spec.multiPart("auth_id", "user42").multiPart("business_id", "1001").multiPart("message_type", "1")
                .multiPart("file", "a.png", PNG, "image/png").post(PATH).then();
    }

    static void refused(String token, String why) {
        upload(token, "client-1").statusCode(401).body("error_code", equalTo("INVALID_AUTHORIZATION"))
                .body("error_message", equalTo("Invalid authorization details: " + why));
    }

    static String token(Map<String, Object> claims) {
        return PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "ES256", claims);
    }

    @Test
    void onlyES256WithAKeyOfTheJwks() {
        // unsigned: jose4j finds no key for it before it looks at the algorithm
        upload(PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "none", Map.of()), "client-1").statusCode(401)
                .body("error_code", equalTo("INVALID_AUTHORIZATION"))
                .body("error_message", org.hamcrest.Matchers.startsWith("Invalid authorization details: the token"));
        refused(PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID, "HS256", Map.of()),
                "the token must be signed with ES256");
        refused(PlatformStubs.token(PlatformStubs.OTHER_KEY, PlatformStubs.KID, "ES256", Map.of()),
                "the token's signature does not verify");
        refused(PlatformStubs.token(PlatformStubs.OTHER_KEY, "no-such-kid", "ES256", Map.of()),
                "the token's key is not one of the platform's");
        refused("not.a.jwt", "the token is not a valid JWT");
    }

    @Test
    void issuerAndAudienceAreThePlatforms() {
        refused(token(Map.of("iss", "someone-else")), "the token was not issued by the platform");
        refused(token(Map.of("aud", "another-api")), "the token is not meant for this API");
    }

    @Test
    void expiryAndIssueTimeHaveAThirtySecondLeeway() {
        long now = Instant.now().getEpochSecond();
        refused(token(Map.of("exp", now - 60, "iat", now - 600)), "the token has expired; ask for a new one");
        upload(token(Map.of("exp", now - 10, "iat", now - 600)), "client-1").statusCode(200);
        refused(token(Map.of("iat", now + 120)), "the token was issued in the future");
        upload(token(Map.of("iat", now + 10)), "client-1").statusCode(200);
    }

    @Test
    void theClientIdHeaderMustBeTheTokensClientAndTheTokenMustNameAnAccount() {
        for (String claim : List.of("account_id", "business_id", "client_id")) {
            refused(token(Map.of(claim, "")), "the token names no client, account or business");
        }
        upload(PlatformStubs.token(), null).statusCode(401).body("error_message",
                equalTo("Invalid authorization details: the client-id header is missing"));
        upload(PlatformStubs.token(), "client-2").statusCode(401).body("error_message",
                equalTo("Invalid authorization details: the client-id header does not match the token"));
        // a verified token is remembered, the client-id is checked on every request
        upload(PlatformStubs.token(), "client-1").statusCode(200);
        upload(PlatformStubs.token(), "client-2").statusCode(401);
    }

    @Test
    void withoutATokenTheAnswerIsTheSpecsAndTheOperatorKeyIsNoToken() {
        given().multiPart("auth_id", "user42").post(PATH).then().statusCode(401)
                .body("error_code", equalTo("INVALID_AUTHORIZATION"))
                .body("error_message", equalTo("Invalid authorization details: send 'Authorization: Bearer <access"
                        + " token>' and the client-id header"));
        // a token is not an operator key: the operator API refuses it as a wrong key
        given().header("Authorization", "Bearer " + PlatformStubs.token()).get("/admin/v1/users").then()
                .statusCode(403).body("error_code", equalTo("FORBIDDEN"));
        given().header("Authorization", "Bearer garbage").get("/admin/v1/users").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHORIZED"));
    }

    /**
     * A request that declares a 10 MiB body and sends only its headers and a few bytes is refused at once: the token
     * is checked before the body is read (the answer comes while the rest of the body has not been sent).
     */
    @Test
    void theTokenIsCheckedBeforeTheBodyIsRead() throws IOException {
        for (String[] c : new String[][]{{"garbage", "client-1"}, {PlatformStubs.token(), "client-2"}}) {
            try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
                socket.setSoTimeout(5_000);
                OutputStream out = socket.getOutputStream();
                out.write(("POST " + PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + c[0]
                        + "\r\nclient-id: " + c[1] + "\r\nContent-Type: multipart/form-data; boundary=b0undary\r\n"
                        + "Content-Length: " + (10 * 1024 * 1024) + "\r\n\r\n--b0undary\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
                assertTrue(status.equals("HTTP/1.1 401"), status);
            }
        }
    }
}
