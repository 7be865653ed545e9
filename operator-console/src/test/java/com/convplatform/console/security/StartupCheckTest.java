package com.convplatform.console.security;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
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

    private static ConsoleConfig console(String sessionKey) {
        return console(sessionKey, 50);
    }

    private static ConsoleConfig console(String sessionKey, int pageSize) {
        ConsoleConfig.Service service = settings(ConsoleConfig.Service.class,
                Map.of("url", "http://127.0.0.1:1", "apiKey", Optional.of("an-operator-key")));
        return settings(ConsoleConfig.class, Map.of("password", Optional.of("a-long-enough-password"), "sessionKey",
                Optional.ofNullable(sessionKey), "management", service, "hook", service, "upload", service,
                "pageSize", pageSize));
    }

    @Test
    void aMissingOrShortSessionKeyStopsTheConsole() {
        StartupCheck check = new StartupCheck();
        for (String key : new String[]{null, "", "x".repeat(31)}) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> check.check(null, console(key)));
            assertEquals("console.session-key (CONSOLE_SESSION_KEY) is " + (key == null || key.isEmpty()
                    ? "not set"
                    : "shorter than 32 characters") + ": it encrypts the session cookies, so set 32 or more random"
                    + " characters, the same on every replica (openssl rand -base64 32)", e.getMessage());
        }
        assertDoesNotThrow(() -> check.check(null, console("x".repeat(32))));
    }

    @Test
    void aPageSizeTheServicesCannotAnswerStopsTheConsole() {
        StartupCheck check = new StartupCheck();
        // 1000 would ask for 1001 rows, which the services refuse (INVALID_LIMIT).
        for (int size : new int[]{0, -1, 1000, 1001}) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> check.check(null, console("x".repeat(32), size)));
            assertEquals("console.page-size is " + size + "; it must be 1 to 999 (a page asks the services for one row"
                    + " more, and they answer at most 1000 at once)", e.getMessage());
        }
        assertDoesNotThrow(() -> check.check(null, console("x".repeat(32), 999)));
        assertDoesNotThrow(() -> check.check(null, console("x".repeat(32), 1)));
    }
}
