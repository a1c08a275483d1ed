package dev.tether.approval.rest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.approval.domain.DecisionKind;
import java.util.Arrays;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.junit.jupiter.api.Test;

/** The documented decision is the one {@link ApprovalResource} reads field by field. */
class ApprovalApiDocumentTest {

    @SuppressWarnings("deprecation") // getAdditionalPropertiesBoolean: ApiSchemas sets it, with MicroProfile's setter of the same kind
    @Test
    void theDocumentedDecision_hasExactlyTheFieldsTheResourceReads_andRequiresTheDecision() {
        Schema decision = new ApprovalApiDocument().buildModel().getComponents().getSchemas().get("Decision");
        assertThat(decision.getProperties().keySet()).containsExactlyInAnyOrderElementsOf(ApprovalResource.BODY_FIELDS);
        assertThat(decision.getRequired()).containsExactly("decision");
        assertThat(decision.getAdditionalPropertiesBoolean()).isFalse();
        assertThat(decision.getProperties().get("decision").getEnumeration())
                .containsExactlyElementsOf(Arrays.stream(DecisionKind.values()).map(Enum::name).toList());
    }
}
