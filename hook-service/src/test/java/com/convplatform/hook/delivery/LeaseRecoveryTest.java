package com.convplatform.hook.delivery;

import static com.convplatform.hook.HookPlatformResource.received;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;
import com.convplatform.hook.QueueRows;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A replica that claimed a delivery and died leaves a lease behind; once it expires the delivery is claimed again
 * and delivered. A delivery whose lease is still live is left alone.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class LeaseRecoveryTest {
    @Test
    void anExpiredLeaseIsReclaimedAndALiveOneIsRespected() {
        String expired = "lease-" + UUID.randomUUID();
        String live = "lease-" + UUID.randomUUID();
        QueueRows.leftByDeadReplica(expired, 1, Instant.now().minusSeconds(1));
        String liveId = QueueRows.leftByDeadReplica(live, 1, Instant.now().plusSeconds(3600));
        await().atMost(Duration.ofSeconds(10)).until(() -> received(expired).size() == 1);
        // Claims take the oldest due deliveries first, and the live one has been due all along: a claim after an event
        // accepted now took it too, had it been claimable. Once that event is delivered, the live one must be as its
        // replica left it: still its lease, no attempt, never sent.
        String later = HookDeliveryTest.account();
        HookDeliveryTest.intake(HookDeliveryTest.event(later, 1), 202);
        HookDeliveryTest.awaitHooks(later, 1);
        QueueRows.Queued row = QueueRows.queued(liveId);
        assertEquals("replica-that-died:1", row.leaseOwner(), "a delivery under a live lease was claimed");
        assertEquals(0, row.attempts());
        assertEquals(0, received(live).size(), "a delivery under a live lease was taken from its replica");
        given().header("Authorization", "Bearer test-operator-key").queryParam("account_id", expired)
                .get("/admin/v1/deliveries").then().statusCode(200)
                .body("[0].status", org.hamcrest.Matchers.equalTo("DELIVERED"));
        HookPlatformResource.received(live).clear();
    }
}
