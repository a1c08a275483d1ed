package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.client.internal.Outcomes;
import dev.tether.client.internal.Transport;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The services' error bodies become the typed outcomes of each call; what is no outcome is thrown. */
class ResultMappingTest {

    @Test
    void errorBodies_readAsApiErrors_withTheirDetails() {
        ApiError conflict = Transport.apiError(409, "{\"lastSeq\":3,\"error\":\"seq_conflict\",\"message\":\"expectedSeq 1 but the session's last seq is 3\"}");
        assertThat(conflict.code()).isEqualTo("seq_conflict");
        assertThat(conflict.longDetail("lastSeq")).hasValue(3);
        assertThat(conflict.field()).isEmpty();

        ApiError invalid = Transport.apiError(400, "{\"error\":\"invalid_field\",\"message\":\"is required\",\"field\":\"events[1].toolCalls[0].callId\"}");
        assertThat(invalid.field()).contains("events[1].toolCalls[0].callId");

        ApiError proxy = Transport.apiError(502, "<html>Bad Gateway</html>");
        assertThat(proxy.code()).isEqualTo("http_502");
        assertThat(proxy.message()).isEqualTo("Bad Gateway");
        assertThat(Transport.apiError(503, "").code()).isEqualTo("http_503");
        assertThat(Transport.apiError(503, "").message()).isEmpty();
    }

    @Test
    void aBodyThatIsNotTethers_isShownBriefly_byItsTitleOrItsText() {
        assertThat(Transport.apiError(502, """
                <html><head><title>502  Bad Gateway</title><style>body { color: red }</style></head>
                <body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>
                """).toString()).isEqualTo("502 http_502: 502 Bad Gateway");
        assertThat(Transport.apiError(503, "<html><body><script>var x = 1 < 2;</script><!-- a -->\n<p>upstream\tconnect"
                + " error</p>\u0007</body></html>").message()).isEqualTo("upstream connect error");
        assertThat(Transport.apiError(504, "stream timeout\r\n").message()).isEqualTo("stream timeout");
        String long_ = Transport.apiError(500, "x".repeat(10_000)).message();
        assertThat(long_).hasSize(200).endsWith("…");
        assertThat(Transport.apiError(500, "<".repeat(60_000)).message()).hasSizeLessThanOrEqualTo(200);
    }

    @Test
    void appendRefusals_areConflictFencedNotFoundOrRejected() {
        assertThat(Outcomes.append(Transport.apiError(409, "{\"lastSeq\":3,\"error\":\"seq_conflict\",\"message\":\"m\"}")))
                .isEqualTo(new Conflict(3, "m"));
        assertThat(Outcomes.append(Transport.apiError(409, "{\"epoch\":2,\"error\":\"stale_epoch\",\"message\":\"m\"}")))
                .isEqualTo(new Fenced(2, "m"));
        assertThat(Outcomes.append(Transport.apiError(404, "{\"error\":\"not_found\",\"message\":\"session not found\"}")))
                .isEqualTo(new NotFound("session not found"));
        assertThat(Outcomes.append(Transport.apiError(422, "{\"error\":\"illegal_event\",\"message\":\"m\",\"field\":\"events[0].type\"}")))
                .isEqualTo(new Rejected(422, "illegal_event", "m", Optional.of("events[0].type")));
        assertThat(Outcomes.append(Transport.apiError(422, "{\"error\":\"session_closed\",\"message\":\"m\"}")))
                .isEqualTo(new Rejected(422, Rejected.SESSION_CLOSED, "m", Optional.empty()));
        assertThat(Outcomes.append(Transport.apiError(413, "{\"error\":\"too_large\",\"message\":\"m\"}"))).isInstanceOf(Rejected.class);
        assertThat(Outcomes.append(Transport.apiError(403, "{\"error\":\"forbidden\",\"message\":\"m\"}"))).isInstanceOf(Rejected.class);
    }

    @Test
    void claimRefusals_areVersionPinnedFencedNotFoundOrRejected() {
        assertThat(Outcomes.claim(Transport.apiError(409, "{\"error\":\"version_pinned\",\"message\":\"pinned to v1\"}")))
                .isEqualTo(new VersionPinned("pinned to v1"));
        assertThat(Outcomes.claim(Transport.apiError(409, "{\"epoch\":4,\"error\":\"stale_epoch\",\"message\":\"m\"}")))
                .isEqualTo(new Fenced(4, "m"));
        assertThat(Outcomes.claim(Transport.apiError(404, "{\"error\":\"not_found\",\"message\":\"session not found\"}")))
                .isInstanceOf(NotFound.class);
    }

    @Test
    void decisionRefusals_areAlreadyDecidedNotFoundOrRejected() {
        assertThat(Outcomes.decision(Transport.apiError(409, "{\"error\":\"already_decided\",\"message\":\"granted by x\"}")))
                .isEqualTo(new AlreadyDecided("already_decided", "granted by x"));
        assertThat(Outcomes.decision(Transport.apiError(409, "{\"error\":\"conflict\",\"message\":\"lost a race\"}")))
                .isEqualTo(new AlreadyDecided("conflict", "lost a race"));
        assertThat(Outcomes.decision(Transport.apiError(409,
                "{\"error\":\"conflict\",\"message\":\"approval s~4 is another call now\",\"field\":\"requestedAt\"}")))
                .as("the item as read is gone").isEqualTo(new NotFound("approval s~4 is another call now"));
        assertThat(Outcomes.decision(Transport.apiError(400, "{\"error\":\"invalid_field\",\"message\":\"m\",\"field\":\"reason\"}")))
                .isEqualTo(new Rejected(400, "invalid_field", "m", Optional.of("reason")));
    }

