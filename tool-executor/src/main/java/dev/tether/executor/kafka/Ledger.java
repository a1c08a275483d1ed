package dev.tether.executor.kafka;

import dev.tether.avro.OutcomeState;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import dev.tether.kit.kafka.SessionPartitioner;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The executor's view of the {@code tool-outcomes} ledger: the latest outcome of a call, looked up by the request that
 * asks for it, and the writes of new outcomes. Its memory does not grow with the calls ever made, and taking a
 * partition over does not read the partition's history (docs/ARCHITECTURE.md §6).
 *
 * <p><b>Why a bounded read is enough.</b> An outcome of call K is written only after K's request was read, and that
 * request exists only after K's authorization was appended; the request carries that event's {@code occurredAt}
 * ({@code requestedAt}, taken from the log, so the same on every re-emission of the request). Every ledger record is
 * written with a timestamp of at least its call's {@code requestedAt} ({@link #record}), so every record of K lies at
 * or after the first offset whose timestamp is {@code requestedAt} (Kafka's {@code offsetsForTimes}). Records of older
 * versions, stamped with their executor's clock, are covered by the clock-skew margin subtracted from that time. The
 * idempotency key is unique to its authorization within a session (a RETRY is a new key with its own authorization
 * time), so no other request of K can carry an earlier time.
 *
 * <p><b>Which session's call.</b> A session id is a name, free again once its session is erased, and a session made
 * under it repeats the keys of the erased one's calls (its seqs and callIds). Every record carries its call's
 * {@code requestedAt} ({@link #record}). A record of an earlier authorization of the key (the erased session's) is no
 * outcome of this request, which runs as the new call it is. A record of a later one means the request is the erased
 * session's, come again (a redelivery, a replay) after the new session's call: it is {@link #superseded}, and nothing
 * is run or reported for it. A record of an executor before {@code requestedAt} was recorded is taken only if it lies
 * where this request's records must (at or after its floor).
 *
 * <p><b>How it is read.</b> Per owned partition a window holds the latest offset and state of every call recorded in an
 * offset range {@code [from, tail)}, all of it read in order; it is bounded ({@code cacheCalls} per partition, and
 * calls older than the requests now handled, less twice the margin, are evicted from its old end). Before a batch of
 * calls is handled ({@link #prepare}: those of one poll, or a request of a key in progress on its own)
 * each partition's window is brought to the partition's end, then each call of the batch is answered: from the window
 * if the call's records must all lie in the window's range; otherwise by reading the partition from the call's floor up
 * to the window (stopping once every such call was found ended). A partition just
 * taken over starts its window at the floor of its oldest pending call (of an erasure: at its erasure, less the margin),
 * so a takeover reads what was written since that call was authorized, not the partition's history. The window holds no
 * outputs: the full outcome of a call found in it is read back by its offset. A lookup that cannot read the log fails
 * ({@link OutcomeLog.LedgerUnavailableException}); it never answers "no outcome" for a call it could not check.
 *
 * <p>A call's answer is kept until it is {@linkplain #release released}, updated by the call's own writes; a key's
 * requests are handled one after another (they are of one session), so no lookup overwrites an answer a call still uses.
 * Thread-safe: windows and reads are guarded by this object's lock; answers and writes are not.
 */
final class Ledger {

    private static final Logger LOG = Logger.getLogger(Ledger.class);
    /** Offsets at most this far apart are read back in one pass rather than sought one by one. */
    private static final long FETCH_GAP = 2_000;

    /**
     * @param cacheCalls the most calls the window of one partition holds
     * @param clockSkew  how much earlier than its authorization a record written by an older executor may be stamped
     */
    record Settings(int cacheCalls, Duration clockSkew) {
        Settings {
            if (cacheCalls < 1) {
                throw new IllegalArgumentException("the ledger cache must hold at least one call per partition, not " + cacheCalls);
            }
            if (clockSkew.isNegative()) {
                throw new IllegalArgumentException("the clock-skew margin cannot be negative: " + clockSkew);
            }
        }
    }

    /** What the ledger read, by why it read it. */
    enum Read { TAKEOVER, TAIL, SCAN, FETCH }

    /** How the latest record of a key stands to a request of it. */
    private enum Authorization { THIS, EARLIER, LATER }

    /**
     * A key's latest record (its outcome, and the record's timestamp), or none (no record, or erased); a call of the
     * current batch is answered by how it stands to the request ({@link #authorization}).
     */
    private record Known(ToolOutcome outcome, long timestamp) {
        static final Known NONE = new Known(null, 0);
    }

    private final OutcomeLog log;
    private final AckedWriter writer;
    private final Settings settings;
    private final Clock clock;
    private final Map<Integer, Window> windows = new HashMap<>();
    private final Map<String, Known> answers = new ConcurrentHashMap<>();
    private final Map<Read, AtomicLong> read = new ConcurrentHashMap<>();
    /** Held shared by a fenced first write (a transaction), exclusively while a lookup asks where the log is readable. */
    private final ReentrantReadWriteLock transactions = new ReentrantReadWriteLock(true);
    private volatile long cachedCalls;

    Ledger(OutcomeLog log, AckedWriter writer, Settings settings, Clock clock) {
        this.log = log;
        this.writer = writer;
        this.settings = settings;
        this.clock = clock;
        for (Read kind : Read.values()) {
            read.put(kind, new AtomicLong());
        }
    }

    /**
     * Looks up every call of a batch, by the partition its requests came from, before any of them is handled: one read
     * of each partition for the whole batch.
     *
     * @throws OutcomeLog.LedgerUnavailableException if the ledger cannot be read; nothing was answered then
     */
    synchronized void prepare(Map<Integer, List<ToolRequest>> requestsByPartition) {
        requestsByPartition.forEach((partition, requests) -> {
            if (!requests.isEmpty()) {
                prepare(partition, requests);
            }
        });
        cachedCalls = windows.values().stream().mapToLong(w -> w.calls.size()).sum();
    }

    /**
     * The latest outcome recorded for the request's call, or empty if it has none. Answers from the batch's lookup;
     * a call the batch did not look up is looked up now.
     */
    Optional<ToolOutcome> get(ToolRequest request) {
        Known latest = known(request);
        Authorization of = latest.outcome() == null ? null : authorization(latest, request);
        if (of == Authorization.EARLIER) {
            Instant recorded = latest.outcome().getRequestedAt();
            LOG.infof("%s: the ledger's %s is of an earlier session under the id %s (its call authorized at %s; this one at %s),"
                    + " erased since: this call is new", request.getIdempotencyKey(), latest.outcome().getState(),
                    request.getSessionId(), recorded != null ? recorded : "before " + Instant.ofEpochMilli(latest.timestamp()),
                    request.getRequestedAt());
        }
        return of == Authorization.THIS ? Optional.of(latest.outcome()) : Optional.empty();
    }

    /**
     * Whether the request is of a session erased since: its key has a record of a later authorization, a later session's
     * under the same id. Nothing is to be run or reported for it.
     */
    boolean superseded(ToolRequest request) {
        Known latest = known(request);
        return latest.outcome() != null && authorization(latest, request) == Authorization.LATER;
    }

    /**
     * For the erasure of an erased session's call ({@code erasedAt} set): the key's latest record if it is of that call
     * ({@link #authorization}), ended, and still holds an output; otherwise empty: nothing recorded, only STARTED, an
     * output erased already, or a later session's call under the key recorded since (the batch's lookup found the
     * latest record of an erasure's key, {@link #prepare}).
     */
    Optional<ToolOutcome> erasable(ToolRequest erasure) {
        Known latest = known(erasure);
        ToolOutcome found = latest.outcome();
        boolean erasable = found != null && found.getState() != OutcomeState.STARTED && found.getErasedAt() == null
                && (found.getContent() != null || found.getContentRef() != null) && authorization(latest, erasure) == Authorization.THIS;
        return erasable ? Optional.of(found) : Optional.empty();
    }

    private Known known(ToolRequest request) {
        Known known = answers.get(request.getIdempotencyKey());
        if (known == null) {
            synchronized (this) {
                int partition = SessionPartitioner.partition(request.getSessionId(), log.partitions());
                prepare(Map.of(partition, List.of(request)));
            }
            known = answers.get(request.getIdempotencyKey());
        }
        return known;
    }

    /**
     * Writes a call's next ledger entry, which carries the time its authorization was appended ({@code requestedAt}),
     * and waits until all in-sync replicas have it, stamped no earlier than that time (see above); then answers with it.
     * The call must have been looked up.
     *
     * @throws AuthorizedTooFarAheadException if the broker refused the record's timestamp, the call's authorization ahead
     *                                        of this clock: nothing was written
     */
    void record(Instant requestedAt, ToolOutcome outcome) {
        record(requestedAt, outcome, Optional.empty());
    }

    /**
     * {@link #record(Instant, ToolOutcome)}, fenced by {@code fence} if there is one (a call's first write).
     *
     * @throws LedgerTransactions.FencedException if the group coordinator refused the fence: nothing was written
     */
    void record(Instant requestedAt, ToolOutcome outcome, Optional<Fence> fence) {
        String key = outcome.getIdempotencyKey();
        if (!answers.containsKey(key)) {
            throw new IllegalStateException("ledger: " + key + " is recorded without having been looked up");
        }
        long now = clock.millis();
        long authorized = requestedAt.toEpochMilli();
        if (authorized > now + settings.clockSkew().toMillis()) {
            LOG.warnf("%s was authorized at %s, %d ms ahead of this executor's clock: the clocks of the session-service and "
                    + "the executor differ by more than the margin of %s", key, requestedAt, authorized - now, settings.clockSkew());
        }
        outcome.setRequestedAt(requestedAt);
        long stamped = Math.max(now, authorized);
        try {
            if (fence.isPresent()) {
                transactions.readLock().lock();
                try {
                    writer.ledgerEntry(outcome, stamped, fence);
                } finally {
                    transactions.readLock().unlock();
                }
            } else {
                writer.ledgerEntry(outcome, stamped, fence);
            }
        } catch (AckedWriter.TimestampRefusedException e) {
            if (authorized > now) {
                // stamped with the authorization, which lies further ahead than the broker takes: stamped any earlier, the
                // record would lie before where a lookup of the call starts (its floor), and the call could run again
                throw new AuthorizedTooFarAheadException(key, requestedAt, authorized - now, e);
            }
            throw e;
        }
        answers.put(key, new Known(outcome, stamped));
    }

    /**
     * A call's record could not be written because the broker refused its timestamp, its authorization's time, which lies
     * ahead of this executor's clock by more than the broker accepts ({@code message.timestamp.after.max.ms}; a bad
     * record, or a sequencer's clock far ahead). A record stamped earlier would lie before the call's floor, where no
     * lookup finds it, so no record of the call can be written, and without one the call must not start. Nothing was
     * written.
     */
    static final class AuthorizedTooFarAheadException extends IllegalStateException {
        AuthorizedTooFarAheadException(String key, Instant requestedAt, long aheadMillis, AckedWriter.TimestampRefusedException cause) {
            super(key + " was authorized at " + requestedAt + ", " + Duration.ofMillis(aheadMillis) + " ahead of this executor's clock,"
                    + " further ahead than the broker accepts a timestamp (message.timestamp.after.max.ms): its ledger record, stamped"
                    + " with its authorization, was refused", cause);
        }
    }

    /**
     * Forgets the answer for a request's call once the call is done with: a request of the key that comes later (its
     * session's next call waits for this one) is looked up again, from the log, which has every record this one wrote.
     */
    void release(ToolRequest request) {
        answers.remove(request.getIdempotencyKey());
    }

    /**
     * Where the partition is readable to, once every record written when asked is ({@link OutcomeLog#end}): a transaction
     * still open holds back every record after it, so the first writes of this instance (each a transaction) wait until
     * it is known, or under calls running all the time the partition would hardly ever be readable to its end.
     */
    private long readableEnd(int partition) {
        transactions.writeLock().lock();
        try {
            return log.end(partition);
        } finally {
            transactions.writeLock().unlock();
        }
    }

    /** Forgets the windows of partitions this instance gave up. */
    synchronized void drop(Collection<Integer> partitions) {
        partitions.forEach(windows::remove);
        cachedCalls = windows.values().stream().mapToLong(w -> w.calls.size()).sum();
    }

    /** Calls held in the windows of all owned partitions (each an offset and a state, no output). */
    long cachedCalls() {
        return cachedCalls;
    }

    /** Records read from {@code tool-outcomes} since start, for one reason. */
    long recordsRead(Read kind) {
        return read.get(kind).get();
    }

    private void prepare(int partition, List<ToolRequest> requests) {
        Instant oldest = requests.stream().map(ToolRequest::getRequestedAt).min(Comparator.naturalOrder()).orElseThrow();
        // an erasure's call may be long ended: it is found by a scan, and the window starts no earlier than its erasure
        Instant recent = requests.stream().map(r -> r.getErasedAt() != null ? r.getErasedAt() : r.getRequestedAt())
                .min(Comparator.naturalOrder()).orElseThrow();
        Instant floorTime = oldest.minus(settings.clockSkew());
        long end = readableEnd(partition);
        Window window = windows.get(partition);
        if (window != null && end < window.tail) {
            LOG.warnf("tool-outcomes-%d ends at %d, before the %d this instance read: reading it afresh", partition, end, window.tail);
            window = null;
        }
        if (window == null) {
            long started = System.nanoTime();
            Instant since = recent.minus(settings.clockSkew());
            long from = Math.min(log.firstAtOrAfter(partition, since).orElse(end), end);
            window = new Window(from, since);
            windows.put(partition, window);
            long count = catchUp(partition, window, end, Read.TAKEOVER);
            LOG.infof("tool-outcomes-%d taken over: read %d records from offset %d (the oldest pending call was authorized at "
                    + "%s; less the margin of %s) to its end %d in %d ms, not its history", partition, count, from, recent,
                    settings.clockSkew(), end, (System.nanoTime() - started) / 1_000_000);
        } else {
            catchUp(partition, window, end, Read.TAIL);
        }
        long floor;
        if (!floorTime.isBefore(window.coveredSince)) {
            floor = window.from; // every record below the window is older than the floor: no need to ask where it lies
        } else {
            OptionalLong at = log.firstAtOrAfter(partition, floorTime);
            floor = Math.min(at.orElse(end), end);
        }

        var inWindow = new TreeMap<Long, String>();
        var below = new HashMap<String, Instant>();
        var found = new HashMap<String, Known>();
        for (ToolRequest request : requests) {
            String key = request.getIdempotencyKey();
            Window.Held held = window.calls.get(key);
            if (held != null) {
                if (held.state() != null) {
                    inWindow.put(held.offset(), key);
                }
            } else if (floor < window.from) {
                below.merge(key, request.getRequestedAt(), (a, b) -> a.isAfter(b) ? a : b);
            }
        }
        if (!below.isEmpty()) {
            found.putAll(scan(partition, floor, window.from, below));
        }
        if (!inWindow.isEmpty()) {
            found.putAll(fetch(partition, window, inWindow));
        }
        // an erasure needs its key's latest record, and a scan stops at the call's end: every later record of the key
        // (a later session's, a rewrite) is stamped after the erasure less the margin, and read here unless the window
        // covers that time (then the window's answer is the latest already)
        Window held = window;
        var erasures = requests.stream()
                .filter(r -> r.getErasedAt() != null && !held.calls.containsKey(r.getIdempotencyKey())).toList();
        if (!erasures.isEmpty()) {
            Instant since = erasures.stream().map(ToolRequest::getErasedAt).min(Comparator.naturalOrder()).orElseThrow()
                    .minus(settings.clockSkew());
            if (since.isBefore(window.coveredSince)) {
                found.putAll(latestSince(partition, erasures.stream().map(ToolRequest::getIdempotencyKey).collect(Collectors.toSet()),
                        since, end));
            }
        }
        for (ToolRequest request : requests) {
            String key = request.getIdempotencyKey();
            answers.put(key, found.getOrDefault(key, Known.NONE));
        }
        window.evict(settings.cacheCalls(), recent.minus(settings.clockSkew().multipliedBy(2)).toEpochMilli());
    }

    /**
     * Which authorization of the request's key {@code found}, its latest record, is of: this request's, an earlier one
     * (a call of an erased session whose id and keys the request's session has again), or a later one (the request is
     * that erased session's). A record without {@code requestedAt} (an older executor's) is this request's if it lies at
     * or after the request's floor, else an earlier one's.
     */
    private Authorization authorization(Known found, ToolRequest request) {
        return authorization(found, request.getRequestedAt());
    }

    private Authorization authorization(Known found, Instant requested) {
        Instant recorded = found.outcome().getRequestedAt();
        if (recorded == null) {
            return found.timestamp() >= requested.minus(settings.clockSkew()).toEpochMilli() ? Authorization.THIS : Authorization.EARLIER;
        }
        int order = recorded.compareTo(requested);
        return order == 0 ? Authorization.THIS : order < 0 ? Authorization.EARLIER : Authorization.LATER;
    }

    /** Applies the partition's records from the window's tail to {@code end}; returns how many were read. */
    private long catchUp(int partition, Window window, long end, Read why) {
        long[] count = {0};
        log.read(partition, window.tail, end, (offset, timestamp, key, value) -> {
            window.apply(offset, timestamp, key, value);
            count[0]++;
            return true;
        });
        window.tail = Math.max(window.tail, end);
        read.get(why).addAndGet(count[0]);
        return count[0];
    }

    /**
     * The latest outcome of each of {@code keys} in {@code [from, to)}: read in order, until every key was found ended
     * by its authorization asked for ({@code keys}' value, the latest of the batch's; null: any) or a later one (an
     * ended call never changes; an earlier session's ended call under the key is followed by this one's records, if
     * any), or the range ends. A key without a record there, or erased, is left out.
     */
    private Map<String, Known> scan(int partition, long from, long to, Map<String, Instant> keys) {
        var latest = new HashMap<String, Known>();
        var ended = new HashSet<String>();
        long[] count = {0};
        log.read(partition, from, to, (offset, timestamp, key, value) -> {
            count[0]++;
            if (keys.containsKey(key)) {
                if (value == null) {
                    latest.remove(key);
                    ended.remove(key);
                } else {
                    Known known = new Known(value, timestamp);
                    latest.put(key, known);
                    Instant asked = keys.get(key);
                    if (value.getState() != OutcomeState.STARTED && (asked == null || authorization(known, asked) != Authorization.EARLIER)) {
                        ended.add(key);
                    } else {
                        ended.remove(key);
                    }
                }
            }
            return ended.size() < keys.size();
        });
        read.get(Read.SCAN).addAndGet(count[0]);
        LOG.debugf("tool-outcomes-%d: %d calls older than its window, read %d records from offset %d", partition, keys.size(),
                count[0], from);
        return latest;
    }

    /** The latest record of each of {@code keys} at or after the first stamped {@code time}, up to {@code end}; none: left out. */
    private Map<String, Known> latestSince(int partition, Set<String> keys, Instant time, long end) {
        long since = Math.min(log.firstAtOrAfter(partition, time).orElse(end), end);
        var latest = new HashMap<String, Known>();
        long[] count = {0};
        log.read(partition, since, end, (offset, timestamp, key, value) -> {
            count[0]++;
            if (keys.contains(key)) {
                latest.put(key, value == null ? Known.NONE : new Known(value, timestamp));
            }
            return true;
        });
        read.get(Read.SCAN).addAndGet(count[0]);
        return latest;
    }

    /** The full outcomes of calls the window holds, read back at their offsets (nearby ones in one pass). */
    private Map<String, Known> fetch(int partition, Window window, TreeMap<Long, String> byOffset) {
        var found = new HashMap<String, Known>();
        long[] count = {0};
        var offsets = new ArrayList<>(byOffset.keySet());
        int i = 0;
        while (i < offsets.size()) {
            int j = i;
            while (j + 1 < offsets.size() && offsets.get(j + 1) - offsets.get(j) <= FETCH_GAP) {
                j++;
            }
            long last = offsets.get(j);
            log.read(partition, offsets.get(i), last + 1, (offset, timestamp, key, value) -> {
                count[0]++;
                if (value != null && key.equals(byOffset.get(offset))) {
                    found.put(key, new Known(value, timestamp));
                }
                return offset < last;
            });
            i = j + 1;
        }
        // compaction removes a record only once a later one of the same key exists; the window was brought to the
        // end just now, so that later one was written since (by whoever still writes the call) and lies past the tail
        for (var entry : byOffset.entrySet()) {
            if (!found.containsKey(entry.getValue())) {
                var key = new HashMap<String, Instant>();
                key.put(entry.getValue(), null);
                found.putAll(scan(partition, window.tail, readableEnd(partition), key));
            }
        }
        read.get(Read.FETCH).addAndGet(count[0]);
        return found;
    }

    /**
     * One partition's recent records: every record in {@code [from, tail)} was applied in offset order, so for every
     * call with a record there {@link #calls} holds its latest one (offset, timestamp, state; null state: erased).
     * Eviction takes the oldest entries first and moves {@code from} past them. {@link #coveredSince}: every record
     * below {@code from} has an earlier timestamp. Guarded by the ledger's lock.
     */
    private static final class Window {

        record Held(long offset, long timestamp, OutcomeState state, long maxTimestampThrough) {}

        final LinkedHashMap<String, Held> calls = new LinkedHashMap<>();
        long from;
        long tail;
        Instant coveredSince;
        private long maxTimestamp = Long.MIN_VALUE;

        Window(long from, Instant coveredSince) {
            this.from = from;
            this.tail = from;
            this.coveredSince = coveredSince;
        }

        void apply(long offset, long timestamp, String key, ToolOutcome value) {
            maxTimestamp = Math.max(maxTimestamp, timestamp);
            calls.remove(key); // re-inserted at the young end: the map stays in offset order
            calls.put(key, new Held(offset, timestamp, value == null ? null : value.getState(), maxTimestamp));
            tail = offset + 1;
        }

        /** Evicts the oldest calls while there are more than {@code max} or they are older than {@code horizon}. */
        void evict(int max, long horizon) {
            var it = calls.values().iterator();
            while (it.hasNext()) {
                Held eldest = it.next();
                if (calls.size() <= max && eldest.timestamp() >= horizon) {
                    return;
                }
                it.remove();
                from = eldest.offset() + 1;
                if (eldest.maxTimestampThrough() + 1 > coveredSince.toEpochMilli()) {
                    coveredSince = Instant.ofEpochMilli(eldest.maxTimestampThrough() + 1);
                }
            }
            from = tail; // all evicted: nothing below the tail is held
        }
    }
}
