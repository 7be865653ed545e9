package com.convplatform.crypto.pem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.convplatform.crypto.FailureCode;
import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.pki.KeyPairs;
import com.convplatform.crypto.testing.TestPki;

/** Issue 2, rule c: chains in order, the three private key formats, and a clear refusal for everything else. */
class PemTest {
    /** A provider object for the test's own conversions; never registered globally. */
    static final Provider BC = new BouncyCastleProvider();

    static TestPki pki;
    static TestPki.Leaf leaf;
    static KeyPair rsa;
    static KeyPair ec;

    @BeforeAll
    static void keys() {
        pki = TestPki.create();
        rsa = KeyPairs.rsa();
        ec = KeyPairs.ecP256();
        leaf = pki.leaf(ec, "client.example.com");
    }

    // ---- certificate chains ----

    @Test
    void aChainKeepsItsOrder() throws Exception {
        List<X509Certificate> chain = List.of(leaf.cert(), pki.intermediate, pki.root);
        assertEquals(chain, Pem.parseCertificates(Pem.toPem(chain)));
        List<X509Certificate> reversed = new ArrayList<>(chain);
        Collections.reverse(reversed);
        assertEquals(reversed, Pem.parseCertificates(Pem.toPem(reversed)));
        assertEquals(List.of(leaf.cert()), Pem.parseCertificates(Pem.toPem(leaf.cert())));
    }

    @Test
    void windowsLineEndingsAndSurroundingWhiteSpaceAreAccepted() throws Exception {
        String crlf = "\r\n\r\n  " + Pem.toPem(leaf.chain()).replace("\n", "\r\n") + "\r\n\t\n";
        assertEquals(leaf.chain(), Pem.parseCertificates(crlf));
        String bytes = Pem.toPem(leaf.chain());
        assertEquals(leaf.chain(),
                Pem.parseCertificates(bytes.getBytes(StandardCharsets.US_ASCII), Pem.DEFAULT_MAX_BYTES));
        // a file saved with a UTF-8 byte-order mark (Windows editors); anything else before the first block is refused
        assertEquals(leaf.chain(), Pem.parseCertificates("\uFEFF" + bytes));
        assertChainRefused("\uFEFF\uFEFF" + bytes, "Unexpected text before PEM block 1");
    }

    @Test
    void emptyInputIsRefused() {
        assertChainRefused((String) null, "No certificate data was given");
        assertChainRefused("", "The certificate data is empty");
        assertChainRefused(" \n\t ", "No PEM block found");
        assertEquals("The certificate data is empty", assertThrows(VerificationException.class,
                () -> Pem.parseCertificates(new byte[0], 100)).getMessage());
    }

    @Test
    void junkIsRefused() {
        assertChainRefused("hello", "No PEM block found");
        assertChainRefused("{\"certificate\": 1}", "No PEM block found");
        String der = Base64.getEncoder().encodeToString(encoded(leaf.cert()));
        assertChainRefused(der, "No PEM block found");
        assertChainRefused("-----BEGIN CERTIFICATE-----\n" + der + "\n-----END CERTIFICATE", "No PEM block found");
        assertChainRefused("-----BEGIN CERTIFICATE-----\n" + der + "\n-----END X509 CRL-----", "No PEM block found");
        assertChainRefused("-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----",
                "PEM block 1 is not valid Base64");
        assertChainRefused("-----BEGIN CERTIFICATE-----\n\n-----END CERTIFICATE-----", "PEM block 1 is empty");
        assertChainRefused("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
                "Block 1 is not a valid X.509 certificate");
    }

    @Test
    void aCertificateWithTrailingBytesIsRefused() {
        byte[] der = encoded(leaf.cert());
        byte[] longer = java.util.Arrays.copyOf(der, der.length + 2);
        String pem = "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder().encodeToString(longer)
                + "\n-----END CERTIFICATE-----\n";
        VerificationException e = assertThrows(VerificationException.class, () -> Pem.parseCertificates(pem));
        assertEquals(FailureCode.CERT_MALFORMED, e.code());
        assertTrue(e.getMessage().startsWith("Block 1 "), e.getMessage());
    }

    @Test
    void textAroundTheBlocksIsRefused() {
        String pem = Pem.toPem(leaf.chain());
        assertChainRefused(pem + "trailing text\n", "Unexpected text after the last PEM block");
        assertChainRefused("Subject: CN=x\n" + pem, "Unexpected text before PEM block 1");
        String[] blocks = pem.split("(?<=-----END CERTIFICATE-----\n)");
        assertChainRefused(blocks[0] + "between\n" + blocks[1], "Unexpected text before PEM block 2");
    }

