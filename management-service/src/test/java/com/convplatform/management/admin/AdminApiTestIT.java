package com.convplatform.management.admin;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link AdminApiTest} against the built artifact: the native executable in CI's native workflow, or the JVM jar. */
@QuarkusIntegrationTest
class AdminApiTestIT extends AdminApiTest {
}
