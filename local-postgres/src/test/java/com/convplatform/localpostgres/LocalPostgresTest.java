package com.convplatform.localpostgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** A real server from the shipped binaries, as the user this build runs as (root here: then as nobody). */
class LocalPostgresTest {
    @Test
    void startsACluster_takesDatabases_andKeepsItsDataOverARestart() throws Exception {
        Path dir = Files.createTempDirectory("local-postgres-test");
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path data = dir.resolve("data");
        try {
            try (LocalPostgres pg = LocalPostgres.start(data, 0, Map.of("fsync", "off"))) {
                LocalPostgres.createDatabases(pg.jdbcUrl("postgres"), LocalPostgres.USER, null, List.of("app_one"));
                LocalPostgres.createDatabases(pg.jdbcUrl("postgres"), LocalPostgres.USER, null, List.of("app_one"));
                try (Connection c = DriverManager.getConnection(pg.jdbcUrl("app_one"), LocalPostgres.USER, "")) {
                    c.createStatement().execute("create table kept (v text)");
                    c.createStatement().execute("insert into kept values ('still here')");
                    ResultSet r = c.createStatement().executeQuery("select current_user, version()");
                    r.next();
                    assertEquals("postgres", r.getString(1));
                    assertTrue(r.getString(2).startsWith("PostgreSQL 17."), r.getString(2));
                }
                if (LocalPostgres.isRoot()) {
                    assertEquals(65534, Files.getAttribute(data, "unix:uid"), "the cluster belongs to nobody");
                }
            }
            try (LocalPostgres again = LocalPostgres.start(data, 0, Map.of())) {
                try (Connection c = DriverManager.getConnection(again.jdbcUrl("app_one"), LocalPostgres.USER, "")) {
                    ResultSet r = c.createStatement().executeQuery("select v from kept");
                    assertTrue(r.next());
                    assertEquals("still here", r.getString(1));
                }
                assertThrows(IllegalArgumentException.class, () -> LocalPostgres.createDatabases(
                        again.jdbcUrl("postgres"), LocalPostgres.USER, null, List.of("drop table x;--")));
            }
        } finally {
            LocalPostgres.deleteTree(dir);
        }
        assertFalse(Files.exists(dir));
    }
}