    @Test
    void aPrivateKeyInAChainIsRefused() {
        String pem = Pem.toPem(leaf.cert()) + Pem.toPem(leaf.key().getPrivate());
        assertChainRefused(pem,
                "Block 2 is 'PRIVATE KEY'; a chain holds only CERTIFICATE blocks (never a private key)");
        assertChainRefused(pkcs1(rsa) + Pem.toPem(leaf.cert()), "Block 1 is 'RSA PRIVATE KEY'");
    }

    @Test
    void oversizedInputIsRefusedBeforeParsing() {
        String pem = Pem.toPem(leaf.chain());
        String big = pem + " ".repeat(Pem.DEFAULT_MAX_BYTES - pem.length() + 1);
        assertChainRefused(big,
                "The certificate data is " + (Pem.DEFAULT_MAX_BYTES + 1) + " bytes, more than the limit of "
                        + Pem.DEFAULT_MAX_BYTES);
        byte[] data = pem.getBytes(StandardCharsets.US_ASCII);
        VerificationException e = assertThrows(VerificationException.class,
                () -> Pem.parseCertificates(data, data.length - 1));
        assertEquals(FailureCode.CERT_MALFORMED, e.code());
        assertEquals("The certificate data is " + data.length + " bytes, more than the limit of " + (data.length - 1),
                e.getMessage());
    }

    @Test
    void moreThanTenCertificatesAreRefused() throws Exception {
        List<X509Certificate> eleven = Collections.nCopies(Pem.MAX_CERTIFICATES + 1, leaf.cert());
        assertChainRefused(Pem.toPem(eleven), "The chain has 11 certificates; at most 10 are accepted");
        assertEquals(10, Pem.parseCertificates(Pem.toPem(eleven.subList(0, 10))).size());
    }

    // ---- private keys ----

    @Test
    void pkcs8RsaAndEcKeysAreRead() throws Exception {
        assertSameRsa(rsa, Pem.parsePrivateKey(Pem.toPem(rsa.getPrivate())));
        assertSameEc(ec, Pem.parsePrivateKey(Pem.toPem(ec.getPrivate())));
        assertTrue(Pem.toPem(rsa.getPrivate()).startsWith("-----BEGIN PRIVATE KEY-----\n"));
    }

    @Test
    void pkcs1RsaKeyIsRead() throws Exception {
        String pem = pkcs1(rsa);
        assertTrue(pem.startsWith("-----BEGIN RSA PRIVATE KEY-----"), pem);
        assertSameRsa(rsa, Pem.parsePrivateKey(pem));
    }

    @Test
    void sec1EcKeyIsReadWithAndWithoutAnEcParametersBlock() throws Exception {
        String sec1 = sec1(ec);
        assertTrue(sec1.startsWith("-----BEGIN EC PRIVATE KEY-----"), sec1);
        assertSameEc(ec, Pem.parsePrivateKey(sec1));
        // what `openssl ecparam -genkey -name prime256v1` writes: the curve OID first
        String withParams = "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n" + sec1;
        assertSameEc(ec, Pem.parsePrivateKey(withParams));
    }

