package dev.tether.bench;

import dev.tether.bench.fold.FoldBenchmark;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Figure 5, the pure part measured in CPU time: JMH's score is wall time, which on a 2-core machine with a
 * load average of 20 measures mostly how often the benchmark thread got a core. This folds the same
 * windows as {@link FoldBenchmark} in this JVM and reads the thread's own CPU time around each window,
 * which the neighbours do not inflate (much: they still share the caches).
 */
final class FoldCpu {

    /**
     * @param length       session length the fold starts at
     * @param nsPerEvent   median over the measured windows of CPU nanoseconds per folded event
     * @param minNs        fastest window, per event
     * @param maxNs        slowest window, per event
     * @param windows      windows measured (each of {@code FoldBenchmark.WINDOW} events), after as many unmeasured
     */
    record Result(int length, double nsPerEvent, double minNs, double maxNs, int windows) {
    }

    static List<Result> run(List<Integer> lengths, int windows) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        var results = new ArrayList<Result>();
        for (int length : lengths) {
            FoldBenchmark b = FoldBenchmark.at(length);
            Object sink = null;
            for (int i = 0; i < windows; i++) {
                sink = b.foldOneEvent(); // warm-up: the JIT compiles the fold
            }
            double[] perEvent = new double[windows];
            for (int i = 0; i < windows; i++) {
                long t0 = threads.getCurrentThreadCpuTime();
                sink = b.foldOneEvent();
                perEvent[i] = (double) (threads.getCurrentThreadCpuTime() - t0) / FoldBenchmark.WINDOW;
            }
            if (sink == null) {
                throw new IllegalStateException("no fold");
            }
            Arrays.sort(perEvent);
            results.add(new Result(length, Samples.quantile(perEvent, 0.5), perEvent[0], perEvent[windows - 1], windows));
        }
        return results;
    }
}
