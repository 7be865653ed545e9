package com.convplatform.console.security;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.convplatform.console.ConsoleConfig;

/** Settings with which the console would run unsafely stop it at start, with a message naming the setting. */
class StartupCheckTest {
    private static <T> T settings(Class<T> type, Map<String, Object> values) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[]{type},
                (proxy, method, args) -> values.containsKey(method.getName())
                        ? values.get(method.getName())
                        : method.getReturnType() == Optional.class ? Optional.empty() : null));
    }

    static final String USERS = "src/test/resources/console-users";

    private static void run(StartupCheck check, ConsoleConfig config) {
        check.check(config, new LocalUsers(config));
    }

    private static ConsoleConfig console(String sessionKey) {
        return console(sessionKey, 50);
    }

    private static ConsoleConfig console(String sessionKey, int pageSize) {
        return console(sessionKey, pageSize, Map.of());
    }

    /** A console that would start, but for {@code overrides} (by method name: "csrfKey", "hook", ...). */
    private static ConsoleConfig console(String sessionKey, int pageSize, Map<String, Object> overrides) {
        Map<String, Object> values = new HashMap<>(Map.of("usersFile", Optional.of(USERS), "session",
                settings(ConsoleConfig.SessionLimits.class, Map.of("idleTimeout", java.time.Duration.ofMinutes(30),
                        "lifetime", java.time.Duration.ofHours(8))),
                "signIn", settings(ConsoleConfig.SignInLimits.class, Map.of("maxFailures", 5,
                        "maxFailuresPerAddress", 20)),
                "sessionKey", Optional.ofNullable(sessionKey), "management", service("http://127.0.0.1:1"), "hook",
                service("http://127.0.0.1:1"), "upload", service("http://127.0.0.1:1"), "pageSize", pageSize));
        values.putAll(overrides);
        return settings(ConsoleConfig.class, values);
    }

    private static ConsoleConfig.Service service(String url) {
        return settings(ConsoleConfig.Service.class, Map.of("url", url, "apiKey", Optional.of("an-operator-key")));
    }

    @Test
    void aMissingOrShortSessionKeyStopsTheConsole() {
        StartupCheck check = new StartupCheck();
        for (String key : new String[]{null, "", "x".repeat(31)}) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(check, console(key)));
            assertEquals("console.session-key (CONSOLE_SESSION_KEY) is " + (key == null || key.isEmpty()
                    ? "not set"
                    : "shorter than 32 characters") + ": it encrypts the session cookies, so set 32 or more random"
                    + " characters, the same on every replica (openssl rand -base64 32)", e.getMessage());
        }
        assertDoesNotThrow(() -> run(check, console("x".repeat(32))));
    }

    @Test
    void aPageSizeTheServicesCannotAnswerStopsTheConsole() {
        StartupCheck check = new StartupCheck();
        // 1000 would ask for 1001 rows, which the services refuse (INVALID_LIMIT).
        for (int size : new int[]{0, -1, 1000, 1001}) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> run(check, console("x".repeat(32), size)));
            assertEquals("console.page-size is " + size + "; it must be 1 to 999 (a page asks the services for one row"
                    + " more, and they answer at most 1000 at once)", e.getMessage());
        }
        assertDoesNotThrow(() -> run(check, console("x".repeat(32), 999)));
        assertDoesNotThrow(() -> run(check, console("x".repeat(32), 1)));
    }

    @Test
    void theSharedPasswordOfBeforeStopsTheConsoleNamingTheUsersFile() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(new StartupCheck(),
                console("x".repeat(32), 50, Map.of("password", Optional.of("a-long-enough-password")))));
        assertTrue(e.getMessage().startsWith("console.password (CONSOLE_PASSWORD) is no longer taken: operators sign"
                + " in as themselves, each with their own password, listed in console.users-file (CONSOLE_USERS_FILE)"),
                e.getMessage());
    }

    @Test
    void noUsersFileAndNoOpenIdConnectStopsTheConsole() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> run(new StartupCheck(), console("x".repeat(32), 50, Map.of("usersFile", Optional.empty()))));
        assertTrue(e.getMessage().startsWith("No way to sign in: set console.users-file (CONSOLE_USERS_FILE)"),
                e.getMessage());
    }

    @Test
    void aUsersFileThatCannotBeTakenStopsTheConsoleNamingItsLine() throws Exception {
        String good = Users.line("dave", "a-password".toCharArray(), Users.MIN_ITERATIONS);
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("dave:secret", "the password of dave is not pbkdf2-sha256$iterations$salt$hash");
        bad.put("da ve" + good.substring(4), "not name:pbkdf2-sha256$iterations$salt$hash");
        bad.put(good.replace("$100000$", "$1000$"), "dave has 1000 iterations; at least 100000 are needed");
        bad.put(good.replace("pbkdf2-sha256", "sha1"), "the password of dave is not pbkdf2-sha256");
        bad.put(good.replace("$100000$", "$x$"), "the iterations, salt or hash of dave cannot be read");
        bad.put(good + "\n" + good, "dave is listed twice");
        for (var entry : bad.entrySet()) {
            java.nio.file.Path file = java.nio.file.Files.createTempFile("users", ".txt");
            java.nio.file.Files.writeString(file, "# operators\n\n" + entry.getKey() + "\n");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(new StartupCheck(),
                    console("x".repeat(32), 50, Map.of("usersFile", Optional.of(file.toString())))));
            assertTrue(e.getMessage().startsWith(
                    "console.users-file " + file + " line " + (entry.getValue().contains("twice") ? 4 : 3) + ": "),
                    e.getMessage());
            assertTrue(e.getMessage().contains(entry.getValue()), e.getMessage());
            java.nio.file.Files.delete(file);
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> run(new StartupCheck(),
                console("x".repeat(32), 50, Map.of("usersFile", Optional.of("/no/such/users-file")))));
        assertTrue(e.getMessage().startsWith("console.users-file (CONSOLE_USERS_FILE) /no/such/users-file cannot be"
                + " read"), e.getMessage());
    }

    @Test
    void aServiceUrlThatIsNotAnAbsoluteHttpUrlStopsTheConsole() {
        StartupCheck check = new StartupCheck();
        for (String name : new String[]{"management", "hook", "upload"}) {
            // A Kubernetes name without its scheme, no scheme at all, another scheme, no host, a space, and the ones
            // that the clients' paths could not be appended to.
            for (String url : new String[]{"hook-service:8082", "hook-service", "//hook-service", "ftp://hook-service",
                    "http://", "http:///admin", "http://hook service", "http://hook-service/",
                    "http://hook-service?a=1",
                    "http://hook-service#a"}) {
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> run(check, console("x".repeat(32), 50, Map.of(name, service(url)))));
                assertTrue(e.getMessage().startsWith("console." + name + ".url (" + url + ") "), e.getMessage());
            }
        }
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> run(check, console("x".repeat(32), 50, Map.of("hook", service("hook-service:8082")))));
        assertEquals("console.hook.url (hook-service:8082) is not an absolute http or https URL with a host (for"
                + " example http://hook-service:8082)", e.getMessage());
        // Every bad one is named at once.
        e = assertThrows(IllegalStateException.class, () -> run(check, console("x".repeat(32), 50,
                Map.of("management", service("management-service"), "upload", service("http://upload-service/")))));
        assertTrue(e.getMessage().startsWith("console.management.url (management-service) "), e.getMessage());
        assertTrue(e.getMessage().contains("; console.upload.url (http://upload-service/) "), e.getMessage());
        for (String url : new String[]{"http://hook-service", "https://hook-service.convplatform.svc:8443",
                "http://127.0.0.1:8082", "HTTP://hook-service/platform"}) {
            for (String name : new String[]{"management", "hook", "upload"}) {
                assertDoesNotThrow(() -> run(check, console("x".repeat(32), 50, Map.of(name, service(url)))));
            }
        }
    }
}
