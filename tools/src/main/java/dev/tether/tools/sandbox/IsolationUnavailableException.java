package dev.tether.tools.sandbox;

/**
 * A command refused because it cannot be isolated here and the configuration does not allow running it anyway
 * ({@link RunnerConfig#allowNetworkWhenIsolationUnavailable()}). Immutable.
 */
public final class IsolationUnavailableException extends Exception {

    /** @param reason why namespaces are unavailable, as {@link Isolation.Unavailable#reason()} */
    public IsolationUnavailableException(String reason) {
        super("commands are refused: they cannot be isolated from the network and the host on this machine ("
                + reason + "); set allowNetworkWhenIsolationUnavailable=true to run them unisolated");
    }
}
