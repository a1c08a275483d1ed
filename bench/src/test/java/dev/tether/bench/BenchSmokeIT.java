package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark's smoke run: every figure for a few seconds against the real broker, registry and
 * packaged services, so the benchmark code cannot rot. It asserts that the numbers exist and are sane,
 * never how fast anything is: speed on a shared 2-core machine is not a test's business.
 */
class BenchSmokeIT {

    @TempDir
    Path work;

    @Test
    void everyFigureRunsAgainstTheRealStack_andGivesPositiveFiniteNumbers() throws Exception {
        Report report = new Bench(BenchSettings.smoke(), work).run();
        Path json = report.writeJson(Path.of("target/bench-results"));

        JsonNode figures = new ObjectMapper().readTree(json.toFile()).get("figures");
        assertThat(figures.fieldNames()).toIterable()
                .containsExactlyInAnyOrder("1_raw_produce", "1_raw_consume", "2_append_throughput", "3_append_latency",
                        "4_streams_ceiling", "4_projection_throughput", "4_projection_throughput_warm", "5_fold_jmh", "5_fold_cpu", "5_constant_cost", "6_storage_amplification", "7_resume_latency",
                        "8_recovery", "9_cold_start", "10_failover");
        for (JsonNode value : List.of(figures.at("/1_raw_produce/recordsPerSec/median"), figures.at("/2_append_throughput/eventsPerSec/median"),
                figures.at("/2_append_throughput/ratioToRawProduce/median"), figures.at("/2_append_throughput/brokerWritesPerEvent/records"),
                figures.at("/3_append_latency/brokerWritesPerEvent/bytes"), figures.at("/4_projection_throughput/streamThreadMicrosPerEvent"),
                figures.at("/2_append_throughput/sessionServiceCpuMicrosPerEvent/streamThreadMicros"),
                figures.at("/1_raw_consume/fetchRecordsPerSec/median"),
                figures.at("/4_projection_throughput/run/eventsPerSec"), figures.at("/4_projection_throughput/projectorCoresWhileCatchingUp/STREAMS"),
                figures.at("/4_projection_throughput_warm/run/eventsPerSec"), figures.at("/4_projection_throughput_warm/ratioToRawConsume/median"),
                figures.at("/4_streams_ceiling/twins/bytes/run/eventsPerSec"), figures.at("/4_streams_ceiling/twins/bytes/ratioToRawConsume/median"),
                figures.at("/4_streams_ceiling/twins/decoded/run/eventsPerSec"),
                figures.at("/4_streams_ceiling/twins/decoded/run/streamThreadMicrosPerEvent"), figures.at("/4_projection_throughput/ratioToRawConsume/median"),
                figures.at("/5_fold_jmh/runs/0/nsPerEvent"), figures.at("/5_fold_jmh/lastToFirst"), figures.at("/5_fold_cpu/runs/1/nsPerEvent"),
                figures.at("/5_constant_cost/storeBytesLastToFirst"), figures.at("/6_storage_amplification/runs/0/ratio"),
                figures.at("/6_storage_amplification/runs/1/ratio"), figures.at("/7_resume_latency/runs/1/p99Ms"),
                figures.at("/8_recovery/run/killToServingMs"), figures.at("/8_recovery/run/emptyStateEventsPerSec"),
                figures.at("/8_recovery/run/emptyStateRestore/records"), figures.at("/8_recovery/run/emptyStateRestore/eventsPerSec"),
                figures.at("/8_recovery/run/emptyStateRestore/startedMs"), figures.at("/8_recovery/run/emptyStateRestore/restoreBeganMs"),
                figures.at("/8_recovery/run/killRestore/startedMs"),
                figures.at("/9_cold_start/run/allHealthyMs"), figures.at("/10_failover/run/rounds/0/readsMs"),
                figures.at("/10_failover/run/rounds/1/appendsMs"), figures.at("/10_failover/run/rounds/1/allCheckpointsMs"),
                figures.at("/10_failover/growth"))) {
            assertThat(value.isNumber()).as("a number: %s", value).isTrue();
            assertThat(value.asDouble()).isPositive().isFinite();
        }
        // CPU per event has the idle rate subtracted: on a busy machine a window can come out at zero, never below
        assertThat(figures.at("/5_constant_cost/byLength").size()).isEqualTo(2);
        assertThat(figures.at("/5_constant_cost/byLength/100/projectorStreamMicrosPerEvent/median").asDouble()).isNotNegative();
        assertThat(figures.at("/7_resume_latency/runs/0/rounds").asInt()).isPositive();
        assertThat(figures.at("/7_resume_latency/runs")).as("whole context, within the model's window, compacted").hasSize(3);
        assertThat(figures.at("/7_resume_latency/runs/1/maxTokens").asInt()).isEqualTo(Resume.MODEL_WINDOW);
        assertThat(figures.at("/7_resume_latency/runs/2/compacted").asBoolean()).isTrue();
        // every figure records the load average at its start and end, marked when above the core count
        figures.fields().forEachRemaining(f -> {
            JsonNode load = f.getValue().get("load");
            assertThat(load).as("the load of %s", f.getKey()).isNotNull();
            double start = load.get("start").asDouble();
            double end = load.get("end").asDouble();
            assertThat(start).as("%s load at start", f.getKey()).isNotNegative();
            assertThat(end).as("%s load at end", f.getKey()).isNotNegative();
            assertThat(load.get("cores").asInt()).isEqualTo(Runtime.getRuntime().availableProcessors());
            assertThat(load.get("aboveCores").asBoolean()).as("%s marked busy", f.getKey())
                    .isEqualTo(Math.max(start, end) > load.get("cores").asInt());
        });
        // figure 8's top-up, written straight into session-events, was folded to every session's last seq (Recovery checks)
        assertThat(figures.at("/8_recovery/topUp/events").asLong()).isEqualTo(2_000);
        assertThat(figures.at("/8_recovery/run/sessions").asInt()).isGreaterThan(1);
        assertThat(figures.at("/9_cold_start/run/readyMs").size()).isEqualTo(4);
        // figure 10 killed the instance holding the most active tasks once per size (the smoke's one kill each), the
        // other one the second time (the survivor of the first, not the one restarted), with appends going on
        JsonNode rounds = figures.at("/10_failover/run/rounds");
        assertThat(rounds).hasSize(2);
        assertThat(rounds.get(1).get("killed").asText()).isNotEqualTo(rounds.get(0).get("killed").asText());
        assertThat(rounds.findValues("activeTasksKilled")).allSatisfy(tasks -> assertThat(tasks.asInt()).isPositive());
        assertThat(rounds.get(1).get("events").asLong()).isEqualTo(4_000);
        assertThat(rounds.get(0).get("backgroundAppends").asLong()).isPositive();
        JsonNode latency = figures.at("/3_append_latency/run");
        assertThat(latency.get("requests").asLong()).isPositive();
        assertThat(latency.get("failures").asLong()).isZero();
        assertThat(latency.get("p50Ms").asDouble()).isPositive();
        assertThat(latency.get("p99Ms").asDouble()).isGreaterThanOrEqualTo(latency.get("p50Ms").asDouble());
        assertThat(figures.at("/2_append_throughput/runs/0/failures").asLong()).isZero();
        assertThat(report.markdown()).contains("| target | load |", "| 2 append throughput", "| 4 Kafka Streams alone", "| 4 projection throughput", "| 5 fold per event",
                "| 6 bytes stored", "| 7 resume", "| 8 projector SIGKILLed", "| 9 cold start",
                "| 10 failover");
    }
}
