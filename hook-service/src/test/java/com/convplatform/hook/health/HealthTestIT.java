package com.convplatform.hook.health;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link HealthTest} against the built artifact: the native executable in CI's native workflow, or the JVM jar. */
@QuarkusIntegrationTest
class HealthTestIT extends HealthTest {
}
