package com.convplatform.crypto.pem;

import static com.convplatform.crypto.FailureCode.CERT_MALFORMED;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

import com.convplatform.crypto.VerificationException;

/**
 * Strict PEM reading and writing for certificate chains and private keys. Input that is empty, too large, not PEM,
 * or has anything but white space around the blocks is refused with a message that says what was found.
 */
public final class Pem {
    /** Default upper bound for a chain: 64 KiB, the same bound the services apply to downloads. */
    public static final int DEFAULT_MAX_BYTES = 64 * 1024;
    /** More certificates than this in one chain is refused. */
    public static final int MAX_CERTIFICATES = 10;

    private static final Pattern BLOCK = Pattern
            .compile("-----BEGIN ([A-Z0-9 ]+)-----\\r?\\n([A-Za-z0-9+/=\\r\\n]*?)\\r?\\n?-----END \\1-----");

    private Pem() {
    }

    /** Parses a PEM chain (signing certificate first) of at most {@link #DEFAULT_MAX_BYTES}. */
    public static List<X509Certificate> parseCertificates(String pem) throws VerificationException {
        if (pem == null) {
            throw new VerificationException(CERT_MALFORMED, "No certificate data was given");
        }
        return parseCertificates(pem.getBytes(StandardCharsets.UTF_8), DEFAULT_MAX_BYTES);
    }

    /**
     * Parses a PEM chain of {@code CERTIFICATE} blocks, in the order given.
     *
     * @param maxBytes refuse larger input before reading it
     */
    public static List<X509Certificate> parseCertificates(byte[] data, int maxBytes) throws VerificationException {
        if (data == null || data.length == 0) {
            throw new VerificationException(CERT_MALFORMED, "The certificate data is empty");
        }
        if (data.length > maxBytes) {
            throw new VerificationException(CERT_MALFORMED,
                    "The certificate data is " + data.length + " bytes, more than the limit of " + maxBytes);
        }
        // a UTF-8 byte-order mark (editors on Windows save one) is invisible to the person who made the file: skipped
        boolean bom = data.length >= 3 && data[0] == (byte) 0xEF && data[1] == (byte) 0xBB && data[2] == (byte) 0xBF;
        String text = new String(data, bom ? 3 : 0, data.length - (bom ? 3 : 0), StandardCharsets.US_ASCII);
        List<Block> blocks = blocks(text, CERT_MALFORMED);
        if (blocks.size() > MAX_CERTIFICATES) {
            throw new VerificationException(CERT_MALFORMED,
                    "The chain has " + blocks.size() + " certificates; at most " + MAX_CERTIFICATES + " are accepted");
        }
        List<X509Certificate> out = new ArrayList<>(blocks.size());
        CertificateFactory factory = x509Factory();
        int index = 0;
        for (Block block : blocks) {
            index++;
            if (!block.type.equals("CERTIFICATE")) {
                throw new VerificationException(CERT_MALFORMED, "Block " + index + " is '" + block.type
                        + "'; a chain holds only CERTIFICATE blocks (never a private key)");
            }
            try {
                var parsed = factory.generateCertificates(new ByteArrayInputStream(block.der));
                if (parsed.size() != 1) {
                    throw new VerificationException(CERT_MALFORMED,
                            "Block " + index + " does not hold exactly one certificate");
                }
                X509Certificate cert = (X509Certificate) parsed.iterator().next();
                if (!java.util.Arrays.equals(cert.getEncoded(), block.der)) {
                    throw new VerificationException(CERT_MALFORMED,
                            "Block " + index + " has bytes after the certificate or is not DER");
                }
                out.add(cert);
            } catch (CertificateException e) {
                throw new VerificationException(CERT_MALFORMED,
                        "Block " + index + " is not a valid X.509 certificate: " + e.getMessage(), e);
            }
        }
        return List.copyOf(out);
    }

