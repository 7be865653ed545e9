package com.convplatform.hook.delivery;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link HookDeliveryTest} against the built artifact: the native executable in CI's native workflow, or the JVM jar. */
@QuarkusIntegrationTest
class HookDeliveryTestIT extends HookDeliveryTest {
}
