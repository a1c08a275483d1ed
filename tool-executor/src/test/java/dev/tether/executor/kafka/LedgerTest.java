package dev.tether.executor.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.avro.AuthorizationBasis;
import dev.tether.avro.AuthorizationBasisKind;
import dev.tether.avro.CallRunner;
import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolMode;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.kit.kafka.TopicLayout;
import dev.tether.testing.MovableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The ledger's promise, folded over a list standing for {@code tool-outcomes} ({@link MemoryOutcomeLog}): it never
 * answers "no outcome" for a call that has one, whatever its cache holds; its memory is bounded whatever the number of
 * calls ever made; taking a partition over reads what was written since its oldest pending call was authorized, not
 * its history; and every record it writes is stamped no earlier than its call's authorization.
 */
class LedgerTest {

    private static final Duration SKEW = Duration.ofMinutes(1);
    private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");

    private final MockProducer<String, SpecificRecord> producer =
            new MockProducer<>(true, null, new StringSerializer(), (Serializer<SpecificRecord>) (topic, value) -> new byte[0]);
    private final MemoryOutcomeLog log = new MemoryOutcomeLog(1);
    private final MovableClock clock = new MovableClock(T0);

    /**
     * A lookup asks where the log is readable to only with none of this instance's first writes (each a transaction) in
     * flight, and holds new ones back meanwhile: an open transaction holds back every record after it from a
     * read_committed reader, and with calls starting all the time a lookup waited for the partition to be readable to its
     * end over and over (the executor soak ran 2-4 calls/s instead of 88).
     */
    @Test
    void aLookup_asksWhereTheLogIsReadable_onlyWithNoFirstWriteInFlight() throws Exception {
        var open = new AtomicInteger();
        var writing = new CountDownLatch(1);
        var finish = new CountDownLatch(1);
        AckedWriter.FencedWrites slow = (record, fence) -> {
            open.incrementAndGet();
            writing.countDown();
            try {
                finish.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            open.decrementAndGet();
            return AckedWriter.acknowledged(record, producer);
        };
        Ledger ledger = new Ledger(log, new AckedWriter(producer, slow, TopicLayout.local()), new Ledger.Settings(100, SKEW), clock);
        var first = request("s1/2/call-1", T0);
        var next = request("s2/2/call-1", T0);
        clock.set(T0.plusSeconds(1));
        ledger.prepare(Map.of(0, List.of(first)));
        var openAtEnd = new java.util.concurrent.CopyOnWriteArrayList<Integer>();
        log.atEnd = () -> openAtEnd.add(open.get());
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> started = threads.submit(() -> ledger.record(first.getRequestedAt(),
                    outcome(first.getIdempotencyKey(), OutcomeState.STARTED, "", clock.instant()),
                    Optional.of(new Fence(new ConsumerGroupMetadata("executors"), new TopicPartition("tool-requests", 0), 0))));
            assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
            Future<?> lookup = threads.submit(() -> ledger.prepare(Map.of(0, List.of(next))));
            Thread.sleep(300);
            assertThat(lookup).as("waits for the first write in flight").isNotDone();

            finish.countDown();
            started.get(10, TimeUnit.SECONDS);
            lookup.get(10, TimeUnit.SECONDS);
            assertThat(openAtEnd).as("first writes open when the lookup asked where the log ends").containsOnly(0);
        } finally {
            finish.countDown();
            threads.shutdownNow();
        }
    }

