package dev.tether.projector.rest;

import dev.tether.kit.service.openapi.ApiDocument;
import dev.tether.kit.service.openapi.ApiSchemas;
import dev.tether.kit.service.openapi.ApiSchemas.Use;
import dev.tether.projector.domain.CallRecord;
import dev.tether.projector.domain.RecoveryReport;
import dev.tether.projector.domain.SessionOverview;
import dev.tether.projector.domain.SessionProjection;
import java.util.List;
import java.util.Set;
import org.eclipse.microprofile.openapi.OASFactory;

/**
 * The projector-service's OpenAPI components: the checkpoint, the recovery report and the call record as the projection
 * writes them, and the answers {@link ProjectionResource} builds ({@link Answers}); the resource's annotations refer to
 * them by these names. {@code mp.openapi.model.reader}.
 */
public class ProjectorApiDocument extends ApiDocument {

    @Override
    protected void schemas(ApiSchemas schemas) {
        schemas.answer("EventPage");
        // a checkpoint at a past seq has no log position (ProjectionResource.checkpoint)
        schemas.nullableInAnswers(SessionProjection.class, Set.of("position"));
        schemas.answer("Checkpoint", SessionProjection.class, Use.ANSWER);
        schemas.answer("RecoveryReport", RecoveryReport.class, Use.ANSWER_WITH_NULLS);
        schemas.answer("ModelContext", Answers.ModelContext.class, Use.ANSWER);
        schemas.answer("CompactionSource", Answers.CompactionSource.class, Use.ANSWER);
        schemas.define("CallRecord", CallRecord.class, Use.ANSWER);
        schemas.define("CallEvents", Answers.CallEvents.class, Use.ANSWER);
        schemas.define("CallStory", OASFactory.createSchema()
                .description("A tool call's record (who asked, the authorization, every attempt the executor recorded, the result) "
                        + "with the events of its story.")
                .allOf(List.of(ApiSchemas.ref("CallRecord"), ApiSchemas.ref("CallEvents"))));
        schemas.answer("CallStory");
        schemas.absentFromAnswers(SessionOverview.class, Set.of("workerId"));
        schemas.describe(SessionOverview.class, "workerId", "the worker holding the latest claim; absent if none claimed it");
        schemas.describe(SessionOverview.class, "epoch", "that claim's epoch; 0 if none");
        schemas.describe(SessionOverview.class, "lastActivity", "when the sequencer accepted the session's latest event");
        schemas.describe(SessionOverview.class, "openCalls", "calls asked for with no result yet (requested, awaiting approval, "
                + "authorized, running, started)");
        schemas.describe(SessionOverview.class, "pendingApprovals", "calls waiting for an approver's decision");
        schemas.describe(SessionOverview.class, "unknownOutcomes", "calls whose outcome is unknown, waiting for a person to resolve them");
        schemas.define("SessionOverview", SessionOverview.class, Use.ANSWER);
        schemas.answer("SessionOverviews", Answers.SessionOverviews.class, Use.ANSWER);
    }
}
