package dev.tether.session.kafka;

import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreMigration;
import dev.tether.session.domain.SessionHead;
import dev.tether.session.domain.SessionSummary;
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
     * before it was never interrupted after the calls it holds were asked for, as far as it can tell: 0.
     */
    public static final StoreFormat<SessionHead> HEADS = StoreFormat.of(StoreNames.HEADS, StoredHead.class, StoredHead::of,
                    StoredHead::toHead)
            .fromUnversioned(StoreMigration.fromUnversioned("heads written before store formats had versions",
                    Map.of("openCalls.*.outcomeUnknown", BooleanNode.FALSE)))
            .steps(StoreMigration.fieldAdded(1, "lastInterruptSeq", LongNode.valueOf(0)));

    /** {@value StoreNames#SESSIONS_BY_TENANT}. Version 0: as releases before versioned formats wrote it; 1: the same, versioned. */
    public static final StoreFormat<SessionSummary> SUMMARIES = StoreFormat.of(StoreNames.SESSIONS_BY_TENANT, StoredSummary.class,
                    StoredSummary::of, StoredSummary::toSummary)
            .fromUnversioned(StoreMigration.fromUnversioned("summaries written before store formats had versions", Map.of()))
            .build();

    private SequencerStoreFormats() {}

    /** Every versioned format of the sequencer's stores. */
    public static List<StoreFormat<?>> all() {
        return List.of(HEADS, SUMMARIES);
    }
}