    @Test
    void theCache_holdsNoMoreThanItsBound_whateverTheNumberOfCallsEverMade() {
        Ledger ledger = ledger(500);
        var first = request("s1/2/call-0", T0);
        for (int batch = 0; batch < 400; batch++) {
            var requests = new ArrayList<ToolRequest>();
            for (int i = 0; i < 50; i++) {
                int call = batch * 50 + i;
                requests.add(call == 0 ? first : request("s" + (call % 97) + "/" + (2 + call) + "/call-" + call, T0.plusMillis(10L * call)));
            }
            clock.set(requests.get(requests.size() - 1).getRequestedAt().plusSeconds(1));
            runCalls(ledger, requests);
            assertThat(ledger.cachedCalls()).as("after %d calls", (batch + 1) * 50).isLessThanOrEqualTo(500);
        }

        // the first of the 20,000 calls left the cache long ago: it is still found, by its authorization time
        ledger.prepare(Map.of(0, List.of(first)));
        assertThat(ledger.get(first)).map(ToolOutcome::getState).contains(OutcomeState.OK);
        ledger.release(first);
    }

    @Test
    void takingOverAPartition_readsWhatWasWrittenSinceItsOldestPendingCall_notItsHistory() {
        // ten days of calls (100,000 of them, both entries each) by the instance that died; then its pending work
        Instant now = T0.plus(Duration.ofDays(10));
        for (int call = 0; call < 100_000; call++) {
            Instant at = T0.plusMillis(call * 8_640L);
            String key = "s" + (call % 1000) + "/" + (2 + call) + "/call-" + call;
            log.append(outcome(key, OutcomeState.STARTED, "", at), at.plusMillis(5));
            log.append(outcome(key, OutcomeState.OK, "done", at), at.plusMillis(9));
        }
        Instant oldestPending = now.minus(Duration.ofMinutes(30));
        var started = request("s7/900001/call-a", oldestPending); // STARTED by the dead instance, never ended
        log.append(outcome(started.getIdempotencyKey(), OutcomeState.STARTED, "", oldestPending), oldestPending.plusMillis(20));
        var queued = request("s8/900002/call-b", now.minus(Duration.ofMinutes(5))); // never reached
        long since = log.entries(0).stream().filter(e -> e.timestamp() >= oldestPending.minus(SKEW).toEpochMilli()).count();
        clock.set(now);

        Ledger ledger = ledger(20_000);
        ledger.prepare(Map.of(0, List.of(started, queued)));

        assertThat(ledger.get(started)).map(ToolOutcome::getState).contains(OutcomeState.STARTED);
        assertThat(ledger.get(queued)).isEmpty();
        assertThat(ledger.recordsRead(Ledger.Read.TAKEOVER)).as("the records since the oldest pending call, less the margin")
                .isEqualTo(since);
        assertThat(log.recordsRead).as("of 200,001 in the partition").isLessThan(since + 10).isLessThan(2_000);
    }

    @Test
    void neverAnswersNoOutcome_forACallThatHasOne_whateverTheCacheTheOrderTheLagAndCompaction() {
        for (long seed = 0; seed < 300; seed++) {
            new LedgerTest().new World(new Random(seed)).run(); // each world its own topic
        }
    }

    @Test
    void anErasure_neverWritesOverALaterSessionsRecord_andLeavesItsCallsLatestRecordWithoutOutput_whateverTheCacheTheReplaysAndCompaction() {
        for (long seed = 0; seed < 300; seed++) {
            new LedgerTest().new ErasureWorld(new Random(seed)).run(); // each world its own topic
        }
    }

    @Test
    void aRecordOfAnOlderExecutor_stampedBeforeItsAuthorizationByLessThanTheMargin_isFound() {
        Instant authorized = T0.plusSeconds(3600);
        var request = request("s1/5/call-1", authorized);
        // an executor whose clock was 50 s behind the session-service's wrote OK before the upgrade
        log.append(outcome(request.getIdempotencyKey(), OutcomeState.OK, "done", authorized), authorized.minusSeconds(50));
        for (int i = 0; i < 1_000; i++) {
            log.append(outcome("s2/" + i + "/call-x", OutcomeState.OK, "", authorized), authorized.plusSeconds(i));
        }
        clock.set(authorized.plusSeconds(2_000));

        Ledger ledger = ledger(10);
        ledger.prepare(Map.of(0, List.of(request("s3/1/call-new", authorized.plusSeconds(1_990)))));
        ledger.release(request("s3/1/call-new", authorized.plusSeconds(1_990)));

        assertThat(ledger.get(request)).map(ToolOutcome::getState).contains(OutcomeState.OK);
    }

