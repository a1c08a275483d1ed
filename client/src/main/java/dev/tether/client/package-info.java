/**
 * The Java SDK for agent harnesses: {@link dev.tether.client.TetherClient}, created from
 * {@link dev.tether.client.TetherOptions}. Requests are immutable values built by static factories
 * ({@link dev.tether.client.NewSession}, {@link dev.tether.client.AppendBatch},
 * {@link dev.tether.client.ClaimRequest}…); writes answer sealed results
 * ({@link dev.tether.client.AppendResult}: {@link dev.tether.client.Appended},
 * {@link dev.tether.client.Conflict}, {@link dev.tether.client.Fenced},
 * {@link dev.tether.client.NotFound}, {@link dev.tether.client.Rejected}); reads answer
 * {@link java.util.Optional}s. No Quarkus and no Kafka: the JDK's HTTP client and Jackson only.
 * See {@code client/README.md}.
 */
package dev.tether.client;
