package dev.tether.core.event;

/**
 * The typed payload of a session event, one record per event type of docs/ARCHITECTURE.md §4. Each
 * record's {@code TYPE} is its stable snake_case wire name; Java class names never reach the wire.
 *
 * <p>Records validate their fields on construction ({@link InvalidEventException} names the
 * field) and are immutable. {@link UnknownEvent} stands for a type written by a newer version.
 */
public sealed interface EventPayload permits
        SessionStarted,
        UserMessage,
        AssistantMessage,
        ApprovalRequested,
        ApprovalGranted,
        ApprovalDenied,
        ToolCallAuthorized,
        ToolResult,
        TurnInterrupted,
        ContextCompacted,
        PlanUpdated,
        StepCompleted,
        SessionClaimed,
        SessionResumed,
        SessionMigrated,
        SessionForked,
        SubagentResult,
        SessionClosed,
        ToolOutcomeResolved,
        ToolCallStarted,
        FrameworkState,
        UnknownEvent {

    /** The wire name of the event type, e.g. {@code tool_result}. */
    String type();
}
