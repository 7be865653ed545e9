package com.convplatform.support.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * The audit row's target, and its log line: what an answer adds to the path's target, and that a decoded path
 * parameter such as {@code x%0AOperator action 99: ...} cannot write a line of its own into the log.
 */
class AuditTextTest {
    @Test
    void controlCharactersAreWrittenAsTheirCodeAndOtherTextIsKept() {
        assertEquals("id=x\\u000aOperator action 99: credential=operator-key",
                OperatorAudit.oneLine("id=x\nOperator action 99: credential=operator-key"));
        assertEquals("a\\u000db\\u0009c\\u007f", OperatorAudit.oneLine("a\rb\tc\u007f"));
        String plain = "accountId=acct-1, client_id=c";
        assertSame(plain, OperatorAudit.oneLine(plain));
        assertEquals("José", OperatorAudit.oneLine("José"));
        assertNull(OperatorAudit.oneLine(null));
    }

    @Test
    void whatTheAnswerNamesFollowsThePathsTargetUnlessThePathNamesItAlready() {
        assertEquals("kid=k1", OperatorAudit.withAnswer(null, "kid=k1"));
        assertEquals("accountId=a1, client_id=c1", OperatorAudit.withAnswer("accountId=a1", "client_id=c1"));
        assertNull(OperatorAudit.withAnswer("accountId=a1", "account_id=a1"), "the path's target stays as it is");
        assertNull(OperatorAudit.withAnswer("accountId=a1", null));
    }
}
