package com.convplatform.hook.delivery;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

import com.convplatform.crypto.VerificationException;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.pem.PemFiles;

import io.vertx.core.net.TrustOptions;

/** The delivery seams {@code hook.delivery.resolve} and {@code hook.delivery.trust-store}, both off by default. */
final class DeliverySeams {
    private DeliverySeams() {
    }

    /** The system's resolver, with the {@code host=address} pairs of {@code hook.delivery.resolve} in front of it. */
    static HookPoster.Resolver resolver(Optional<List<String>> pairs) {
        Map<String, InetAddress> fixed = new HashMap<>();
        for (String pair : pairs.orElse(List.of())) {
            int eq = pair.indexOf('=');
            String address = eq < 0 ? "" : pair.substring(eq + 1).trim();
            if (eq <= 0 || !address.matches("[0-9.]+|\\[?[0-9a-fA-F:]+\\]?")) {
                throw new IllegalArgumentException(
                        "hook.delivery.resolve: '" + pair + "' is not host=address (an IP address, no port)");
            }
            try {
                fixed.put(pair.substring(0, eq).trim().toLowerCase(Locale.ROOT), InetAddress.getByName(address));
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("hook.delivery.resolve: '" + address + "' is not an IP address", e);
            }
        }
        if (fixed.isEmpty()) {
            return InetAddress::getAllByName;
        }
        return host -> {
            InetAddress a = fixed.get(host.toLowerCase(Locale.ROOT));
            return a != null ? new InetAddress[]{a} : InetAddress.getAllByName(host);
        };
    }

    /**
     * Null (the JDK's default trust store) without {@code hook.delivery.trust-store}; otherwise the JDK's trusted CAs
     * and those of the file.
     */
    static TrustOptions trust(Optional<String> pemFile) {
        if (pemFile.isEmpty()) {
            return null;
        }
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            TrustManagerFactory jdk = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            jdk.init((KeyStore) null);
            int n = 0;
            for (TrustManager tm : jdk.getTrustManagers()) {
                if (tm instanceof X509TrustManager x) {
                    for (X509Certificate c : x.getAcceptedIssuers()) {
                        store.setCertificateEntry("jdk-" + n++, c);
                    }
                }
            }
            for (X509Certificate c : Pem.parseCertificates(PemFiles.read(Paths.get(pemFile.get())))) {
                store.setCertificateEntry("extra-" + n++, c);
            }
            TrustManagerFactory combined = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            combined.init(store);
            return TrustOptions.wrap(combined);
        } catch (GeneralSecurityException | java.io.IOException | VerificationException e) {
            throw new IllegalArgumentException("hook.delivery.trust-store: " + pemFile.get() + " cannot be used: "
                    + e.getMessage(), e);
        }
    }
}
