package dev.tether.session.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;

/** The session-service's own settings ({@code tether.sessions.*}). */
@ConfigMapping(prefix = "tether.sessions")
public interface SessionServiceConfig {

    /** The harness version of new sessions when {@code harness-versions} assigns none (no ACTIVE version with weight). */
    @WithDefault("v1")
    String defaultHarnessVersion();

    /** How long a request waits for the sequencer's verdict before answering 503 (retrying is safe). */
    @WithDefault("PT10S")
    Duration replyTimeout();

    /**
     * Largest command, in bytes as written to {@code session-commands} (its Avro and the schema id), after large content
     * was offloaded; larger requests get 413.
     */
    @WithDefault("524288")
    int maxCommandBytes();

    /** Largest page of {@code GET …/events}. */
    @WithDefault("1000")
    int maxPageSize();

    /** How often a live subscription looks for new events. */
    @WithDefault("PT0.1S")
    Duration streamPollInterval();

    Blobs blobs();

    interface Blobs {
        /** The local blob store's directory. */
        @WithDefault(".tether/blobs")
        Path dir();

        /** Content over this many UTF-8 bytes is offloaded to the blob store. */
        @WithDefault("65536")
        int threshold();

        /** Characters of offloaded content kept in the event as its preview. */
        @WithDefault("512")
        int previewChars();
    }
}
