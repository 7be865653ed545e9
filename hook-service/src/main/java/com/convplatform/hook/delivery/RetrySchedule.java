package com.convplatform.hook.delivery;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import com.convplatform.hook.config.HookConfig;
import com.convplatform.hook.delivery.DeliveryStore.Claimed;
import com.convplatform.hook.delivery.DeliveryStore.Outcome;

/** {@code hook.delivery.retry-schedule}: what an attempt's outcome makes of its delivery, and the wait before the next. */
@Singleton
final class RetrySchedule {
    private final List<Duration> steps;

    @Inject
    RetrySchedule(HookConfig config) {
        this(config.delivery().retrySchedule());
    }

    RetrySchedule(List<Duration> steps) {
        this.steps = List.copyOf(steps);
    }

    /** DELIVERED; DEAD when the failure is permanent or the schedule is used up; else PENDING. */
    String status(Claimed cl, Outcome o) {
        boolean dead = o.permanent() || cl.step() > steps.size();
        return o.delivered() ? DeliveryStore.DELIVERED : dead ? DeliveryStore.DEAD : DeliveryStore.PENDING;
    }

    /** The schedule's step with jitter, or the receiver's Retry-After when longer (at most 24 hours). */
    Duration wait(Claimed cl, Outcome o) {
        // plus or minus 20 %, so retries of many deliveries do not arrive together
        double jitter = 0.8 + ThreadLocalRandom.current().nextDouble() * 0.4;
        Duration step = steps.get(cl.step() - 1);
        Duration wait = Duration.ofMillis(Math.max(1, (long) (step.toMillis() * jitter)));
        if (o.retryAfter() != null && o.retryAfter().compareTo(wait) > 0) {
            return o.retryAfter().compareTo(Duration.ofHours(24)) > 0 ? Duration.ofHours(24) : o.retryAfter();
        }
        return wait;
    }
}
