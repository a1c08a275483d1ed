package dev.tether.reliability;

import dev.tether.client.SessionEvent;
import dev.tether.client.kafka.SessionEventKeys;
import dev.tether.kit.kafka.AvroSerdes;
import dev.tether.testing.TetherStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serde;

/**
 * The chaos run's checks on raw bytes: {@code session-events} read with a plain consumer (every accepted eventId once,
 * seqs gapless per session), and the planted secrets searched for in every topic of the run, every log and the blob
 * store.
 */
final class RawTopics {

    private RawTopics() {}

    /** Every topic of the run: its own ({@code prefix}…) and its services' internal ones (application ids start with it). */
    static List<String> topicsOf(String prefix) throws Exception {
        return topicsOf(TetherStack.shared(), prefix);
    }

    /** The same, on {@code stack}'s brokers. */
    static List<String> topicsOf(TetherStack stack, String prefix) throws Exception {
        try (Admin admin = Admin.create(new HashMap<>(stack.clientConfig()))) {
            return new TreeSet<>(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(1, TimeUnit.MINUTES))
                    .stream().filter(t -> t.startsWith(prefix)).toList();
        }
    }

    /** Every record of {@code topic} from the start to the current end, {@code read_committed} or not. */
    static void forEachRecord(String topic, boolean committedOnly, Consumer<ConsumerRecord<byte[], byte[]>> action) {
        forEachRecord(TetherStack.shared(), topic, committedOnly, action);
    }

