package com.convplatform.support.audit;

/**
 * An answer that names what an operator action created, for the audit record ({@link OperatorAudit}): a call whose
 * target is not in its path ({@code POST /admin/v1/accounts}) is recorded with the id its answer carries.
 */
public interface AuditTarget {
    /** A short, stable description of the object, such as {@code account_id=7f3c…}. */
    String auditTarget();
}
