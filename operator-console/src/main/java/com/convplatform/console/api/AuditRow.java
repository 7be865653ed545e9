package com.convplatform.console.api;

import java.time.Instant;

/** One recorded operator action, as each service's {@code GET /admin/v1/audit} lists it (service-support). */
public record AuditRow(long id, Instant at, String credential, String operator, String method, String path,
        String action, String target, String requestId, String source, Instant finishedAt, Integer status,
        String outcome) {
}