    /** The same, on {@code stack}'s brokers. */
    static void forEachRecord(TetherStack stack, String topic, boolean committedOnly, Consumer<ConsumerRecord<byte[], byte[]>> action) {
        var config = new HashMap<>(stack.clientConfig());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, committedOnly ? "read_committed" : "read_uncommitted");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end within 5 minutes");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(action);
            }
        }
    }

    /** What {@link #checkSessionEvents} found. */
    record LogCheck(long records, List<String> problems, Map<String, Map<String, Integer>> recordsByEventId) {

        /** How many committed records of {@code sessionId} hold {@code eventId}: exactly 1 for every accepted event. */
        int records(String sessionId, String eventId) {
            return recordsByEventId.getOrDefault(sessionId, Map.of()).getOrDefault(eventId, 0);
        }
    }

    /**
     * Reads {@code session-events} raw (committed records, keys decoded by hand, values with the registry's serde) and
     * checks, for each of {@code logs}' sessions: its seqs are 1..N without a gap or a repeat, every eventId appears
     * in exactly one record, and the eventIds are exactly those the SDK's log of the session shows (accepted events).
     */
    static LogCheck checkSessionEvents(String topic, Map<String, List<SessionEvent>> logs) {
        return checkSessionEvents(TetherStack.shared(), topic, logs);
    }

    /** The same, on {@code stack}'s brokers and registry. */
    static LogCheck checkSessionEvents(TetherStack stack, String topic, Map<String, List<SessionEvent>> logs) {
        Map<String, List<long[]>> seqs = new HashMap<>(); // sessionId -> seq list
        Map<String, Map<String, Integer>> ids = new HashMap<>(); // sessionId -> eventId -> records
        long[] records = {0};
        try (Serde<dev.tether.avro.SessionEvent> serde = AvroSerdes.valueSerde(stack.registryUrl())) {
            forEachRecord(stack, topic, true, r -> {
                if (r.key() == null) {
                    return;
                }
                SessionEventKeys.Key key = SessionEventKeys.decode(r.key());
                if (!logs.containsKey(key.sessionId()) || r.value() == null) {
                    return;
                }
                records[0]++;
                dev.tether.avro.SessionEvent event = serde.deserializer().deserialize(topic, r.headers(), r.value());
                seqs.computeIfAbsent(key.sessionId(), k -> new ArrayList<>()).add(new long[] {key.seq(), event.getSeq()});
                ids.computeIfAbsent(key.sessionId(), k -> new TreeMap<>()).merge(event.getEventId(), 1, Integer::sum);
            });
        }
        var problems = new ArrayList<String>();
        for (var e : logs.entrySet()) {
            String sessionId = e.getKey();
            List<long[]> s = seqs.getOrDefault(sessionId, List.of());
            var sorted = s.stream().mapToLong(a -> a[0]).sorted().toArray();
            for (int i = 0; i < sorted.length; i++) {
                if (sorted[i] != i + 1) {
                    problems.add(sessionId + ": raw session-events seq " + (i + 1) + " holds " + sorted[i] + " (gap or repeat)");
                    break;
                }
            }
            s.stream().filter(a -> a[0] != a[1]).findFirst()
                    .ifPresent(a -> problems.add(sessionId + ": key seq " + a[0] + " but value seq " + a[1]));
            Map<String, Integer> raw = ids.getOrDefault(sessionId, Map.of());
            raw.forEach((id, n) -> {
                if (n != 1) {
                    problems.add(sessionId + ": eventId " + id + " in " + n + " records of session-events");
                }
            });
            Set<String> accepted = new TreeSet<>();
            e.getValue().forEach(ev -> accepted.add(ev.eventId()));
            if (!accepted.equals(raw.keySet())) {
                var missing = new TreeSet<>(accepted);
                missing.removeAll(raw.keySet());
                var extra = new TreeSet<>(raw.keySet());
                extra.removeAll(accepted);
                problems.add(sessionId + ": accepted eventIds missing from session-events " + missing + ", records not in the log " + extra);
            }
        }
        return new LogCheck(records[0], problems, ids);
    }

    /** A planted secret found somewhere. */
    record Finding(String secretKind, String where) {
    }

    /** Figures of a secret scan: what was searched, and what was found. */
    record Scan(int topics, long records, long recordBytes, int files, long fileBytes, List<Finding> findings) {
    }

    /**
     * Searches the raw bytes of every record (key, value, headers; aborted transactions included) of {@code topics},
     * and of every file under {@code dirs}, for each secret.
     */
    static Scan scanForSecrets(List<String> topics, List<Path> dirs, Map<String, String> secretsByKind) throws IOException {
        var needles = new ArrayList<String>();
        var kinds = new ArrayList<String>();
        secretsByKind.forEach((secret, kind) -> {
            needles.add(latin1(secret.getBytes(StandardCharsets.UTF_8)));
            kinds.add(kind);
        });
        var findings = new ArrayList<Finding>();
        long[] records = {0};
        long[] recordBytes = {0};
        for (String topic : topics) {
            Set<String> reported = new TreeSet<>();
            forEachRecord(topic, false, r -> {
                records[0]++;
                List<byte[]> parts = new ArrayList<>();
                parts.add(r.key());
                parts.add(r.value());
                for (Header h : r.headers()) {
                    parts.add(h.value());
                }
                for (byte[] part : parts) {
                    if (part == null) {
                        continue;
                    }
                    recordBytes[0] += part.length;
                    String text = latin1(part);
                    for (int i = 0; i < needles.size(); i++) {
                        if (text.contains(needles.get(i)) && reported.add(kinds.get(i) + i)) {
                            findings.add(new Finding(kinds.get(i), "topic " + topic + " partition " + r.partition() + " offset " + r.offset()));
                        }
                    }
                }
            });
        }
        int files = 0;
        long fileBytes = 0;
        for (Path dir : dirs) {
            if (!Files.exists(dir)) {
                continue;
            }
            List<Path> all;
            try (Stream<Path> walk = Files.walk(dir)) {
                all = walk.filter(Files::isRegularFile).toList();
            }
            for (Path file : all) {
                byte[] bytes;
                try {
                    bytes = Files.readAllBytes(file);
                } catch (IOException e) {
                    continue; // deleted while we walked (a state store compacting)
                }
                files++;
                fileBytes += bytes.length;
                String text = latin1(bytes);
                for (int i = 0; i < needles.size(); i++) {
                    if (text.contains(needles.get(i))) {
                        findings.add(new Finding(kinds.get(i), file.toString()));
                    }
                }
            }
        }
        return new Scan(topics.size(), records[0], recordBytes[0], files, fileBytes, findings);
    }

    /** Latin-1 maps every byte to one char, so {@code String.contains} is an exact (and fast) byte search. */
    private static String latin1(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
