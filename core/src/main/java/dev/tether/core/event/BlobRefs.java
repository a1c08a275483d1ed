package dev.tether.core.event;

import dev.tether.core.blob.BlobRef;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The blobs an event's payload refers to: the values of its {@link BlobRef} fields (a message's {@code contentRef}, a
 * result's {@code artifact}, a compaction's {@code summaryRef}, a request for approval's {@code shownRef}, …). Found
 * from the payload record's components, once per type, so a field added to a payload later is never missed. Stateless
 * and thread-safe.
 */
public final class BlobRefs {

    private static final ClassValue<List<MethodHandle>> FIELDS = new ClassValue<>() {
        @Override
        protected List<MethodHandle> computeValue(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            if (components == null) {
                return List.of(); // UnknownEvent: a type of a newer release, whose fields this one cannot name
            }
            return Arrays.stream(components)
                    .filter(c -> c.getType() == BlobRef.class)
                    .map(BlobRefs::accessor)
                    .toList();
        }
    };

    private BlobRefs() {}

    /** The refs {@code payload} holds, in field order; empty for most events (those whose content was not offloaded). */
    public static List<BlobRef> of(EventPayload payload) {
        List<MethodHandle> fields = FIELDS.get(payload.getClass());
        if (fields.isEmpty()) {
            return List.of();
        }
        var refs = new ArrayList<BlobRef>(fields.size());
        for (MethodHandle field : fields) {
            BlobRef ref = read(field, payload);
            if (ref != null) {
                refs.add(ref);
            }
        }
        return refs;
    }

    private static MethodHandle accessor(RecordComponent component) {
        try {
            return MethodHandles.publicLookup().unreflect(component.getAccessor());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("the payload " + component.getDeclaringRecord().getSimpleName() + " is not public", e);
        }
    }

    private static BlobRef read(MethodHandle field, EventPayload payload) {
        try {
            return (BlobRef) field.invoke(payload);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot read a blob ref of " + payload.type(), e);
        }
    }
}
