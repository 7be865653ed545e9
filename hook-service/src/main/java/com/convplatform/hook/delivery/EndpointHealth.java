package com.convplatform.hook.delivery;

import static com.convplatform.hook.delivery.DeliveryStore.update;
import static com.convplatform.hook.delivery.DeliveryStore.utc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

import jakarta.inject.Singleton;

import com.convplatform.hook.config.HookConfig;

/**
 * The endpoints' failure streaks ({@code endpoint_state}) and the rule that disables an endpoint
 * ({@code hook.endpoints.*}), written in the caller's transaction: the outcomes' own, in {@link DeliveryStore}.
 */
@Singleton
class EndpointHealth {
    private static final String COUNT_FAILURE = "update endpoint_state set consecutive_failures ="
            + " consecutive_failures + 1, last_failure_at = ?, failing_since = coalesce(failing_since, ?)"
            + " where account_id = ?";
    private static final String FIRST_FAILURE = "insert into endpoint_state (account_id, consecutive_failures,"
            + " last_failure_at, failing_since) values (?, 1, ?, ?)";
    private static final String DISABLE = "update endpoint_state set disabled_at = ?, disabled_by = ?,"
            + " disabled_reason = ? where account_id = ? and disabled_at is null and consecutive_failures >= ?"
            + " and failing_since <= ?";
    /**
     * Ends the failure streaks of the endpoints that took a delivery (the accounts: an array, its last parameter): the
     * outcomes' transaction runs it behind the hour's count, in the same statement.
     */
    static final String END_STREAKS = "update endpoint_state set consecutive_failures = 0, failing_since = null"
            + " where account_id = any(?) and consecutive_failures > 0";
    static final String HOLD_ACCOUNT = "update delivery_queue set held = true where account_id = ? and not held";

    private final HookConfig config;

    EndpointHealth(HookConfig config) {
        this.config = config;
    }

    /**
     * Counts a failure against the account's endpoint; true when that disabled it (its deliveries are held). Two
     * replicas creating the row at once make one commit fail: that batch is recorded again, then it exists.
     */
    boolean countFailure(Connection c, String accountId, Instant now) throws SQLException {
        if (update(c, COUNT_FAILURE, utc(now), utc(now), accountId) == 0) {
            update(c, FIRST_FAILURE, accountId, utc(now), utc(now));
        }
        String reason = "at least " + config.disableMinFailures() + " attempts in a row failed over at least "
                + config.disableAfter() + " with no success";
        if (config.autoDisable() && update(c, DISABLE, utc(now), DeliveryStore.BY_RULE, reason, accountId,
                config.disableMinFailures(), utc(now.minus(config.disableAfter()))) == 1) {
            update(c, HOLD_ACCOUNT, accountId);
            return true;
        }
        return false;
    }
}
