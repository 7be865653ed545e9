package com.convplatform.upload.message;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link UploadTest} against the built artifact: the native executable in CI's native workflow, or the JVM jar. */
@QuarkusIntegrationTest
class UploadTestIT extends UploadTest {
}
