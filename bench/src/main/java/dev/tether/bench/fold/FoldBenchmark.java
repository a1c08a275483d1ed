package dev.tether.bench.fold;

import dev.tether.core.event.Event;
import dev.tether.projector.domain.Projection;
import dev.tether.projector.domain.SessionProjection;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Figure 5, the pure part: the projector's fold ({@link Projection#evolve}) of one more event into the
 * checkpoint of a session that is already {@code length} events long. Each invocation folds the same
 * {@value #WINDOW} next events into the same state at {@code length} (the state is immutable), so the
 * length does not drift while JMH measures. The session is a loop of agent turns ({@link AgentTurns}): user
 * message, an assistant message asking for a tool, its authorization, its result, a completed step.
 *
 * <pre>
 * java -cp bench/target/classes:$(cat bench/target/bench.classpath) org.openjdk.jmh.Main FoldBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FoldBenchmark {

    public static final int WINDOW = 1_000;
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final String TEXT = "Looked at the build output; the failing test expects the old name. ".repeat(3);

    @Param({"1000", "10000", "100000"})
    public int length;

    private SessionProjection atLength;
    private Event[] next;

    @Setup
    public void fill() {
        SessionProjection state = null;
        for (long seq = 1; seq <= length; seq++) {
            state = Projection.evolve(state, event(seq), 0, seq);
        }
        atLength = state;
        next = new Event[WINDOW];
        for (int i = 0; i < WINDOW; i++) {
            next[i] = event(length + 1L + i);
        }
    }

    @Benchmark
    @OperationsPerInvocation(WINDOW)
    public SessionProjection foldOneEvent() {
        SessionProjection s = atLength;
        for (Event e : next) {
            s = Projection.evolve(s, e, 0, e.seq());
        }
        return s;
    }

    /** The benchmark's state at {@code length}, for measuring the same fold outside JMH. */
    public static FoldBenchmark at(int length) {
        var b = new FoldBenchmark();
        b.length = length;
        b.fill();
        return b;
    }

    /** The session's event at {@code seq}: a start, then turns of five events ({@link AgentTurns}). */
    static Event event(long seq) {
        return AgentTurns.event("s-1", seq, "e-" + seq, T0.plusMillis(seq), TEXT);
    }
}
