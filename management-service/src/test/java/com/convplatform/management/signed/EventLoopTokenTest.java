package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static com.convplatform.management.signed.SignedApiTest.BASE;
import static com.convplatform.management.signed.SignedApiTest.TOKEN;
import static com.convplatform.management.signed.SignedApiTest.now;
import static com.convplatform.management.signed.SignedApiTest.refused;
import static com.convplatform.management.signed.SignedApiTest.send;
import static com.convplatform.management.signed.SignedApiTest.tokenBody;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;
import com.convplatform.management.account.AccountService;
import com.convplatform.management.account.ChangeFeed;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.BlockingOperationNotAllowedException;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.common.vertx.VertxContext;
import io.vertx.core.Vertx;

/**
 * A token is issued on the request's event loop while what it needs is in memory, and otherwise on a worker
 * (Workers.inMemoryOrOnWorker): a step that would block (a chain download, a database read) is refused on the event
 * loop before it starts, and the request then runs again, whole, on a worker, spending each budget once.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
@TestProfile(EventLoopTokenTest.AccountBudget.class)
class EventLoopTokenTest {
    public static class AccountBudget implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("management.rate-limit.per-account", "3");
        }
    }

    private static final String CHAIN = "/client.api/event-loop.pem";

    @Inject
    ManagementRequestVerifier verifier;
    @Inject
    AccountService accounts;
    @Inject
    ChangeFeed feed;
    @Inject
    DataSource database;
    @Inject
    Vertx vertx;
    @Inject
    MeterRegistry metrics;

    @Test
    void whatWouldBlockRunsOnAWorkerAndEachBudgetIsSpentOnce() throws Exception {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> metrics.get("management.change.feed.listening").gauge().value() == 1.0);
        String accountId = Fixtures.account(FQDN);
        String clientId = Fixtures.client(accountId, "event loop shop");
        ClientPkiResource.server.serve(CHAIN, "application/x-pem-file", Pem.toPem(ClientPkiResource.ecLeaf.chain()));
        PrivateKey key = ClientPkiResource.ecLeaf.key().getPrivate();
        ReplicaRevocationTest.heardSoFar(database, feed);

        // On the event loop: a chain not downloaded yet, an FQDN and an account's settings not read yet are refused
        // before the download or the read starts.
        assertInstanceOf(BlockingOperationNotAllowedException.class, onEventLoop(() -> verify(clientId, key)));
        assertEquals(0, ClientPkiResource.server.hits(CHAIN));
        assertInstanceOf(BlockingOperationNotAllowedException.class,
                onEventLoop(() -> accounts.byFqdn("not-read-yet.example.com")));
        assertInstanceOf(BlockingOperationNotAllowedException.class,
                onEventLoop(() -> accounts.requiresSha256(accountId)));

        // Over HTTP the request runs again on a worker: one download, and a token (the account's budget: 1 of 3).
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "event-loop.pem", null).statusCode(200);
        assertEquals(1, ClientPkiResource.server.hits(CHAIN));
        // Now in memory, the same steps answer on the event loop.
        assertInstanceOf(ManagementRequestVerifier.Verified.class, onEventLoop(() -> verify(clientId, key)));
        assertEquals(false, onEventLoop(() -> accounts.requiresSha256(accountId)));
        assertEquals(1, ClientPkiResource.server.hits(CHAIN));

        // A new client's insert drops what was read of the accounts' settings; the next request reads it again (2 of
        // 3). The request after that passes the account's budget on the event loop, then needs the new client, read
        // on a worker: it spends the budget once (3 of 3) and is counted once, and the one after is refused.
        String newClient = Fixtures.client(accountId, "new shop");
        ReplicaRevocationTest.heardSoFar(database, feed);
        send(TOKEN, tokenBody(clientId, now()), key, BASE + "event-loop.pem", null).statusCode(200);
        double accepted = metrics.get("management.signed.accepted").tag("signatures", "sha1").counter().count();
        send(TOKEN, tokenBody(newClient, now()), key, BASE + "event-loop.pem", null).statusCode(200);
        assertEquals(accepted + 1, metrics.get("management.signed.accepted").tag("signatures", "sha1").counter()
                .count(), "counted once");
        refused(send(TOKEN, tokenBody(clientId, now()), key, BASE + "event-loop.pem", null), 429, "RATE_LIMITED");
        assertEquals(1, ClientPkiResource.server.hits(CHAIN));
    }

    private ManagementRequestVerifier.Verified verify(String clientId, PrivateKey key) throws Exception {
        String timestamp = now();
        String body = tokenBody(clientId, timestamp);
        return verifier.verify(new ManagementRequestVerifier.Request(body.getBytes(StandardCharsets.UTF_8), FQDN,
                timestamp, new ManagementRequestSigner(key).sign(body), BASE + "event-loop.pem", null, null),
                uuid -> Optional.empty());
    }

    /** What the call returns, or throws, on an event loop in a request's own context, as Quarkus runs a request. */
    private Object onEventLoop(Callable<Object> call) throws Exception {
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        VertxContext.createNewDuplicatedContext(vertx.getOrCreateContext()).runOnContext(v -> {
            try {
                outcome.complete(call.call());
            } catch (Exception e) {
                outcome.complete(e);
            }
        });
        return outcome.get(30, TimeUnit.SECONDS);
    }
}