    @Test
    void encryptedKeysAreRefused() throws Exception {
        StringWriter pkcs8 = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(pkcs8)) {
            w.writeObject(new JcaPKCS8Generator(rsa.getPrivate(),
                    new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC).setProvider(BC)
                            .setPassword("secret".toCharArray()).build()));
        }
        assertTrue(pkcs8.toString().startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
        assertKeyRefused(pkcs8.toString(),
                "The private key is encrypted; decrypt it first (openssl pkcs8 -topk8 -nocrypt)");

        StringWriter legacy = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(legacy)) {
            w.writeObject(bcKey(ec), new JcePEMEncryptorBuilder("AES-128-CBC").setProvider(BC)
                    .build("secret".toCharArray()));
        }
        assertTrue(legacy.toString().contains("Proc-Type: 4,ENCRYPTED"), legacy.toString());
        assertKeyRefused(legacy.toString(), "The private key is encrypted");
    }

    @Test
    void emptyJunkOversizedAndWrongBlocksAreRefusedAsKeys() {
        assertKeyRefused(null, "The private key file is empty");
        assertKeyRefused("", "The private key file is empty");
        assertKeyRefused("  \n", "The private key file is empty");
        assertKeyRefused("not a key",
                "No private key found: expected a PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY");
        assertKeyRefused("x".repeat(Pem.DEFAULT_MAX_BYTES + 1),
                "The private key file is larger than " + Pem.DEFAULT_MAX_BYTES + " bytes");
        assertKeyRefused(Pem.toPem(leaf.cert()),
                "Found a certificate (CERTIFICATE block) where a PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block");
        String publicKey = "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(rsa.getPublic().getEncoded()) + "\n-----END PUBLIC KEY-----\n";
        assertKeyRefused(publicKey, "Found a public key where");
        assertKeyRefused("-----BEGIN PRIVATE KEY-----\n@@@@\n-----END PRIVATE KEY-----\n",
                "The private key is not valid PEM");
        assertKeyRefused("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                "The private key is not valid PEM");
    }

    // ---- helpers ----

    private static void assertChainRefused(String pem, String message) {
        VerificationException e = assertThrows(VerificationException.class, () -> Pem.parseCertificates(pem));
        assertEquals(FailureCode.CERT_MALFORMED, e.code());
        assertTrue(e.getMessage().startsWith(message), () -> "'" + e.getMessage() + "' should start with " + message);
    }

    private static void assertKeyRefused(String pem, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Pem.parsePrivateKey(pem));
        assertTrue(e.getMessage().startsWith(message), () -> "'" + e.getMessage() + "' should start with " + message);
    }

    private static void assertSameRsa(KeyPair expected, PrivateKey actual) throws Exception {
        RSAPrivateKey want = (RSAPrivateKey) expected.getPrivate();
        RSAPrivateKey got = (RSAPrivateKey) actual;
        assertEquals(want.getModulus(), got.getModulus());
        assertEquals(want.getPrivateExponent(), got.getPrivateExponent());
        assertSignsFor(expected, actual, "SHA256withRSA");
    }

    private static void assertSameEc(KeyPair expected, PrivateKey actual) throws Exception {
        assertEquals(((ECPrivateKey) expected.getPrivate()).getS(), ((ECPrivateKey) actual).getS());
        assertSignsFor(expected, actual, "SHA256withECDSA");
    }

    /** The parsed key makes signatures the original public key accepts. */
    private static void assertSignsFor(KeyPair expected, PrivateKey actual, String algorithm) throws Exception {
        byte[] data = "body".getBytes(StandardCharsets.UTF_8);
        Signature s = Signature.getInstance(algorithm);
        s.initSign(actual);
        s.update(data);
        byte[] sig = s.sign();
        Signature v = Signature.getInstance(algorithm);
        v.initVerify(expected.getPublic());
        v.update(data);
        assertTrue(v.verify(sig));
    }

    private static String pkcs1(KeyPair pair) {
        try {
            byte[] der = PrivateKeyInfo.getInstance(pair.getPrivate().getEncoded()).parsePrivateKey()
                    .toASN1Primitive().getEncoded();
            return block("RSA PRIVATE KEY", der);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** SEC1 as OpenSSL writes it: with the curve and the public key inside. */
    private static String sec1(KeyPair pair) {
        try {
            byte[] der = PrivateKeyInfo.getInstance(bcKey(pair).getEncoded()).parsePrivateKey().toASN1Primitive()
                    .getEncoded();
            return block("EC PRIVATE KEY", der);
        } catch (java.io.IOException | java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PrivateKey bcKey(KeyPair pair) throws java.security.GeneralSecurityException {
        return KeyFactory.getInstance(pair.getPrivate().getAlgorithm(), BC)
                .generatePrivate(new PKCS8EncodedKeySpec(pair.getPrivate().getEncoded()));
    }

    private static String block(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static byte[] encoded(X509Certificate cert) {
        try {
            return cert.getEncoded();
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aPublicKeyBlockReadsBackAsTheSameKeyAndOtherBlocksAreRefusedWithAReason() {
        for (KeyPair kp : List.of(KeyPairs.ecP256(), KeyPairs.rsa())) {
            String pem = "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(kp.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n";
            assertEquals(kp.getPublic(), Pem.parsePublicKey(pem));
        }
        IllegalArgumentException privateGiven = assertThrows(IllegalArgumentException.class,
                () -> Pem.parsePublicKey(Pem.toPem(KeyPairs.ecP256().getPrivate())));
        assertTrue(privateGiven.getMessage().contains("where a PUBLIC KEY block was expected"),
                privateGiven.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Pem.parsePublicKey("  "))
                .getMessage().contains("empty"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Pem.parsePublicKey("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"))
                .getMessage().startsWith("The public key is not"));
    }

}
