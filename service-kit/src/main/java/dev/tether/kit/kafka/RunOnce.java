package dev.tether.kit.kafka;

import java.time.Duration;
import java.util.function.LongConsumer;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/** Work a task does once, as soon as it runs (its stores restored): a one-time fill of an index, say. */
public final class RunOnce {

    private RunOnce() {}

    /** Runs {@code work} (given the wall-clock time) at {@code context}'s task's first wall-clock punctuation, then never again. */
    public static void whenRunning(ProcessorContext<?, ?> context, LongConsumer work) {
        Cancellable[] once = new Cancellable[1];
        once[0] = context.schedule(Duration.ofMillis(1), PunctuationType.WALL_CLOCK_TIME, now -> {
            once[0].cancel();
            work.accept(now);
        });
    }
}
