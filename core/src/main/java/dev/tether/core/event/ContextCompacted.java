package dev.tether.core.event;

import dev.tether.core.blob.BlobRef;
import java.util.List;

/** {@code context_compacted}: Older events are summarized in the model context; the events themselves stay in the log. */
public record ContextCompacted(long throughSeq, String summary, BlobRef summaryRef, List<Long> summarySourceSeqs) implements EventPayload {

    public static final String TYPE = "context_compacted";

    public ContextCompacted {
        Fields.positive(throughSeq, "throughSeq");
        Fields.text(summary, "summary");
        summarySourceSeqs = Fields.list(summarySourceSeqs, "summarySourceSeqs");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
