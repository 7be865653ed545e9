package com.convplatform.hook.delivery;

import static com.convplatform.hook.HookPlatformResource.received;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.intake.HookEvent;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A replica that claimed a delivery and died leaves a lease behind; once it expires the delivery is claimed again
 * and delivered. A delivery whose lease is still live is left alone.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class LeaseRecoveryTest {
    @Inject
    Rows rows;

    @jakarta.enterprise.context.ApplicationScoped
    static class Rows {
        @Transactional
        String leftByDeadReplica(String account, Instant leaseUntil) {
            HookEvent e = new HookEvent();
            e.id = UUID.randomUUID().toString();
            e.accountId = account;
            e.messageId = 1;
            e.payload = "{\"user_id\":\"u\",\"conversation_number\":1,\"message_body\":\"{}\",\"message_id\":1,"
                    + "\"sender\":\"user\",\"timestamp\":\"2026-11-22T10:00:00.000Z\",\"metadata\":{}}";
            e.receivedAt = Instant.now();
            e.persist();
            Delivery d = new Delivery();
            d.id = UUID.randomUUID().toString();
            d.eventId = e.id;
            d.accountId = account;
            d.status = Delivery.PENDING;
            d.attempts = 0;
            d.nextAttemptAt = Instant.now().minusSeconds(5);
            d.leaseOwner = "replica-that-died";
            d.leaseUntil = leaseUntil;
            d.createdAt = Instant.now();
            d.persist();
            return d.id;
        }

        @Transactional
        Delivery row(String id) {
            return Delivery.findById(id);
        }
    }

    @Test
    void anExpiredLeaseIsReclaimedAndALiveOneIsRespected() {
        String expired = "lease-" + UUID.randomUUID();
        String live = "lease-" + UUID.randomUUID();
        rows.leftByDeadReplica(expired, Instant.now().minusSeconds(1));
        String liveId = rows.leftByDeadReplica(live, Instant.now().plusSeconds(3600));
        await().atMost(Duration.ofSeconds(10)).until(() -> received(expired).size() == 1);
        // Claims take the oldest due deliveries first, and the live one has been due all along: a claim after an event
        // accepted now took it too, had it been claimable. Once that event is delivered, the live one must be as its
        // replica left it: still its lease, no attempt, never sent.
        String later = HookDeliveryTest.account();
        HookDeliveryTest.intake(HookDeliveryTest.event(later, 1), 202);
        HookDeliveryTest.awaitHooks(later, 1);
        Delivery row = rows.row(liveId);
        assertEquals("replica-that-died", row.leaseOwner, "a delivery under a live lease was claimed");
        assertEquals(0, row.attempts);
        assertEquals(0, received(live).size(), "a delivery under a live lease was taken from its replica");
        given().header("Authorization", "Bearer test-operator-key").queryParam("account_id", expired)
                .get("/admin/v1/deliveries").then().statusCode(200)
                .body("[0].status", org.hamcrest.Matchers.equalTo("DELIVERED"));
        HookPlatformResource.received(live).clear();
    }
}
