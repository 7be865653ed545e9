package com.convplatform.management;

import java.net.URL;

import org.junit.jupiter.api.Test;

import com.convplatform.testsupport.DotSegmentPaths;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

/** A path with a '.' or '..' segment, percent-encoded or not, is refused before any route: it never reaches /q. */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class DotSegmentsTest {
    @TestHTTPResource("/")
    URL root;

    @Test
    void dotSegmentsAreRefused() throws Exception {
        DotSegmentPaths.assertRefused(root.getPort(), "/platform/management");
    }
}
