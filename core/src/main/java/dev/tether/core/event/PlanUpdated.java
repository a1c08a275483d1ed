package dev.tether.core.event;

import java.util.List;

/** {@code plan_updated}: The agent's plan, as a whole. */
public record PlanUpdated(List<PlanItem> items) implements EventPayload {

    public static final String TYPE = "plan_updated";

    public PlanUpdated {
        items = Fields.list(items, "items");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
