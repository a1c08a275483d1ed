package dev.tether.approval.rest;

import dev.tether.kit.service.openapi.ApiDocument;
import dev.tether.kit.service.openapi.ApiSchemas;
import dev.tether.kit.service.openapi.ApiSchemas.Use;

/**
 * The approval-service's OpenAPI components ({@link Answers}); {@link ApprovalResource}'s annotations refer to them by these
 * names. {@code mp.openapi.model.reader}.
 */
public class ApprovalApiDocument extends ApiDocument {

    @Override
    protected void schemas(ApiSchemas schemas) {
        schemas.define("Decision", Answers.Decision.class, Use.REQUEST);
        schemas.answer("ApprovalItem", Answers.Item.class, Use.ANSWER);
        schemas.answer("ApprovalItems", Answers.Items.class, Use.ANSWER);
        schemas.answer("Grants", Answers.Grants.class, Use.ANSWER);
    }
}
