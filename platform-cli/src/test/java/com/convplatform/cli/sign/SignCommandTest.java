package com.convplatform.cli.sign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.convplatform.cli.CliRun;
import com.convplatform.cli.TestFiles;
import com.convplatform.crypto.chain.TrustAnchors;
import com.convplatform.crypto.fetch.CertificateFetcher;
import com.convplatform.crypto.json.JsonFields;
import com.convplatform.crypto.management.ManagementRequestVerifier;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pki.CertificateBuilder;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.time.TimestampWindow;

class SignCommandTest {
    @TempDir
    Path dir;

    /** The value of one "Name: value" line of the output. */
    static String header(CliRun.Result r, String name) {
        return r.out().lines().filter(l -> l.startsWith(name + ": ")).map(l -> l.substring(name.length() + 2))
                .findFirst().orElseThrow(() -> new AssertionError("no " + name + " line in " + r));
    }

    @Test
    void certCreateThenSignVerifiesWithThePlatformVerifier() throws Exception {
        for (String keyType : new String[]{"--ec", "--rsa"}) {
            Path key = dir.resolve("k" + keyType + ".pem");
            Path cert = dir.resolve("c" + keyType + ".pem");
            assertEquals(0, CliRun.run("cert", "create", "--fqdn", "client.example.com", keyType, "--out-key",
                    key.toString(), "--out-cert", cert.toString()).exitCode());
            String body = "{\"client_id\":\"c-1\",\"fqdn\":\"client.example.com\",\"timestamp\":\""
                    + TimestampWindow.now(Clock.systemUTC()) + "\"}";
            Path bodyFile = TestFiles.write(dir, "body" + keyType + ".json", body);

            CliRun.Result r = CliRun.run("sign", "--key", key.toString(), "--body", bodyFile.toString());

            assertEquals(0, r.exitCode(), r::toString);
            String signature = header(r, "Signature");
            String signature256 = header(r, "Signature-256");
            assertEquals("Signature: " + signature + "\nSignature-256: " + signature256 + "\n", r.out(),
                    "exactly two lines, as curl -H @FILE reads them");
            X509Certificate c = Pem.parseCertificates(TestFiles.read(cert)).get(0);
            ManagementRequestVerifier verifier = ManagementRequestVerifier.builder()
                    .trustAnchors(TrustAnchors.jdkDefaults()).fetcher(CertificateFetcher.withDefaults()).build();
            var verified = verifier.verify(new ManagementRequestVerifier.Request(body.getBytes(StandardCharsets.UTF_8),
                    "client.example.com",
                    JsonFields.topLevelString(body.getBytes(StandardCharsets.UTF_8), "timestamp").orElseThrow(),
                    signature, null, "uuid-1", signature256), uuid -> Optional.of(c));
            assertEquals(keyType.equals("--rsa")
                    ? List.of(SignatureAlgorithm.SHA1_WITH_RSA, SignatureAlgorithm.SHA256_WITH_RSA)
                    : List.of(SignatureAlgorithm.SHA1_WITH_ECDSA, SignatureAlgorithm.SHA256_WITH_ECDSA),
                    verified.algorithms(), "both headers verify with the platform's verifier");
        }
    }

    @Test
    void signsTheExactBytesIncludingATrailingNewline() throws Exception {
        KeyPair pair = KeyPairs.ecP256();
        Path key = TestFiles.key(dir, "k.pem", pair);
        byte[] body = "{\"a\":1}\n".getBytes(StandardCharsets.UTF_8);
        Path bodyFile = TestFiles.write(dir, "b.json", body);

        CliRun.Result r = CliRun.run("sign", "--key", key.toString(), "--body", bodyFile.toString());

        assertEquals(0, r.exitCode(), r::toString);
        byte[] sig = Signatures.decodeBase64(header(r, "Signature"));
        assertTrue(Signatures.verify(SignatureAlgorithm.SHA1_WITH_ECDSA, pair.getPublic(), body, sig,
                CryptoProviders.jdk()));
        byte[] withoutNewline = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
        assertEquals(false, Signatures.verify(SignatureAlgorithm.SHA1_WITH_ECDSA, pair.getPublic(),
                withoutNewline, sig, CryptoProviders.jdk()), "a different byte is a different signature");
    }

    @Test
    void acceptsTraditionalOpensslKeyFormats() throws Exception {
        // openssl genrsa writes PKCS#1 (RSA PRIVATE KEY); openssl ecparam -genkey writes SEC1 (EC PRIVATE KEY).
        byte[] body = "{\"fqdn\":\"client.example.com\"}".getBytes(StandardCharsets.UTF_8);
        Path bodyFile = TestFiles.write(dir, "b.json", body);
        for (KeyPair pair : new KeyPair[]{KeyPairs.rsa(), KeyPairs.ecP256()}) {
            String pem = traditionalPem(pair);
            String expectedType = pair.getPrivate().getAlgorithm().equals("RSA")
                    ? "RSA PRIVATE KEY"
                    : "EC PRIVATE KEY";
            assertTrue(pem.startsWith("-----BEGIN " + expectedType + "-----"), pem);
            Path key = TestFiles.write(dir, "trad.pem", pem);

            CliRun.Result r = CliRun.run("sign", "--key", key.toString(), "--body", bodyFile.toString());

            assertEquals(0, r.exitCode(), r::toString);
            SignatureAlgorithm algorithm = expectedType.startsWith("RSA")
                    ? SignatureAlgorithm.SHA1_WITH_RSA
                    : SignatureAlgorithm.SHA1_WITH_ECDSA;
            assertTrue(Signatures.verify(algorithm, pair.getPublic(), body, Signatures.decodeBase64(header(r,
                    "Signature")), CryptoProviders.jdk()), expectedType);
        }
    }

