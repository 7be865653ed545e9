package com.convplatform.upload.message;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.zip.ZipFile;

/** The spec's extensions (4.5) by message type, their content types, and a check of each one's content. */
public final class FileTypes {
    public static final int IMAGE = 1;
    public static final int DOCUMENT = 52;

    static final Map<String, String> CONTENT_TYPES = Map.of("jpg", "image/jpeg", "jpeg", "image/jpeg", "png",
            "image/png", "gif", "image/gif", "doc", "application/msword", "xls", "application/vnd.ms-excel", "docx",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "csv", "text/csv");
    static final List<String> IMAGES = List.of("jpg", "jpeg", "png", "gif");
    static final List<String> DOCUMENTS = List.of("docx", "doc", "xls", "xlsx", "csv");

    private FileTypes() {
    }

    static String extension(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    }

    static boolean contentMatches(String ext, Path file) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(8);
        }
        return switch (ext) {
            case "png" -> starts(head, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A);
            case "jpg", "jpeg" -> starts(head, 0xFF, 0xD8, 0xFF);
            case "gif" -> starts(head, 'G', 'I', 'F', '8', '7', 'a') || starts(head, 'G', 'I', 'F', '8', '9', 'a');
            case "doc", "xls" -> starts(head, 0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1);
            case "docx" -> starts(head, 'P', 'K', 3, 4) && ooxml(file, "word/");
            case "xlsx" -> starts(head, 'P', 'K', 3, 4) && ooxml(file, "xl/");
            case "csv" -> isText(file);
            default -> false;
        };
    }

    private static boolean starts(byte[] head, int... magic) {
        return head.length >= magic.length
                && IntStream.range(0, magic.length).allMatch(i -> (head[i] & 0xff) == magic[i]);
    }

    private static boolean ooxml(Path file, String partPrefix) {
        try (ZipFile zip = new ZipFile(file.toFile())) {
            return zip.getEntry("[Content_Types].xml") != null
                    && zip.stream().limit(10_000).anyMatch(e -> e.getName().startsWith(partPrefix));
        } catch (IOException e) {
            return false;
        }
    }

    /** UTF-8 without control characters other than tab, CR and LF; read in pieces. */
    private static boolean isText(Path file) throws IOException {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        char[] text = new char[8192];
        try (Reader in = new InputStreamReader(Files.newInputStream(file), decoder)) {
            for (int n = in.read(text); n >= 0; n = in.read(text)) {
                if (IntStream.range(0, n).map(i -> text[i])
                        .anyMatch(c -> c < 0x20 && c != '\t' && c != '\r' && c != '\n' || c == 0x7f)) {
                    return false;
                }
            }
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
