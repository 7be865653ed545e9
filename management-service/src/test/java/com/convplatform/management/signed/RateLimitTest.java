package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static com.convplatform.management.signed.SignedApiTest.BASE;
import static com.convplatform.management.signed.SignedApiTest.TOKEN;
import static com.convplatform.management.signed.SignedApiTest.now;
import static com.convplatform.management.signed.SignedApiTest.refused;
import static com.convplatform.management.signed.SignedApiTest.send;
import static com.convplatform.management.signed.SignedApiTest.tokenBody;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * The signed API's rate limits (issue 22): per source address, before any work, and per account, spent by verified
 * requests only (issue 39); each answered 429 RATE_LIMITED with Retry-After and an error body.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
@TestProfile(RateLimitTest.SmallLimits.class)
class RateLimitTest {
    public static class SmallLimits implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("management.rate-limit.per-source", "6", "management.rate-limit.per-account", "3");
        }
    }

    @Test
    void anAccountThenASourceThatUsedItsBudgetIsAnswered429WithoutWork() {
        String clientId = Fixtures.client(Fixtures.account(FQDN), "busy shop");
        Fixtures.account("other-tenant.example.com");
        var key = ClientPkiResource.ecLeaf.key().getPrivate();
        for (int i = 0; i < 3; i++) {
            send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200);
        }
        // the account's budget is spent by verified requests only (issue 39): the fourth verified one is refused
        var limited = send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null);
        refused(limited, 429, "RATE_LIMITED");
        limited.body("error_message", containsString("verified signed requests for the account " + FQDN));
        int retryAfter = Integer.parseInt(limited.extract().header("Retry-After"));
        assertTrue(retryAfter >= 1 && retryAfter <= 60, "Retry-After " + retryAfter);
        // junk naming the account is refused for what it is, never by the account's budget
        refused(send(TOKEN, tokenBody(clientId, now()), key, BASE + "rsa.pem", null), 400, "NOT_AUTHENTICATED");

        // 5 requests from this address so far; another tenant gets one more, then the address is at its limit
        String otherBody = "{\"fqdn\":\"other-tenant.example.com\",\"timestamp\":\"" + now() + "\"}";
        for (int i = 0; i < 1; i++) {
            refused(send(SignedApiTest.CLIENTS, otherBody, key, null, "no-such-certificate"), 400, "NOT_AUTHENTICATED");
        }
        var fromSource = send(SignedApiTest.CLIENTS, otherBody, key, null, "no-such-certificate");
        refused(fromSource, 429, "RATE_LIMITED");
        fromSource.body("error_message", containsString("from 127.0.0.1"));
    }
}
