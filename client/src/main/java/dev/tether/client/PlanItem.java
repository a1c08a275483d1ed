package dev.tether.client;

import java.util.Objects;

/**
 * One item of the agent's plan ({@code plan_updated}).
 *
 * @param text   what is to be done, never blank
 * @param status where it stands
 */
public record PlanItem(String text, Status status) {

    /** Where a plan item stands. */
    public enum Status { PENDING, IN_PROGRESS, DONE, CANCELLED }

    public PlanItem {
        Ids.requireText(text, "text");
        Objects.requireNonNull(status, "status");
    }

    public static PlanItem pending(String text) {
        return new PlanItem(text, Status.PENDING);
    }

    public static PlanItem inProgress(String text) {
        return new PlanItem(text, Status.IN_PROGRESS);
    }

    public static PlanItem done(String text) {
        return new PlanItem(text, Status.DONE);
    }
}
