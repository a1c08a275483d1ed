package dev.tether.cli;

/**
 * The role a command acts in, and the dev key it sends when no token was given. The dev keys are
 * the ones {@code bin/run} enables (tenant acme); they work nowhere else.
 */
public enum Role {
    /** sessions, context, recovery: the session and projector APIs, as an agent. */
    AGENT("dev-acme-agent", "an agent or admin token (e.g. dev-acme-agent)"),
    /** approvals: list, show and decide, as an approver. */
    APPROVER("dev-acme-approver", "an approver token (e.g. dev-acme-approver)"),
    /** versions: weights and drains, as an operator. */
    OPERATOR("dev-operator", "an operator or admin token (e.g. dev-operator)");

    private final String devKey;
    private final String needs;

    Role(String devKey, String needs) {
        this.devKey = devKey;
        this.needs = needs;
    }

    /** The dev key sent when neither {@code --token} nor {@code TETHER_TOKEN} is set. */
    public String devKey() {
        return devKey;
    }

    /** What a refused caller should try instead, in words. */
    public String needs() {
        return needs;
    }
}