    @Test
    void aCallOfASessionMadeAgainUnderAnErasedSessionsId_hasItsKey_butNotItsOutcome_whetherCachedOrScanned() {
        var erased = request("s1/3/call-1", T0);
        clock.set(T0.plusSeconds(1));
        Ledger ran = ledger(100);
        runCalls(ran, List.of(erased));
        assertThat(log.entries(0)).extracting(e -> e.value().getRequestedAt()).containsOnly(T0);
        for (int i = 0; i < 5; i++) {
            log.append(outcome("s2/" + i + "/call-x", OutcomeState.OK, "", T0.plusSeconds(2)), T0.plusSeconds(2));
        }
        Ledger scanning = ledger(1);
        scanning.get(request("s2/4/call-x", T0.plusSeconds(2)));
        // its window of one call now starts past the erased call, which only a scan finds
        scanning.release(request("s2/4/call-x", T0.plusSeconds(2)));
        // s1 erased and made again; its new call-1 is asked for at the same seq 30 s later, within the margin
        var again = request("s1/3/call-1", T0.plusSeconds(30));
        clock.set(T0.plusSeconds(31));

        assertThat(ran.get(again)).as("from the window of the executor that ran it").isEmpty();
        assertThat(scanning.get(again)).as("by a scan").isEmpty();
        assertThat(scanning.recordsRead(Ledger.Read.SCAN)).isPositive();
        assertThat(ran.superseded(again)).isFalse();
        ran.release(again);
        assertThat(ran.get(erased)).map(ToolOutcome::getContent).contains("ran s1/3/call-1");
        assertThat(ran.superseded(erased)).isFalse();
        ran.release(erased);

        runCalls(ran, List.of(again));
        // the erased session's request comes again (a redelivery, a replay): the later session's call superseded it
        assertThat(ran.superseded(erased)).isTrue();
        assertThat(ran.get(erased)).isEmpty();
        ran.release(erased);
        assertThat(ran.get(again)).map(ToolOutcome::getRequestedAt).contains(again.getRequestedAt());
        assertThat(ran.superseded(again)).isFalse();
    }

    @Test
    void aCallOfASessionMadeAgainUnderAnErasedSessionsId_thatRan_isFoundByAScan_pastTheErasedCallsEndWithinTheMargin() {
        var erased = request("s1/3/call-1", T0);
        clock.set(T0.plusSeconds(1));
        runCalls(ledger(100), List.of(erased));
        var again = request("s1/3/call-1", T0.plusSeconds(30)); // its floor lies before the erased call's records
        clock.set(T0.plusSeconds(31));
        runCalls(ledger(100), List.of(again));
        for (int i = 0; i < 5; i++) {
            log.append(outcome("s2/" + i + "/call-x", OutcomeState.OK, "", T0.plusSeconds(40)), T0.plusSeconds(40));
        }
        Ledger scanning = ledger(1);
        scanning.get(request("s2/4/call-x", T0.plusSeconds(40)));
        // its window of one call now starts past both sessions' records of the key
        scanning.release(request("s2/4/call-x", T0.plusSeconds(40)));

        // the later session's request comes again (a redelivery): it ran, so it must never run again
        assertThat(scanning.get(again)).map(ToolOutcome::getRequestedAt).contains(again.getRequestedAt());
        assertThat(scanning.recordsRead(Ledger.Read.SCAN)).isPositive();
    }

