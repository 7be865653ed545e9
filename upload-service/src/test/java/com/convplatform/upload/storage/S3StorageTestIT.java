package com.convplatform.upload.storage;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link S3StorageTest} against the built artifact: in CI's native workflow, the AWS SDK's S3 client in the native
 * executable, against the loopback S3 that checks every signature.
 */
@QuarkusIntegrationTest
class S3StorageTestIT extends S3StorageTest {
}
