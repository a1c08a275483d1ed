package dev.tether.tools;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The hashes file tools record: SHA-256 of the bytes in lower-case hex, and {@code ""} for a file that is absent. */
final class FileHash {

    /** The hash of a file that does not exist. */
    static final String ABSENT = "";

    private FileHash() {}

    static String of(byte[] content) {
        return HexFormat.of().formatHex(sha256().digest(content));
    }

    /**
     * The hash of the file's bytes now, or {@link #ABSENT}; read a block at a time, whatever the file's size.
     *
     * @throws IOException if {@code file} is there but not a regular file (opening a FIFO would wait for a writer, for
     *                     ever, and the file tools write nothing else), or cannot be read
     */
    static String ofFile(Path file) throws IOException {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return ABSENT;
        }
        if (!attributes.isRegularFile()) {
            throw new FileSystemException(file.toString(), null, "not a regular file");
        }
        MessageDigest digest = sha256();
        try (var in = new DigestInputStream(Files.newInputStream(file), digest)) {
            in.transferTo(OutputStream.nullOutputStream());
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchFileException e) {
            return ABSENT;
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
