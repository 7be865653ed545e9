package com.convplatform.upload.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.convplatform.api.Contracts;
import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * upload-service's side of platform-api's recorded revocation list: served as recorded, it is read through the REST
 * client and each entry refuses the tokens it names. management-service's InternalContractTest checks that its real
 * answer has the sample's shape.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class RevocationsContractTest {
    @Inject
    Revocations revocations;
    @Inject
    ObjectMapper json;

    @AfterEach
    void nothingRevoked() {
        PlatformStubs.revoked = "[]";
        revocations.refresh();
    }

    @Test
    void theRecordedListRefusesTheTokensItNames() throws Exception {
        PlatformStubs.revoked = json.readTree(Contracts.sample(Contracts.MANAGEMENT_REVOCATIONS)).get("revoked")
                .toString();
        revocations.refresh();
        long before = Instant.parse("2026-11-29T09:29:59Z").getEpochSecond();
        long after = Instant.parse("2026-11-29T09:30:00Z").getEpochSecond();
        assertEquals("its account is disabled",
                revocations.revoked("3d0f7a2e-8c41-4b59-a6e2-1f9b8c7d6e5a", "client-x", null, after));
        assertEquals("its client is revoked",
                revocations.revoked("acct-x", "6f1c8a52-3b0e-4d7a-9a57-1f0e2b7c9d10", null, before));
        assertNull(revocations.revoked("acct-x", "6f1c8a52-3b0e-4d7a-9a57-1f0e2b7c9d10", null, after));
        assertEquals("the certificate it was issued to is revoked", revocations.revoked("acct-x", "client-x",
                "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08", after));
    }
}
