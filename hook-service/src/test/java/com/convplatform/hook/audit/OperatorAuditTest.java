package com.convplatform.hook.audit;

import static com.convplatform.hook.delivery.HookDeliveryTest.INTERNAL;
import static com.convplatform.hook.delivery.HookDeliveryTest.OPERATOR;
import static com.convplatform.hook.delivery.HookDeliveryTest.account;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.QueueRows;
import com.convplatform.testsupport.ManagementInterface;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;

/**
 * The audit trail of operator actions (service-support's OperatorAudit), through hook-service's operator API: who
 * (the key, and the person the caller names), what, on what, when, how it ended; nothing recorded for reads or for
 * callers without the key; an action whose record cannot be written is not carried out; the table refuses every
 * change but the one completion of a row.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class OperatorAuditTest {

    /** The newest recorded actions, of the trail's own listing. */
    static List<Map<String, Object>> audit(String query) {
        return given().header("Authorization", OPERATOR).get("/admin/v1/audit" + query).then().statusCode(200)
                .extract().jsonPath().getList("$");
    }

    static Map<String, Object> newest() {
        return audit("?limit=1").get(0);
    }

    @Test
    void anOperatorsActionIsRecordedWithWhoWhatTargetWhenAndOutcome() {
        String account = account();
        Instant before = Instant.now().minusSeconds(1);
        Response answer = given().header("Authorization", OPERATOR).header("X-Operator", "alice")
                .contentType(ContentType.JSON).body("{\"reason\": \"receiver down for maintenance\"}")
                .post("/admin/v1/accounts/" + account + "/endpoint/disable");
        answer.then().statusCode(200).body("enabled", equalTo(false));

        Map<String, Object> a = newest();
        assertEquals("operator-key", a.get("credential"));
        assertEquals("alice", a.get("operator"));
        assertEquals("POST", a.get("method"));
        assertEquals("/admin/v1/accounts/" + account + "/endpoint/disable", a.get("path"));
        assertEquals("POST /admin/v1/accounts/{accountId}/endpoint/disable", a.get("action"));
        assertEquals("accountId=" + account, a.get("target"));
        assertEquals(200, a.get("status"));
        assertEquals("ok", a.get("outcome"));
        assertEquals(answer.header("X-Request-Id"), a.get("request_id"));
        assertEquals("127.0.0.1", a.get("source"));
        Instant at = Instant.parse((String) a.get("at"));
        assertTrue(!at.isBefore(before) && !at.isAfter(Instant.now()), "recorded when it was made: " + at);
        assertTrue(!Instant.parse((String) a.get("finished_at")).isBefore(at));
    }

    @Test
    void aCallWithOnlyTheKeyIsRecordedAsTheKeyAndARefusalWithItsCode() {
        given().header("Authorization", OPERATOR)
                .post("/admin/v1/deliveries/0190f3c2-7a41-7c3e-9d2a-5b8e1f4a6c01/retry")
                .then().statusCode(404);
        Map<String, Object> a = newest();
        assertEquals("operator-key", a.get("credential"));
        assertNull(a.get("operator"), "no person was named");
        assertEquals("POST /admin/v1/deliveries/{id}/retry", a.get("action"));
        assertEquals("id=0190f3c2-7a41-7c3e-9d2a-5b8e1f4a6c01", a.get("target"));
        assertEquals(404, a.get("status"));
        assertEquals("DELIVERY_NOT_FOUND", a.get("outcome"));
    }

    @Test
    void readsCallersWithoutTheKeyAndMachineCallsAreNotRecorded() {
        long newest = ((Number) newestOrMarker().get("id")).longValue();
        String account = account();
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                .statusCode(200);
        given().post("/admin/v1/accounts/" + account + "/endpoint/enable").then().statusCode(401);
        given().header("Authorization", "Bearer not-a-key").post("/admin/v1/accounts/" + account + "/endpoint/enable")
                .then().statusCode(401);
        given().header("Authorization", INTERNAL).post("/admin/v1/accounts/" + account + "/endpoint/enable").then()
                .statusCode(403);
        // the internal key's own traffic (events from upload-service) is not an operator's action
        given().header("Authorization", INTERNAL).contentType(ContentType.JSON).body("{}")
                .post("/internal/v1/erasures").then().statusCode(400);
        assertEquals(newest, ((Number) newestOrMarker().get("id")).longValue(), "nothing was recorded");
    }

    @Test
    void theInternalKeyActingForAnOperatorIsRecordedAsSuch() {
        String account = account();
        given().header("Authorization", INTERNAL).header("X-Operator", "bob").contentType(ContentType.JSON)
                .body("{\"account_id\": \"" + account + "\", \"message_ids\": [1, 2]}").post("/internal/v1/erasures")
                .then().statusCode(200);
        Map<String, Object> a = newest();
        assertEquals("internal-key", a.get("credential"));
        assertEquals("bob", a.get("operator"));
        assertEquals("POST /internal/v1/erasures", a.get("action"));
        assertEquals("ok", a.get("outcome"));
    }

    @Test
    void anOperatorNameThatIsNotOneIsRefusedAndChangesNothing() {
        String account = account();
        long newest = ((Number) newestOrMarker().get("id")).longValue();
        given().header("Authorization", OPERATOR).header("X-Operator", "alice\tadmin=true")
                .post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(400)
                .body("error_code", equalTo("INVALID_OPERATOR")).body("error_message", containsString("X-Operator"));
        given().header("Authorization", OPERATOR).header("X-Operator", "x".repeat(65))
                .post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(400)
                .body("error_code", equalTo("INVALID_OPERATOR"));
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                .statusCode(200).body("enabled", equalTo(true));
        assertEquals(newest, ((Number) newestOrMarker().get("id")).longValue());
    }

    @Test
    void anActionWhoseRecordCannotBeWrittenIsNotCarriedOut() throws SQLException {
        String account = account();
        try (Connection c = QueueRows.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("create function refuse_audit() returns trigger language plpgsql as"
                    + " $$ begin raise exception 'disk full'; end $$");
            s.execute("create trigger refuse_audit before insert on operator_action for each row"
                    + " execute function refuse_audit()");
        }
        try {
            given().header("Authorization", OPERATOR).header("X-Operator", "carol")
                    .post("/admin/v1/accounts/" + account + "/endpoint/disable").then().statusCode(503)
                    .body("error_code", equalTo("AUDIT_UNAVAILABLE"))
                    .body("error_message", containsString("not carried out"));
        } finally {
            try (Connection c = QueueRows.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("drop trigger refuse_audit on operator_action");
                s.execute("drop function refuse_audit()");
            }
        }
        given().header("Authorization", OPERATOR).get("/admin/v1/accounts/" + account + "/endpoint").then()
                .statusCode(200).body("enabled", equalTo(true));
        String metrics = given().get(ManagementInterface.url("/q/metrics")).then().statusCode(200).extract().asString();
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("platform_audit_failures_total") && !l.endsWith(" 0.0")),
                "the failure is counted");
    }

    @Test
    void theTrailIsAppendOnly() {
        given().header("Authorization", OPERATOR).header("X-Operator", "dave")
                .post("/admin/v1/accounts/" + account() + "/endpoint/enable").then().statusCode(200);
        long id = ((Number) newest().get("id")).longValue();
        for (String sql : List.of("delete from operator_action where id = " + id,
                "update operator_action set operator = 'mallory' where id = " + id,
                "update operator_action set outcome = 'ok', status = 200 where id = " + id,
                "truncate operator_action")) {
            SQLException refused = assertThrows(SQLException.class, () -> {
                try (Connection c = QueueRows.dataSource().getConnection(); Statement s = c.createStatement()) {
                    s.execute(sql);
                }
            }, sql);
            assertTrue(refused.getMessage().contains("append-only"), refused.getMessage());
        }
        assertEquals("dave", newest().get("operator"));
        // a row being completed: what the answer names may follow the path's target, never replace it
        long started = QueueRows.count("insert into operator_action (at, credential, method, path, action, target)"
                + " values (now(), 'operator-key', 'POST', '/p', 'POST /p', 'accountId=a') returning id");
        IllegalStateException replaced = assertThrows(IllegalStateException.class, () -> QueueRows.update("update"
                + " operator_action set status = 200, outcome = 'ok', target = 'accountId=b' where id = ?", started));
        assertTrue(replaced.getCause().getMessage().contains("append-only"), replaced.getCause().getMessage());
        assertEquals(1, QueueRows.update("update operator_action set status = 200, outcome = 'ok', target ="
                + " 'accountId=a, client_id=c' where id = ?", started));
    }

    @Test
    void theTrailIsPagedAndFiltered() {
        String account = account();
        for (String who : List.of("erin", "frank", "erin")) {
            given().header("Authorization", OPERATOR).header("X-Operator", who)
                    .post("/admin/v1/accounts/" + account + "/endpoint/enable").then().statusCode(200);
        }
        List<Map<String, Object>> two = audit("?limit=2");
        assertEquals(2, two.size());
        assertEquals("erin", two.get(0).get("operator"));
        assertEquals("frank", two.get(1).get("operator"));
        Map<String, Object> third = audit("?limit=1&before_id=" + two.get(1).get("id")).get(0);
        assertEquals("erin", third.get("operator"));
        assertTrue(((Number) third.get("id")).longValue() < ((Number) two.get(1).get("id")).longValue());
        List<Map<String, Object>> erin = audit("?operator=erin");
        assertTrue(erin.size() >= 2 && erin.stream().allMatch(a -> "erin".equals(a.get("operator"))));
        List<Map<String, Object>> keyed = audit("?credential=internal-key");
        assertTrue(keyed.stream().allMatch(a -> "internal-key".equals(a.get("credential"))));

        given().header("Authorization", OPERATOR).get("/admin/v1/audit?before_id=abc").then().statusCode(400)
                .body("error_code", equalTo("INVALID_CURSOR"));
        given().header("Authorization", OPERATOR).get("/admin/v1/audit?limit=0").then().statusCode(400)
                .body("error_code", equalTo("INVALID_LIMIT"));
        given().header("Authorization", OPERATOR).get("/admin/v1/audit?who=erin").then().statusCode(400)
                .body("error_code", equalTo("UNKNOWN_PARAMETER"));
        given().get("/admin/v1/audit").then().statusCode(401);
        given().header("Authorization", INTERNAL).get("/admin/v1/audit").then().statusCode(403);
    }

    /** The newest action, or a stand-in with id 0 before any was recorded. */
    private static Map<String, Object> newestOrMarker() {
        List<Map<String, Object>> one = audit("?limit=1");
        return one.isEmpty() ? Map.of("id", 0) : one.get(0);
    }
}
