package com.convplatform.management.signed;

import static com.convplatform.management.ClientPkiResource.FQDN;
import static com.convplatform.management.signed.SignedApiTest.TOKEN;
import static com.convplatform.management.signed.SignedApiTest.now;
import static com.convplatform.management.signed.SignedApiTest.refused;
import static com.convplatform.management.signed.SignedApiTest.send;
import static com.convplatform.management.signed.SignedApiTest.tokenBody;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.management.ClientPkiResource;
import com.convplatform.management.Fixtures;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * A certificate revoked through another replica: only the shared database changes, so this test writes the
 * revocation there itself. In-process only (it reaches the service's database), so not part of the *IT suites.
 */
@QuarkusTest
@QuarkusTestResource(ClientPkiResource.class)
class ReplicaRevocationTest {
    @Inject
    DataSource database;

    @Test
    void aCertificateRevokedThroughAnotherReplicaIsRefusedAtOnce() throws Exception {
        String accountId = Fixtures.account(FQDN);
        String clientId = Fixtures.client(accountId, "web shop");
        var kp = KeyPairs.rsa(2048);
        var cert = CertificateBuilder.selfSigned(kp, FQDN, Instant.now().plusSeconds(86400), FQDN);
        String uuid = Fixtures.certificate(accountId, cert);
        send(TOKEN, tokenBody(clientId, now()), kp.getPrivate(), null, uuid).statusCode(200); // now known here
        // Another replica revokes it: the database changes, this replica's memory does not hear of it.
        try (var c = database.getConnection();
                var s = c.prepareStatement("update registered_certificate set revoked_at = ? where id = ?")) {
            s.setObject(1, OffsetDateTime.now(ZoneOffset.UTC));
            s.setString(2, uuid);
            assertEquals(1, s.executeUpdate());
        }
        refused(send(TOKEN, tokenBody(clientId, now()), kp.getPrivate(), null, uuid), 400, "NOT_AUTHENTICATED");
    }
}
