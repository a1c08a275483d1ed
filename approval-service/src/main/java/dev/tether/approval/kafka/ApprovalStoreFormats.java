package dev.tether.approval.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tether.core.event.CallRunner;
import dev.tether.kit.kafka.StoreFormatException;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.tether.approval.domain.SessionApprovals;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreMigration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The formats of the approval-service's stores whose values are records: versioned JSON ({@link StoreFormat}), through a
 * stored type of its own. The other store, {@value ApprovalStores#PENDING}, is an index whose keys hold all it says; its
 * values (an item's id, as text) are never read back (docs/ARCHITECTURE.md §5).
 */
public final class ApprovalStoreFormats {

    /**
     * {@value ApprovalStores#SESSIONS}. Version 0: the state as releases before versioned formats wrote it (no version
     * field); an open call written before conflicting decisions were recorded has no {@code conflictedFrom}, which meant
     * none (null). Version 1: the same fields, with the version. Version 2 adds harness-run tools (docs/ARCHITECTURE.md
     * §6): {@code harnessTools}, and per open call {@code runBy}; a state written before them has none (empty, EXECUTOR),
     * which is what it meant. Writing version 1 refuses a state that has harness-run tools or calls rather than drop them.
     * Version 3 adds {@code startedAt}, when the session's first event was accepted, which the service's answers carry
     * (docs/ARCHITECTURE.md §5): a state written before it has none (null: its answers carry none, as before); writing
     * version 2 drops it, which only leaves those answers unchecked. Version 4 adds per open call {@code shownSha256}, the
     * hash of what its approver was shown, which its grant carries to the executor: a state written before it has none
     * (null: nothing is compared, as before); writing version 3 drops it, which leaves the executor's comparison out for
     * the calls waiting then.
     */
    public static final StoreFormat<SessionApprovals> SESSIONS = StoreFormat.of(ApprovalStores.SESSIONS, StoredApprovals.class,
                    StoredApprovals::of, StoredApprovals::toApprovals)
            .fromUnversioned(StoreMigration.fromUnversioned("approval states written before store formats had versions",
                    Map.of("calls.*.conflictedFrom", NullNode.getInstance())))
            .steps(harnessToolsAdded(), StoreMigration.fieldsAdded(2, Map.of("startedAt", NullNode.getInstance())),
                    StoreMigration.fieldsAdded(3, Map.of("calls.*.shownSha256", NullNode.getInstance())));

    private ApprovalStoreFormats() {}

    /** The step 1 → 2: harness-run tools; its {@code down} refuses what version 1 cannot hold. */
    private static StoreMigration harnessToolsAdded() {
        var fields = new LinkedHashMap<String, JsonNode>();
        fields.put("harnessTools", JsonNodeFactory.instance.arrayNode());
        fields.put("calls.*.runBy", TextNode.valueOf(CallRunner.EXECUTOR.name()));
        StoreMigration added = StoreMigration.fieldsAdded(1, fields);
        return StoreMigration.of(1, "adds harness-run tools: harnessTools, calls.*.runBy", added.up(),
                value -> {
                    boolean harness = value.path("harnessTools").size() > 0;
                    for (JsonNode call : value.path("calls")) {
                        harness |= !call.path("runBy").asText(CallRunner.EXECUTOR.name()).equals(CallRunner.EXECUTOR.name());
                    }
                    if (harness) {
                        throw StoreFormatException.unmigratable(ApprovalStores.SESSIONS, 1, "the session declares harness-run"
                                + " tools, which version 1 cannot hold: finish the rollout before sessions declare them");
                    }
                    return added.down().orElseThrow().apply(value);
                });
    }

    /** Every versioned format of the approval-service's stores. */
    public static List<StoreFormat<?>> all() {
        return List.of(SESSIONS);
    }
}
