package com.convplatform.crypto.vectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.sig.CryptoProviders;
import com.convplatform.crypto.sig.SignatureAlgorithm;
import com.convplatform.crypto.sig.Signatures;
import com.convplatform.crypto.testing.Vectors;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Project Wycheproof (C2SP, testvectors_v1) against {@link Signatures}: every RSA PKCS#1 v1.5 SHA-256 and every ECDSA
 * P-256/P-384 verify case with both the recommended providers and the JDK's, and the PKCS#1 sig-gen files as
 * known-answer tests (our SHA256withRSA output byte for byte; SHA-1 cases as positive SHA1withRSA checks and KATs).
 * A "valid" case must verify, an "invalid" one must not. "Acceptable" cases are held to the documented policy in
 * {@link #ACCEPTABLE_POLICY}.
 */
class WycheproofSignatureTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private static final List<String> RSA_VERIFY = List.of("rsa_signature_2048_sha256_test.json",
            "rsa_signature_3072_sha256_test.json", "rsa_signature_4096_sha256_test.json");
    private static final List<String> ECDSA_VERIFY = List.of("ecdsa_secp256r1_sha256_test.json",
            "ecdsa_secp384r1_sha256_test.json", "ecdsa_secp384r1_sha384_test.json");
    private static final List<String> SIG_GEN = List.of("rsa_pkcs1_1024_sig_gen_test.json",
            "rsa_pkcs1_2048_sig_gen_test.json", "rsa_pkcs1_3072_sig_gen_test.json",
            "rsa_pkcs1_4096_sig_gen_test.json");

    /**
     * What we do with "acceptable" verify cases, by flag. MissingNull: a DigestInfo without the NULL parameters. Both
     * the JDK and BouncyCastle accept it (RFC 8017 allows verifiers to), so we do too; the test proves it is stable.
     */
    static final Map<String, Boolean> ACCEPTABLE_POLICY = Map.of("MissingNull", true);

    /**
     * Valid signatures that the JDK 17 provider (SunEC) refuses: arithmetic edge cases ("k*G has a large
     * x-coordinate", "y-coordinate of the public key is small"). BouncyCastle accepts them, which is one more reason
     * the recommended providers use BouncyCastle for ECDSA. For these cases the test asserts that the recommended
     * providers accept the signature; every other case must pass with both.
     */
    static final Map<String, Set<Integer>> JDK_REFUSES_VALID = Map.of("ecdsa_secp256r1_sha256_test.json",
            Set.of(350, 479), "ecdsa_secp384r1_sha256_test.json", Set.of(350, 467),
            "ecdsa_secp384r1_sha384_test.json", Set.of(382, 499));

    private static final Map<String, int[]> COUNTS = new LinkedHashMap<>();

    @AfterAll
    static void printCounts() {
        COUNTS.forEach((k, v) -> System.out.printf("wycheproof %-55s valid=%d invalid=%d acceptable=%d%n", k, v[0],
                v[1], v[2]));
    }

    @TestFactory
    Stream<DynamicNode> rsaPkcs1Sha256Verify() throws IOException, GeneralSecurityException {
        return verifyFiles(RSA_VERIFY);
    }

    @TestFactory
    Stream<DynamicNode> ecdsaVerify() throws IOException, GeneralSecurityException {
        return verifyFiles(ECDSA_VERIFY);
    }

    private Stream<DynamicNode> verifyFiles(List<String> files) throws IOException, GeneralSecurityException {
        List<DynamicNode> nodes = new ArrayList<>();
        for (String file : files) {
            JsonNode root = JSON.readTree(Vectors.file("wycheproof/" + file).toFile());
            for (var entry : Map.of("recommended", CryptoProviders.recommended(), "jdk", CryptoProviders.jdk())
                    .entrySet()) {
                String providerName = entry.getKey();
                CryptoProviders providers = entry.getValue();
                int[] counts = COUNTS.computeIfAbsent(file + " [" + providerName + "]", k -> new int[3]);
                List<DynamicNode> cases = new ArrayList<>();
                for (JsonNode group : root.get("testGroups")) {
                    PublicKey key = publicKey(group);
                    SignatureAlgorithm alg = algorithm(group);
                    for (JsonNode t : group.get("tests")) {
                        String result = t.get("result").asText();
                        int tcId = t.get("tcId").asInt();
                        byte[] msg = HEX.parseHex(t.get("msg").asText());
                        byte[] sig = HEX.parseHex(t.get("sig").asText());
                        Set<String> flags = flags(t);
                        cases.add(dynamicTest("tcId " + tcId + " " + result + " " + t.get("comment").asText(), () -> {
                            boolean accepted = accepts(alg, key, msg, sig, providers);
                            switch (result) {
                                case "valid" -> {
                                    if (providerName.equals("jdk")
                                            && JDK_REFUSES_VALID.getOrDefault(file, Set.of()).contains(tcId)) {
                                        assertTrue(accepts(alg, key, msg, sig, CryptoProviders.recommended()),
                                                "valid signature refused by the recommended providers too");
                                    } else {
                                        assertTrue(accepted, "valid signature refused");
                                    }
                                    counts[0]++;
                                }
                                case "invalid" -> {
                                    assertEquals(false, accepted, "invalid signature accepted, flags " + flags);
                                    counts[1]++;
                                }
                                default -> {
                                    Boolean expected = flags.stream().map(ACCEPTABLE_POLICY::get)
                                            .filter(java.util.Objects::nonNull).findFirst()
                                            .orElseThrow(() -> new AssertionError("No policy for flags " + flags));
                                    assertEquals(expected, accepted, "acceptable case differs from policy " + flags);
                                    counts[2]++;
                                }
                            }
                        }));
                    }
                }
                nodes.add(DynamicContainer.dynamicContainer(file + " [" + providerName + "]", cases));
            }
        }
        return nodes.stream();
    }

    @TestFactory
    Stream<DynamicNode> pkcs1SignatureGeneration() throws IOException, GeneralSecurityException {
        List<DynamicNode> nodes = new ArrayList<>();
        for (String file : SIG_GEN) {
            JsonNode root = JSON.readTree(Vectors.file("wycheproof/" + file).toFile());
            int[] counts = COUNTS.computeIfAbsent(file + " [sign KAT]", k -> new int[3]);
            List<DynamicNode> cases = new ArrayList<>();
            for (JsonNode group : root.get("testGroups")) {
                String sha = group.get("sha").asText();
                SignatureAlgorithm alg = switch (sha) {
                    case "SHA-256" -> SignatureAlgorithm.SHA256_WITH_RSA;
                    case "SHA-1" -> SignatureAlgorithm.SHA1_WITH_RSA;
                    default -> null; // SHA-224/384/512: not algorithms of this platform
                };
                if (alg == null) {
                    continue;
                }
                PrivateKey priv = privateKey(group);
                PublicKey pub = rsaPublic(group.get("keyDer").asText());
                for (JsonNode t : group.get("tests")) {
                    int tcId = t.get("tcId").asInt();
                    byte[] msg = HEX.parseHex(t.get("msg").asText());
                    byte[] expected = HEX.parseHex(t.get("sig").asText());
                    String result = t.get("result").asText();
                    cases.add(dynamicTest("tcId " + tcId + " " + sha + " " + result, () -> {
                        byte[] ours = Base64.getDecoder()
                                .decode(Signatures.sign(alg, priv, msg, CryptoProviders.recommended()));
                        assertArrayEquals(expected, ours, "our " + alg.jcaName() + " output differs");
                        assertTrue(Signatures.verify(alg, pub, msg, expected, CryptoProviders.recommended()),
                                "the expected signature does not verify");
                        assertTrue(Signatures.verify(alg, pub, msg, expected, CryptoProviders.jdk()),
                                "the expected signature does not verify with the JDK provider");
                        counts[result.equals("valid") ? 0 : 2]++;
                    }));
                }
            }
            nodes.add(DynamicContainer.dynamicContainer(file, cases));
        }
        return nodes.stream();
    }

    private static boolean accepts(SignatureAlgorithm alg, PublicKey key, byte[] msg, byte[] sig,
            CryptoProviders providers) {
        try {
            return Signatures.verify(alg, key, msg, sig, providers);
        } catch (VerificationException e) {
            return false; // refused as malformed before the provider saw it
        }
    }

    private static SignatureAlgorithm algorithm(JsonNode group) {
        String type = group.get("type").asText();
        String sha = group.get("sha").asText();
        if (type.equals("RsassaPkcs1Verify") && sha.equals("SHA-256")) {
            return SignatureAlgorithm.SHA256_WITH_RSA;
        }
        if (type.equals("EcdsaVerify")) {
            return switch (sha) {
                case "SHA-256" -> SignatureAlgorithm.SHA256_WITH_ECDSA;
                case "SHA-384" -> SignatureAlgorithm.SHA384_WITH_ECDSA;
                default -> throw new IllegalStateException("unexpected " + sha);
            };
        }
        throw new IllegalStateException("unexpected group " + type + " " + sha);
    }

    private static Set<String> flags(JsonNode t) {
        java.util.Set<String> s = new java.util.TreeSet<>();
        t.get("flags").forEach(f -> s.add(f.asText()));
        return s;
    }

    private static PublicKey publicKey(JsonNode group) throws GeneralSecurityException {
        byte[] der = HEX.parseHex(group.get("publicKeyDer").asText());
        String alg = group.get("type").asText().startsWith("Ecdsa") ? "EC" : "RSA";
        return KeyFactory.getInstance(alg).generatePublic(new X509EncodedKeySpec(der));
    }

    private static PublicKey rsaPublic(String hex) throws GeneralSecurityException {
        return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(HEX.parseHex(hex)));
    }

    private static PrivateKey privateKey(JsonNode group) throws GeneralSecurityException {
        return KeyFactory.getInstance("RSA")
                .generatePrivate(new PKCS8EncodedKeySpec(HEX.parseHex(group.get("privateKeyPkcs8").asText())));
    }

    static Path dir() {
        return Vectors.dir();
    }
}