    @Test
    void anErasedSessionsRequest_andALaterSessionsOfTheSameKey_inOneBatch_areEachAnsweredByTheirOwnAuthorization() {
        var erased = request("s1/3/call-1", T0);
        var again = request("s1/3/call-1", T0.plusSeconds(30));
        clock.set(T0.plusSeconds(31));
        Ledger ledger = ledger(100);
        runCalls(ledger, List.of(erased)); // both come again in one batch (a redelivery), the erased one first

        ledger.prepare(Map.of(0, List.of(erased, again)));

        assertThat(ledger.get(erased)).map(ToolOutcome::getContent).contains("ran s1/3/call-1");
        assertThat(ledger.superseded(erased)).isFalse();
        assertThat(ledger.get(again)).isEmpty();
        assertThat(ledger.superseded(again)).isFalse();
        ledger.record(again.getRequestedAt(), outcome(again.getIdempotencyKey(), OutcomeState.STARTED, "", clock.instant()));
        assertThat(ledger.superseded(erased)).as("once the later session's call is recorded").isTrue();
        assertThat(ledger.get(again)).map(ToolOutcome::getState).contains(OutcomeState.STARTED);
    }

    @Test
    void anErasure_findsItsCallsEndedRecordByAScan_whileTheWindowStartsAtTheErasure_notAtTheCallLongBefore() {
        var erased = request("s1/3/call-1", T0);
        clock.set(T0.plusSeconds(1));
        runCalls(ledger(100), List.of(erased));
        for (int i = 0; i < 1_000; i++) { // a day of other calls
            Instant at = T0.plus(Duration.ofMinutes(i + 1));
            log.append(outcome("s2/" + i + "/call-x", OutcomeState.OK, "", at), at);
        }
        Instant erasedAt = T0.plus(Duration.ofDays(1));
        clock.set(erasedAt.plusSeconds(1));
        Ledger ledger = ledger(100);

        ledger.prepare(Map.of(0, List.of(erasure(erased, erasedAt))));

        assertThat(ledger.erasable(erasure(erased, erasedAt))).map(ToolOutcome::getContent).contains("ran s1/3/call-1");
        assertThat(ledger.recordsRead(Ledger.Read.TAKEOVER)).as("nothing was written since the erasure").isZero();
        assertThat(ledger.recordsRead(Ledger.Read.SCAN)).as("from the call's authorization to its end").isLessThan(10);
    }

    @Test
    void anErasure_findsNothingToErase_onceALaterSessionUnderTheIdRecordedTheKey_evenWhereAScanStopsAtTheErasedCallsEnd() {
        var erased = request("s1/3/call-1", T0);
        clock.set(T0.plusSeconds(1));
        Ledger ledger = ledger(1);
        runCalls(ledger, List.of(erased));
        Instant erasedAt = T0.plusSeconds(20);
        var again = request("s1/3/call-1", T0.plusSeconds(30)); // the session made again, its call under the same key
        clock.set(T0.plusSeconds(31));
        runCalls(ledger, List.of(again));
        var other = request("s2/3/call-2", T0.plusSeconds(40));
        clock.set(T0.plusSeconds(41));
        runCalls(ledger, List.of(other));
        runCalls(ledger, List.of(other)); // asked for again: the window of one call now holds only it

        // the erasure comes again (a replay of tool-requests): its call's first end lies below the window
        ledger.prepare(Map.of(0, List.of(erasure(erased, erasedAt))));

        assertThat(ledger.erasable(erasure(erased, erasedAt))).as("the later session's record is the key's latest").isEmpty();
        ledger.release(erased);
        ledger.prepare(Map.of(0, List.of(erased)));
        assertThat(ledger.get(erased)).as("what the scan alone finds").map(ToolOutcome::getContent).contains("ran s1/3/call-1");
    }

    @Test
    void aRecordOfAnOlderExecutor_isNoOutcomeOfACallAuthorizedLaterThanTheMarginAfterIt_evenIfTheWindowHoldsIt() {
        var erased = request("s1/3/call-1", T0);
        log.append(outcome(erased.getIdempotencyKey(), OutcomeState.OK, "legacy", T0), T0.plusSeconds(1)); // no requestedAt
        clock.set(T0.plusSeconds(2));
        Ledger ledger = ledger(100);
        assertThat(ledger.get(erased)).map(ToolOutcome::getContent).contains("legacy");
        ledger.release(erased);

        var again = request("s1/3/call-1", T0.plusSeconds(1).plus(SKEW).plusMillis(1));
        clock.set(again.getRequestedAt().plusSeconds(1));

        assertThat(ledger.get(again)).isEmpty();
    }

