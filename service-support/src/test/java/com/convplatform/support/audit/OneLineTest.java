package com.convplatform.support.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * A target as the audit log line gives it: a decoded path parameter such as {@code x%0AOperator action 99: ...} cannot
 * write a line of its own into the log.
 */
class OneLineTest {
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
}
