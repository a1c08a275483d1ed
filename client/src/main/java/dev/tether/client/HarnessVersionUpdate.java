package dev.tether.client;

import java.util.Objects;
import java.util.Optional;

/**
 * A harness version's new entry in {@code harness-versions}: its weight for new sessions and its
 * state. The entry replaces the previous one as a whole (an idempotent {@code PUT}).
 *
 * <pre>{@code
 * HarnessVersionUpdate.active("v2", 10).withModelId("claude-sonnet-4")   // 10 % of new sessions, pinned to that model
 * HarnessVersionUpdate.draining("v1")                                   // no new sessions; open ones finish
 * }</pre>
 *
 * Immutable.
 */
public final class HarnessVersionUpdate {

    /** The states an operator can set. */
    public enum State { ACTIVE, DRAINING, RETIRED }

    private final String version;
    private final int weight;
    private final State state;
    private final String modelId;

    private HarnessVersionUpdate(String version, int weight, State state, String modelId) {
        this.version = Ids.require(version, "version");
        if (weight < 0 || weight > 100) {
            throw new IllegalArgumentException("weight must be from 0 to 100, not " + weight);
        }
        this.weight = weight;
        this.state = Objects.requireNonNull(state, "state");
        this.modelId = modelId;
    }

    /** The version takes this percent (0–100) of new sessions; see {@link TetherClient#setWeight} for the whole rule. */
    public static HarnessVersionUpdate active(String version, int weight) {
        return new HarnessVersionUpdate(version, weight, State.ACTIVE, null);
    }

    /** The version takes no new sessions (weight 0); the sessions pinned to it carry on until they close. */
    public static HarnessVersionUpdate draining(String version) {
        return new HarnessVersionUpdate(version, 0, State.DRAINING, null);
    }

    /** The version is switched off (weight 0). */
    public static HarnessVersionUpdate retired(String version) {
        return new HarnessVersionUpdate(version, 0, State.RETIRED, null);
    }

    /**
     * The model new sessions of this version are pinned to: a create that names no model gets it, one that names
     * another is {@link Rejected} (409 {@code model_pinned}, field {@code modelId}).
     */
    public HarnessVersionUpdate withModelId(String model) {
        Objects.requireNonNull(model, "modelId");
        if (model.isBlank()) {
            throw new IllegalArgumentException("modelId must not be blank");
        }
        return new HarnessVersionUpdate(version, weight, state, model);
    }

    public String version() {
        return version;
    }

    public int weight() {
        return weight;
    }

    public State state() {
        return state;
    }

    public Optional<String> modelId() {
        return Optional.ofNullable(modelId);
    }

    @Override
    public String toString() {
        return "HarnessVersionUpdate[" + version + ", weight=" + weight + ", " + state + (modelId == null ? "" : ", model=" + modelId) + "]";
    }
}