    @Test
    void credentialsAndServerFailures_areThrown_notReturned() {
        assertThatThrownBy(() -> Outcomes.append(Transport.apiError(401, "{\"error\":\"unauthorized\",\"message\":\"m\"}")))
                .isInstanceOf(TetherException.class)
                .satisfies(e -> assertThat(((TetherException) e).error().map(ApiError::status)).contains(401));
        assertThatThrownBy(() -> Outcomes.append(Transport.apiError(500, "{\"error\":\"internal\",\"message\":\"m\"}")))
                .isInstanceOf(TetherException.class);
        assertThatThrownBy(() -> Outcomes.append(Transport.apiError(503, "{\"error\":\"unavailable\",\"message\":\"m\"}")))
                .isInstanceOf(TetherException.class);
    }

    @Test
    void appendedHelpers_tellSeqsAndRetries() {
        var first = new Appended(List.of(new Appended.AppendedEvent("a", 2, false), new Appended.AppendedEvent("b", 3, false)), 3, 0);
        var retry = new Appended(List.of(new Appended.AppendedEvent("a", 2, true), new Appended.AppendedEvent("b", 3, true)), 7, 0);
        assertThat(first.seqs()).containsExactly(2L, 3L);
        assertThat(first.allDuplicates()).isFalse();
        assertThat(retry.seqs()).isEqualTo(first.seqs());
        assertThat(retry.allDuplicates()).isTrue();
    }

    /**
     * Every outcome of every call is a record, and every "OrThrow" hands back its success or throws
     * carrying the outcome — walked over getPermittedSubclasses(), so an outcome added later cannot
     * go unhandled.
     */
    @Test
    void everyOutcome_ofEveryResult_isARecord_andOrThrowHandlesIt() throws Exception {
        Map<Class<?>, String> results = Map.of(CreateResult.class, "createdOrThrow", ClaimResult.class, "claimedOrThrow",
                AppendResult.class, "appendedOrThrow", ForkResult.class, "forkedOrThrow", EraseResult.class, "erasedOrThrow",
                MigrateResult.class, "migratedOrThrow", DecisionResult.class, "decidedOrThrow", AwaitResult.class, "settledOrThrow",
                VersionResult.class, "versionsOrThrow", HarnessRunResult.class, "completedOrThrow");
        Map<Class<?>, Class<?>> success = Map.of(CreateResult.class, Created.class, ClaimResult.class, Claimed.class,
                AppendResult.class, Appended.class, ForkResult.class, Forked.class, EraseResult.class, Erased.class,
                MigrateResult.class, Migrated.class, DecisionResult.class, Decided.class, AwaitResult.class, Settled.class,
                VersionResult.class, VersionsUpdated.class, HarnessRunResult.class, ToolCompleted.class);
        for (var entry : results.entrySet()) {
            Class<?> result = entry.getKey();
            assertThat(result.isSealed()).as(result.getSimpleName()).isTrue();
            var method = result.getMethod(entry.getValue());
            for (Class<?> outcome : result.getPermittedSubclasses()) {
                assertThat(outcome.isRecord()).as(outcome.getSimpleName()).isTrue();
                Object instance = sample(outcome);
                if (outcome == success.get(result)) {
                    assertThat(method.invoke(instance)).as(outcome.getSimpleName()).isNotNull();
                } else {
                    assertThatThrownBy(() -> {
                        try {
                            method.invoke(instance);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }).as(result.getSimpleName() + " on " + outcome.getSimpleName())
                            .isInstanceOf(UnexpectedOutcomeException.class)
                            .satisfies(e -> assertThat(((UnexpectedOutcomeException) e).outcome()).isSameAs(instance));
                }
            }
        }
    }

    /** An instance of a record with plain values for its components. */
    private static Object sample(Class<?> record) throws Exception {
        RecordComponent[] components = record.getRecordComponents();
        var types = new ArrayList<Class<?>>();
        var args = new ArrayList<Object>();
        for (RecordComponent c : components) {
            types.add(c.getType());
            args.add(value(c.getType()));
        }
        return record.getDeclaredConstructor(types.toArray(Class<?>[]::new)).newInstance(args.toArray());
    }

    private static Object value(Class<?> type) throws Exception {
        if (type == long.class) {
            return 1L;
        }
        if (type == int.class) {
            return 1;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == String.class) {
            return "x";
        }
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (type == OptionalLong.class) {
            return OptionalLong.empty();
        }
        if (type == List.class) {
            return List.of();
        }
        if (type == Map.class) {
            return Map.of();
        }
        if (type == Instant.class) {
            return Instant.EPOCH;
        }
        if (type.isRecord()) {
            return sample(type);
        }
        if (type.isEnum()) {
            return type.getEnumConstants()[0];
        }
        throw new IllegalArgumentException("no sample value for " + type);
    }
}
