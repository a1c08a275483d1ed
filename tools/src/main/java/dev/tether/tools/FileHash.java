package dev.tether.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The hashes file tools record: SHA-256 of the bytes in lower-case hex, and {@code ""} for a file that is absent. */
final class FileHash {

    /** The hash of a file that does not exist. */
    static final String ABSENT = "";

    private FileHash() {}

    static String of(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The hash of the file's bytes now, or {@link #ABSENT}. */
    static String ofFile(Path file) throws IOException {
        try {
            return of(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return ABSENT;
        }
    }
}
