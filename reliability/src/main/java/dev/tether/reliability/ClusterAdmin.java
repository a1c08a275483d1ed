package dev.tether.reliability;

import dev.tether.testing.TetherStack;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.utils.Utils;

/**
 * What the cluster run asks the 3-broker cluster through the Admin API: which broker leads which partitions, which one
 * is the transaction coordinator of a transactional id ({@code describeTransactions}, cross-checked with the leader of
 * its {@code __transaction_state} partition), which one is the active controller ({@code describeMetadataQuorum}),
 * whether every replica is in sync, and how every topic of the run is replicated. Every call has a deadline: while a
 * broker is down a question may go unanswered, which the callers take as "not yet". Thread-safe (one Admin client).
 */
final class ClusterAdmin implements AutoCloseable {

    static final String TRANSACTION_STATE = "__transaction_state";
    static final String CONSUMER_OFFSETS = "__consumer_offsets";

    /** How one topic is replicated: its replica count (the smallest over its partitions) and its min.insync.replicas. */
    record Replication(String topic, int partitions, int replicas, String minInsyncReplicas) {
    }

    private final Admin admin;
    private final List<Integer> brokers;

    ClusterAdmin(TetherStack stack) {
        var config = new HashMap<>(stack.clientConfig());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        this.admin = Admin.create(config);
        this.brokers = stack.brokerIds();
    }

    /** The number of partitions of {@code topic}. */
    int partitions(String topic) {
        return describe(List.of(topic)).get(topic).partitions().size();
    }

    /** The leader of each partition of {@code topic} (-1 for none), by partition. */
    Map<Integer, Integer> leaders(String topic) {
        var leaders = new TreeMap<Integer, Integer>();
        for (TopicPartitionInfo p : describe(List.of(topic)).get(topic).partitions()) {
            leaders.put(p.partition(), p.leader() == null ? -1 : p.leader().id());
        }
        return leaders;
    }

    /** The transactional ids in use that start with {@code prefix} (a Streams application's: its id and a dash). */
    List<String> transactionalIds(String prefix) {
        Collection<TransactionListing> all = await(admin.listTransactions().all());
        return all.stream().map(TransactionListing::transactionalId).filter(id -> id.startsWith(prefix)).sorted().toList();
    }

    /** The broker coordinating {@code transactionalId}'s transactions, as {@code describeTransactions} says. */
    int coordinatorOf(String transactionalId) {
        TransactionDescription d = await(admin.describeTransactions(List.of(transactionalId)).description(transactionalId));
        return d.coordinatorId();
    }

    /**
     * The leader of the {@code __transaction_state} partition that holds {@code transactionalId} (the coordinator must be
     * that broker): partition {@code abs(hashCode) % partitions}, as the broker computes it.
     */
    int transactionStateLeaderOf(String transactionalId) {
        Map<Integer, Integer> leaders = leaders(TRANSACTION_STATE);
        return leaders.get(Utils.abs(transactionalId.hashCode()) % leaders.size());
    }

    /** The active controller, the leader of the KRaft quorum. */
    int activeController() {
        return quorum().leaderId();
    }

    QuorumInfo quorum() {
        return await(admin.describeMetadataQuorum().quorumInfo());
    }

    /** The brokers registered with the controller, by id. */
    List<Integer> liveBrokers() {
        return await(admin.describeCluster().nodes()).stream().map(Node::id).sorted().toList();
    }

    /** Every topic of the cluster, the internal ones included. */
    List<String> topics() {
        return new ArrayList<>(new TreeSet<>(await(admin.listTopics(new ListTopicsOptions().listInternal(true)).names())));
    }

    /** The partitions (as {@code topic-n}) whose in-sync replicas are fewer than their replicas, over every topic. */
    List<String> underReplicated() {
        var under = new ArrayList<String>();
        describe(topics()).values().forEach(d -> d.partitions().forEach(p -> {
            if (p.isr().size() < p.replicas().size()) {
                under.add(d.name() + "-" + p.partition());
            }
        }));
        return under;
    }

    /**
     * Whether the cluster is whole: every broker registered, every replica of every partition in sync, and every voter of
     * the controller quorum caught up with its leader within the last 5 s. Empty when whole, else what is not.
     */
    Optional<String> notWhole() {
        try {
            List<Integer> live = liveBrokers();
            if (!live.containsAll(brokers)) {
                return Optional.of("brokers registered: " + live + " of " + brokers);
            }
            List<String> under = underReplicated();
            if (!under.isEmpty()) {
                return Optional.of(under.size() + " partition(s) with replicas out of sync, e.g. " + under.subList(0, Math.min(3, under.size())));
            }
            QuorumInfo q = quorum();
            long now = System.currentTimeMillis();
            for (QuorumInfo.ReplicaState voter : q.voters()) {
                long caughtUp = voter.lastCaughtUpTimestamp().orElse(-1);
                if (voter.replicaId() != q.leaderId() && (caughtUp < 0 || now - caughtUp > 5_000)) {
                    return Optional.of("controller " + voter.replicaId() + " has not caught up with the quorum's leader " + q.leaderId());
                }
            }
            return Optional.empty();
        } catch (IllegalStateException e) {
            return Optional.of("the cluster does not answer: " + e.getMessage());
        }
    }

    /** How each of {@code topics} is replicated. */
    List<Replication> replication(List<String> topics) {
        Map<String, TopicDescription> descriptions = describe(topics);
        var resources = topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
        Map<ConfigResource, Config> configs = await(admin.describeConfigs(resources).all());
        var out = new ArrayList<Replication>();
        for (String t : topics) {
            TopicDescription d = descriptions.get(t);
            int replicas = d.partitions().stream().mapToInt(p -> p.replicas().size()).min().orElse(0);
            var minIsr = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, t)).get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
            out.add(new Replication(t, d.partitions().size(), replicas, minIsr == null ? "?" : minIsr.value()));
        }
        return out;
    }

    private Map<String, TopicDescription> describe(Collection<String> topics) {
        return await(admin.describeTopics(topics).allTopicNames());
    }

    private static <T> T await(KafkaFuture<T> future) {
        try {
            return future.get(15, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(String.valueOf(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer within 15 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(5));
    }
}
