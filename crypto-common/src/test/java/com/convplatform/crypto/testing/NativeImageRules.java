package com.convplatform.crypto.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * What a native image refuses and the JVM allows, checked on the JVM. Quarkus initialises every class while it builds
 * the image, so a {@code static final} {@link Random} (a {@code SecureRandom} too) ends up in the image heap, which
 * GraalVM refuses: the build fails, on a runner this machine cannot reproduce.
 */
public final class NativeImageRules {
    private NativeImageRules() {
    }

    /** Every {@code static final} field of a {@link Random} type in the classes of the jars or folders of these classes. */
    public static List<String> staticFinalRandoms(Class<?>... fromEach) {
        List<String> found = new ArrayList<>();
        for (Class<?> anchor : fromEach) {
            Path root;
            try {
                root = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
            for (String name : classNames(root)) {
                Class<?> type;
                try {
                    type = Class.forName(name, false, anchor.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    continue; // needs a class this classpath lacks: not part of what runs here
                }
                for (Field f : type.getDeclaredFields()) {
                    int m = f.getModifiers();
                    if (Modifier.isStatic(m) && Modifier.isFinal(m) && Random.class.isAssignableFrom(f.getType())) {
                        found.add(name + "." + f.getName());
                    }
                }
            }
        }
        return found;
    }

    /**
     * The classes of the bounded Caffeine caches held in {@code holders}' fields that a native image would lack: Caffeine
     * makes a bounded cache as a class it loads by name (SSMW, PSAMS, ...), which the image holds only when
     * quarkus-caffeine's own list names it or one of {@code registrars} does in {@code @RegisterForReflection(classNames
     * = ...)}. Empty when every one is there.
     */
    public static List<String> unregisteredCaches(List<Class<?>> registrars, Object... holders) {
        java.util.Set<String> registered = new java.util.HashSet<>();
        try (var feature = NativeImageRules.class.getClassLoader()
                .getResourceAsStream("io/quarkus/caffeine/runtime/graal/CacheConstructorsFeature.class")) {
            if (feature == null) {
                throw new IllegalStateException("quarkus-caffeine's CacheConstructorsFeature is not on the classpath");
            }
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("com\\.github\\.benmanes\\.caffeine\\.cache\\.[A-Z]+")
                    .matcher(new String(feature.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1));
            while (m.find()) {
                registered.add(m.group());
            }
            for (Class<?> r : registrars) {
                for (java.lang.annotation.Annotation a : r.getAnnotations()) {
                    if (a.annotationType().getName().equals("io.quarkus.runtime.annotations.RegisterForReflection")) {
                        registered.addAll(List.of((String[]) a.annotationType().getMethod("classNames").invoke(a)));
                    }
                }
            }
            List<String> missing = new ArrayList<>();
            for (Object holder : holders) {
                for (Field f : holder.getClass().getDeclaredFields()) {
                    if (!f.getType().getName().startsWith("com.github.benmanes.caffeine.cache.")
                            || Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    f.setAccessible(true);
                    Object cache = f.get(holder);
                    Field inner = cache.getClass().getDeclaredField("cache");
                    inner.setAccessible(true);
                    String made = inner.get(cache).getClass().getName();
                    if (!made.contains("Unbounded") && !registered.contains(made)) {
                        missing.add(holder.getClass().getSimpleName() + "." + f.getName() + ": " + made);
                    }
                }
            }
            return missing;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> classNames(Path root) {
        try {
            if (Files.isDirectory(root)) {
                return names(root);
            }
            try (FileSystem jar = FileSystems.newFileSystem(root)) {
                return names(jar.getPath("/"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> names(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".class") && !p.endsWith("module-info.class"))
                    .map(p -> root.relativize(p).toString().replace(root.getFileSystem().getSeparator(), ".")
                            .replaceAll("\\.class$", ""))
                    .filter(n -> !n.startsWith("META-INF")).toList();
        }
    }
}
