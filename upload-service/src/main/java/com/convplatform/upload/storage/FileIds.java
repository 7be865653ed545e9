package com.convplatform.upload.storage;

import java.time.Clock;
import java.util.HexFormat;
import java.util.regex.Pattern;

import com.convplatform.crypto.SecureRandoms;

/**
 * A stored file's id: 48 bits of time (ms), so new ids land on the index's last page (README, "File ids", measured),
 * then 128 random bits that make it unguessable. The former all-random 32 hex digits are still accepted.
 */
public final class FileIds {
    private static final HexFormat HEX = HexFormat.of();
    /** Lower-case hex only, so no path tricks. */
    private static final Pattern VALID = Pattern.compile("[0-9a-f]{44}|[0-9a-f]{32}");

    private FileIds() {
    }

    public static String next(Clock clock) {
        byte[] random = new byte[16];
        SecureRandoms.shared().nextBytes(random);
        return HEX.toHexDigits(clock.millis()).substring(4) + HEX.formatHex(random);
    }

    /**
     * No earlier than the message of a file with this id was logged (the id is made first): a look-up of the message
     * reads only the partitions from then on. The epoch for an id of the former kind, which carries no time.
     */
    public static java.time.Instant notBefore(String id) {
        return madeAt(id).minusSeconds(60);
    }

    /** When an id was made (to the millisecond); the epoch for an id of the former kind, which carries no time. */
    public static java.time.Instant madeAt(String id) {
        return id.length() == 44
                ? java.time.Instant.ofEpochMilli(Long.parseLong(id.substring(0, 12), 16))
                : java.time.Instant.EPOCH.plusSeconds(60);
    }

    public static boolean isValid(String id) {
        return id != null && VALID.matcher(id).matches();
    }
}
