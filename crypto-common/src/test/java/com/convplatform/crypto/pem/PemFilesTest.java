package com.convplatform.crypto.pem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.convplatform.crypto.pki.KeyPairs;

class PemFilesTest {
    @TempDir
    Path dir;

    @Test
    void keysAreWrittenOwnerOnlyAtomicallyAndReadBack() throws Exception {
        String pem = Pem.toPem(KeyPairs.ecP256().getPrivate());
        Path file = dir.resolve("sub/key.pem");
        PemFiles.writeOwnerOnly(file, pem);
        PemFiles.writeOwnerOnly(file, pem); // replacing an existing key keeps the rule
        assertEquals(pem, PemFiles.read(file));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertFalse(Files.exists(dir.resolve("sub/key.pem.tmp")));
    }
}
