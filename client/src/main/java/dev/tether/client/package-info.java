/**
 * The Java SDK for agent harnesses ({@code TetherClient}) and the {@code tether} CLI.
 *
 * <p>Empty for now: the SDK talks to the session-service API, which does not exist yet. See
 * {@code client/README.md}.
 */
package dev.tether.client;
