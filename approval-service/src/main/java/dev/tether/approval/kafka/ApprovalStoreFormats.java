package dev.tether.approval.kafka;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.tether.approval.domain.SessionApprovals;
import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreMigration;
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
     * none (null). Version 1: the same fields, with the version.
     */
    public static final StoreFormat<SessionApprovals> SESSIONS = StoreFormat.of(ApprovalStores.SESSIONS, StoredApprovals.class,
                    StoredApprovals::of, StoredApprovals::toApprovals)
            .fromUnversioned(StoreMigration.fromUnversioned("approval states written before store formats had versions",
                    Map.of("calls.*.conflictedFrom", NullNode.getInstance())))
            .build();

    private ApprovalStoreFormats() {}

    /** Every versioned format of the approval-service's stores. */
    public static List<StoreFormat<?>> all() {
        return List.of(SESSIONS);
    }
}
