package com.convplatform.upload.quota;

import static com.convplatform.upload.message.UploadTest.PATH;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.convplatform.load.upload.PlatformStubs;
import com.convplatform.testsupport.ManagementInterface;
import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

/**
 * Per-account upload quotas: uploads a minute and bytes a day, each account on its own, refused 429 QUOTA_EXCEEDED
 * with Retry-After before the body is read; what a refused upload reserved is given back.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
@TestProfile(QuotaTest.Small.class)
class QuotaTest {
    static final int PER_MINUTE = 3;
    static final long PER_DAY = 20_000;
    static final String BOUNDARY = "quota-b0undary";

    public static class Small implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("upload.quota.uploads-per-minute", String.valueOf(PER_MINUTE), "upload.quota.bytes-per-day",
                    String.valueOf(PER_DAY));
        }
    }

    @Inject
    UploadQuota quota;

    @BeforeEach
    void user() {
        given().header("Authorization", "Bearer test-operator-key").contentType(ContentType.JSON)
                .body(Map.of("auth_id", "user42", "business_id", "1001")).post("/admin/v1/users");
    }

    static Response upload(String account, String name, int size) {
        byte[] png = new byte[size];
        System.arraycopy(new byte[]{(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 0, png, 0, 8);
        return upload(account, name, png);
    }

    /** An upload with its length declared, as curl, the kits and browsers send one. */
    static Response upload(String account, String name, byte[] content) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (String[] field : new String[][]{{"auth_id", "user42"}, {"business_id", "1001"}, {"message_type", "1"}}) {
            body.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + field[0] + "\"\r\n\r\n"
                    + field[1] + "\r\n").getBytes(StandardCharsets.UTF_8));
        }
        body.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + name
                + "\"\r\nContent-Type: image/png\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        body.writeBytes(content);
        body.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return as(account).contentType("multipart/form-data; boundary=" + BOUNDARY).body(body.toByteArray())
                .post(PATH);
    }

    static RequestSpecification as(String account) {
        return given().header("Authorization", "Bearer " + PlatformStubs.token(PlatformStubs.KEY, PlatformStubs.KID,
                "ES256", Map.of("account_id", account))).header("client-id", "client-1");
    }

    @Test
    void anAccountThatStartedItsUploadsOfTheMinuteWaitsForTheNextAndOthersGoOn() {
        for (int attempt = 0; attempt < 3; attempt++) {
            String account = "quota-rate-" + System.nanoTime();
            Instant minute = Instant.now().truncatedTo(ChronoUnit.MINUTES);
            for (int i = 0; i < PER_MINUTE; i++) {
                upload(account, "a" + i + ".png", 500).then().statusCode(200);
            }
            Response refused = upload(account, "over.png", 500);
            Response other = upload("quota-other-" + System.nanoTime(), "b.png", 500);
            if (!Instant.now().truncatedTo(ChronoUnit.MINUTES).equals(minute)) {
                continue; // the minute turned during the sequence: its count started again; once more
            }
            refused.then().statusCode(429).body("error_code", equalTo("QUOTA_EXCEEDED"))
                    .body("error_message", containsString(PER_MINUTE + " uploads this minute"));
            int retryAfter = Integer.parseInt(refused.header("Retry-After"));
            assertTrue(retryAfter >= 1 && retryAfter <= 61, "Retry-After " + retryAfter);
            other.then().statusCode(200);
            return;
        }
        throw new AssertionError("the minute turned during each of three sequences");
    }

    @Test
    void anAccountOverItsBytesOfTheDayIsRefusedUntilMidnightAndARefusedUploadCostsNothing() {
        String account = "quota-bytes-" + System.nanoTime();
        // a refused upload (a program named as an image) gives back what it reserved
        byte[] exe = new byte[9000];
        exe[0] = 'M';
        exe[1] = 'Z';
        upload(account, "x.png", exe).then().statusCode(415).body("error_code", equalTo("CONTENT_MISMATCH"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().header("Authorization",
                "Bearer test-operator-key").get("/admin/v1/quotas/" + account).then().statusCode(200)
                .body("bytes", equalTo(0)).body("uploads", equalTo(1)).body("bytes_per_day", equalTo((int) PER_DAY)));
        upload(account, "first.png", 9000).then().statusCode(200);
        Response refused = upload(account, "second.png", 12_000);
        refused.then().statusCode(429).body("error_code", equalTo("QUOTA_EXCEEDED"))
                .body("error_message", containsString("of its " + PER_DAY + " bytes today (UTC)"));
        long toMidnight = ChronoUnit.SECONDS.between(Instant.now(),
                Instant.now().truncatedTo(ChronoUnit.DAYS).plus(1, ChronoUnit.DAYS));
        long retryAfter = Long.parseLong(refused.header("Retry-After"));
        assertTrue(Math.abs(retryAfter - toMidnight) <= 5, retryAfter + " s against " + toMidnight + " s to midnight");
        upload(account, "small.png", 5000).then().statusCode(200); // what is left of the day still takes it

        // an upload that declares more than the whole day's quota is refused at once
        upload("quota-big-" + System.nanoTime(), "big.png", 30_000).then().statusCode(429)
                .body("error_code", equalTo("QUOTA_EXCEEDED")).body("error_message", containsString("larger than"));
        // one that declares no length (chunked) counts as the largest an upload may be until it is read
        as("quota-chunked-" + System.nanoTime()).multiPart("auth_id", "user42").multiPart("business_id", "1001")
                .multiPart("message_type", "1").multiPart("file", "c.png", new byte[]{(byte) 0x89, 'P', 'N', 'G'},
                        "image/png")
                .post(PATH).then().statusCode(429).body("error_code", equalTo("QUOTA_EXCEEDED"))
                .body("error_message", containsString("declares no length"));
    }

    /**
     * The reservations that arrive together (one group commit) get what asking one at a time would give them: an
     * account's asks in one statement when together they fit, else one by one; at the quotas' exact edges.
     */
    @Test
    void asksThatArriveTogetherGetWhatAskingOneAtATimeWouldGet() {
        for (int attempt = 0; attempt < 3; attempt++) {
            String rate = "quota-together-" + System.nanoTime();
            String other = "quota-together-other-" + System.nanoTime();
            String bytes = "quota-together-bytes-" + System.nanoTime();
            Instant minute = Instant.now().truncatedTo(ChronoUnit.MINUTES);
            List<UploadQuota.Answer> two = quota.reserveAll(List.of(ask(rate, 500), ask(rate, 600)));
            // two of three used: two more together would be four, so the first is taken and the second refused
            List<UploadQuota.Answer> three = quota.reserveAll(List.of(ask(rate, 700), ask(other, 900), ask(rate, 800)));
            // 21,000 bytes together are over the day's 20,000: one by one, the first is taken
            List<UploadQuota.Answer> over = quota.reserveAll(List.of(ask(bytes, 15_000), ask(bytes, 6_000)));
            // exactly what is left of the day (5,000) and of the minute (two uploads), together
            List<UploadQuota.Answer> edge = quota.reserveAll(List.of(ask(bytes, 3_000), ask(bytes, 2_000)));
            if (!Instant.now().truncatedTo(ChronoUnit.MINUTES).equals(minute)) {
                continue; // the minute turned during the sequence: its count started again; once more
            }
            assertEquals(List.of(500L, 600L), granted(two));
            assertEquals(Arrays.asList(700L, 900L, null), granted(three));
            assertTrue(three.get(2).refusal().getMessage().contains(PER_MINUTE + " uploads this minute"),
                    three.get(2).refusal().getMessage());
            assertEquals(Arrays.asList(15_000L, null), granted(over));
            assertTrue(over.get(1).refusal().getMessage().contains("has uploaded 15000 of its 20000 bytes today"),
                    over.get(1).refusal().getMessage());
            assertEquals(List.of(3_000L, 2_000L), granted(edge));
            use(rate).body("bytes", equalTo(1_800)).body("uploads", equalTo(3)).body("uploads_this_minute",
                    equalTo(3));
            use(other).body("bytes", equalTo(900)).body("uploads", equalTo(1));
            use(bytes).body("bytes", equalTo(20_000)).body("uploads", equalTo(3));
            return;
        }
        throw new AssertionError("the minute turned during each of three sequences");
    }

    private static UploadQuota.Ask ask(String account, long bytes) {
        return new UploadQuota.Ask(account, bytes, true);
    }

    /** The bytes each answer reserved; null for a refusal. */
    private static List<Long> granted(List<UploadQuota.Answer> answers) {
        return answers.stream().map(a -> a.reservation() == null ? null : a.reservation().bytes()).toList();
    }

    private static io.restassured.response.ValidatableResponse use(String account) {
        return given().header("Authorization", "Bearer test-operator-key").get("/admin/v1/quotas/" + account).then()
                .statusCode(200);
    }

    @Test
    void theRefusalIsCountedByQuota() {
        String before = given().get(ManagementInterface.url("/q/metrics")).then().extract().asString();
        String account = "quota-metric-" + System.nanoTime();
        upload(account, "big.png", 30_000).then().statusCode(429);
        String after = given().get(ManagementInterface.url("/q/metrics")).then().extract().asString();
        assertEquals(count(before) + 1, count(after), 0.0001);
    }

    private static double count(String metrics) {
        return metrics.lines().filter(l -> l.startsWith("upload_quota_refusals_total{")
                && l.contains("quota=\"bytes-per-day\""))
                .map(l -> l.contains(" # ") ? l.substring(0, l.indexOf(" # ")) : l)
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(0);
    }
}
