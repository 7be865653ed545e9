package com.convplatform.upload.erasure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import com.convplatform.api.Contracts;
import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * upload-service's side of platform-api's recorded erasure call to hook-service: the request it sends is the recorded
 * one byte for byte, and the recorded answer is read as the rows removed. hook-service's ErasureContractTest checks
 * that its real answer has the answer's shape.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class HookErasureContractTest {
    @Inject
    HookErasures erasures;

    @AfterEach
    void computedAnswers() {
        PlatformStubs.erasureAnswer = null;
    }

    @Test
    void theRecordedRequestIsSentAndTheRecordedAnswerRead() throws Exception {
        PlatformStubs.erasureAnswer = Contracts.sample(Contracts.HOOK_ERASED);
        PlatformStubs.ERASURES.clear();
        int removed = erasures.erase("0b7c6f1e-3a52-4d0e-9a7e-2f1c9d4e8a10", List.of(4711L, 4712L), "ops-anna");
        assertEquals(5, removed, "2 history rows and 3 attempts, as recorded");
        assertEquals(List.of(Contracts.sample(Contracts.HOOK_ERASURE)), List.copyOf(PlatformStubs.ERASURES));
    }
}
