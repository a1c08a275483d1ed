package dev.tether.core.event;

/** {@code step_completed}: A unit of work is done. */
public record StepCompleted(int step, String note, boolean verified, String evidence) implements EventPayload {

    public static final String TYPE = "step_completed";

    public StepCompleted {
        Fields.positive(step, "step");
        note = note == null ? "" : note;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
