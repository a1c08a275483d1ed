package dev.tether.session;

import dev.tether.testing.CommandRepliesReadinessContract;
import dev.tether.testing.TetherStackResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.List;

/** The session-service is not ready until it reads the sequencer's verdicts: see {@link CommandRepliesReadinessContract}. */
@QuarkusTest
@QuarkusTestResource(TetherStackResource.class)
@TestProfile(CommandRepliesReadinessContract.UncreatedTopics.class)
class SessionServiceReadinessIT extends CommandRepliesReadinessContract {

    @Override
    protected List<String> streamsSourceTopics() {
        return List.of("session-commands", "session-events", "harness-versions");
    }
}
