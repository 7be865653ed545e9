package com.convplatform.upload.message;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link UploadFormTest} against the built artifact: the native executable in CI's native workflow, or the JVM jar. */
@QuarkusIntegrationTest
class UploadFormTestIT extends UploadFormTest {
}
