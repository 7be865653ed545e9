package com.convplatform.management.admin;

import static com.convplatform.management.Fixtures.OPERATOR;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;

/**
 * The operator API's account search ({@code GET /admin/v1/accounts?q=}) over HTTP: what q matches, the order and the
 * pages, and every refusal with its status and body. Each test makes its own accounts under a random tag, so the
 * accounts of the other tests never match.
 */
@QuarkusTest
class AccountSearchTest {
    static RequestSpecification operator() {
        return given().header("Authorization", OPERATOR);
    }

    static String tag() {
        return "s" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    static String create(String name, String fqdn, String business) {
        return AdminApiTest.post("/admin/v1/accounts", Map.of("name", name, "fqdn", fqdn, "business_id", business,
                "webhook_url", "https://" + fqdn + "/hooks")).statusCode(201).extract().path("account_id");
    }

    static ValidatableResponse search(Map<String, ?> query) {
        return operator().queryParams(query).get("/admin/v1/accounts").then();
    }

    @Test
    void qMatchesPartOfAnFqdnOrNameInAnyCaseAndAnExactBusinessOrAccountId() {
        String tag = tag();
        String business = AdminApiTest.digits();
        String shop = create("Corner Shop " + tag, "shop." + tag + ".example", business);
        String api = create("Api", "api." + tag + ".example", AdminApiTest.digits());
        String named = tag();
        String other = create("Named " + named.toUpperCase(), tag() + ".example", AdminApiTest.digits());

        // part of the FQDN, in any case: in the order of the FQDNs
        search(Map.of("q", tag.toUpperCase())).statusCode(200)
                .body("fqdn", contains("api." + tag + ".example", "shop." + tag + ".example"))
                .body("name", contains("Api", "Corner Shop " + tag)).body("[1].business_id", equalTo(business))
                .body("[1].account_id", equalTo(shop)).body("[0].account_id", equalTo(api));
        // a name that contains it (this account's FQDN does not)
        search(Map.of("q", "named " + named)).statusCode(200).body("account_id", contains(other));
        search(Map.of("q", named, "limit", "")).statusCode(200).body("account_id", contains(other));
        search(Map.of("q", "  corner shop " + tag + " ")).statusCode(200).body("account_id", contains(shop));
        // the exact business id, and the exact account id; a part of either matches nothing
        search(Map.of("q", business)).statusCode(200).body("account_id", contains(shop));
        search(Map.of("q", shop)).statusCode(200).body("account_id", contains(shop));
        search(Map.of("q", shop.substring(0, 20))).statusCode(200).body("$", empty());
        // % and _ are plain characters, not patterns
        search(Map.of("q", "%")).statusCode(200).body("$", empty());
        search(Map.of("q", tag.substring(0, 3) + "_" + tag.substring(4))).statusCode(200).body("$", empty());
        search(Map.of("q", "no-such-" + tag)).statusCode(200).body("$", empty());
    }

    @Test
    void pagesAreBoundedAndFollowEachOtherByTheLastFqdn() {
        String tag = tag();
        List<String> fqdns = new ArrayList<>();
        // 101 accounts: one more than a page without a limit holds
        IntStream.range(0, 101).forEach(i -> {
            String fqdn = String.format("n%03d.%s.example", i, tag);
            create("Page " + i, fqdn, AdminApiTest.digits());
            fqdns.add(fqdn);
        });
        search(Map.of("q", tag)).statusCode(200).body("$", hasSize(100)).body("[0].fqdn", equalTo(fqdns.get(0)))
                .body("[99].fqdn", equalTo(fqdns.get(99)));
        search(Map.of("q", tag, "limit", "1000")).statusCode(200).body("$", hasSize(101));

        // limit 40: three pages, each starting after the last FQDN of the one before, the last one short
        List<String> seen = new ArrayList<>();
        String after = null;
        int pages = 0;
        while (true) {
            Map<String, Object> query = after == null
                    ? Map.of("q", tag, "limit", 40)
                    : Map.of("q", tag, "limit", 40, "after", after);
            List<String> page = search(query).statusCode(200).extract().path("fqdn");
            pages++;
            seen.addAll(page);
            if (page.size() < 40) {
                break;
            }
            after = page.get(page.size() - 1);
        }
        assertEquals(3, pages);
        assertEquals(fqdns, seen, "every account once, in order");
        // the cursor in capitals names the same place
        search(Map.of("q", tag, "limit", 1, "after", fqdns.get(99).toUpperCase())).statusCode(200)
                .body("fqdn", contains(fqdns.get(100)));
    }

    @Test
    void withoutQTheListIsEveryAccountInPages() {
        String tag = tag();
        String mine = create("A", "a." + tag + ".example", AdminApiTest.digits());
        search(Map.of("limit", 5)).statusCode(200).body("$", hasSize(5));
        // followed page by page (in the database's own order of FQDNs), every account comes once, this one too
        List<String> ids = new ArrayList<>();
        String after = null;
        while (true) {
            List<Map<String, Object>> page = search(after == null
                    ? Map.of("limit", 25)
                    : Map.of("limit", 25, "q", " ", "after", after)).statusCode(200).extract().path("$");
            page.forEach(a -> ids.add((String) a.get("account_id")));
            if (page.size() < 25) {
                break;
            }
            after = (String) page.get(page.size() - 1).get("fqdn");
        }
        assertEquals(ids.size(), Set.copyOf(ids).size(), "no account twice");
        assertTrue(ids.contains(mine), "the new account is on a page");
    }

    @Test
    void everyRefusalHasItsStatusAndCode() {
        AdminApiTest.refused(given().get("/admin/v1/accounts?q=acme").then(), 401, "UNAUTHORIZED");
        AdminApiTest.refused(given().header("Authorization", "Bearer wrong").get("/admin/v1/accounts?q=acme")
                .then(), 401, "UNAUTHORIZED");
        AdminApiTest.refused(given().header("Authorization", "Bearer test-internal-key")
                .get("/admin/v1/accounts?q=acme").then(), 403, "FORBIDDEN");
        for (String limit : new String[]{"0", "1001", "-5", "ten", "2.5"}) {
            AdminApiTest.refused(search(Map.of("q", "acme", "limit", limit)), 400, "INVALID_LIMIT");
        }
        search(Map.of("limit", "1001")).body("error_message",
                equalTo("limit must be a whole number from 1 to 1000 (100 when absent); got '1001'"));
        AdminApiTest.refused(search(Map.of("q", "a".repeat(254))), 400, "INVALID_QUERY");
        for (String after : new String[]{"not a name", "x".repeat(254), "-bad.example", "acme.example."}) {
            AdminApiTest.refused(search(Map.of("after", after)), 400, "INVALID_CURSOR");
        }
        AdminApiTest.refused(search(Map.of("fqdn", "acme.example")), 400, "UNKNOWN_PARAMETER");
        search(Map.of("query", "acme")).body("error_message",
                equalTo("Unknown query parameter 'query': this endpoint takes only after, limit, q"));
        AdminApiTest.refused(operator().get("/admin/v1/accounts?q=a&q=b").then(), 400, "REPEATED_PARAMETER");
    }

    @Test
    void theOpenApiDocumentDescribesTheParametersAndTheRefusals() {
        given().get("/q/openapi?format=json").then().statusCode(200)
                .body("paths.'/admin/v1/accounts'.get.parameters.name", hasItems("after", "limit", "q"))
                .body("paths.'/admin/v1/accounts'.get.parameters.find { it.name == 'limit' }.schema.maximum",
                        equalTo(1000))
                // the example is in the description: Swagger UI's Try it out would send an example as typed
                .body("paths.'/admin/v1/accounts'.get.parameters.find { it.name == 'q' }.example", nullValue())
                .body("paths.'/admin/v1/accounts'.get.parameters.find { it.name == 'q' }.description",
                        containsString("acme"))
                .body("paths.'/admin/v1/accounts'.get.responses.'400'.description", containsString("INVALID_LIMIT"))
                .body("paths.'/admin/v1/accounts'.get.responses.'401'.content.'application/json'.schema.$ref",
                        equalTo("#/components/schemas/Error"))
                .body("components.schemas.AccountView.properties.fqdn.examples[0]", equalTo("acme.example"));
    }
}
