package com.convplatform.upload;

import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.testsupport.PostgresTestResource;

import io.quarkus.test.common.QuarkusTestResource;

/**
 * Every test of this module that starts the service runs it on PostgreSQL, in a database of its own per start, with its
 * management interface on a free port (the resources apply to all of them: they are not restricted to this class).
 */
@QuarkusTestResource(PostgresTestResource.class)
@QuarkusTestResource(ManagementInterface.class)
public final class PostgresDatabase {
    private PostgresDatabase() {
    }
}
