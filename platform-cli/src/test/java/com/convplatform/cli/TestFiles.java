package com.convplatform.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.List;

import com.convplatform.crypto.pem.Pem;

/** Writes test keys, certificates and bodies to files for the command line to read. */
public final class TestFiles {
    private TestFiles() {
    }

    public static Path write(Path dir, String name, String content) {
        return write(dir, name, content.getBytes(StandardCharsets.UTF_8));
    }

    public static Path write(Path dir, String name, byte[] content) {
        try {
            return Files.write(dir.resolve(name), content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path key(Path dir, String name, KeyPair pair) {
        return write(dir, name, Pem.toPem(pair.getPrivate()));
    }

    public static Path certs(Path dir, String name, List<X509Certificate> certs) {
        return write(dir, name, Pem.toPem(certs));
    }

    public static Path cert(Path dir, String name, X509Certificate cert) {
        return write(dir, name, Pem.toPem(cert));
    }

    public static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
