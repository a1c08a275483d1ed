package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.testing.TetherStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TopicInitializerIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private Admin admin;
    private TopicLayout layout;

    @BeforeEach
    void setUp() {
        admin = Admin.create(TetherStack.shared().clientConfig());
        layout = TopicLayout.local().withPrefix("init-" + UUID.randomUUID() + ".");
    }

    @AfterEach
    void tearDown() {
        admin.close();
    }

    @Test
    void createsMissingTopics_withTheirConfigs_thenOnlyVerifiesThem() throws Exception {
        var first = new TopicInitializer(admin, TIMEOUT).init(layout);

        assertThat(first.created()).hasSize(Topics.all(layout).size()).contains(layout.name(Topics.SESSION_EVENTS));
        assertThat(first.verified()).isEmpty();
        assertThat(first.warnings()).isEmpty();
        var events = new ConfigResource(ConfigResource.Type.TOPIC, layout.name(Topics.SESSION_EVENTS));
        var config = admin.describeConfigs(List.of(events)).all().get().get(events);
        assertThat(config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo("compact");
        assertThat(config.get(TopicConfig.RETENTION_MS_CONFIG).value()).isEqualTo("-1");
        var descriptions = admin.describeTopics(List.of(layout.name(Topics.SESSION_COMMANDS), layout.name(Topics.SESSION_EVENTS),
                layout.name(Topics.HARNESS_VERSIONS))).allTopicNames().get();
        assertThat(descriptions.get(layout.name(Topics.SESSION_COMMANDS)).partitions()).hasSize(TopicLayout.DEFAULT_PARTITIONS);
        assertThat(descriptions.get(layout.name(Topics.SESSION_EVENTS)).partitions()).hasSize(TopicLayout.DEFAULT_PARTITIONS);
        assertThat(descriptions.get(layout.name(Topics.HARNESS_VERSIONS)).partitions()).hasSize(1);

        var second = new TopicInitializer(admin, TIMEOUT).init(layout);

        assertThat(second.created()).isEmpty();
        assertThat(second.verified()).hasSize(Topics.all(layout).size());
        assertThat(second.warnings()).isEmpty();
    }

    @Test
    void refusesToRun_onSessionEventsThatDeletesByTime() throws Exception {
        String events = layout.name(Topics.SESSION_EVENTS);
        admin.createTopics(List.of(new NewTopic(events, TopicLayout.DEFAULT_PARTITIONS, (short) 1)
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "delete")))).all().get();

        assertThatThrownBy(() -> new TopicInitializer(admin, TIMEOUT).init(layout))
                .isInstanceOf(TopicMisconfiguredException.class)
                .hasMessageContaining("topic '" + events + "' has cleanup.policy=delete but must have cleanup.policy=compact")
                .hasMessageContaining("would drop records by time");
    }

    @Test
    void refusesToRun_onCompactedTopicThatAlsoDeletes() throws Exception {
        String outcomes = layout.name(Topics.TOOL_OUTCOMES);
        admin.createTopics(List.of(new NewTopic(outcomes, TopicLayout.DEFAULT_PARTITIONS, (short) 1)
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "compact,delete")))).all().get();

        assertThatThrownBy(() -> new TopicInitializer(admin, TIMEOUT).init(layout))
                .isInstanceOf(TopicMisconfiguredException.class)
                .hasMessageContaining("topic '" + outcomes + "' has cleanup.policy=compact,delete");
    }

    @Test
    void refusesToRun_onToolOutcomesStampedByTheBroker() throws Exception {
        String outcomes = layout.name(Topics.TOOL_OUTCOMES);
        admin.createTopics(List.of(new NewTopic(outcomes, TopicLayout.DEFAULT_PARTITIONS, (short) 1)
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "compact", TopicConfig.RETENTION_MS_CONFIG, "-1",
                        TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime")))).all().get();

        assertThatThrownBy(() -> new TopicInitializer(admin, TIMEOUT).init(layout))
                .isInstanceOf(TopicMisconfiguredException.class)
                .hasMessageContaining("topic '" + outcomes + "' has message.timestamp.type=LogAppendTime but must have CreateTime");
    }

    @Test
    void refusesToRun_whenToolRequestsAreNotCoPartitionedWithTheSessionsOtherTopics() throws Exception {
        String requests = layout.name(Topics.TOOL_REQUESTS);
        admin.createTopics(List.of(new NewTopic(requests, 3, (short) 1)
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "delete", TopicConfig.RETENTION_MS_CONFIG, "604800000"))))
                .all().get();

        assertThatThrownBy(() -> new TopicInitializer(admin, TIMEOUT).init(layout))
                .isInstanceOf(TopicMisconfiguredException.class)
                .hasMessageContaining("'" + requests + "' (3 partitions)").hasMessageContaining("must have the same partition count");
    }

    @Test
    void refusesToRun_whenCommandsAndEventsAreNotCoPartitioned() throws Exception {
        admin.createTopics(List.of(new NewTopic(layout.name(Topics.SESSION_COMMANDS), 3, (short) 1)
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "delete", TopicConfig.RETENTION_MS_CONFIG, "604800000"))))
                .all().get();

        assertThatThrownBy(() -> new TopicInitializer(admin, TIMEOUT).init(layout))
                .isInstanceOf(TopicMisconfiguredException.class)
                .hasMessageContaining("must have the same partition count");
    }

    @Test
    void concurrentInits_fromSeveralServices_allSucceed() throws Exception {
        var pool = Executors.newFixedThreadPool(4);
        try {
            var runs = new ArrayList<Future<TopicInitializer.Report>>();
            for (int i = 0; i < 4; i++) {
                Callable<TopicInitializer.Report> run = () -> {
                    try (Admin own = Admin.create(TetherStack.shared().clientConfig())) {
                        return new TopicInitializer(own, TIMEOUT).init(layout);
                    }
                };
                runs.add(pool.submit(run));
            }
            int created = 0;
            for (var run : runs) {
                created += run.get().created().size();
            }
            assertThat(created).isEqualTo(Topics.all(layout).size());
        } finally {
            pool.shutdownNow();
        }
    }
}
