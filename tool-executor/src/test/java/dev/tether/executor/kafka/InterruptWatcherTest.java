package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.avro.SessionEvent;
import dev.tether.core.event.Actor;
import dev.tether.core.event.ActorKind;
import dev.tether.core.event.Event;
import dev.tether.core.event.EventPayload;
import dev.tether.core.event.TurnInterrupted;
import dev.tether.core.event.UserMessage;
import dev.tether.core.id.SessionEventKeyBytes;
import dev.tether.kit.kafka.EventAvro;
import dev.tether.kit.kafka.SessionPartitioner;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.kit.kafka.Topics;
import dev.tether.tools.CancellationToken;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The interruption watcher while the schema registry does not answer, with no broker: {@code session-events} is a
 * {@link LogConsumer} whose deserializer fails for want of the registry while it is away. An interruption is never
 * missed (it is read again, not skipped), a catch-up — the barrier before a call starts — does not pass while an event
 * before the end cannot be read (the call is not started, it comes again), and both go through once the registry answers.
 */
class InterruptWatcherTest {

    private static final TopicLayout LAYOUT = TopicLayout.local();
    private static final String TOPIC = LAYOUT.name(Topics.SESSION_EVENTS);
    private static final int PARTITIONS = 3;
    private static final String SESSION = "s1";
    /** Longer than the watcher's wait before it reads again an event the registry did not give (1 s). */
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(2);
    private static final TopicPartition ITS_PARTITION = new TopicPartition(TOPIC, SessionPartitioner.partition(SESSION, PARTITIONS));

    private final LogConsumer<byte[], SessionEvent> events = new LogConsumer<>(TOPIC, PARTITIONS);
    private final InFlight inFlight = new InFlight();
    /** The sessions the watcher said were erased, and when (the executor removes their workspaces), in order. */
    private final java.util.List<String> erased = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final InterruptWatcher watcher = new InterruptWatcher(events, inFlight, LAYOUT, CATCH_UP_TIMEOUT, Duration.ofMinutes(15),
            (sessionId, at) -> erased.add(sessionId + "@" + at.toEpochMilli()));
    private Thread thread;

    @AfterEach
    void stop() throws InterruptedException {
        watcher.stop();
        if (thread != null) {
            thread.join(10_000);
        }
    }

