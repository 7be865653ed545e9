package com.convplatform.upload.message;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.convplatform.upload.PlatformStubsResource;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Files stored before file ids carried their time (32 hex digits, all random) are still served: their message rows and
 * files are written here as that version wrote them.
 */
@QuarkusTest
@QuarkusTestResource(PlatformStubsResource.class)
class FormerFileIdsTest {
    @Inject
    DataSource dataSource;

    @Test
    void aFileUnderAnIdOfTheFormerFormIsStillServed() throws Exception {
        String id = "0123456789abcdef0123456789abcdef";
        byte[] jpeg = UploadTest.JPEG;
        Path files = Path.of("target/test-data/files");
        Files.createDirectories(files);
        Files.write(files.resolve(id), jpeg);
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement("insert into"
                        + " message (account_id, client_id, business_id, auth_id, message_type, message_body, file_id,"
                        + " file_name, content_type, size_bytes, created_at) values ('account-1', 'client-1', '1001',"
                        + " 'user42', 1, '', ?, 'old.jpg', 'image/jpeg', ?, current_timestamp)")) {
            insert.setString(1, id);
            insert.setLong(2, jpeg.length);
            insert.executeUpdate();
        }
        byte[] served = given().get("/files/" + id + "/old.jpg").then().statusCode(200).contentType("image/jpeg")
                .header("X-Content-Type-Options", "nosniff").extract().asByteArray();
        assertArrayEquals(jpeg, served);
        given().get("/files/" + id.toUpperCase() + "/old.jpg").then().statusCode(404);
    }
}
