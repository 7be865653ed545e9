package com.convplatform.upload.handoff;

import java.time.Instant;

import com.convplatform.api.intake.IntakeEvent;

/** A claimed outbox event; attempt 1 is the first post; {@code leaseOwner}: the lease it is held under. */
public record Claimed(String id, IntakeEvent event, String traceparent, Instant storedAt, int attempt,
        String leaseOwner) {
}
