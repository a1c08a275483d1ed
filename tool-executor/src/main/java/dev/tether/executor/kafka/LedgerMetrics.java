package dev.tether.executor.kafka;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;

/**
 * The ledger's meters on {@code /q/metrics}: {@code tether_executor_ledger_cached_calls} (calls held in the windows of
 * the owned partitions: bounded, it must not grow with history) and {@code tether_executor_ledger_records_read_total}
 * by {@code reason} ({@code takeover}: a partition's first lookup, from its oldest pending call's time; {@code tail}: what
 * was written since the last lookup; {@code scan}: calls older than the window; {@code fetch}: full outcomes of calls the
 * window holds, read back by offset).
 */
final class LedgerMetrics {

    private LedgerMetrics() {}

    static void register(MeterRegistry meters, Ledger ledger) {
        Gauge.builder("tether.executor.ledger.cached.calls", ledger, Ledger::cachedCalls)
                .description("calls held in the ledger's windows of the owned tool-outcomes partitions")
                .register(meters);
        for (Ledger.Read reason : Ledger.Read.values()) {
            FunctionCounter.builder("tether.executor.ledger.records.read", ledger, l -> l.recordsRead(reason))
                    .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                    .description("records of tool-outcomes the ledger read")
                    .register(meters);
        }
    }
}
