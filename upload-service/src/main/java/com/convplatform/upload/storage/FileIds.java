package com.convplatform.upload.storage;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;

/**
 * The id of a stored file: its name in the store and in its URL, and how a download finds its message.
 * <p>
 * A new id is 176 bits as 44 lower-case hex digits: 48 bits of the time it was made (milliseconds since 1970), then
 * 128 random bits from {@link SecureRandom}. The random part makes it unguessable, as the ids before it (32 hex digits,
 * all random; still accepted) were. The time part makes new ids sort after old ones, so the database index that
 * downloads go through grows at its end: with all-random ids each upload's insert landed on a random page of that
 * index, and once the index outgrew H2's page cache (a few hundred thousand uploads) most inserts read a page back from
 * disk first; the same holds for a PostgreSQL B-tree and its shared buffers. What the time part gives away is the
 * upload's time to the millisecond, which its message's {@code created_at} gives out anyway.
 */
public final class FileIds {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();
    /** Length of an id made by this version. */
    private static final int LENGTH = 44;
    /** Length of an id made before the time part (128 random bits). */
    private static final int RANDOM_ONLY_LENGTH = 32;

    private FileIds() {
    }

    /** A new id, made at {@code clock}'s time. */
    public static String next(Clock clock) {
        byte[] random = new byte[16];
        RANDOM.nextBytes(random);
        return HEX.toHexDigits(clock.millis()).substring(4) + HEX.formatHex(random);
    }

    /** Whether {@code id} has the form of a file id (either length; lower-case hex only, so no path tricks). */
    public static boolean isValid(String id) {
        if (id == null || (id.length() != LENGTH && id.length() != RANDOM_ONLY_LENGTH)) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }
}
