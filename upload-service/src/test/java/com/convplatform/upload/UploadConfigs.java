package com.convplatform.upload;

import java.util.Map;

import com.convplatform.upload.config.UploadConfig;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/** {@link UploadConfig} read from the given properties by their real names, as the service reads them. */
public final class UploadConfigs {
    private UploadConfigs() {
    }

    public static UploadConfig of(Map<String, String> properties) {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(UploadConfig.class)
                .withSources(new PropertiesConfigSource(properties, "test", 500)).build();
        return config.getConfigMapping(UploadConfig.class);
    }
}
