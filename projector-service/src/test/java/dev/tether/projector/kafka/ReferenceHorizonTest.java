package dev.tether.projector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The blob sweeper's horizon moves to a round's start only once every stage of the pipeline has committed past the
 * ends its topics had when the stage before it was done, and stays where it was while a stage lags, fails or has no
 * group; driven over offsets held in maps, with no broker.
 */
class ReferenceHorizonTest {

    private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");
    private static final Duration PATIENCE = Duration.ofMinutes(10);
    private static final TopicPartition COMMANDS = new TopicPartition("session-commands", 0);
    private static final TopicPartition EVENTS = new TopicPartition("session-events", 0);
    private static final TopicPartition OUTCOMES = new TopicPartition("tool-outcomes", 0);
    private static final TopicPartition REFERENCES = new TopicPartition("blob-references", 0);

    /** A cluster's offsets, as maps the test moves. */
    private static final class Cluster implements ReferenceHorizon.Offsets {
        final Map<TopicPartition, Long> ends = new HashMap<>();
        final Map<String, Map<TopicPartition, Long>> committed = new HashMap<>();
        boolean down;

        @Override
        public Map<TopicPartition, Long> ends(List<String> topics) {
            answer();
            var some = new HashMap<TopicPartition, Long>();
            ends.forEach((partition, end) -> {
                if (topics.contains(partition.topic())) {
                    some.put(partition, end);
                }
            });
            return some;
        }

        @Override
        public Map<TopicPartition, Long> committed(String group) {
            answer();
            return Map.copyOf(committed.getOrDefault(group, Map.of()));
        }

        private void answer() {
            if (down) {
                throw new KafkaException("the broker did not answer");
            }
        }

        /** Writes {@code n} records to {@code partition}. */
        void write(TopicPartition partition, long n) {
            ends.merge(partition, n, Long::sum);
        }

        /** {@code group} commits everything written to {@code partition} so far. */
        void catchUp(String group, TopicPartition partition) {
            committed.computeIfAbsent(group, g -> new HashMap<>()).put(partition, ends.getOrDefault(partition, 0L));
        }

        /** Every stage current. */
        void allCaughtUp() {
            catchUp("sequencer", COMMANDS);
            catchUp("projector", EVENTS);
            catchUp("projector", OUTCOMES);
            catchUp("projector", REFERENCES);
        }
    }

    private final Cluster cluster = new Cluster();
    private final ReferenceHorizon horizon = new ReferenceHorizon(cluster, List.of(
            new ReferenceHorizon.Stage("sequencer", List.of("session-commands")),
            new ReferenceHorizon.Stage("projector", List.of("session-events", "tool-outcomes")),
            new ReferenceHorizon.Stage("projector", List.of("blob-references"))));

    @Test
    void onACurrentPipeline_eachCallCompletesARound_andTheHorizonIsItsStart() {
        cluster.write(COMMANDS, 10);
        cluster.write(EVENTS, 30);
        cluster.write(REFERENCES, 4);
        cluster.allCaughtUp();

        assertThat(horizon.horizon()).as("not known before a round").isEqualTo(Instant.EPOCH);
        assertThat(horizon.secondsBehind(T0)).isNaN();

        horizon.advance(T0, PATIENCE);
        assertThat(horizon.horizon()).as("a round started and completed").isEqualTo(T0);
        // the next round started at once, at T0 too: it completes at the next call, and the one after starts
        horizon.advance(T0.plusSeconds(60), PATIENCE);
        horizon.advance(T0.plusSeconds(120), PATIENCE);
        assertThat(horizon.horizon()).as("one call behind").isEqualTo(T0.plusSeconds(60));
        assertThat(horizon.secondsBehind(T0.plusSeconds(150))).isEqualTo(90.0);
    }

