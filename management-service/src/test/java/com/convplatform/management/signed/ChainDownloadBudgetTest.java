package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static com.convplatform.management.signed.SignedApiTest.BASE;
import static com.convplatform.management.signed.SignedApiTest.TOKEN;
import static com.convplatform.management.signed.SignedApiTest.now;
import static com.convplatform.management.signed.SignedApiTest.refused;
import static com.convplatform.management.signed.SignedApiTest.send;
import static com.convplatform.management.signed.SignedApiTest.tokenBody;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * What junk requests under an account's FQDN can cost its chain server (issue 22): a URL that failed is answered from
 * memory for a while (one download, not one per request), and downloads of new URLs stop at the account's budget
 * (503 CERT_FETCH_BUSY) while chains already cached keep working.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
@TestProfile(ChainDownloadBudgetTest.Budget.class)
class ChainDownloadBudgetTest {
    public static class Budget implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("management.cert-fetch.downloads-per-account", "2");
        }
    }

    @Test
    void aFailedUrlIsDownloadedOnceAndNewUrlsStopAtTheBudget() {
        String clientId = Fixtures.client(Fixtures.account(FQDN), "budget shop");
        var key = ClientPkiResource.ecLeaf.key().getPrivate();
        String missing = "/client.api/missing.pem";
        int before = ClientPkiResource.server.hits(missing);
        refused(send(TOKEN, tokenBody(clientId, now()), key, "https://" + FQDN + missing, null), 400,
                "NOT_AUTHENTICATED");
        var again = send(TOKEN, tokenBody(clientId, now()), key, "https://" + FQDN + missing, null);
        refused(again, 400, "NOT_AUTHENTICATED");
        // the reason (CERT_FETCH_FAILED, kept for 15 s) is the operator's to see: one refusal for all (issue 39)
        assertEquals(before + 1, ClientPkiResource.server.hits(missing), "the failed URL was downloaded again");

        send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200); // second download
        int rsaHits = ClientPkiResource.server.hits("/client.api/rsa.pem");
        var over = send(TOKEN, tokenBody(clientId, now()), ClientPkiResource.rsaLeaf.key().getPrivate(),
                BASE + "rsa.pem", null);
        refused(over, 503, "CERT_FETCH_BUSY");
        over.header("Retry-After", not(org.hamcrest.Matchers.emptyOrNullString()))
                .body("error_message", containsString("for the account " + FQDN));
        assertEquals(rsaHits, ClientPkiResource.server.hits("/client.api/rsa.pem"), "over budget, yet downloaded");
        // the cached chain does not count against the budget
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "ec.pem", null).statusCode(200);
    }
}
