package com.convplatform.hook.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.hook.HookPlatformResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * hook-service's side of platform-api's recorded account lookup: the fake management-service answers the recorded
 * sample word for word, and the lookup's REST client reads the webhook URL from it. management-service's
 * InternalContractTest checks that its real answer has the sample's shape.
 */
@QuarkusTest
@QuarkusTestResource(HookPlatformResource.class)
class AccountLookupContractTest {
    @Inject
    AccountDirectory accounts;

    @Test
    void theRecordedAccountGivesItsWebhookUrl() {
        assertEquals(Optional.of("https://acme.example/hooks"),
                accounts.webhookUrl(HookPlatformResource.RECORDED_ACCOUNT));
    }
}
