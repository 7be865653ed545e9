package com.convplatform.upload.message;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.convplatform.upload.PlatformStubsResource;
import com.convplatform.upload.auth.TokenIdentityProvider.Caller;
import com.convplatform.upload.handoff.Claimed;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * The group commit's insert of several uploads at once (under load most commits carry several): the user's
 * registration is checked by each row's insert, so one batch can hold uploads of registered and unregistered users;
 * each upload gets its own message id and event, or nothing at all.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class MessageRepositoryTest {
    private static final Caller CALLER = new Caller("client-1", "account-1", "1001");
    private final List<Long> written = new ArrayList<>();

    @Inject
    MessageRepository messages;

    @Inject
    DataSource dataSource;

    @Test
    void aBatchWithAnUnregisteredUserWritesTheOthersWithTheirOwnIdsAndNothingOfIt() throws Exception {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "batchA", "business_id", "1001")).post("/admin/v1/users").then()
                .statusCode(201);
        List<UploadService.ToRecord> uploads = List.of(upload("batchA", "a1.png"), upload("nobodyB", "b.png"),
                upload("batchA", "a2.png"));
        ObjectMapper json = new ObjectMapper();
        List<Claimed> events = messages.recordAll(uploads, (u, id, at) -> UploadService.event(json, u, id, at));
        events.stream().filter(e -> e != null).forEach(e -> written.add(e.event().messageId()));

        assertEquals(3, events.size());
        assertNull(events.get(1), "the unregistered user's upload is not recorded");
        assertNotNull(events.get(0));
        assertNotNull(events.get(2));
        assertTrue(events.get(0).event().messageId() < events.get(2).event().messageId(), "ids in the batch's order");
        assertEquals("batchA", events.get(0).event().userId());
        assertEquals(Map.of(events.get(0).event().messageId(), "a1.png", events.get(2).event().messageId(), "a2.png"),
                storedNames("batchA"), "each event names its own row");
        assertEquals(Map.of(), storedNames("nobodyB"));
        assertEquals(2, count("select count(*) from hook_outbox where message_id = any(?)", written));
    }

    private static UploadService.ToRecord upload(String authId, String name) {
        return new UploadService.ToRecord(CALLER, authId, "1001", FileTypes.IMAGE, "", "01" + "0".repeat(42), name,
                "image/png", 2000, "4bf92f3577b34da6a3ce929d0e0e4736", null, "http://files.test/" + name);
    }

    private Map<Long, String> storedNames(String authId) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement q = c
                        .prepareStatement("select message_id, file_name from message where auth_id = ?")) {
            q.setString(1, authId);
            try (ResultSet r = q.executeQuery()) {
                Map<Long, String> out = new HashMap<>();
                while (r.next()) {
                    out.put(r.getLong(1), r.getString(2));
                }
                return out;
            }
        }
    }

    private long count(String sql, List<Long> ids) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
            q.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            try (ResultSet r = q.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    /** Leaves no row for another test class: the events never reach the hand-off, the messages go with them. */
    @AfterEach
    void removeRows() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            for (String sql : List.of("delete from hook_outbox where message_id = any(?)",
                    "delete from message where message_id = any(?)")) {
                try (PreparedStatement s = c.prepareStatement(sql)) {
                    s.setArray(1, c.createArrayOf("bigint", written.toArray()));
                    s.executeUpdate();
                }
            }
        }
        given().header("Authorization", "Bearer test-operator-key").delete("/admin/v1/users/1001/batchA");
    }
}