    /** PKCS#1 for RSA; SEC1 with the named curve (RFC 5915: parameters always present) for EC, as openssl writes. */
    private static String traditionalPem(KeyPair pair) throws Exception {
        PrivateKeyInfo info = PrivateKeyInfo.getInstance(pair.getPrivate().getEncoded());
        String type;
        byte[] der;
        if (pair.getPrivate() instanceof java.security.interfaces.ECPrivateKey ec) {
            ASN1Encodable curve = info.getPrivateKeyAlgorithm().getParameters();
            der = new org.bouncycastle.asn1.sec.ECPrivateKey(256, ec.getS(), curve).getEncoded();
            type = "EC PRIVATE KEY";
        } else {
            der = info.parsePrivateKey().toASN1Primitive().getEncoded();
            type = "RSA PRIVATE KEY";
        }
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[]{'\n'})
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    @Test
    void readsTheBodyFromStandardInput() throws Exception {
        KeyPair pair = KeyPairs.rsa();
        Path key = TestFiles.key(dir, "k.pem", pair);
        byte[] body = "{\"fqdn\":\"client.example.com\"}".getBytes(StandardCharsets.UTF_8);

        CliRun.Result r = CliRun.runWithStdin(body, "sign", "--key", key.toString(), "--body", "-", "--verbose");

        assertEquals(0, r.exitCode(), r::toString);
        assertTrue(Signatures.verify(SignatureAlgorithm.SHA1_WITH_RSA, pair.getPublic(), body,
                Signatures.decodeBase64(header(r, "Signature")), CryptoProviders.jdk()));
        assertTrue(Signatures.verify(SignatureAlgorithm.SHA256_WITH_RSA, pair.getPublic(), body,
                Signatures.decodeBase64(header(r, "Signature-256")), CryptoProviders.jdk()));
        assertTrue(r.err().contains("signed " + body.length + " bytes with SHA1withRSA and SHA256withRSA"),
                "--verbose after the subcommand reaches the root: " + r);
    }

    @Test
    void sha1OnlyPrintsTheSignatureHeaderAlone() throws Exception {
        KeyPair pair = KeyPairs.ecP256();
        Path key = TestFiles.key(dir, "k.pem", pair);
        byte[] body = "{\"fqdn\":\"client.example.com\"}".getBytes(StandardCharsets.UTF_8);
        Path bodyFile = TestFiles.write(dir, "b.json", body);

        CliRun.Result r = CliRun.run("sign", "--key", key.toString(), "--body", bodyFile.toString(), "--sha1-only");

        assertEquals(0, r.exitCode(), r::toString);
        assertEquals(1, r.out().lines().count(), r::toString);
        assertTrue(Signatures.verify(SignatureAlgorithm.SHA1_WITH_ECDSA, pair.getPublic(), body,
                Signatures.decodeBase64(header(r, "Signature")), CryptoProviders.jdk()));
    }

    @Test
    void unusableInputsAreUsageErrors() {
        Path body = TestFiles.write(dir, "b.json", "{}");
        X509Certificate cert = CertificateBuilder.selfSigned(KeyPairs.ecP256(), "x", Instant.now().plusSeconds(60),
                "x.example.com");
        Path certFile = TestFiles.cert(dir, "cert.pem", cert);
        Path encrypted = TestFiles.write(dir, "enc.pem",
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIBAA==\n-----END ENCRYPTED PRIVATE KEY-----\n");

        CliRun.Result missing = CliRun.run("sign", "--key", dir.resolve("nope.pem").toString(), "--body",
                body.toString());
        assertEquals(2, missing.exitCode(), missing::toString);
        assertTrue(missing.err().contains("--key file") && missing.err().contains("does not exist"), missing::toString);

        CliRun.Result notAKey = CliRun.run("sign", "--key", certFile.toString(), "--body", body.toString());
        assertEquals(2, notAKey.exitCode(), notAKey::toString);
        assertTrue(notAKey.err().contains("certificate"), "says a certificate was found: " + notAKey);

        CliRun.Result enc = CliRun.run("sign", "--key", encrypted.toString(), "--body", body.toString());
        assertEquals(2, enc.exitCode(), enc::toString);

        CliRun.Result noBody = CliRun.run("sign", "--key", certFile.toString(), "--body",
                dir.resolve("nobody.json").toString());
        assertEquals(2, noBody.exitCode(), noBody::toString);

        CliRun.Result dirBody = CliRun.run("sign", "--key", TestFiles.key(dir, "k.pem", KeyPairs.ecP256())
                .toString(), "--body", dir.toString());
        assertEquals(2, dirBody.exitCode(), dirBody::toString);
        assertTrue(dirBody.err().contains("is a directory"), dirBody::toString);

        CliRun.Result noKey = CliRun.run("sign", "--body", body.toString());
        assertEquals(2, noKey.exitCode(), noKey::toString);
        assertTrue(noKey.err().contains("--key"), noKey::toString);
    }
}