    /**
     * Reads one private key: PKCS#8 ({@code PRIVATE KEY}), PKCS#1 RSA ({@code RSA PRIVATE KEY}) or SEC1 EC
     * ({@code EC PRIVATE KEY}, with or without an {@code EC PARAMETERS} block before it). Encrypted keys are refused.
     *
     * @throws IllegalArgumentException with a message for a person when the input is not such a key
     */
    public static PrivateKey parsePrivateKey(String pem) {
        if (pem == null || pem.isBlank()) {
            throw new IllegalArgumentException("The private key file is empty");
        }
        if (pem.length() > DEFAULT_MAX_BYTES) {
            throw new IllegalArgumentException("The private key file is larger than " + DEFAULT_MAX_BYTES + " bytes");
        }
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object object;
            while ((object = readObject(parser, "private key")) != null) {
                if (object instanceof PEMKeyPair pair) {
                    return toPrivateKey(pair.getPrivateKeyInfo());
                }
                if (object instanceof PrivateKeyInfo info) {
                    return toPrivateKey(info);
                }
                if (object instanceof PEMEncryptedKeyPair || object instanceof PKCS8EncryptedPrivateKeyInfo) {
                    throw new IllegalArgumentException(
                            "The private key is encrypted; decrypt it first (openssl pkcs8 -topk8 -nocrypt)");
                }
                if (!(object instanceof org.bouncycastle.asn1.x9.X9ECParameters
                        || object instanceof org.bouncycastle.asn1.ASN1ObjectIdentifier)) {
                    throw new IllegalArgumentException("Found " + describe(object)
                            + " where a PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block was expected");
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("The private key is not valid PEM: " + e.getMessage(), e);
        }
        throw new IllegalArgumentException(
                "No private key found: expected a PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block");
    }

    private static String describe(Object pemObject) {
        if (pemObject instanceof org.bouncycastle.cert.X509CertificateHolder) {
            return "a certificate (CERTIFICATE block)";
        }
        if (pemObject instanceof org.bouncycastle.asn1.x509.SubjectPublicKeyInfo
                || pemObject instanceof org.bouncycastle.asn1.pkcs.RSAPublicKey) {
            return "a public key";
        }
        return "a " + pemObject.getClass().getSimpleName();
    }

    /**
     * Reads one public key ({@code PUBLIC KEY}, SubjectPublicKeyInfo), RSA or EC.
     *
     * @throws IllegalArgumentException with a message for a person when the input is not such a key
     */
    public static PublicKey parsePublicKey(String pem) {
        if (pem == null || pem.isBlank() || pem.length() > DEFAULT_MAX_BYTES) {
            throw new IllegalArgumentException("The public key file is empty or larger than " + DEFAULT_MAX_BYTES
                    + " bytes");
        }
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object object = readObject(parser, "public key");
            if (!(object instanceof SubjectPublicKeyInfo info)) {
                throw new IllegalArgumentException("Found " + (object == null ? "nothing" : describe(object))
                        + " where a PUBLIC KEY block was expected");
            }
            return new JcaPEMKeyConverter().getPublicKey(info);
        } catch (IOException e) {
            throw new IllegalArgumentException("The public key is not a valid RSA or EC key: " + e.getMessage(), e);
        }
    }

    /** The next PEM object; BouncyCastle reports bad Base64 or ASN.1 with checked and unchecked exceptions alike. */
    private static Object readObject(PEMParser parser, String what) {
        try {
            return parser.readObject();
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("The " + what + " is not valid PEM: " + e.getMessage(), e);
        }
    }

    private static PrivateKey toPrivateKey(PrivateKeyInfo info) {
        try {
            return new JcaPEMKeyConverter().getPrivateKey(info);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("The private key is not a valid RSA or EC key: " + e.getMessage(), e);
        }
    }

    /** PEM of one or more certificates, in the order given. */
    public static String toPem(List<X509Certificate> certificates) {
        StringBuilder sb = new StringBuilder();
        for (X509Certificate c : certificates) {
            try {
                sb.append(block("CERTIFICATE", c.getEncoded()));
            } catch (CertificateException e) {
                throw new IllegalStateException("Certificate cannot be encoded", e);
            }
        }
        return sb.toString();
    }

    /** PEM of one certificate. */
    public static String toPem(X509Certificate certificate) {
        return toPem(List.of(certificate));
    }

    /** PKCS#8 PEM of a private key. */
    public static String toPem(PrivateKey key) {
        return block("PRIVATE KEY", key.getEncoded());
    }

    private static String block(String type, byte[] der) {
        String b64 = Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n";
    }

    private record Block(String type, byte[] der) {
    }

    private static List<Block> blocks(String text, com.convplatform.crypto.FailureCode code)
            throws VerificationException {
        List<Block> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        int end = 0;
        while (m.find()) {
            if (!text.substring(end, m.start()).isBlank()) {
                throw new VerificationException(code, "Unexpected text before PEM block " + (out.size() + 1)
                        + "; the file must hold only -----BEGIN CERTIFICATE----- blocks");
            }
            byte[] der;
            try {
                der = Base64.getMimeDecoder().decode(m.group(2));
            } catch (IllegalArgumentException e) {
                throw new VerificationException(code, "PEM block " + (out.size() + 1) + " is not valid Base64", e);
            }
            if (der.length == 0) {
                throw new VerificationException(code, "PEM block " + (out.size() + 1) + " is empty");
            }
            out.add(new Block(m.group(1), der));
            end = m.end();
        }
        if (out.isEmpty()) {
            throw new VerificationException(code,
                    "No PEM block found; expected -----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----");
        }
        if (!text.substring(end).isBlank()) {
            throw new VerificationException(code, "Unexpected text after the last PEM block");
        }
        return out;
    }

    private static CertificateFactory x509Factory() {
        try {
            return CertificateFactory.getInstance("X.509");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("X.509 support is missing from this JVM", e);
        }
    }
}
