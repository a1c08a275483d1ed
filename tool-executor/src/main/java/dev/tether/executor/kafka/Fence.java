package dev.tether.executor.kafka;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What makes a call's first ledger write the group coordinator's to refuse: the consumer group generation the call's
 * request was read in ({@code group}, the consumer's {@code groupMetadata()} when the request was dispatched), the
 * request's partition of {@code tool-requests}, and the offset {@code from} that the write's transaction commits there
 * ({@link LedgerTransactions}). {@code from} is the partition's oldest offset not ended when the write is made: at or
 * before every request of the partition read and not yet done (this one among them), so committing it moves nothing past
 * a call not ended (a crash still brings each of them again).
 */
record Fence(ConsumerGroupMetadata group, TopicPartition partition, long from) {}
