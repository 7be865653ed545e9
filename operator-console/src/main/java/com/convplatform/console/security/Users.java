package com.convplatform.console.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

import org.jboss.logging.Logger;

/**
 * The local operators: the users file ({@code console.users-file}), one {@code name:pbkdf2-sha256$iterations$salt$hash}
 * a line (salt and hash in Base64, the hash PBKDF2-HMAC-SHA256 of the password, 32 bytes). Blank lines and lines
 * starting with {@code #} are skipped. The file is read at start (a bad line stops the console, naming its number) and
 * again when it changes, at the next sign-in; a changed file with a bad line is not taken (the previous list stays, and
 * the problem is logged).
 */
public final class Users {
    private static final Logger LOG = Logger.getLogger(Users.class);
    /** An operator's name: what the services accept in X-Operator and record in their audit trail. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@+-]{1,64}");
    public static final String SCHEME = "pbkdf2-sha256";
    /** The fewest PBKDF2 iterations a line may have; {@link #DEFAULT_ITERATIONS} is what {@link #line} writes. */
    public static final int MIN_ITERATIONS = 100_000;
    public static final int DEFAULT_ITERATIONS = 600_000;
    private static final int MAX_ITERATIONS = 10_000_000;
    private static final int HASH_BYTES = 32;

    record Hash(int iterations, byte[] salt, byte[] hash) {
    }

    private final Path file;
    private volatile Map<String, Hash> users;
    private volatile FileTime read;
    /** Compared against when the name is unknown, so that an unknown name costs what a known one does. */
    private volatile Hash decoy;

    private Users(Path file, Map<String, Hash> users, FileTime read) {
        this.file = file;
        this.read = read;
        take(users);
    }

    /** The users, and a decoy with the most iterations any of them has (an unknown name costs what a known one does). */
    private void take(Map<String, Hash> users) {
        int iterations = users.values().stream().mapToInt(Hash::iterations).max().orElse(DEFAULT_ITERATIONS);
        this.decoy = new Hash(iterations, new byte[16], new byte[HASH_BYTES]);
        this.users = users;
    }

    /** Reads {@code file}; throws {@link IllegalArgumentException} naming the setting, the file and the bad line. */
    public static Users load(Path file) {
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            return new Users(file, parse(Files.readAllLines(file, StandardCharsets.UTF_8), file), modified);
        } catch (IOException e) {
            throw new IllegalArgumentException("console.users-file (CONSOLE_USERS_FILE) " + file
                    + " cannot be read: " + e.getMessage());
        }
    }

    static Map<String, Hash> parse(List<String> lines, Path file) {
        Map<String, Hash> users = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = "console.users-file " + file + " line " + (i + 1) + ": ";
            int colon = line.indexOf(':');
            String name = colon < 0 ? line : line.substring(0, colon);
            if (colon < 0 || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(where + "not name:" + SCHEME
                        + "$iterations$salt$hash with a name of 1 to 64 letters, digits or ._@+-");
            }
            String[] parts = line.substring(colon + 1).split("\\$", -1);
            if (parts.length != 4 || !SCHEME.equals(parts[0])) {
                throw new IllegalArgumentException(where + "the password of " + name + " is not " + SCHEME
                        + "$iterations$salt$hash (make a line with the command in the console's README)");
            }
            int iterations;
            byte[] salt;
            byte[] hash;
            try {
                iterations = Integer.parseInt(parts[1]);
                salt = Base64.getDecoder().decode(parts[2]);
                hash = Base64.getDecoder().decode(parts[3]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + "the iterations, salt or hash of " + name
                        + " cannot be read (a number, then Base64)");
            }
            if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
                throw new IllegalArgumentException(where + name + " has " + iterations + " iterations; at least "
                        + MIN_ITERATIONS + " are needed (" + DEFAULT_ITERATIONS + " recommended)");
            }
            if (salt.length < 16 || hash.length != HASH_BYTES) {
                throw new IllegalArgumentException(where + "the salt of " + name
                        + " is under 16 bytes or its hash is not 32 bytes");
            }
            if (users.put(name, new Hash(iterations, salt, hash)) != null) {
                throw new IllegalArgumentException(where + name + " is listed twice");
            }
        }
        return Map.copyOf(users);
    }

    public int size() {
        return users.size();
    }

    /** Whether {@code name} is listed with {@code password}; the same work whether or not the name is listed. */
    public boolean check(String name, char[] password) {
        reloadIfChanged();
        Hash h = name == null ? null : users.get(name);
        Hash against = h == null ? decoy : h;
        boolean empty = password == null || password.length == 0;
        byte[] computed = pbkdf2(empty ? new char[]{'\0'} : password, against.salt(), against.iterations());
        return MessageDigest.isEqual(computed, against.hash()) && h != null && !empty;
    }

    private void reloadIfChanged() {
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            if (!modified.equals(read)) {
                synchronized (this) {
                    if (!modified.equals(read)) {
                        read = modified;
                        take(parse(Files.readAllLines(file, StandardCharsets.UTF_8), file));
                        LOG.infof("Users file %s read again: %d operators", file, users.size());
                    }
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            LOG.errorf("Users file %s changed but was not taken (the previous list stays): %s", file, e.getMessage());
        }
    }

    /** A users file line for {@code name} and {@code password}: a new random salt, {@code iterations} rounds. */
    public static String line(String name, char[] password, int iterations) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("A name is 1 to 64 letters, digits or ._@+-");
        }
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return name + ":" + SCHEME + "$" + iterations + "$" + Base64.getEncoder().encodeToString(salt) + "$"
                + Base64.getEncoder().encodeToString(pbkdf2(password, salt, iterations));
    }

    static byte[] pbkdf2(char[] password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, HASH_BYTES * 8);
            try {
                return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
            } finally {
                spec.clearPassword();
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
