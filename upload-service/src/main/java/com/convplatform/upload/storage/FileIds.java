package com.convplatform.upload.storage;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The id of a stored file: its name in the store and in its URL, and how a download finds its message. 44 lower-case
 * hex digits: 48 bits of the time it was made (milliseconds), then 128 random bits that make it unguessable. The time
 * part makes new ids sort after old ones, so inserts into the index downloads go through land on its last page (the
 * README's "File ids" has the measured reason). Ids made before the time part (32 hex digits) are still accepted.
 */
public final class FileIds {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();
    /** Lower-case hex only, so no path tricks: this version's 44 digits, or the former all-random 32. */
    private static final Pattern VALID = Pattern.compile("[0-9a-f]{44}|[0-9a-f]{32}");

    private FileIds() {
    }

    /** A new id, made at {@code clock}'s time. */
    public static String next(Clock clock) {
        byte[] random = new byte[16];
        RANDOM.nextBytes(random);
        return HEX.toHexDigits(clock.millis()).substring(4) + HEX.formatHex(random);
    }

    /** Whether {@code id} has the form of a file id. */
    public static boolean isValid(String id) {
        return id != null && VALID.matcher(id).matches();
    }
}
