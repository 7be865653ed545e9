package com.convplatform.crypto.kits;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.time.Clock;

import com.convplatform.crypto.management.ManagementHeaders;
import com.convplatform.crypto.management.ManagementRequestSigner;
import com.convplatform.crypto.pem.Pem;
import com.convplatform.crypto.time.TimestampWindow;

/** The README's "Get a token (Java)" example, line for line, so that JavaKitExamplesTest runs what integrators copy. */
final class TokenRequestExample {
    private TokenRequestExample() {
    }

    static HttpResponse<String> issueToken(String platform, String clientId, String fqdn, String certificateUuid,
            Path keyFile) throws Exception {
        PrivateKey key = Pem.parsePrivateKey(Files.readString(keyFile)); // RSA or EC, PKCS#8
        byte[] body = ("{\"client_id\":\"" + clientId + "\",\"fqdn\":\"" + fqdn + "\",\"timestamp\":\""
                + TimestampWindow.now(Clock.systemUTC()) + "\"}").getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(platform + "/platform/management/token/issue/"))
                .header("Content-Type", "application/json")
                .header(ManagementHeaders.CERT_UUID, certificateUuid) // or CERT_CHAIN_URL for a CA-signed certificate
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        // Signature (SHA-1) and Signature-256 (SHA-256), over these exact bytes
        new ManagementRequestSigner(key).headers(body, false).forEach(request::header);
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
