package com.convplatform.management.token;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyPair;
import java.security.interfaces.ECPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Map;

import org.jose4j.jwk.EllipticCurveJsonWebKey;
import org.jose4j.jwk.JsonWebKey.OutputControlLevel;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.testsupport.ManagementInterface;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The signing key from {@code management.jwt.key-file} (what several replicas share), with the previous key given as
 * its old private-key file and a next key as a public key in {@code management.jwt.published-key-files}: the JWKS
 * publishes the signing key first and the others after it, each once; rotation over the API is refused in this mode.
 */
@QuarkusTest
@TestProfile(JwtKeyFilesTest.KeyFiles.class)
class JwtKeyFilesTest {
    static final KeyPair SIGNING = KeyPairs.ecP256();
    static final KeyPair PREVIOUS = KeyPairs.ecP256();
    static final KeyPair NEXT = KeyPairs.ecP256();
    /** The signing key file's date: a key made 30 days ago, before the platform first used it. */
    static final Instant KEY_MADE = Instant.now().minus(Duration.ofDays(30)).truncatedTo(ChronoUnit.SECONDS);

    public static class KeyFiles implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            try {
                Path dir = Files.createTempDirectory("jwt-keys");
                Path signing = Files.writeString(dir.resolve("jwt-key.pem"), Pem.toPem(SIGNING.getPrivate()));
                Files.setLastModifiedTime(signing, FileTime.from(KEY_MADE));
                Path previous = Files.writeString(dir.resolve("previous.pem"), Pem.toPem(PREVIOUS.getPrivate()));
                Path next = Files.writeString(dir.resolve("next-public.pem"), "-----BEGIN PUBLIC KEY-----\n"
                        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(NEXT.getPublic().getEncoded())
                        + "\n-----END PUBLIC KEY-----\n");
                // The signing key listed again is published once.
                return Map.of("management.jwt.key-file", signing.toString(), "management.jwt.published-key-files",
                        previous + "," + next + "," + signing);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void theJwksPublishesTheSigningKeyFirstThenThePublishedKeysOnce() {
        given().get("/platform/management/jwks.json").then().statusCode(200).body("keys", hasSize(3))
                .body("keys[0].x", equalTo(x(SIGNING))).body("keys[0].y", equalTo(y(SIGNING)))
                .body("keys[1].x", equalTo(x(PREVIOUS))).body("keys[2].x", equalTo(x(NEXT)))
                .body("keys[2].y", equalTo(y(NEXT)))
                .body("keys.alg", org.hamcrest.Matchers.everyItem(equalTo("ES256")));
    }

    /**
     * What the alert ManagementJwtKeyOld reads: when the platform first signed with the key, here the key file's date
     * (earlier than the first start with it).
     */
    @Test
    void theKeyAgeGaugeIsWhenTheKeyWasMade() {
        assertEquals(KEY_MADE.getEpochSecond(), metric("management_jwt_signing_key_created_timestamp_seconds"), 0.0);
    }

    /** The operator API says the same date, where the key comes from, and rotate-by: 90 days after that date. */
    @Test
    void theSigningKeyStateNamesTheKeyFileAndItsRotateByDate() {
        given().header("Authorization", "Bearer test-operator-key").get("/admin/v1/jwt/signing-key").then()
                .statusCode(200).body("source", equalTo("key-file")).body("algorithm", equalTo("ES256"))
                .body("first_used_at", equalTo(KEY_MADE.toString()))
                .body("rotate_by", equalTo(KEY_MADE.plus(Duration.ofDays(90)).toString()))
                .body("kid", equalTo(given().get("/platform/management/jwks.json").then().extract()
                        .path("keys[0].kid")));
    }

    static double metric(String name) {
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        return metrics.lines().filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in:\n" + metrics));
    }

    @Test
    void rotationOverTheApiIsRefusedWhenTheKeyComesFromAFile() {
        given().header("Authorization", "Bearer test-operator-key").contentType("application/json").body("{}")
                .post("/admin/v1/jwt/rotate").then().statusCode(409).body("error_code", equalTo("KEY_FROM_FILE"));
    }

    private static String x(KeyPair k) {
        return jwk(k).get(EllipticCurveJsonWebKey.X_MEMBER_NAME).toString();
    }

    private static String y(KeyPair k) {
        return jwk(k).get(EllipticCurveJsonWebKey.Y_MEMBER_NAME).toString();
    }

    /** The public key's JWK members, as jose4j writes them. */
    private static Map<String, Object> jwk(KeyPair k) {
        return new EllipticCurveJsonWebKey((ECPublicKey) k.getPublic()).toParams(OutputControlLevel.PUBLIC_ONLY);
    }
}
