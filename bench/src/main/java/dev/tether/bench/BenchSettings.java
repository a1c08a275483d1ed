package dev.tether.bench;

/**
 * The sizes of one benchmark run. {@link #full()} is what {@code bench/run} measures; {@link #smoke()} runs
 * every figure for a few seconds so the code cannot rot (asserting nothing about speed).
 *
 * @param profile           name recorded with the results
 * @param repetitions       times the raw produce and the append throughput are measured, interleaved
 * @param recordBytes       raw record size, and the size of each event's text
 * @param rawRecords        records per ProducerPerformance run
 * @param sessions          concurrent sessions (one thread each) in the throughput run
 * @param batch             events per append in the throughput run
 * @param warmupMs          discarded start of each timed run
 * @param measureMs         measured part of a throughput run
 * @param latencyRate       appends per second in the latency run (one event each)
 * @param latencySessions   sessions the latency run spreads its appends over
 * @param latencyMeasureMs  measured part of the latency run
 */
public record BenchSettings(String profile, int repetitions, int recordBytes, long rawRecords, int sessions, int batch,
        long warmupMs, long measureMs, int latencyRate, int latencySessions, long latencyMeasureMs) {

    /**
     * About eight minutes on the 2-core build machine. The latency rate is 200/s, not the example of
     * 1,000/s: on 2 cores shared by broker, registry, service and load generator, single-event appends saturate
     * below 1,000/s, and an open-loop run above capacity measures only the queue.
     */
    public static BenchSettings full() {
        return new BenchSettings("full", 3, 1024, 200_000, 64, 10, 5_000, 15_000, 200, 100, 20_000);
    }

    /** A few seconds per figure. */
    public static BenchSettings smoke() {
        return new BenchSettings("smoke", 1, 1024, 10_000, 8, 10, 500, 3_000, 50, 10, 3_000);
    }

    public static BenchSettings named(String profile) {
        return switch (profile) {
            case "full" -> full();
            case "smoke" -> smoke();
            default -> throw new IllegalArgumentException("profile must be full or smoke, not " + profile);
        };
    }
}