    @Test
    void aWrite_isStampedNoEarlierThanItsAuthorization_evenWhenTheExecutorsClockLags() {
        Instant authorized = T0.plusSeconds(600);
        var request = request("s1/5/call-1", authorized);
        clock.set(authorized.minusSeconds(40)); // this host's clock is 40 s behind the session-service's
        Ledger ledger = ledger(100);

        assertThat(ledger.get(request)).isEmpty();
        ledger.record(request.getRequestedAt(), outcome(request.getIdempotencyKey(), OutcomeState.STARTED, "", clock.instant()));
        clock.set(authorized.plusSeconds(30));
        ledger.record(request.getRequestedAt(), outcome(request.getIdempotencyKey(), OutcomeState.OK, "done", clock.instant()));

        assertThat(producer.history()).extracting(r -> Instant.ofEpochMilli(r.timestamp()))
                .containsExactly(authorized, authorized.plusSeconds(30));
        assertThat(ledger.get(request)).map(ToolOutcome::getState).contains(OutcomeState.OK);
    }

    @Test
    void aCallTheCacheHolds_isAnsweredWhole_readBackAtItsOffset() {
        Ledger ledger = ledger(100);
        var request = request("s1/5/call-1", T0);
        clock.set(T0.plusSeconds(1));
        runCalls(ledger, List.of(request));
        long before = ledger.recordsRead(Ledger.Read.FETCH);

        ledger.prepare(Map.of(0, List.of(request)));

        assertThat(ledger.get(request)).map(ToolOutcome::getContent).contains("ran " + request.getIdempotencyKey());
        assertThat(ledger.recordsRead(Ledger.Read.FETCH) - before).isEqualTo(1);
    }

    @Test
    void aPartitionGivenUp_isForgotten_andTakenOverAgainFromItsOldestPendingCall() {
        Ledger ledger = ledger(1_000);
        var requests = new ArrayList<ToolRequest>();
        for (int i = 0; i < 100; i++) {
            requests.add(request("s" + i + "/2/call-1", T0.plusSeconds(i)));
        }
        clock.set(T0.plusSeconds(100));
        runCalls(ledger, requests);
        ledger.prepare(Map.of(0, List.of(requests.get(0)))); // the next batch reads the writes of this one into the cache
        ledger.release(requests.get(0));
        assertThat(ledger.cachedCalls()).isEqualTo(100);

        ledger.drop(List.of(0));

        assertThat(ledger.cachedCalls()).isZero();
        long takeovers = ledger.recordsRead(Ledger.Read.TAKEOVER);
        ledger.prepare(Map.of(0, List.of(requests.get(99))));
        assertThat(ledger.get(requests.get(99))).map(ToolOutcome::getState).contains(OutcomeState.OK);
        assertThat(ledger.recordsRead(Ledger.Read.TAKEOVER) - takeovers).as("from its authorization less the margin")
                .isEqualTo(200);
    }

    @Test
    void aLedgerThatCannotBeRead_answersNothing_notNoOutcome() {
        Ledger ledger = ledger(100);
        var request = request("s1/5/call-1", T0);
        log.append(outcome(request.getIdempotencyKey(), OutcomeState.OK, "done", T0), T0.plusSeconds(1));
        log.failure = new OutcomeLog.LedgerUnavailableException("the broker is away");

        assertThatThrownBy(() -> ledger.prepare(Map.of(0, List.of(request)))).isInstanceOf(OutcomeLog.LedgerUnavailableException.class);
        assertThatThrownBy(() -> ledger.get(request)).isInstanceOf(OutcomeLog.LedgerUnavailableException.class);

        log.failure = null;
        assertThat(ledger.get(request)).map(ToolOutcome::getState).contains(OutcomeState.OK);
    }

