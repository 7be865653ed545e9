package com.convplatform.console.security;

import java.nio.file.Path;
import java.util.Optional;

import jakarta.inject.Singleton;

import com.convplatform.console.ConsoleConfig;

/** The users file, read once at start ({@link StartupCheck} stops the console when it cannot be read). */
@Singleton
public class LocalUsers {
    private final Optional<Users> users;
    private final String problem;

    public LocalUsers(ConsoleConfig config) {
        Optional<String> file = config.usersFile().filter(f -> !f.isBlank());
        Users read = null;
        String why = null;
        if (file.isPresent()) {
            try {
                read = Users.load(Path.of(file.get()));
            } catch (IllegalArgumentException e) {
                why = e.getMessage();
            }
        }
        this.users = Optional.ofNullable(read);
        this.problem = why;
    }

    public Optional<Users> users() {
        return users;
    }

    /** Why the configured file could not be taken; null when it was, or when none is configured. */
    String problem() {
        return problem;
    }
}
