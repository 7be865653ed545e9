package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static com.convplatform.management.signed.SignedApiTest.CLIENTS;
import static com.convplatform.management.signed.SignedApiTest.TOKEN;
import static com.convplatform.management.signed.SignedApiTest.now;
import static com.convplatform.management.signed.SignedApiTest.refused;
import static com.convplatform.management.signed.SignedApiTest.send;
import static com.convplatform.management.signed.SignedApiTest.tokenBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;
import com.convplatform.management.account.ChangeFeed;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Changes made through another replica: only the shared database changes, so these tests write there themselves.
 * This replica serves a certificate's revocation, an account's SHA-256 requirement and its clients' enumeration from
 * memory and hears of every
 * change through the tables' triggers and its change feed (LISTEN management_changes). In-process only (they reach the
 * service's database), so not part of the *IT suites.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class ReplicaRevocationTest {
    @Inject
    DataSource database;
    @Inject
    MeterRegistry metrics;
    @Inject
    ChangeFeed feed;

    record Signer(String clientId, KeyPair keys, String uuid) {
        int token() {
            return send(TOKEN, tokenBody(clientId, now()), keys.getPrivate(), null, uuid).extract().statusCode();
        }

        /** The client ids that the signed client enumeration lists. */
        List<String> clients() {
            String body = "{\"fqdn\":\"" + FQDN + "\",\"timestamp\":\"" + now() + "\"}";
            return send(CLIENTS, body, keys.getPrivate(), null, uuid).statusCode(200).extract()
                    .jsonPath().getList("clients.client_id", String.class);
        }
    }

    /** A signer whose first token has been issued while the feed listens: what it read is now held here. */
    private Signer signer() throws Exception {
        waitFor(() -> metrics.get("management.change.feed.listening").gauge().value() == 1.0,
                "the change feed to listen");
        String accountId = Fixtures.account(FQDN);
        String clientId = Fixtures.client(accountId, "web shop");
        var kp = KeyPairs.rsa(2048);
        var cert = CertificateBuilder.selfSigned(kp, FQDN, Instant.now().plusSeconds(86400), FQDN);
        return new Signer(clientId, kp, Fixtures.certificate(accountId, cert));
    }

    @Test
    void aCertificateRevokedThroughAnotherReplicaIsRefusedOnceTheFeedHearsOfIt() throws Exception {
        Signer signer = signer();
        assertEquals(200, signer.token()); // now held here
        sql("update registered_certificate set revoked_at = now() where id = '" + signer.uuid() + "'");
        waitFor(() -> signer.token() == 400, "the revocation made elsewhere to apply here");
        refused(send(TOKEN, tokenBody(signer.clientId(), now()), signer.keys().getPrivate(), null, signer.uuid()), 400,
                "NOT_AUTHENTICATED");
    }

    /**
     * What is held is what answers: a revocation written with the table's trigger off (so nobody is told) leaves this
     * replica issuing tokens from memory, until any change is heard.
     */
    @Test
    void theRevocationIsServedFromMemoryUntilAChangeIsHeard() throws Exception {
        Signer signer = signer();
        // every notification of the signer's own registration heard first, so that none drops what is read next
        heardSoFar(database, feed);
        assertEquals(200, signer.token());
        sql("begin; alter table registered_certificate disable trigger registered_certificate_changed;"
                + " update registered_certificate set revoked_at = now() where id = '" + signer.uuid() + "';"
                + " alter table registered_certificate enable trigger registered_certificate_changed; commit");
        assertEquals(200, signer.token(), "read from memory, not from the database");
        assertEquals(200, signer.token());
        sql("select pg_notify('management_changes', 'a change elsewhere')");
        waitFor(() -> signer.token() == 400, "the notification to drop what was held");
    }

    @Test
    void aClientAddedThroughAnotherReplicaIsListedOnceTheFeedHearsOfIt() throws Exception {
        Signer signer = signer();
        assertTrue(signer.clients().contains(signer.clientId())); // now held here
        String added = UUID.randomUUID().toString();
        sql("insert into client (id, account_id, name, created_at) select '" + added + "', account_id, 'added"
                + " elsewhere', now() from client where id = '" + signer.clientId() + "'");
        waitFor(() -> signer.clients().contains(added), "the client added elsewhere to be listed here");
    }

    /** As the revocation: a client written with the table's trigger off is not listed until any change is heard. */
    @Test
    void theClientEnumerationIsServedFromMemoryUntilAChangeIsHeard() throws Exception {
        Signer signer = signer();
        heardSoFar(database, feed);
        List<String> held = signer.clients();
        assertTrue(held.contains(signer.clientId()));
        String added = UUID.randomUUID().toString();
        sql("begin; alter table client disable trigger client_changed; insert into client (id, account_id, name,"
                + " created_at) select '" + added + "', account_id, 'unheard', now() from client where id = '"
                + signer.clientId() + "'; alter table client enable trigger client_changed; commit");
        assertEquals(held, signer.clients(), "read from memory, not from the database");
        sql("select pg_notify('management_changes', 'a change elsewhere')");
        waitFor(() -> signer.clients().contains(added), "the notification to drop what was held");
    }

    @Test
    void aFeedWhoseConnectionIsLostComesBackAndChangesStillApply() throws Exception {
        Signer signer = signer();
        assertEquals(200, signer.token());
        int before = feedBackend();
        sql("select pg_terminate_backend(" + before + ")");
        waitFor(() -> {
            int now = feedBackend();
            return now != 0 && now != before;
        }, "the feed to listen again on a new connection");
        assertEquals(200, signer.token());
        sql("update registered_certificate set revoked_at = now() where id = '" + signer.uuid() + "'");
        waitFor(() -> signer.token() == 400, "the revocation made elsewhere to apply here");
    }

    @Test
    void anAccountMadeToRequireSha256ElsewhereRefusesSha1OnlyRequests() throws Exception {
        Signer signer = signer();
        assertEquals(200, signer.token());
        sql("update account set require_sha256 = true where fqdn = '" + FQDN + "'");
        try {
            waitFor(() -> signer.token() == 400, "the requirement set elsewhere to apply here");
            refused(send(TOKEN, tokenBody(signer.clientId(), now()), signer.keys().getPrivate(), null, signer.uuid()),
                    400, "SIGNATURE_256_REQUIRED");
        } finally {
            sql("update account set require_sha256 = false where fqdn = '" + FQDN + "'");
        }
    }

    /**
     * The backend of the feed's newest connection, 0 while there is none (the newest: a connection of an application
     * this JVM stopped before may linger for a moment).
     */
    private int feedBackend() {
        try (Connection c = database.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select pid from pg_stat_activity where datname = current_database()"
                        + " and application_name = 'management-change-feed' order by backend_start desc limit 1")) {
            return r.next() ? r.getInt(1) : 0;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the change feed has heard every change made so far, so that none drops what is read next. */
    static void heardSoFar(DataSource database, ChangeFeed feed) throws Exception {
        String marker = "marker " + UUID.randomUUID();
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute("select pg_notify('management_changes', '" + marker + "')");
        }
        waitFor(() -> marker.equals(feed.lastHeard()), "the feed to hear the changes made so far");
    }

    private void sql(String sql) throws Exception {
        try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** Polls (every 20 ms) for a state, for at most 30 s. */
    private static void waitFor(BooleanSupplier state, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!state.getAsBoolean()) {
            assertNotEquals(true, System.nanoTime() > deadline, "waited 30 s for " + what);
            Thread.sleep(20);
        }
    }
}
