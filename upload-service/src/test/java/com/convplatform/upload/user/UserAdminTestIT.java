package com.convplatform.upload.user;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link UserAdminTest} against the built artifact: the native executable in CI's native workflow, or the JVM jar. */
@QuarkusIntegrationTest
class UserAdminTestIT extends UserAdminTest {
}
