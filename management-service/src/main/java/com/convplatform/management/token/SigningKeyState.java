package com.convplatform.management.token;

import java.time.Instant;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

@Schema(description = "The key that signs tokens now")
public record SigningKeyState(
        @Schema(description = "Its JWKS key id (RFC 7638 thumbprint), the kid of every token it signs", example = "3q2-7wZ4bU0zJg9nq1rj1rO5cWKcDp7xM6Y8uZb0A0E") String kid,
        @Schema(example = "ES256") String algorithm,
        @Schema(description = "generated: made and kept under management.data-dir, rotated by POST /admin/v1/jwt/rotate;"
                + " key-file: management.jwt.key-file, rotated by replacing the file (docs/operations.md, Keys and"
                + " their rotation)", enumeration = {
                        "generated", "key-file"}, example = "key-file") String source,
        @Schema(description = "When the platform first signed with it: recorded by the first replica that loaded it, as"
                + " the earlier of then and its file's date (the gauge"
                + " management_jwt_signing_key_created_timestamp_seconds)", example = "2026-09-01T08:00:00Z") Instant firstUsedAt,
        @Schema(description = "first_used_at plus max_age: the date by which to rotate it (the alert"
                + " ManagementJwtKeyOld fires after it)", example = "2026-11-30T08:00:00Z") Instant rotateBy,
        @Schema(description = "The rotation policy: the oldest a signing key should be (ISO-8601)", example = "P90D") String maxAge){
}
