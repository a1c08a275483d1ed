package dev.tether.executor.kafka;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What makes a call's first ledger write the group coordinator's to refuse: the consumer group generation the call's
 * request was read in ({@code group}, the consumer's {@code groupMetadata()} when its batch was dispatched), the
 * request's partition of {@code tool-requests}, and the offset {@code from} that the write's transaction commits there
 * ({@link LedgerTransactions}). {@code from} is where the request's batch began on that partition: at or before every
 * request of the batch not yet done, so committing it moves nothing forward (a crash still brings each of them again).
 */
record Fence(ConsumerGroupMetadata group, TopicPartition partition, long from) {}
