package com.convplatform.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class ApiKeysTest {
    @Test
    void aKeyGrantsItsRoleOnlyAndARoleWithoutAKeyIsClosed() {
        ApiKeys keys = ApiKeys.of().with(Roles.OPERATOR, "x.admin.api-key", Optional.of("op-key"))
                .with(Roles.INTERNAL, "x.internal.api-key", Optional.of("  "));
        assertEquals(List.of(Roles.OPERATOR), keys.rolesOf("op-key"));
        assertEquals(List.of(), keys.rolesOf("op-key "), "compared exactly");
        assertEquals(List.of(), keys.rolesOf(""), "a blank key opens nothing");
        assertEquals(List.of(), keys.rolesOf("  "));
        assertTrue(keys.open(Roles.OPERATOR));
        assertFalse(keys.open(Roles.INTERNAL), "a blank setting closes the role");
        assertEquals("x.internal.api-key", keys.setting(Roles.INTERNAL));
        assertNull(keys.setting("client"), "not a key role of this service");
    }

    @Test
    void oneValueForTwoRolesGrantsBoth() {
        ApiKeys keys = ApiKeys.of().with(Roles.OPERATOR, "a", Optional.of("same"))
                .with(Roles.INTERNAL, "b", Optional.of("same"));
        assertEquals(List.of(Roles.OPERATOR, Roles.INTERNAL), keys.rolesOf("same"));
    }

    @Test
    void aTokenRoleCarriesItsOwnRefusal() {
        ApiException refusal = new ApiException(401, "INVALID_AUTHORIZATION", "send a token");
        ApiKeys keys = ApiKeys.of().refusing("client", refusal);
        assertEquals(refusal, keys.refusal("client"));
        assertFalse(keys.open("client"));
    }
}