    /**
     * A catch-up timeout of zero (or less) let no call start, ever: each catch-up gave up at once, and each request came
     * again every second, for ever. A look-back that is negative read from the future. Both stop the start, naming the setting.
     */
    @Test
    void aCatchUpTimeoutThatIsNotPositive_orALookBackThatIsNegative_stopsTheStart_namingItsSetting() {
        assertThatThrownBy(() -> new InterruptWatcher(events, inFlight, LAYOUT, Duration.ZERO, Duration.ofMinutes(15), (s, at) -> {}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tether.executor.interruptions.catch-up-timeout");
        assertThatThrownBy(() -> new InterruptWatcher(events, inFlight, LAYOUT, Duration.ofSeconds(-1), Duration.ofMinutes(15), (s, at) -> {}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tether.executor.interruptions.catch-up-timeout");
        assertThatThrownBy(() -> new InterruptWatcher(events, inFlight, LAYOUT, CATCH_UP_TIMEOUT, Duration.ofMinutes(-15), (s, at) -> {}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tether.executor.interruptions.look-back");
    }

    @Test
    void anInterruptionWhoseSchemaTheRegistryDoesNotGive_isReadAgainOnceItDoes_andCancelsTheRunningCall() {
        var running = new CancellationToken();
        inFlight.register(SESSION, 3, Instant.now(), running);
        start();
        events.registryAway = true;
        append(2, new UserMessage("stop that", null));
        append(4, new TurnInterrupted("", "the user said stop"));

        await().atMost(Duration.ofSeconds(10)).until(() -> events.registryFailures.get() >= 2);
        assertThat(running.isCancelled()).isFalse();
        assertThat(events.position(ITS_PARTITION)).as("the event the registry did not give is where the watcher reads next").isZero();

        events.registryAway = false;
        await().atMost(Duration.ofSeconds(10)).until(running::isCancelled);
        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(4);
    }

    @Test
    void aCatchUp_whileAnEventBeforeTheEndCannotBeReadForWantOfTheRegistry_doesNotPass_thenPassesOnceItAnswers() {
        start();
        await().atMost(Duration.ofSeconds(10)).until(watcher::ready);
        events.registryAway = true;
        append(4, new TurnInterrupted("", "the user said stop"));

        assertThatThrownBy(() -> watcher.catchUp(SESSION, Instant.now())).as("the call must not start: it comes again")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("could not be read up to now");
        assertThat(inFlight.lastInterruptSeq(SESSION)).isZero();

        events.registryAway = false;
        watcher.catchUp(SESSION, Instant.now());
        assertThat(inFlight.lastInterruptSeq(SESSION)).as("known once the catch-up passed").isEqualTo(4);
    }

    @Test
    void anEndOfThePartitionNotLookedUpInTime_isLookedUpAgain_andTheCatchUpPasses() {
        start();
        await().atMost(Duration.ofSeconds(10)).until(watcher::ready);
        synchronized (events) {
            events.endOffsetsTimeouts = 1;
        }
        append(4, new TurnInterrupted("", "the user said stop"));

        watcher.catchUp(SESSION, Instant.now());

        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(4);
    }

    @Test
    void anEventThatCanNeverBeDecoded_isSkipped_andTheInterruptionAfterItIsSeen() {
        // the contrast: a definite answer of the registry (an unknown schema id) is not waited for
        start();
        events.appendUndecodable(ITS_PARTITION, SESSION.getBytes(StandardCharsets.UTF_8));
        append(4, new TurnInterrupted("", "the user said stop"));

        watcher.catchUp(SESSION, Instant.now());

        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(4);
    }

    @Test
    void anErasedSessionsInterruption_doesNotCutOffTheCallsOfASessionMadeAgainUnderItsId_whileItsOwnRunningCallIsCancelled() {
        start();
        append(4, new TurnInterrupted("", "the user said stop"));
        watcher.catchUp(SESSION, Instant.now());
        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(4);
        var erasedSessions = new CancellationToken();
        var registration = inFlight.register(SESSION, 5, Instant.now().minusSeconds(1), erasedSessions); // after the interruption

        var tombstones = new java.util.ArrayList<String>();
        for (long seq = 1; seq <= 4; seq++) { // the erasure: a tombstone per event
            tombstones.add(SESSION + "@" + events.append(ITS_PARTITION, SessionEventKeyBytes.encode(SESSION, seq), null).timestamp());
        }
        events.append(ITS_PARTITION, null, null); // tombstones no sequencer writes: skipped
        events.append(ITS_PARTITION, SESSION.getBytes(StandardCharsets.UTF_8), null);
        watcher.catchUp(SESSION, Instant.now());

        assertThat(inFlight.lastInterruptSeq(SESSION)).isZero();
        assertThat(erased).as("told once per tombstone, with its time, before the catch-up passed").containsExactlyElementsOf(tombstones);
        assertThat(erasedSessions.isCancelled()).as("the erased session's call, still running").isTrue();
        registration.close();
        Instant erasedAt = inFlight.erasedAt(SESSION);
        assertThat(erasedAt.toEpochMilli() + "").isEqualTo(tombstones.get(tombstones.size() - 1).split("@")[1]);
        var running = new CancellationToken();
        inFlight.register(SESSION, 3, erasedAt.plusMillis(1), running).close();
        assertThat(running.isCancelled()).as("a call the new session asked for at seq 3").isFalse();
        var late = new CancellationToken();
        inFlight.register(SESSION, 6, erasedAt, late).close();
        assertThat(late.isCancelled()).as("one of the erased session's calls, come late").isTrue();
    }

    @Test
    void anInterruptionOlderThanTheLookBack_isReadBackAtTheCatchUpOfACallAuthorizedBeforeIt_andStopsTheCall() {
        Instant hourAgo = Instant.now().minus(Duration.ofHours(1));
        append(4, new TurnInterrupted("", "the user said stop"), hourAgo); // while the executor was down
        append(5, new UserMessage("anything else?", null), hourAgo.plusSeconds(60));
        start();
        watcher.catchUp(SESSION, Instant.now());
        assertThat(inFlight.lastInterruptSeq(SESSION)).as("older than the look-back of 15 minutes").isZero();

        watcher.catchUp(SESSION, hourAgo.minusSeconds(30)); // a call authorized before it, pending all this while

        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(4);
        var call = new CancellationToken();
        inFlight.register(SESSION, 3, hourAgo.minusSeconds(30), call).close();
        assertThat(call.isCancelled()).as("a call of the turn it interrupted does not start").isTrue();
    }

    @Test
    void whatIsReadBack_liesBeneathWhatTheWatcherRead_andWhatItReadIsNotToldAgain() {
        Instant hourAgo = Instant.now().minus(Duration.ofHours(1));
        append(9, new TurnInterrupted("", "stop"), hourAgo); // the session before an erasure ...
        String other = "s-other-erased";
        long otherErased = events.append(new TopicPartition(TOPIC, SessionPartitioner.partition(other, PARTITIONS)),
                SessionEventKeyBytes.encode(other, 1), null, hourAgo.plusSeconds(5).toEpochMilli()).timestamp();
        long liveErasure = Instant.now().minus(Duration.ofMinutes(10)).toEpochMilli();
        events.append(ITS_PARTITION, SessionEventKeyBytes.encode(SESSION, 1), null, liveErasure); // ... erased 10 minutes ago
        append(7, new TurnInterrupted("", "stop"), Instant.now().minus(Duration.ofMinutes(5))); // the session made since
        start();
        watcher.catchUp(SESSION, Instant.now());
        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(7);

        watcher.catchUp(SESSION, hourAgo.minusSeconds(30));
        watcher.catchUp(other, hourAgo.minusSeconds(30));

        assertThat(inFlight.lastInterruptSeq(SESSION)).as("the erased session's interruption is beneath the later one's").isEqualTo(7);
        assertThat(inFlight.erasedAt(SESSION).toEpochMilli()).isEqualTo(liveErasure);
        assertThat(erased).as("the erasure read before is not told again; the one read back is").containsExactlyInAnyOrder(
                SESSION + "@" + liveErasure, other + "@" + otherErased);
        assertThat(inFlight.erasedAt(other).toEpochMilli()).isEqualTo(otherErased);
    }

    /**
     * A request that says its call was authorized within a minute of the epoch (a writer that left {@code requestedAt} at
     * 0) had the partition read back from a negative time, which KafkaConsumer refuses: the watcher's thread ended, and no
     * catch-up of any session passed again, so no call started anywhere until the executor was restarted.
     */
    @Test
    void aCatchUpOfACallAuthorizedAtTheEpoch_readsThePartitionFromItsStart_andTheWatcherGoesOn() {
        append(4, new TurnInterrupted("", "the user said stop"), Instant.now().minus(Duration.ofHours(1)));
        start();

        watcher.catchUp(SESSION, Instant.EPOCH);

        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(4);
        append(6, new TurnInterrupted("", "stop again"));
        watcher.catchUp(SESSION, Instant.now());
        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(6);
    }

    /**
     * A call whose {@code requestedAt} lies ahead of this executor's clock (the sequencer's clock is ahead, or a bad
     * record): its catch-up reads nothing back (its time is after where the watcher started), reads the partition to its
     * end and passes at once; an interruption in the log is known, and the watcher goes on.
     */
    @Test
    void aCatchUpOfACallAuthorizedInTheFuture_passes_andKnowsTheInterruptionsInTheLog() {
        start();
        append(4, new TurnInterrupted("", "the user said stop"));

        long started = System.nanoTime();
        watcher.catchUp(SESSION, Instant.now().plus(Duration.ofMinutes(5)));
        watcher.catchUp(SESSION, Instant.parse("2999-01-01T00:00:00Z"));

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(CATCH_UP_TIMEOUT);
        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(4);
        append(6, new TurnInterrupted("", "stop again"));
        watcher.catchUp(SESSION, Instant.now());
        assertThat(inFlight.lastInterruptSeq(SESSION)).isEqualTo(6);
    }

    /**
     * A watcher that stopped on a failure it does not handle lets no call start (every catch-up fails), so the executor
     * must not stay ready: its readiness asks the watcher.
     */
    @Test
    void aWatcherStoppedByAnUnexpectedFailure_isNoLongerReady() throws InterruptedException {
        var failing = new InterruptWatcher(events, inFlight, LAYOUT, CATCH_UP_TIMEOUT, Duration.ofMinutes(15), (sessionId, at) -> {
            throw new LinkageError("a class the removal of " + sessionId + "'s workspace needs failed to load"); // not handled there
        });
        thread = new Thread(failing, "interrupt-watcher");
        thread.setUncaughtExceptionHandler((t, e) -> {});
        thread.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!failing.ready() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(failing.ready()).isTrue();

        events.append(ITS_PARTITION, SessionEventKeyBytes.encode(SESSION, 1), null); // an erasure, whose callback fails
        thread.join(10_000);

        assertThat(thread.isAlive()).isFalse();
        assertThat(failing.ready()).isFalse();
    }

    // ---------------------------------------------------------------------------------------------

    private void start() {
        thread = new Thread(watcher, "interrupt-watcher");
        thread.start();
    }

    private void append(long seq, EventPayload payload) {
        append(seq, payload, Instant.now());
    }

    private void append(long seq, EventPayload payload, Instant at) {
        var event = new Event(SESSION + "-" + seq, SESSION, "acme", seq, at, new Actor(ActorKind.USER, "acme-user"), "v1", payload);
        events.append(ITS_PARTITION, SESSION.getBytes(StandardCharsets.UTF_8), EventAvro.toAvro(event), at.toEpochMilli());
    }
}
