package com.convplatform.management;

import static io.restassured.RestAssured.given;

import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.UUID;

import com.convplatform.crypto.pem.Pem;

import io.restassured.http.ContentType;

/** Operator API calls the tests use to set up accounts. */
public final class Fixtures {
    public static final String OPERATOR = "Bearer test-operator-key";

    private Fixtures() {
    }

    /** Creates (once per FQDN) an account and returns its id. */
    public static String account(String fqdn) {
        String existing = given().header("Authorization", OPERATOR).queryParam("q", fqdn).queryParam("limit", 1000)
                .get("/admin/v1/accounts").then().statusCode(200)
                .extract().path("find { it.fqdn == '" + fqdn + "' }.account_id");
        if (existing != null) {
            return existing;
        }
        return given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("name", "Account " + fqdn, "fqdn", fqdn, "business_id",
                        String.valueOf(Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L)),
                        "webhook_url", "https://" + fqdn + "/hooks"))
                .post("/admin/v1/accounts").then().statusCode(201).extract().path("account_id");
    }

    /** Registers a self-signed certificate with the account and returns its certificate_uuid. */
    public static String certificate(String accountId, X509Certificate cert) {
        return given().header("Authorization", OPERATOR).contentType(ContentType.JSON)
                .body(Map.of("certificate", Pem.toPem(cert)))
                .post("/admin/v1/accounts/" + accountId + "/certificates").then().statusCode(201).extract()
                .path("certificate_uuid");
    }

    public static String client(String accountId, String name) {
        return given().header("Authorization", OPERATOR).contentType(ContentType.JSON).body(Map.of("name", name))
                .post("/admin/v1/accounts/" + accountId + "/clients").then().statusCode(201).extract()
                .path("client_id");
    }
}