    @Test
    void aCallAskedForTwiceInOneBatch_seesTheBatchsOwnWrite() {
        Ledger ledger = ledger(100);
        var request = request("s1/5/call-1", T0);
        ledger.prepare(Map.of(0, List.of(request, request)));

        assertThat(ledger.get(request)).isEmpty();
        ledger.record(request.getRequestedAt(), outcome(request.getIdempotencyKey(), OutcomeState.STARTED, "", T0));

        assertThat(ledger.get(request)).map(ToolOutcome::getState).contains(OutcomeState.STARTED);
    }

    @Test
    void aWriteOfACallNeverLookedUp_isRefused() {
        Ledger ledger = ledger(100);

        assertThatThrownBy(() -> ledger.record(T0, outcome("s1/5/call-1", OutcomeState.OK, "", T0)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("without having been looked up");
        assertThat(producer.history()).isEmpty();
    }

    /**
     * Random histories of one partition: calls authorized over time, handled late and out of order, some delivered
     * again long after (a replay), some crashed after STARTED, records of an older executor stamped up to the margin
     * before their authorization, compaction now and then, the partition given up and taken over again, a cache of 1 to
     * 40 calls. Every answer is checked against the truth: the latest record of the call, if any.
     */
    private final class World {
        private final Random random;
        private final Map<String, OutcomeState> truth = new HashMap<>();
        private final List<ToolRequest> authorized = new ArrayList<>();
        private Ledger ledger;

        World(Random random) {
            this.random = random;
            this.ledger = ledger(1 + random.nextInt(40));
        }

        void run() {
            Instant now = T0;
            int next = 0;
            for (int round = 0; round < 60; round++) {
                now = now.plusMillis(random.nextInt(20_000));
                clock.set(now);
                for (int i = random.nextInt(6); i > 0; i--) {
                    Instant at = now.minusMillis(random.nextInt(5_000));
                    var request = request("s" + random.nextInt(7) + "/" + (2 + next) + "/call-" + next++, at);
                    authorized.add(request);
                    if (random.nextInt(8) == 0) { // an older executor handled it, its clock up to the margin behind
                        writeLegacy(request, at.minusMillis(random.nextInt((int) SKEW.toMillis())));
                    }
                }
                var batch = new ArrayList<ToolRequest>();
                for (int i = random.nextInt(8); i > 0 && !authorized.isEmpty(); i--) {
                    // mostly recent calls, sometimes one from long ago (a replay, a redelivery)
                    int from = random.nextInt(4) == 0 ? 0 : Math.max(0, authorized.size() - 10);
                    batch.add(authorized.get(from + random.nextInt(authorized.size() - from)));
                }
                if (!batch.isEmpty()) {
                    handle(batch);
                }
                if (random.nextInt(10) == 0) {
                    log.compact(0);
                }
                if (random.nextInt(15) == 0) {
                    ledger.drop(List.of(0)); // given up and taken over again, or another instance's turn
                }
            }
        }

        private void handle(List<ToolRequest> batch) {
            ledger.prepare(Map.of(0, batch));
            for (ToolRequest request : batch) {
                String key = request.getIdempotencyKey();
                Optional<OutcomeState> answered = ledger.get(request).map(ToolOutcome::getState);
                assertThat(answered).as("%s in a world of %d calls", key, authorized.size()).isEqualTo(Optional.ofNullable(truth.get(key)));
                if (answered.isEmpty() || answered.get() == OutcomeState.STARTED) {
                    ledger.record(request.getRequestedAt(), outcome(key, OutcomeState.STARTED, "", clock.instant()));
                    truth.put(key, OutcomeState.STARTED);
                    if (random.nextInt(5) > 0) { // otherwise it crashed mid-call
                        ledger.record(request.getRequestedAt(), outcome(key, OutcomeState.OK, "ran " + key, clock.instant()));
                        truth.put(key, OutcomeState.OK);
                    }
                }
            }
            batch.forEach(ledger::release);
            flushWrites();
        }

        private void writeLegacy(ToolRequest request, Instant stamped) {
            String key = request.getIdempotencyKey();
            if (!truth.containsKey(key)) {
                log.append(outcome(key, OutcomeState.OK, "legacy", stamped), stamped);
                truth.put(key, OutcomeState.OK);
            }
        }
    }

    /**
     * Four session ids, each session erased and made again under its id now and then, its one call under the same key
     * each time (a later authorization). {@code tool-requests} holds the calls' requests and erasures in the order the
     * projector emits them; the executor handles it in batches, sometimes from an earlier offset again (a replay), with
     * a cache of 1 to 20 calls, compaction and takeovers between. Every record of a key is checked against the order
     * of authorizations (an erasure never writes an erased call's record after a later session's), and an erasure
     * handled last in its batch must leave its call's latest record, if ended, without output.
     */
    private final class ErasureWorld {
        private final Random random;
        private final List<ToolRequest> stream = new ArrayList<>();
        private final Map<String, ToolRequest> live = new HashMap<>();
        private final Map<String, Instant> lastErased = new HashMap<>();
        private final Map<String, List<ToolOutcome>> written = new HashMap<>();
        private Ledger ledger;
        private int cursor;

        ErasureWorld(Random random) {
            this.random = random;
            this.ledger = ledger(1 + random.nextInt(20));
        }

        void run() {
            Instant now = T0;
            for (int round = 0; round < 80; round++) {
                now = now.plusMillis(1 + random.nextInt(20_000));
                clock.set(now);
                String key = "s" + random.nextInt(4) + "/3/call-1";
                ToolRequest call = live.get(key);
                if (call == null && random.nextBoolean()) { // the session made (again), its call authorized
                    Instant after = lastErased.getOrDefault(key, T0).plusMillis(1);
                    Instant at = now.minusMillis(random.nextInt(2_000));
                    call = request(key, at.isBefore(after) ? after : at);
                    live.put(key, call);
                    stream.add(call);
                } else if (call != null && random.nextInt(3) == 0) { // erased
                    live.remove(key);
                    lastErased.put(key, now);
                    stream.add(erasure(call, now));
                }
                if (random.nextInt(12) == 0) {
                    cursor = random.nextInt(cursor + 1); // a replay from an earlier offset
                }
                var batch = new ArrayList<>(stream.subList(cursor, Math.min(stream.size(), cursor + random.nextInt(4))));
                cursor += batch.size();
                if (!batch.isEmpty()) {
                    handle(batch);
                }
                if (random.nextInt(10) == 0) {
                    log.compact(0);
                }
                if (random.nextInt(15) == 0) {
                    ledger.drop(List.of(0));
                }
            }
        }

        private void handle(List<ToolRequest> batch) {
            ledger.prepare(Map.of(0, batch));
            for (ToolRequest item : batch) {
                String key = item.getIdempotencyKey();
                if (item.getErasedAt() != null) {
                    ledger.erasable(item).ifPresent(found -> ledger.record(item.getRequestedAt(),
                            ToolOutcome.newBuilder(found).setContent(null).setErasedAt(item.getErasedAt()).build()));
                } else if (!ledger.superseded(item)) {
                    Optional<OutcomeState> state = ledger.get(item).map(ToolOutcome::getState);
                    if (state.isEmpty() || state.get() == OutcomeState.STARTED) {
                        ledger.record(item.getRequestedAt(), outcome(key, OutcomeState.STARTED, "", clock.instant()));
                        if (random.nextInt(5) > 0) { // otherwise it crashed mid-call
                            ledger.record(item.getRequestedAt(), outcome(key, OutcomeState.OK, "ran " + key, clock.instant()));
                        }
                    }
                }
            }
            batch.forEach(ledger::release);
            for (var record : producer.history()) {
                written.computeIfAbsent(record.key(), k -> new ArrayList<>()).add((ToolOutcome) record.value());
            }
            flushWrites();
            for (var records : written.values()) {
                assertThat(records).extracting(ToolOutcome::getRequestedAt).as("authorizations in the order written").isSorted();
            }
            for (int i = 0; i < batch.size(); i++) {
                ToolRequest item = batch.get(i);
                boolean lastOfItsKey = batch.subList(i + 1, batch.size()).stream()
                        .noneMatch(later -> later.getIdempotencyKey().equals(item.getIdempotencyKey()));
                List<ToolOutcome> records = written.getOrDefault(item.getIdempotencyKey(), List.of());
                if (item.getErasedAt() != null && lastOfItsKey && !records.isEmpty()) {
                    ToolOutcome latest = records.get(records.size() - 1);
                    if (latest.getRequestedAt().equals(item.getRequestedAt()) && latest.getState() != OutcomeState.STARTED) {
                        assertThat(latest.getContent()).as("%s erased at %s", item.getIdempotencyKey(), item.getErasedAt()).isNull();
                    }
                }
            }
        }
    }

    /** Runs each call not yet recorded (STARTED, OK), as the handler would, and lets the writes reach the log. */
    private void runCalls(Ledger ledger, List<ToolRequest> requests) {
        ledger.prepare(Map.of(0, requests));
        for (ToolRequest request : requests) {
            if (ledger.get(request).isEmpty()) {
                ledger.record(request.getRequestedAt(), outcome(request.getIdempotencyKey(), OutcomeState.STARTED, "", clock.instant()));
                ledger.record(request.getRequestedAt(), outcome(request.getIdempotencyKey(), OutcomeState.OK, "ran " + request.getIdempotencyKey(), clock.instant()));
            }
        }
        requests.forEach(ledger::release);
        flushWrites();
    }

    /** What the producer wrote reaches the topic, with the timestamps it was given. */
    private void flushWrites() {
        for (var record : producer.history()) {
            log.append(0, record.key(), (ToolOutcome) record.value(), record.timestamp());
        }
        producer.clear();
    }

    private Ledger ledger(int cacheCalls) {
        return new Ledger(log, new AckedWriter(producer, new FencedWritesDouble(producer), TopicLayout.local()),
                new Ledger.Settings(cacheCalls, SKEW), clock);
    }

    private static ToolRequest request(String key, Instant authorizedAt) {
        String[] parts = key.split("/");
        return ToolRequest.newBuilder()
                .setIdempotencyKey(key).setSessionId(parts[0]).setTenantId("acme").setCallId(parts[2]).setTool("read_file")
                .setArgumentsJson("{\"path\":\"a.txt\"}").setRequestSeq(Long.parseLong(parts[1])).setAuthorizedSeq(Long.parseLong(parts[1]) + 1)
                .setBasis(new AuthorizationBasis(AuthorizationBasisKind.POLICY, null, null, null)).setToolMode(ToolMode.READ_ONLY)
                .setHarnessVersion("v1").setRequestedAt(authorizedAt)
                .build();
    }

    /** The erasure the projector emits for {@code call} when its session is erased at {@code erasedAt}. */
    private static ToolRequest erasure(ToolRequest call, Instant erasedAt) {
        return ToolRequest.newBuilder(call).setArgumentsJson("{}").setRunBy(CallRunner.RECORDED).setErasedAt(erasedAt).build();
    }

    private static ToolOutcome outcome(String key, OutcomeState state, String content, Instant at) {
        String[] parts = key.split("/");
        return ToolOutcome.newBuilder()
                .setIdempotencyKey(key).setSessionId(parts[0]).setTenantId("acme").setCallId(parts[2]).setTool("read_file")
                .setState(state).setAttempt(1).setExecutorId("executor-1").setStartedAt(at)
                .setFinishedAt(state == OutcomeState.STARTED ? null : at).setContent(state == OutcomeState.STARTED ? null : content)
                .build();
    }
}
