package com.convplatform.crypto.sig;

import static com.convplatform.crypto.FailureCode.CERT_KEY_UNSUPPORTED;

import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Set;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;

import com.convplatform.crypto.VerificationException;

/** Which signing keys we accept: RSA of 2048 to 8192 bits, or EC on P-256, P-384 or P-521. */
public final class KeyPolicy {
    /** Smallest RSA modulus accepted. */
    public static final int MIN_RSA_BITS = 2048;
    /** Largest RSA modulus accepted: the largest signature {@link Signatures} reads is this size. */
    public static final int MAX_RSA_BITS = Signatures.MAX_SIGNATURE_BYTES * 8;

    private static final Set<ASN1ObjectIdentifier> NIST_CURVES = Set.of(SECObjectIdentifiers.secp256r1,
            SECObjectIdentifiers.secp384r1, SECObjectIdentifiers.secp521r1);

    private KeyPolicy() {
    }

    private static String curveName(Object parameters) {
        if (parameters instanceof ASN1ObjectIdentifier oid) {
            String name = ECNamedCurveTable.getName(oid);
            return name != null ? name : oid.getId();
        }
        return "explicit parameters, no named curve";
    }

    /** Throws {@code CERT_KEY_UNSUPPORTED} with the reason unless the key is acceptable. */
    public static void check(PublicKey key) throws VerificationException {
        if (key instanceof RSAPublicKey rsa) {
            int bits = rsa.getModulus().bitLength();
            if (bits < MIN_RSA_BITS || bits > MAX_RSA_BITS) {
                throw new VerificationException(CERT_KEY_UNSUPPORTED, "The RSA key has " + bits + " bits; "
                        + MIN_RSA_BITS + " to " + MAX_RSA_BITS + " are accepted");
            }
            return;
        }
        if (key instanceof ECPublicKey ec) {
            // the curve by its name in the key's encoding: the order's size alone lets secp256k1 or brainpoolP256r1
            // pass as P-256, and explicit parameters name no curve at all
            Object curve = SubjectPublicKeyInfo.getInstance(ec.getEncoded()).getAlgorithm().getParameters();
            if (!NIST_CURVES.contains(curve)) {
                int bits = ec.getParams().getOrder().bitLength();
                throw new VerificationException(CERT_KEY_UNSUPPORTED, "The EC key is on a " + bits + "-bit curve"
                        + " other than P-256, P-384 or P-521 (" + curveName(curve) + "); only those are accepted");
            }
            return;
        }
        throw new VerificationException(CERT_KEY_UNSUPPORTED,
                "The key is " + key.getAlgorithm() + "; RSA or EC (ECDSA) keys are accepted");
    }
}
