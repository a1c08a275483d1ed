package dev.tether.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AuthorizationBasisTest {

    @Test
    void anApprovalWithoutTheGrantsSeq_isRefused_namingTheFieldWithinTheBasis_whoseReaderPrefixesIt() {
        // nested like ToolCall and TokenUsage: EventJson names it basis.approvalSeq, never basis.basis.approvalSeq
        assertThatThrownBy(() -> new AuthorizationBasis(AuthorizationBasis.Kind.APPROVAL, null, null))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("approvalSeq"));
        assertThatThrownBy(() -> new AuthorizationBasis(AuthorizationBasis.Kind.APPROVAL, 0L, null))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("approvalSeq"));
        assertThatThrownBy(() -> new AuthorizationBasis(null, null, null))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("kind"));
        assertThatThrownBy(() -> new AuthorizationBasis(AuthorizationBasis.Kind.APPROVAL, null, null))
                .isInstanceOfSatisfying(InvalidEventException.class,
                        e -> assertThat(e.under("basis.").field()).isEqualTo("basis.approvalSeq"));
    }

    @Test
    void aPolicyBasis_andAnApprovalByTheGrantsSeq_areTaken() {
        assertThat(AuthorizationBasis.POLICY.kind()).isEqualTo(AuthorizationBasis.Kind.POLICY);
        assertThat(AuthorizationBasis.approval(7, "src/**")).isEqualTo(new AuthorizationBasis(AuthorizationBasis.Kind.APPROVAL, 7L, "src/**"));
    }
}
