package com.convplatform.upload.auth;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;
import org.jose4j.http.Get;
import org.jose4j.jwk.HttpsJwks;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.consumer.JwtContext;
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
 * The token keys, from management-service's JWKS, downloaded in the background every {@code upload.jwks-refresh} so
 * that no request waits for it (SmallRye JWT downloads it on the path of the first request that finds it stale). The
 * tokens are still parsed and checked by SmallRye JWT (algorithm, iss, aud, exp, iat, with the mp.jwt settings); only
 * the key lookup is ours, and it is jose4j's {@link HttpsJwks} and {@link HttpsJwksVerificationKeyResolver} with two
 * settings SmallRye JWT does not expose: the background download, and a floor under the downloads a token with an
 * unknown key id may cause ({@code upload.jwks-min-refresh}). When a download fails, the keys known stay in use for
 * {@value #RETAIN_ON_ERROR_MINUTES} minutes, the failure is logged and counted ({@code upload_jwks_refresh_failures}).
 */
@ApplicationScoped
public class PlatformKeys {
    private static final Logger LOG = Logger.getLogger(PlatformKeys.class);
    static final int RETAIN_ON_ERROR_MINUTES = 5;

    private final KeySet keys;
    private final JWTParser parser;
    private final MeterRegistry metrics;

    public PlatformKeys(UploadConfig config, JWTAuthContextInfo context, MeterRegistry metrics) {
        Duration every = config.jwksRefresh();
        this.keys = new KeySet(config.jwksUrl(), config.jwksMinRefresh());
        // the background download keeps the keys fresh; the cache life only matters if it stops working
        keys.setDefaultCacheDuration(every.multipliedBy(2).toSeconds());
        keys.setRetainCacheOnErrorDuration(Duration.ofMinutes(RETAIN_ON_ERROR_MINUTES).toSeconds());
        // jose4j skips a download asked for within 300 ms of the last one; a token of a key published just after a
        // background download would then be refused, and it would also spend the floor below. The floor is the throttle.
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
                JwtContext parsed = tokens.parse(token, info);
                JwtClaims claims = parsed.getJwtClaims();
                return new DefaultJWTCallerPrincipal(token, claims);
            }
        });
        this.metrics = metrics;
    }

    /** SmallRye JWT's parser, with the keys of this key set. */
    public JWTParser parser() {
        return parser;
    }

    /** The background download (also right after start, so that the first token finds the keys there). */
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

    /** jose4j's key set, whose downloads for unknown key ids (and on expiry) are at least a floor apart. */
    static final class KeySet extends HttpsJwks {
        private final long floorNanos;
        private final AtomicLong last;

        KeySet(String location, Duration floor) {
            super(location);
            this.floorNanos = floor.toNanos();
            this.last = new AtomicLong(System.nanoTime() - floorNanos - 1);
        }

        /** Called by jose4j for an unknown key id and when the cache has expired: at most once per floor. */
        @Override
        public void refresh() throws JoseException, IOException {
            long now = System.nanoTime();
            long previous = last.get();
            if (now - previous < floorNanos || !last.compareAndSet(previous, now)) {
                return;
            }
            super.refresh();
        }

        /**
         * The background download: always, and without moving the floor, so that the first token of a newly published
         * key is looked up at once even right after a background download.
         */
        void download() throws JoseException, IOException {
            super.refresh();
        }
    }
}
