package dev.tether.schema;

import dev.tether.avro.BlobReference;
import dev.tether.avro.Checkpoint;
import dev.tether.avro.CommandReply;
import dev.tether.avro.HarnessVersion;
import dev.tether.avro.SessionCommand;
import dev.tether.avro.SessionEvent;
import dev.tether.avro.ToolOutcome;
import dev.tether.avro.ToolRequest;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * The top-level schemas of Tether's topics, by their record name. These are the schemas the
 * compatibility check compares with every released snapshot, and the ones the registry holds.
 */
public final class TetherSchemas {

    private TetherSchemas() {}

    /** Record name → current schema, in a stable order. */
    public static Map<String, Schema> current() {
        var all = new LinkedHashMap<String, Schema>();
        for (Schema s : new Schema[] {
                SessionCommand.getClassSchema(),
                SessionEvent.getClassSchema(),
                Checkpoint.getClassSchema(),
                ToolRequest.getClassSchema(),
                ToolOutcome.getClassSchema(),
                HarnessVersion.getClassSchema(),
                CommandReply.getClassSchema(),
                BlobReference.getClassSchema()}) {
            all.put(s.getName(), s);
        }
        return Collections.unmodifiableMap(all);
    }
}
