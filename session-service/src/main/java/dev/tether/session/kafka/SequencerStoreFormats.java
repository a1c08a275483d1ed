package dev.tether.session.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tether.core.event.CallRunner;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreFormatException;
import dev.tether.kit.kafka.StoreMigration;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.domain.SessionSummary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The formats of the sequencer's stores whose values are records: versioned JSON ({@link StoreFormat}), each through a
 * stored type of its own. The other stores hold a Kafka {@code long} (8 bytes, big-endian: seqs and counts), or
 * {@code session-events} and {@code harness-versions} themselves, in their Avro (docs/ARCHITECTURE.md §5).
 */
public final class SequencerStoreFormats {

    /**
     * {@value StoreNames#HEADS}. Version 0: the head as releases before versioned formats wrote it (no version field);
     * an open call written before {@code tool_outcome_resolved} existed has no {@code outcomeUnknown}, which meant
     * false. Version 1: the same fields, with the version. Version 2 adds {@code lastInterruptSeq} (the seq of the session's
     * last {@code turn_interrupted}, which the sequencer checks a {@code tool_call_authorized} against); a head written
     * before it was never interrupted after the calls it holds were asked for, as far as it can tell: 0. Version 3 adds
     * harness-run tools (docs/ARCHITECTURE.md §6): {@code harnessTools}, and per open call {@code runBy}, {@code attempts},
     * {@code running} and {@code retrySeq}; a head written before them has none (empty, EXECUTOR, 0, false, 0), which is
     * what it meant. Writing version 2 refuses a head that has harness-run tools or calls rather than drop them. Version 4
     * adds {@code startedAt} and {@code parentStartedAt} (which session of its id the head is, and which of its parent's id
     * a subagent was started under); a head written before them does not know (null), and its session's subagents report
     * to its id as they did. Writing version 3 drops them, with the same effect. Version 5 adds, per open call,
     * {@code requestedBy} (the principal that asked for it, which may not grant it, mark it done or retry it), and
     * {@code lastEventAt} (the last event's time, which the session's time never steps back from); a head written before
     * them knows neither (null): any approver may decide a call in it, as before, and its next event takes the clock's time.
     * Writing version 4 drops them, with the same effect.
     */
    public static final StoreFormat<SessionHead> HEADS = StoreFormat.of(StoreNames.HEADS, StoredHead.class, StoredHead::of,
                    StoredHead::toHead)
            .fromUnversioned(StoreMigration.fromUnversioned("heads written before store formats had versions",
                    Map.of("openCalls.*.outcomeUnknown", BooleanNode.FALSE)))
            .steps(StoreMigration.fieldAdded(1, "lastInterruptSeq", LongNode.valueOf(0)), harnessToolsAdded(), startsAdded(),
                    asksAndTimeAdded());

    /** {@value StoreNames#SESSIONS_BY_TENANT}. Version 0: as releases before versioned formats wrote it; 1: the same, versioned. */
    public static final StoreFormat<SessionSummary> SUMMARIES = StoreFormat.of(StoreNames.SESSIONS_BY_TENANT, StoredSummary.class,
                    StoredSummary::of, StoredSummary::toSummary)
            .fromUnversioned(StoreMigration.fromUnversioned("summaries written before store formats had versions", Map.of()))
            .build();

    private SequencerStoreFormats() {}

    /** The step 2 → 3: harness-run tools; its {@code down} refuses what version 2 cannot hold. */
    private static StoreMigration harnessToolsAdded() {
        var fields = new LinkedHashMap<String, JsonNode>();
        fields.put("harnessTools", JsonNodeFactory.instance.arrayNode());
        fields.put("openCalls.*.runBy", TextNode.valueOf(CallRunner.EXECUTOR.name()));
        fields.put("openCalls.*.attempts", IntNode.valueOf(0));
        fields.put("openCalls.*.running", BooleanNode.FALSE);
        fields.put("openCalls.*.retrySeq", LongNode.valueOf(0));
        StoreMigration added = StoreMigration.fieldsAdded(2, fields);
        return StoreMigration.of(2, "adds harness-run tools: harnessTools, openCalls.*.runBy/attempts/running/retrySeq", added.up(),
                value -> {
                    if (hasHarnessRunTools(value)) {
                        throw StoreFormatException.unmigratable(StoreNames.HEADS, 2, "the session declares harness-run tools,"
                                + " which version 2 cannot hold: finish the rollout before sessions declare them");
                    }
                    return added.down().orElseThrow().apply(value);
                });
    }

    /** The step 3 → 4: when the session, and a subagent's parent, started; a head written before does not know (null). */
    private static StoreMigration startsAdded() {
        var fields = new LinkedHashMap<String, JsonNode>();
        fields.put("startedAt", NullNode.getInstance());
        fields.put("parentStartedAt", NullNode.getInstance());
        return StoreMigration.fieldsAdded(3, fields);
    }

    /** The step 4 → 5: who asked for each open call, and the last event's time; a head written before knows neither (null). */
    private static StoreMigration asksAndTimeAdded() {
        var fields = new LinkedHashMap<String, JsonNode>();
        fields.put("openCalls.*.requestedBy", NullNode.getInstance());
        fields.put("lastEventAt", NullNode.getInstance());
        return StoreMigration.fieldsAdded(4, fields);
    }

    private static boolean hasHarnessRunTools(ObjectNode head) {
        if (head.path("harnessTools").size() > 0) {
            return true;
        }
        for (JsonNode call : head.path("openCalls")) {
            if (!call.path("runBy").asText(CallRunner.EXECUTOR.name()).equals(CallRunner.EXECUTOR.name())) {
                return true;
            }
        }
        return false;
    }

    /** Every versioned format of the sequencer's stores. */
    public static List<StoreFormat<?>> all() {
        return List.of(HEADS, SUMMARIES);
    }
}