    @Test
    void eachStageWaitsForTheOneBefore_andForTheEndsItsTopicsHadWhenThatOneWasDone() {
        cluster.write(COMMANDS, 10);
        cluster.allCaughtUp();
        horizon.advance(T0, PATIENCE); // a round completes, and the next starts at once
        cluster.write(COMMANDS, 2);
        // that round, which did not wait for the two commands, completes; the next starts and waits for the sequencer
        horizon.advance(T0.plusSeconds(60), PATIENCE);
        assertThat(horizon.horizon()).isEqualTo(T0);

        // the sequencer reads them and appends their events; the projector has not folded those
        cluster.write(EVENTS, 3);
        cluster.catchUp("sequencer", COMMANDS);
        horizon.advance(T0.plusSeconds(120), PATIENCE);
        assertThat(horizon.horizon()).as("the projector has not folded the events").isEqualTo(T0);

        // it folds them and writes a reference, which its sweeper has not read
        cluster.write(REFERENCES, 1);
        cluster.catchUp("projector", EVENTS);
        horizon.advance(T0.plusSeconds(180), PATIENCE);
        assertThat(horizon.horizon()).as("the sweeper has not read the reference").isEqualTo(T0);

        // a command written after that round started is not waited for
        cluster.write(COMMANDS, 5);
        cluster.catchUp("projector", REFERENCES);
        horizon.advance(T0.plusSeconds(240), PATIENCE);
        assertThat(horizon.horizon()).as("the start of the round that waited for the two commands").isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void aStageWithoutAGroup_holdsTheHorizonBack_butEmptyPartitionsNeedNoCommit() {
        horizon.advance(T0, PATIENCE);
        assertThat(horizon.horizon()).as("nothing written anywhere: nothing to wait for").isEqualTo(T0);

        cluster.write(COMMANDS, 1);
        horizon.advance(T0.plusSeconds(60), PATIENCE);
        horizon.advance(T0.plusSeconds(120), PATIENCE);
        assertThat(horizon.horizon()).as("no sequencer has ever committed").isEqualTo(T0);
    }

    @Test
    void aStageHeldBackLongerThanThePatience_isWarnedOfOnce_namingItsGroupAndPartitions_andWhetherTheGroupExistsAtAll() {
        var warnings = new ArrayList<String>();
        var capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(new SimpleFormatter().formatMessage(record));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(ReferenceHorizon.class.getName());
        logger.addHandler(capture);
        try {
            cluster.write(COMMANDS, 3);
            horizon.advance(T0, PATIENCE);
            horizon.advance(T0.plus(PATIENCE), PATIENCE);
            assertThat(warnings).as("within the patience").isEmpty();

            horizon.advance(T0.plus(PATIENCE).plusSeconds(1), PATIENCE);
            horizon.advance(T0.plus(PATIENCE).plusSeconds(60), PATIENCE);
            assertThat(warnings).singleElement().asString().contains("consumer group sequencer", "session-commands-0=3",
                    "No group of that name has committed anything");
        } finally {
            logger.removeHandler(capture);
        }
    }

    @Test
    void aBrokerThatDoesNotAnswer_leavesTheRoundWhereItWas() {
        cluster.write(COMMANDS, 1);
        cluster.write(EVENTS, 1);
        cluster.catchUp("sequencer", COMMANDS);
        cluster.down = true;
        assertThatThrownBy(() -> horizon.advance(T0, PATIENCE)).isInstanceOf(KafkaException.class);
        assertThat(horizon.horizon()).isEqualTo(Instant.EPOCH);

        cluster.down = false;
        horizon.advance(T0.plusSeconds(60), PATIENCE); // the round starts now, and waits for the projector
        cluster.allCaughtUp();
        cluster.down = true;
        assertThatThrownBy(() -> horizon.advance(T0.plusSeconds(120), PATIENCE)).isInstanceOf(KafkaException.class);
        cluster.down = false;
        horizon.advance(T0.plusSeconds(180), PATIENCE);
        assertThat(horizon.horizon()).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void tick_survivesAFailure_andTheNextTickGoesOn() {
        cluster.write(COMMANDS, 1);
        cluster.allCaughtUp();
        cluster.down = true;
        horizon.tick(T0, PATIENCE);
        horizon.tick(T0.plus(PATIENCE).plusSeconds(1), PATIENCE); // warned of: failing for longer than the patience
        assertThat(horizon.horizon()).isEqualTo(Instant.EPOCH);

        cluster.down = false;
        horizon.tick(T0.plus(PATIENCE).plusSeconds(60), PATIENCE);
        assertThat(horizon.horizon()).isEqualTo(T0.plus(PATIENCE).plusSeconds(60));
    }

    @Test
    void behind_namesThePartitionsNotCommittedPastTheirEnds() {
        var ends = Map.of(COMMANDS, 5L, EVENTS, 0L, OUTCOMES, 3L);
        assertThat(ReferenceHorizon.behind(Map.of(COMMANDS, 5L), ends)).isEqualTo(Map.of(OUTCOMES, 3L));
        assertThat(ReferenceHorizon.behind(Map.of(COMMANDS, 4L, OUTCOMES, 7L), ends)).isEqualTo(Map.of(COMMANDS, 5L));
    }
}
