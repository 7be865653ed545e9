package com.convplatform.console.web;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import com.convplatform.api.hook.HookAdmin;

/**
 * The overview's chart of the last 24 hours, drawn here as SVG shapes (no script): for each hour, three bars side by
 * side (delivered, failed attempts, dead), on one scale. The template draws the shapes and, for screen readers, each
 * hour's numbers in its {@code <title>} and in a table beside the chart.
 */
public record Chart(List<Hour> hours, long max, int width, int height, int plotTop, int plotBottom) {
    static final int WIDTH = 720;
    static final int HEIGHT = 220;
    static final int TOP = 16;
    static final int BOTTOM = 190;
    static final int LEFT = 40;
    static final int SLOT = (WIDTH - LEFT) / 24;
    static final int BAR = 8;
    private static final DateTimeFormatter HH = DateTimeFormatter.ofPattern("HH:mm").withZone(ZoneOffset.UTC);

    public record Bar(int x, int y, int height, String kind, long value) {
    }

    public record Hour(String label, String title, int labelX, boolean labelled, long delivered, long failedAttempts,
            long dead, List<Bar> bars) {
    }

    public static Chart of(List<HookAdmin.HourView> views) {
        List<HookAdmin.HourView> last = views == null
                ? List.of()
                : views.subList(Math.max(0, views.size() - 24),
                        views.size());
        long max = 1;
        for (HookAdmin.HourView h : last) {
            max = Math.max(max, Math.max(h.delivered(), Math.max(h.failedAttempts(), h.dead())));
        }
        List<Hour> hours = new ArrayList<>();
        for (int i = 0; i < last.size(); i++) {
            HookAdmin.HourView h = last.get(i);
            int x = LEFT + i * SLOT + (SLOT - 3 * BAR) / 2;
            List<Bar> bars = List.of(bar(x, h.delivered(), max, "delivered"),
                    bar(x + BAR, h.failedAttempts(), max, "failed"), bar(x + 2 * BAR, h.dead(), max, "dead"));
            String label = HH.format(h.hour());
            hours.add(new Hour(label, label + " UTC: " + h.delivered() + " delivered, " + h.failedAttempts()
                    + " failed attempts, " + h.dead() + " dead", LEFT + i * SLOT + SLOT / 2, i % 3 == 0,
                    h.delivered(), h.failedAttempts(), h.dead(), bars));
        }
        return new Chart(hours, max, WIDTH, HEIGHT, TOP, BOTTOM);
    }

    private static Bar bar(int x, long value, long max, String kind) {
        int h = value == 0 ? 0 : (int) Math.max(1, Math.round((double) value * (BOTTOM - TOP) / max));
        return new Bar(x, BOTTOM - h, h, kind, value);
    }

    public int left() {
        return LEFT;
    }

    public int scaleX() {
        return LEFT - 4;
    }

    public int maxY() {
        return plotTop + 4;
    }

    public int axisY() {
        return plotBottom;
    }

    public int labelY() {
        return plotBottom + 16;
    }

    public long total(String kind) {
        return hours.stream().mapToLong(h -> switch (kind) {
            case "delivered" -> h.delivered();
            case "failed" -> h.failedAttempts();
            default -> h.dead();
        }).sum();
    }
}
