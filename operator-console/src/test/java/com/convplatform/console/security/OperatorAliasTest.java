package com.convplatform.console.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * A name the services would not take in X-Operator (an identity provider's) is sent as an alias they take, so that the
 * services' audit records name a person, not the console's key alone.
 */
class OperatorAliasTest {
    @Test
    void aNameTheServicesWouldRefuseBecomesOneTheyTakeAndNamesStayApart() {
        for (String name : List.of("José García", "a b", "x".repeat(80), "名前", "line\nbreak")) {
            String alias = Operator.alias(name);
            assertTrue(Users.NAME.matcher(alias).matches(), name + " -> " + alias);
            assertEquals(alias, Operator.alias(name), "the same alias each time");
        }
        assertTrue(Operator.alias("José García").startsWith("Jos__Garc_a+"), Operator.alias("José García"));
        assertNotEquals(Operator.alias("José García"), Operator.alias("Josx Garcxa"));
        assertNotEquals(Operator.alias("x".repeat(80)), Operator.alias("x".repeat(81)), "a long name's end counts too");
    }
}
