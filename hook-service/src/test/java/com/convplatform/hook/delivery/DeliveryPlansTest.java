package com.convplatform.hook.delivery;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.support.LeaseQueue;

import io.quarkus.test.junit.QuarkusTest;

/**
 * The plans of the statements every delivery runs besides the claim (whose plan service-support's LeaseQueueTest
 * pins), as the service sends them, behind the plan guard, with 100,000 rows more in the queue and in the history than
 * the planner's statistics know of (written in the test's transaction, never analysed, rolled back): the outcome's
 * move into the history reads the queue by its key, and intake's duplicate check reads the history by its index.
 */
@QuarkusTest
class DeliveryPlansTest {
    @Inject
    DataSource dataSource;

    /** Every pooled session waits at most 30 s for a lock, and is ended after 60 s idle inside a transaction. */
    @Test
    void theDatabaseSessionsHaveTheirTimeLimits() throws Exception {
        com.convplatform.testsupport.PostgresTestResource.assertSessionLimits(dataSource);
    }

    @Test
    void theOutcomesMoveAndTheIntakesCheckGoByTheirIndexesWhateverTheStatisticsSay() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("insert into delivery_queue (id, event_id, account_id, message_id, payload, received_at,"
                        + " next_attempt_at, held) select gen_random_uuid(), gen_random_uuid(), 'plans-' || (i % 50),"
                        + " i, '{}', now(), now(), true from generate_series(1, 100000) i");
                s.execute("insert into delivery_history (id, event_id, account_id, message_id, status, attempts,"
                        + " payload, received_at, finished_at) select gen_random_uuid(), gen_random_uuid(), 'plans-'"
                        + " || (i % 50), i, 'DELIVERED', 1, '{}', now(), now() from generate_series(1, 100000) i");
            }
            UUID[] ids = {UUID.randomUUID(), UUID.randomUUID()};
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            String finish = plan(c, DeliveryStore.FINISH, c.createArrayOf("uuid", ids),
                    c.createArrayOf("varchar", new Object[]{"a:1", "a:1"}),
                    c.createArrayOf("varchar", new Object[]{"DELIVERED", "DEAD"}),
                    c.createArrayOf("integer", new Object[]{1, 2}),
                    c.createArrayOf("varchar", new Object[]{null, "x"}), now);
            assertTrue(finish.contains("Index Scan using delivery_queue_pkey on delivery_queue"), finish);
            assertFalse(finish.contains("Seq Scan on delivery_queue") || finish.contains("Bitmap"), finish);
            String duplicates = plan(c, IntakeRepository.FINISHED_EVENTS,
                    c.createArrayOf("varchar", new Object[]{"plans-1", "plans-2"}),
                    c.createArrayOf("bigint", new Object[]{1L, 2L}), now.minusDays(1));
            assertTrue(duplicates.contains("Index Scan using delivery_history_"), duplicates);
            assertFalse(duplicates.contains("Seq Scan on delivery_history") || duplicates.contains("Bitmap"),
                    duplicates);
            c.rollback();
        }
    }

    private static String plan(Connection c, String sql, Object... values) throws Exception {
        try (PreparedStatement s = c.prepareStatement(LeaseQueue.guarded("explain (costs off) " + sql))) {
            for (int i = 0; i < values.length; i++) {
                s.setObject(i + 1, values[i]);
            }
            StringBuilder out = new StringBuilder();
            try (ResultSet r = LeaseQueue.guardedQuery(s)) {
                while (r.next()) {
                    out.append(r.getString(1)).append('\n');
                }
            }
            return out.toString();
        }
    }
}
