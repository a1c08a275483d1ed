package dev.tether.session.rest;

import dev.tether.kit.service.openapi.ApiDocument;
import dev.tether.kit.service.openapi.ApiSchemas;
import dev.tether.kit.service.openapi.ApiSchemas.Use;
import dev.tether.session.domain.SessionSummary;

/**
 * The session-service's OpenAPI components: the request records the resources read bodies into, and the answers
 * ({@link Answers}); the resources' annotations refer to them by these names. {@code mp.openapi.model.reader}.
 */
public class SessionApiDocument extends ApiDocument {

    @Override
    protected void schemas(ApiSchemas schemas) {
        schemas.answer("EventPage");
        schemas.define("CreateSession", Requests.CreateSession.class, Use.REQUEST);
        schemas.define("AppendEvents", Requests.AppendEvents.class, Use.REQUEST);
        schemas.define("Claim", Requests.Claim.class, Use.REQUEST);
        schemas.define("Migrate", Requests.Migrate.class, Use.REQUEST);
        schemas.define("CreateSubagent", Requests.Subagent.class, Use.REQUEST);
        schemas.define("Fork", Requests.Fork.class, Use.REQUEST);
        schemas.define("HarnessVersion", Requests.HarnessVersionEntry.class, Use.REQUEST);
        schemas.answer("SessionCreated", Answers.SessionCreated.class, Use.ANSWER);
        schemas.answer("Appended", Answers.Appended.class, Use.ANSWER);
        schemas.answer("Claimed", Answers.Claimed.class, Use.ANSWER);
        schemas.answer("Migrated", Answers.Migrated.class, Use.ANSWER);
        schemas.answer("Erased", Answers.Erased.class, Use.ANSWER);
        schemas.answer("SubagentCreated", Answers.SubagentCreated.class, Use.ANSWER);
        schemas.answer("Forked", Answers.Forked.class, Use.ANSWER);
        schemas.answer("Sessions", Answers.Sessions.class, Use.ANSWER);
        schemas.answer("HarnessVersions", Answers.HarnessVersions.class, Use.ANSWER);
        schemas.answer("SessionSummary", SessionSummary.class, Use.ANSWER);
    }
}
