package com.convplatform.upload;

import java.util.Map;

import com.convplatform.load.upload.PlatformStubs;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/** Points the service under test at the loopback stand-ins of its peers ({@link PlatformStubs}) on a free port. */
public class PlatformStubsResource implements QuarkusTestResourceLifecycleManager {
    @Override
    public Map<String, String> start() {
        return PlatformStubs.startOn(0);
    }

    @Override
    public void stop() {
        PlatformStubs.stop();
    }
}
