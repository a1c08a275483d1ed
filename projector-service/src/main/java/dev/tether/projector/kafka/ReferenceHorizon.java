package dev.tether.projector.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * The time before which everything that can refer to a blob is known to have reached the blob sweeper, across the whole
 * pipeline and every instance: a blob's content is put, then a command ({@code session-commands}) or a tool outcome
 * ({@code tool-outcomes}) that carries its ref is written; the sequencer turns the command into events
 * ({@code session-events}); the projector folds the events and outcomes and writes each session's first reference to a
 * blob to {@code blob-references}; the sweeper reads that. The grace alone ({@link BlobSweeper.Sweeping#grace}) would
 * trust that all of this happens within it; a sequencer or projector stalled or down for longer would then let a blob
 * whose reference is still on its way be deleted. The horizon waits for it instead.
 *
 * <p>A round is a barrier through the pipeline, made of committed offsets: at its start it takes the end offsets of the
 * first stage's topics, waits until that stage's consumer group has committed past them, then takes the next stage's,
 * and so on. Under exactly-once a stage's committed offsets and what it wrote downstream are one transaction, so when the
 * last stage has committed past its ends, everything written before the round started has been read by the sweeper.
 * That start becomes the horizon, and the next round starts. On a current pipeline a round takes one or two
 * {@link #advance} calls; on a stalled one the horizon stays where it was, and with it every deletion
 * ({@link BlobSweeper}: a blob goes once its put is older than the horizon less the grace).
 *
 * <p>{@link #advance} and {@link #tick} are called from one thread; {@link #horizon} from any.
 */
public final class ReferenceHorizon {

    private static final Logger LOG = Logger.getLogger(ReferenceHorizon.class);

    /** A step of the pipeline: the consumer group that reads {@code topics}. */
    public record Stage(String group, List<String> topics) {
        public Stage {
            Objects.requireNonNull(group, "group");
            topics = List.copyOf(topics);
        }
    }

    /** What the horizon reads from the cluster. */
    public interface Offsets {

        /** The end offset, as a read-committed consumer sees it, of every partition of {@code topics}. */
        Map<TopicPartition, Long> ends(List<String> topics);

        /** The offsets {@code group} has committed, by partition (none for a partition it never committed). */
        Map<TopicPartition, Long> committed(String group);

        /** Offsets read through {@code admin}, each call bounded by {@code timeout}. */
        static Offsets of(Admin admin, Duration timeout) {
            return new AdminOffsets(admin, timeout);
        }
    }

    private final Offsets offsets;
    private final List<Stage> stages;
    /** When the round under way started, and when the first did. */
    private Instant roundStart;
    private Instant firstRoundStart;
    /** The stage the round under way waits for, and the end offsets its group has to commit past (null between rounds). */
    private int stage;
    private Map<TopicPartition, Long> waitingFor;
    /** Null until the first round completes: until then nothing is known, and nothing is deleted. */
    private volatile Instant horizon;
    private boolean warned;
    /** Since when the offsets cannot be read, and whether that was warned of; null while they can. */
    private Instant failingSince;
    private boolean warnedFailing;

    public ReferenceHorizon(Offsets offsets, List<Stage> stages) {
        if (stages.isEmpty()) {
            throw new IllegalArgumentException("a horizon needs at least one stage");
        }
        this.offsets = Objects.requireNonNull(offsets, "offsets");
        this.stages = List.copyOf(stages);
    }

    /**
     * The time before which every command and tool outcome written has had its blob references read by the sweeper;
     * {@link Instant#EPOCH} until that is first known.
     */
    public Instant horizon() {
        Instant known = horizon;
        return known == null ? Instant.EPOCH : known;
    }

    /** How long ago the horizon is at {@code now}; NaN seconds until it is first known. */
    public double secondsBehind(Instant now) {
        Instant known = horizon;
        return known == null ? Double.NaN : Duration.between(known, now).toMillis() / 1000.0;
    }

    /**
     * Moves the round on as far as the committed offsets allow now; a completed round moves the horizon to its start
     * and starts the next. {@code patience} is how far behind the horizon may fall before a warning names the stage
     * it waits for. A failure to read the offsets propagates and leaves the round where it was.
     */
    public void advance(Instant now, Duration patience) {
        if (waitingFor == null) {
            startRound(now);
        }
        Map<TopicPartition, Long> committed;
        while (behind(committed = offsets.committed(stages.get(stage).group()), waitingFor).isEmpty()) {
            if (stage + 1 < stages.size()) {
                var next = offsets.ends(stages.get(stage + 1).topics());
                stage++;
                waitingFor = next;
                continue;
            }
            horizon = roundStart;
            waitingFor = null;
            if (warned) {
                LOG.infof("blob deletions resume: the sweeper's horizon is current again (%s)", roundStart);
                warned = false;
            }
            startRound(now);
            return;
        }
        Instant known = horizon;
        if (!warned && Duration.between(known == null ? firstRoundStart : known, now).compareTo(patience) > 0) {
            Stage waiting = stages.get(stage);
            LOG.warnf("blob deletions are held back: consumer group %s has not committed past the offsets %s of %s it has to reach, so"
                    + " a blob's reference may still be on its way; the horizon stays at %s%s", waiting.group(), behind(committed, waitingFor),
                    waiting.topics(), known == null ? "(not known yet)" : known, committed.isEmpty()
                            ? ". No group of that name has committed anything: if it is not the sequencer's application id, set"
                            + " tether.projector.blobs.sequencer-group to it" : "");
            warned = true;
        }
    }

    /**
     * {@link #advance}, for a scheduler: a failure is logged (a warning once it has lasted longer than
     * {@code patience}: deletions wait meanwhile) and the round goes on at the next call.
     */
    public void tick(Instant now, Duration patience) {
        try {
            advance(now, patience);
            if (warnedFailing) {
                LOG.info("the blob sweeper's horizon reads the committed offsets again");
            }
            failingSince = null;
            warnedFailing = false;
        } catch (RuntimeException e) {
            if (failingSince == null) {
                failingSince = now;
            }
            if (!warnedFailing && Duration.between(failingSince, now).compareTo(patience) > 0) {
                LOG.warnf(e, "the blob sweeper's horizon has not read the committed offsets since %s: blob deletions wait until it can",
                        failingSince);
                warnedFailing = true;
            } else {
                LOG.debugf(e, "the blob sweeper's horizon could not read the committed offsets");
            }
        }
    }

    /** Starts a round at {@code now}: all of it or, if the offsets cannot be read, none of it. */
    private void startRound(Instant now) {
        var ends = offsets.ends(stages.get(0).topics());
        if (firstRoundStart == null) {
            firstRoundStart = now;
        }
        roundStart = now;
        stage = 0;
        waitingFor = ends;
    }

    /** The partitions of {@code ends} that {@code committed} has not reached, with the end each waits for. */
    static Map<TopicPartition, Long> behind(Map<TopicPartition, Long> committed, Map<TopicPartition, Long> ends) {
        var behind = new HashMap<TopicPartition, Long>();
        ends.forEach((partition, end) -> {
            Long at = committed.get(partition);
            if (end > 0 && (at == null || at < end)) {
                behind.put(partition, end);
            }
        });
        return behind;
    }

    private record AdminOffsets(Admin admin, Duration timeout) implements Offsets {

        @Override
        public Map<TopicPartition, Long> ends(List<String> topics) {
            var specs = new HashMap<TopicPartition, OffsetSpec>();
            for (TopicDescription topic : await(admin.describeTopics(topics).allTopicNames()).values()) {
                topic.partitions().forEach(p -> specs.put(new TopicPartition(topic.name(), p.partition()), OffsetSpec.latest()));
            }
            var ends = new HashMap<TopicPartition, Long>();
            await(admin.listOffsets(specs, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()).forEach((partition, info) -> ends.put(partition, info.offset()));
            return ends;
        }

        @Override
        public Map<TopicPartition, Long> committed(String group) {
            var committed = new HashMap<TopicPartition, Long>();
            await(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata())
                    .forEach((partition, offset) -> {
                        if (offset != null) {
                            committed.put(partition, offset.offset());
                        }
                    });
            return committed;
        }

        private <T> T await(KafkaFuture<T> future) {
            try {
                return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted while reading offsets", e);
            } catch (ExecutionException e) {
                throw new KafkaException("could not read offsets: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new KafkaException("the broker did not answer within " + timeout, e);
            }
        }
    }
}
