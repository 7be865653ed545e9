package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static com.convplatform.management.signed.SignedApiTest.BASE;
import static com.convplatform.management.signed.SignedApiTest.TOKEN;
import static com.convplatform.management.signed.SignedApiTest.now;
import static com.convplatform.management.signed.SignedApiTest.refused;
import static com.convplatform.management.signed.SignedApiTest.tokenBody;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

/**
 * Issue 39, tenant lockout: junk naming a tenant, from many addresses, spends the sources' refusal budgets and the
 * junk URLs' download budget, never the tenant's request budget nor a chain URL that verified for it before. The
 * addresses are the clients' as a trusted proxy names them in X-Forwarded-For (the setting the deployment uses:
 * docs/operations.md); an IPv6 /64 counts as one source.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
@TestProfile(TenantLockoutTest.Limits.class)
class TenantLockoutTest {
    public static class Limits implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("management.rate-limit.per-account", "3", "management.rate-limit.failures-per-source", "2",
                    "management.rate-limit.per-source", "50", "management.cert-fetch.downloads-per-account", "2",
                    "quarkus.http.proxy.proxy-address-forwarding", "true",
                    "quarkus.http.proxy.allow-x-forwarded", "true",
                    "quarkus.http.proxy.trusted-proxies", "127.0.0.1,::1");
        }
    }

    static ValidatableResponse from(String address, String body, PrivateKey key, String certUrl) {
        var req = given().header("X-Forwarded-For", address).contentType(ContentType.JSON)
                .body(body.getBytes(StandardCharsets.UTF_8));
        if (certUrl.startsWith("https:")) {
            req.header("SignatureCertChainUrl", certUrl);
        } else {
            req.header("SignatureCertUUID", certUrl);
        }
        if (key != null) {
            req.header("Signature", new ManagementRequestSigner(key).sign(body));
        }
        return req.post(TOKEN).then();
    }

    @Test
    void tenantBIsServedWhileJunkNamingItArrivesFromManyAddresses() {
        String clientId = Fixtures.client(Fixtures.account(FQDN), "tenant B");
        PrivateKey rsa = ClientPkiResource.rsaLeaf.key().getPrivate();
        // B's chain URL verifies once (from B's own address): known-good from now on
        from("203.0.113.7", tokenBody(clientId, now()), rsa, BASE + "rsa.pem").statusCode(200);
        // its cached chain is dropped, so its next request must download it again
        given().header("Authorization", Fixtures.OPERATOR).queryParam("fqdn", FQDN).post("/admin/v1/chain-cache/purge")
                .then().statusCode(202);
        int rsaHits = ClientPkiResource.server.hits("/client.api/rsa.pem");

        // 30 addresses, 3 junk requests each naming B: unsigned, each with a chain URL of its own (60 in all, far
        // over B's budget of 3 requests and 2 downloads a minute)
        int junk = 0;
        for (int a = 1; a <= 30; a++) {
            String address = "198.51.100." + a;
            for (int i = 0; i < 2; i++) {
                var r = from(address, tokenBody(clientId, now()), null, BASE + "junk-" + a + "-" + i + ".pem");
                int status = r.extract().statusCode();
                r.body("error_code",
                        equalTo(status == 503 ? "CERT_FETCH_BUSY" : SignedRequestService.NOT_AUTHENTICATED));
                junk++;
            }
            // the address used its refusal budget: refused before any work
            refused(from(address, tokenBody(clientId, now()), null, BASE + "junk-" + a + "-x.pem"), 429,
                    "RATE_LIMITED");
            junk++;
        }
        assertEquals(90, junk);
        // a new chain URL of B's is refused: the junk URLs spent the download budget
        refused(from("203.0.113.7", tokenBody(clientId, now()), ClientPkiResource.ecLeaf.key().getPrivate(),
                BASE + "ec.pem"), 503, "CERT_FETCH_BUSY");

        // B itself is served: its known-good URL is downloaded beyond the budget, and its budget is its own
        from("203.0.113.7", tokenBody(clientId, now()), rsa, BASE + "rsa.pem").statusCode(200)
                .body("client_id", equalTo(clientId));
        from("203.0.113.8", tokenBody(clientId, now()), rsa, BASE + "rsa.pem").statusCode(200);
        assertEquals(rsaHits + 1, ClientPkiResource.server.hits("/client.api/rsa.pem"),
                "the known-good chain was downloaded again once");
        // B's fourth verified request in the minute meets B's own budget
        var own = from("203.0.113.7", tokenBody(clientId, now()), rsa, BASE + "rsa.pem");
        refused(own, 429, "RATE_LIMITED");
        own.body("error_message", containsString("verified signed requests for the account " + FQDN));
    }

    @Test
    void anIpv6Slash64IsOneSource() {
        // a registered-certificate id that does not exist: refused without any download
        String body = "{\"client_id\":\"c\",\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + now() + "\"}";
        refused(from("2001:db8:1:2::1", body, null, "no-such-certificate"), 400,
                SignedRequestService.NOT_AUTHENTICATED);
        refused(from("2001:db8:1:2:ffff:ffff:ffff:fffe", body, null, "no-such-certificate"), 400,
                SignedRequestService.NOT_AUTHENTICATED);
        // a third address of the same /64: its refusal budget (2) is spent
        var third = from("2001:db8:1:2:aaaa::3", body, null, "no-such-certificate");
        refused(third, 429, "RATE_LIMITED");
        third.body("error_message", containsString("from 2001:db8:1:2::/64"))
                .header("Retry-After", org.hamcrest.Matchers.notNullValue());
        // the next /64 is another source
        refused(from("2001:db8:1:3::1", body, null, "no-such-certificate"), 400,
                SignedRequestService.NOT_AUTHENTICATED);
        // and IPv4 addresses are each their own
        refused(from("192.0.2.1", body, null, "no-such-certificate"), 400, SignedRequestService.NOT_AUTHENTICATED);
    }

    @Test
    void theDownloadBudgetAnswersAnUnknownFqdnAsItAnswersAKnownOne() {
        Fixtures.account("private.example.com"); // its name resolves inside the network: every download fails at once
        java.util.List<java.util.List<Object>> answers = new java.util.ArrayList<>();
        int address = 10;
        for (String fqdn : new String[]{"private.example.com", "nobody-here.example.com"}) {
            java.util.List<Object> seen = new java.util.ArrayList<>();
            for (String url : new String[]{"a", "a", "a", "b", "c"}) {
                String body = "{\"client_id\":\"c\",\"fqdn\":\"" + fqdn + "\",\"timestamp\":\"" + now() + "\"}";
                var r = from("192.0.2." + address++, body, null, "https://" + fqdn + "/client.api/" + url + ".pem")
                        .extract();
                seen.add(r.statusCode() + " " + r.path("error_code") + " "
                        + r.<String>path("error_message").replace(fqdn, "FQDN"));
            }
            answers.add(seen);
        }
        // a URL named again is remembered (no download, no budget); the third new URL meets the budget of 2
        assertEquals(answers.get(0), answers.get(1));
        assertEquals(java.util.List.of(400, 400, 400, 400, 503), answers.get(0).stream()
                .map(a -> Integer.parseInt(((String) a).substring(0, 3))).toList());
    }
}
