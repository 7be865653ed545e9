package com.convplatform.console.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.convplatform.console.api.AuditRow;

/** The audit page's merge of the three services' trails, page after page: every row once, none skipped. */
class AuditPageMergeTest {
    static AuditRow row(long id, long second) {
        return new AuditRow(id, Instant.ofEpochSecond(second), "operator-key", "alice", "POST", "/p", "POST /p", null,
                null, null, null, 200, "ok");
    }

    /** A service's trail as it pages it: newest first by id, at most {@code size + 1} rows below {@code before}. */
    static List<AuditRow> page(List<AuditRow> trail, Long before, int size) {
        return trail.stream().filter(r -> before == null || r.id() < before)
                .sorted((a, b) -> Long.compare(b.id(), a.id())).limit(size + 1L).toList();
    }

    @Test
    void twoActionsWhoseIdsAndTimesDisagreeAreBothShownAcrossAPageBreak() {
        // hook-service recorded action 11 a moment before action 10 (the time is taken before the insert)
        List<AuditRow> hook = List.of(row(12, 300), row(11, 200), row(10, 250), row(9, 100));
        List<AuditRow> upload = List.of(row(5, 260), row(4, 150));
        Map<String, Long> cursors = new LinkedHashMap<>();
        List<String> seen = new ArrayList<>();
        for (int pages = 0; pages < 10; pages++) {
            Map<String, Outcome<List<AuditRow>>> read = new LinkedHashMap<>();
            read.put("hook-service", new Outcome<>(page(hook, cursors.get("hook-service"), 2), null, 200));
            read.put("upload-service", new Outcome<>(page(upload, cursors.get("upload-service"), 2), null, 200));
            AuditPage.Merged merged = AuditPage.merge(read, 2);
            merged.rows().forEach(r -> seen.add(r.service() + ":" + r.action().id()));
            cursors.putAll(merged.next());
            if (!merged.more()) {
                break;
            }
        }
        assertEquals(List.of("hook-service:12", "upload-service:5", "hook-service:11", "hook-service:10",
                "upload-service:4", "hook-service:9"), seen, "each row once, in each service's own order");
    }

    @Test
    void aServiceThatCouldNotBeReadIsLeftOutAndTheLastPageSaysSo() {
        Map<String, Outcome<List<AuditRow>>> read = new LinkedHashMap<>();
        read.put("hook-service", new Outcome<>(List.of(row(2, 20), row(1, 10)), null, 200));
        read.put("upload-service", new Outcome<>(null, "upload-service could not be read", 503));
        AuditPage.Merged merged = AuditPage.merge(read, 5);
        assertEquals(2, merged.rows().size());
        assertFalse(merged.more());
        assertTrue(merged.next().containsKey("hook-service") && !merged.next().containsKey("upload-service"));
    }
}
