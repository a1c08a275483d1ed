package dev.tether.core.event;

/** One item of the agent's plan. */
public record PlanItem(String text, PlanItemStatus status) {
    public PlanItem {
        Fields.text(text, "text");
        status = status == null ? PlanItemStatus.PENDING : status;
    }
}
