/**
 * Help for agents that read {@code session-events} straight from Kafka with their own
 * {@code KafkaConsumer} instead of the SDK's subscription: {@link dev.tether.client.kafka.SessionEventKeys}
 * decodes the topic's binary keys. No Kafka dependency; the client's README shows the consumer.
 */
package dev.tether.client.kafka;
