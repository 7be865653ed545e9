package com.convplatform.crypto.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.Security;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.convplatform.crypto.url.ManagementCertUrlRule;

/**
 * Keeps crypto-common a plain Java library (issue 2, section 2): no class of the main code refers to Quarkus, CDI,
 * Jakarta, SmallRye or MicroProfile, no such jar is even on the test class path, and no main class registers a
 * security provider globally. Reads the compiled classes' constant pools, so nothing can hide in a string.
 */
class PlainJavaLibraryTest {
    static final List<String> FORBIDDEN = List.of("io/quarkus/", "jakarta/", "javax/enterprise/", "javax/inject/",
            "io/smallrye/", "org/eclipse/microprofile/", "io/vertx/");

    @Test
    void mainClassesReferToNoFrameworkPackage() throws Exception {
        List<Path> classes = mainClasses();
        assertTrue(classes.size() > 25, "expected the library's classes under " + mainClassesDir());
        Set<String> offences = new TreeSet<>();
        for (Path c : classes) {
            for (String utf8 : constantPool(c).utf8) {
                for (String prefix : FORBIDDEN) {
                    if (utf8.contains(prefix)) {
                        offences.add(mainClassesDir().relativize(c) + " -> " + utf8);
                    }
                }
            }
        }
        assertEquals(Set.of(), offences);
    }

    @Test
    void noMainClassRegistersASecurityProvider() throws Exception {
        Set<String> offences = new TreeSet<>();
        for (Path c : mainClasses()) {
            for (String call : constantPool(c).methodRefs) {
                if (isProviderRegistration(call)) {
                    offences.add(mainClassesDir().relativize(c) + " calls " + call);
                }
            }
        }
        assertEquals(Set.of(), offences);
    }

    @Test
    void theScannerSeesAProviderRegistrationWhenThereIsOne() throws Exception {
        Path self = Paths.get(Registers.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve(Registers.class.getName().replace('.', '/') + ".class");
        List<String> calls = constantPool(self).methodRefs;
        assertTrue(calls.stream().anyMatch(PlainJavaLibraryTest::isProviderRegistration), calls.toString());
        assertTrue(constantPool(self).utf8.contains("java/security/Security"));
    }

    @Test
    void noFrameworkJarIsOnTheClassPath() {
        List<String> offences = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String path = entry.replace('\\', '/');
            for (String group : List.of("/io/quarkus/", "/jakarta/", "/io/smallrye/", "/org/eclipse/microprofile/",
                    "/io/vertx/")) {
                if (path.contains(group)) {
                    offences.add(entry);
                }
            }
        }
        assertEquals(List.of(), offences);
    }

    private static boolean isProviderRegistration(String methodRef) {
        return methodRef.equals("java/security/Security.addProvider")
                || methodRef.equals("java/security/Security.insertProviderAt");
    }

    /** Never called: it only gives the scanner something to find. */
    static final class Registers {
        static void register() {
            Security.addProvider(null);
        }
    }

    // ---- a minimal class-file constant pool reader ----

    record Pool(List<String> utf8, List<String> methodRefs) {
    }

    static Path mainClassesDir() throws URISyntaxException {
        return Paths.get(ManagementCertUrlRule.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    static List<Path> mainClasses() throws IOException, URISyntaxException {
        try (Stream<Path> s = Files.walk(mainClassesDir())) {
            return s.filter(p -> p.toString().endsWith(".class")).toList();
        }
    }

    static Pool constantPool(Path classFile) throws IOException {
        try (InputStream raw = Files.newInputStream(classFile); DataInputStream in = new DataInputStream(raw)) {
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException("not a class file: " + classFile);
            }
            in.readUnsignedShort();
            in.readUnsignedShort();
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            int[][] refs = new int[count][];
            int[] tags = new int[count];
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                tags[i] = tag;
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 7, 8, 16, 19, 20 -> refs[i] = new int[]{in.readUnsignedShort()};
                    case 3, 4 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        i++;
                    }
                    case 9, 10, 11, 12, 17, 18 -> refs[i] = new int[]{in.readUnsignedShort(), in.readUnsignedShort()};
                    case 15 -> {
                        in.readUnsignedByte();
                        refs[i] = new int[]{in.readUnsignedShort()};
                    }
                    default -> throw new IOException("unknown constant tag " + tag + " in " + classFile);
                }
            }
            List<String> strings = new ArrayList<>();
            List<String> methods = new ArrayList<>();
            for (int i = 1; i < count; i++) {
                if (utf8[i] != null) {
                    strings.add(utf8[i]);
                }
                if (tags[i] == 10 || tags[i] == 11) {
                    String owner = utf8[refs[refs[i][0]][0]];
                    String name = utf8[refs[refs[i][1]][0]];
                    methods.add(owner + "." + name);
                }
            }
            return new Pool(strings, methods);
        }
    }
}
