package com.convplatform.management;

import com.convplatform.testsupport.PostgresTestResource;

import io.quarkus.test.common.QuarkusTestResource;

/**
 * Every test of this module that starts the service runs it on PostgreSQL, in a database of its own per start (the
 * resource applies to all of them: it is not restricted to this class).
 */
@QuarkusTestResource(PostgresTestResource.class)
public final class PostgresDatabase {
    private PostgresDatabase() {
    }
}
