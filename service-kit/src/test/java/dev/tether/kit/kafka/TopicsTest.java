package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

class TopicsTest {

    @Test
    void definesTheSixTopicsOfTheArchitecture_plusTheReplyTopic_andTheBlobReferences() {
        assertThat(Topics.all(TopicLayout.local())).extracting(TopicSpec::name).containsExactly(
                "session-commands", "session-events", "session-checkpoints", "tool-requests", "tool-outcomes", "harness-versions",
                "session-replies", "blob-references");
    }

    @Test
    void blobReferences_isCompactedForever_soAReferenceStaysUntilItsSessionIsErased() {
        TopicSpec references = Topics.spec(TopicLayout.local(), Topics.BLOB_REFERENCES);

        assertThat(references.cleanupPolicy()).isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
        assertThat(references.configs()).containsEntry(TopicConfig.RETENTION_MS_CONFIG, "-1");
        assertThat(references.valueSchema().getName()).isEqualTo("BlobReference");
    }

    @Test
    void sessionEvents_isCompactedAndNeverDeletedByTime() {
        TopicSpec events = Topics.spec(TopicLayout.local(), Topics.SESSION_EVENTS);

        assertThat(events.cleanupPolicy()).isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
        assertThat(events.configs()).containsEntry(TopicConfig.RETENTION_MS_CONFIG, "-1");
        assertThat(events.valueSchema().getName()).isEqualTo("SessionEvent");
        assertThat(events.valueSubject()).isEqualTo("session-events-value");
    }

    @Test
    void toolOutcomes_isCompactedForever_andKeepsItsWritersTimestamps() {
        TopicSpec outcomes = Topics.spec(TopicLayout.local(), Topics.TOOL_OUTCOMES);

        assertThat(outcomes.cleanupPolicy()).isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
        assertThat(outcomes.configs()).containsEntry(TopicConfig.RETENTION_MS_CONFIG, "-1")
                .containsEntry(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime"); // the executor's ledger finds records by time
    }

    @Test
    void workQueues_areDeletedAfterSevenDays() {
        for (String topic : new String[] {Topics.SESSION_COMMANDS, Topics.TOOL_REQUESTS}) {
            TopicSpec spec = Topics.spec(TopicLayout.local(), topic);
            assertThat(spec.cleanupPolicy()).as(topic).isEqualTo(TopicConfig.CLEANUP_POLICY_DELETE);
            assertThat(spec.configs()).as(topic).containsEntry(TopicConfig.RETENTION_MS_CONFIG, "604800000");
        }
    }

    @Test
    void commandsAndEvents_areCoPartitioned_andSizedByTheLayout() {
        var layout = new TopicLayout("x.", 12, (short) 3);

        assertThat(Topics.spec(layout, Topics.SESSION_COMMANDS).partitions()).isEqualTo(12);
        assertThat(Topics.spec(layout, Topics.SESSION_EVENTS).partitions()).isEqualTo(12);
        assertThat(Topics.spec(layout, Topics.HARNESS_VERSIONS).partitions()).isEqualTo(1);
        assertThat(Topics.spec(layout, Topics.SESSION_EVENTS).name()).isEqualTo("x.session-events");
        assertThat(Topics.spec(layout, Topics.SESSION_EVENTS).configs()).containsEntry(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2");
        assertThat(Topics.spec(TopicLayout.local(), Topics.SESSION_EVENTS).configs()).doesNotContainKey(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
    }
}
