package com.convplatform.upload.auth;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;
import org.jose4j.http.Get;
import org.jose4j.jwk.HttpsJwks;
import org.jose4j.keys.resolvers.HttpsJwksVerificationKeyResolver;
import org.jose4j.keys.resolvers.VerificationKeyResolver;
import org.jose4j.lang.JoseException;

import com.convplatform.upload.config.UploadConfig;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.jwt.auth.principal.DefaultJWTCallerPrincipal;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.DefaultJWTTokenParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTCallerPrincipal;
import io.smallrye.jwt.auth.principal.JWTCallerPrincipalFactory;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;

/**
 * The token keys, with two settings SmallRye JWT does not expose: a background download (SmallRye JWT's waits on the
 * path of a request), and a floor under the downloads unknown key ids may cause ({@code upload.jwks-min-refresh}).
 */
@ApplicationScoped
public class PlatformKeys {
    private static final Logger LOG = Logger.getLogger(PlatformKeys.class);
    static final int RETAIN_ON_ERROR_MINUTES = 5;

    private final KeySet keys;
    private final JWTParser parser;
    private final MeterRegistry metrics;

    public PlatformKeys(UploadConfig config, JWTAuthContextInfo context, MeterRegistry metrics) {
        this.keys = new KeySet(config.jwksUrl(), config.jwksMinRefresh());
        // the background download keeps the keys fresh; the cache life only matters if it stops working
        keys.setDefaultCacheDuration(config.jwksRefresh().multipliedBy(2).toSeconds());
        keys.setRetainCacheOnErrorDuration(Duration.ofMinutes(RETAIN_ON_ERROR_MINUTES).toSeconds());
        // jose4j skips a download within 300 ms of the last: a key published just after a background download would be
        // refused (and spend the floor). The floor is the throttle.
        keys.setRefreshReprieveThreshold(0);
        Get get = new Get();
        get.setConnectTimeout(2_000);
        get.setReadTimeout(5_000);
        get.setResponseBodySizeLimit(256 * 1024);
        keys.setSimpleHttpGet(get);
        VerificationKeyResolver resolver = new HttpsJwksVerificationKeyResolver(keys);
        DefaultJWTTokenParser tokens = new DefaultJWTTokenParser() {
            @Override
            protected VerificationKeyResolver getVerificationKeyResolver(JWTAuthContextInfo info) {
                return resolver;
            }
        };
        this.parser = new DefaultJWTParser(context, new JWTCallerPrincipalFactory() {
            @Override
            public JWTCallerPrincipal parse(String token, JWTAuthContextInfo info) throws ParseException {
                return new DefaultJWTCallerPrincipal(token, tokens.parse(token, info).getJwtClaims());
            }
        });
        this.metrics = metrics;
    }

    public JWTParser parser() {
        return parser;
    }

    /** The background download (also right after start, for the first token). */
    @Scheduled(every = "${upload.jwks-refresh}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        try {
            keys.download();
        } catch (JoseException | IOException | RuntimeException e) {
            metrics.counter("upload.jwks.refresh.failures").increment();
            LOG.warnf("Downloading the token keys from %s failed (the keys known stay in use for up to %d minutes):"
                    + " %s", keys.getLocation(), RETAIN_ON_ERROR_MINUTES, e.toString());
        }
    }

    static final class KeySet extends HttpsJwks {
        private final long floorNanos;
        private final AtomicLong last;

        KeySet(String location, Duration floor) {
            super(location);
            this.floorNanos = floor.toNanos();
            this.last = new AtomicLong(System.nanoTime() - floorNanos - 1);
        }

        /** Called by jose4j for an unknown key id and on expiry: at most once per floor. */
        @Override
        public void refresh() throws JoseException, IOException {
            long now = System.nanoTime();
            long previous = last.get();
            if (now - previous < floorNanos || !last.compareAndSet(previous, now)) {
                return;
            }
            super.refresh();
        }

        /** Always, without moving the floor: a newly published key's first token is looked up at once. */
        void download() throws JoseException, IOException {
            super.refresh();
        }
    }
}
