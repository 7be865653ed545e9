package com.convplatform.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The CPU time PostgreSQL's processes on this machine have used so far (Linux /proc): every process named
 * {@code postgres} (the postmaster, its background processes and the backends), plus what the postmasters' children
 * that have ended used (their reaped time). The load tests take it before and after a phase and divide by the
 * operations: PostgreSQL's own CPU per operation, beside the service's. The services' pools keep their connections,
 * so the backends that serve them live through a phase. Nothing else uses this machine's PostgreSQL during a load
 * test; were something to, its CPU would be counted too.
 */
public final class PostgresCpu {
    private static final double TICK_NANOS = 1e9 / 100; // USER_HZ: 100 on Linux

    private PostgresCpu() {
    }

    /** Nanoseconds of CPU, or -1 where /proc cannot be read. */
    public static long nanos() {
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return -1;
        }
        Map<Long, long[]> postgres = new HashMap<>(); // pid -> {ppid, utime+stime, cutime+cstime}
        try (Stream<Path> entries = Files.list(proc)) {
            entries.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).forEach(p -> {
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    if (!stat.substring(open + 1, close).equals("postgres")) {
                        return;
                    }
                    String[] f = stat.substring(close + 2).split(" ");
                    // after the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
                    postgres.put(Long.parseLong(p.getFileName().toString()), new long[]{Long.parseLong(f[1]),
                            Long.parseLong(f[11]) + Long.parseLong(f[12]),
                            Long.parseLong(f[13]) + Long.parseLong(f[14])});
                } catch (IOException | RuntimeException gone) {
                    // the process ended meanwhile
                }
            });
        } catch (IOException e) {
            return -1;
        }
        long ticks = 0;
        for (long[] v : postgres.values()) {
            ticks += v[1];
            if (!postgres.containsKey(v[0])) { // a postmaster: its ended children's time too
                ticks += v[2];
            }
        }
        return (long) (ticks * TICK_NANOS);
    }
}
