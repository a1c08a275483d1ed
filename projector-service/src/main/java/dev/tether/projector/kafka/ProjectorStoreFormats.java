package dev.tether.projector.kafka;

import dev.tether.kit.kafka.StoreFormat;
import dev.tether.kit.kafka.StoreMigration;
import dev.tether.projector.domain.CallRecord;
import java.util.List;
import java.util.Map;

/**
 * The formats of the projector's stores whose values are JSON records: versioned JSON ({@link StoreFormat}), through a
 * stored type of its own. The other stores hold Avro: {@value ProjectorStores#MESSAGES} is {@code session-events}
 * itself, {@value ProjectorStores#CHECKPOINTS} the {@code Checkpoint} schema with its {@code schemaVersion} and
 * migration chain (docs/ARCHITECTURE.md §5).
 */
public final class ProjectorStoreFormats {

    /**
     * {@value ProjectorStores#CALLS}. Version 0: the call record as releases before versioned formats wrote it (no
     * version field); 1: the same fields, with the version.
     */
    public static final StoreFormat<CallRecord> CALLS = StoreFormat.of(ProjectorStores.CALLS, StoredCallRecord.class, StoredCallRecord::of,
                    StoredCallRecord::toCallRecord)
            .fromUnversioned(StoreMigration.fromUnversioned("call records written before store formats had versions", Map.of()))
            .build();

    private ProjectorStoreFormats() {}

    /** Every versioned format of the projector's stores. */
    public static List<StoreFormat<?>> all() {
        return List.of(CALLS);
    }
}
