package com.convplatform.management.signed;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link SignedApiTest} against the built artifact: the native executable in CI's native workflow, or the JVM jar. */
@QuarkusIntegrationTest
class SignedApiTestIT extends SignedApiTest {
}
