package dev.tether.session.rest;

import dev.tether.kit.service.openapi.ApiDocument;
import dev.tether.kit.service.openapi.ApiSchemas;
import dev.tether.kit.service.openapi.ApiSchemas.Use;

/**
 * The session-service's OpenAPI components: the request records the resources read bodies into, and the answers
 * ({@link Answers}); the resources' annotations refer to them by these names. {@code mp.openapi.model.reader}.
 */
public class SessionApiDocument extends ApiDocument {

    @Override
    protected void schemas(ApiSchemas schemas) {
        schemas.define("CreateSession", Requests.CreateSession.class, Use.REQUEST);
        schemas.define("AppendEvents", Requests.AppendEvents.class, Use.REQUEST);
        schemas.define("Claim", Requests.Claim.class, Use.REQUEST);
        schemas.define("Migrate", Requests.Migrate.class, Use.REQUEST);
        schemas.define("CreateSubagent", Requests.Subagent.class, Use.REQUEST);
        schemas.define("Fork", Requests.Fork.class, Use.REQUEST);
        schemas.define("HarnessVersion", Requests.HarnessVersionEntry.class, Use.REQUEST);
        schemas.define("SessionCreated", Answers.SessionCreated.class, Use.ANSWER);
        schemas.define("Appended", Answers.Appended.class, Use.ANSWER);
        schemas.define("Claimed", Answers.Claimed.class, Use.ANSWER);
        schemas.define("Migrated", Answers.Migrated.class, Use.ANSWER);
        schemas.define("Erased", Answers.Erased.class, Use.ANSWER);
        schemas.define("SubagentCreated", Answers.SubagentCreated.class, Use.ANSWER);
        schemas.define("Forked", Answers.Forked.class, Use.ANSWER);
        schemas.define("Sessions", Answers.Sessions.class, Use.ANSWER);
        schemas.define("HarnessVersions", Answers.HarnessVersions.class, Use.ANSWER);
    }
}
