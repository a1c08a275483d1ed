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

    @Test
    void theHashOfWhatWasShown_isTakenOnAnApprovalOnly_andOnlyAsASha256() {
        String hash = "0123456789abcdef".repeat(4);
        assertThat(AuthorizationBasis.approvalOfShown(7, hash).shownSha256()).isEqualTo(hash);
        assertThat(AuthorizationBasis.approvalOfShown(7, null)).isEqualTo(AuthorizationBasis.approval(7));
        assertThatThrownBy(() -> new AuthorizationBasis(AuthorizationBasis.Kind.POLICY, null, null, hash))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("shownSha256"));
        assertThatThrownBy(() -> AuthorizationBasis.approvalOfShown(7, hash.toUpperCase(java.util.Locale.ROOT)))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("shownSha256"));
        assertThatThrownBy(() -> new ApprovalRequested("c1", "edit_file", "the diff", null, "not a hash"))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("shownSha256"));
    }
}
