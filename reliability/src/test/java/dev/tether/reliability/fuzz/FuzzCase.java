package dev.tether.reliability.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.reliability.fuzz.Http.Answer;
import dev.tether.reliability.fuzz.Http.Call;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One generated request and what it must get: its category (malformed JSON, wrong type, bad token, ...), the
 * endpoint it aims at, the request, and the expectation.
 */
record FuzzCase(String category, Endpoint endpoint, Call call, Expect expect) {

    /**
     * What a case must get. A refusal: one of {@code statuses}, a JSON body with an {@code error} code (unless the
     * HTTP layer refuses before the application, {@code transport}), and, where a field is at fault, that field in
     * {@code field} ({@code events[0]} also matches {@code events[0].content}; {@code *} matches any field). An
     * acceptance: the status of a valid request; {@code duplicate}: every event it names was appended before.
     */
    record Expect(Set<Integer> statuses, String field, boolean transport, boolean acceptance, boolean duplicate) {

        static Expect refused(int... statuses) {
            return new Expect(Arrays.stream(statuses).boxed().collect(Collectors.toSet()), null, false, false, false);
        }

        /** Refused by the HTTP layer (body or header limits): any of {@code statuses}, no JSON body required. */
        static Expect byHttpLayer(int... statuses) {
            return new Expect(Arrays.stream(statuses).boxed().collect(Collectors.toSet()), null, true, false, false);
        }

        static Expect accepted(int status) {
            return new Expect(Set.of(status), null, false, true, false);
        }

        /** A replay of an earlier request: 200, and nothing new appended. */
        static Expect replayed() {
            return new Expect(Set.of(200), null, false, true, true);
        }

        Expect field(String name) {
            return new Expect(statuses, name, transport, acceptance, duplicate);
        }

        /** Also allows {@code status} (e.g. 413 when a generated string is large enough to pass the body limit). */
        Expect or(int status, boolean byTransport) {
            var s = new java.util.HashSet<>(statuses);
            s.add(status);
            return new Expect(Set.copyOf(s), field, transport || byTransport, acceptance, duplicate);
        }
    }

    /** What is wrong with {@code answer}, or null when it is what the case must get. */
    String problem(Answer answer) {
        int status = answer.status();
        if (status >= 500) {
            return "5xx";
        }
        if (!expect.statuses().contains(status)) {
            return status / 100 == 2 ? "invalid input accepted" : "expected " + expect.statuses() + ", got " + status;
        }
        JsonNode json = answer.json();
        if (status >= 400) {
            if (json == null || !json.hasNonNull("error")) {
                return expect.transport() && (status == 413 || status == 414 || status == 431) ? null : "a refusal without a JSON error body";
            }
            if (expect.field() != null) {
                String field = json.path("field").asText(null);
                if (field == null) {
                    return "the refusal does not name the field (expected " + expect.field() + ")";
                }
                String want = expect.field();
                boolean matches = want.equals("*") || field.equals(want) || field.startsWith(want + ".") || field.startsWith(want + "[");
                if (!matches) {
                    return "the refusal names " + field + ", not " + want;
                }
            }
        }
        if (expect.duplicate()) {
            if (json == null || !json.has("appended")) {
                return "a replay answered without the appended events";
            }
            for (JsonNode a : json.get("appended")) {
                if (!a.path("duplicate").asBoolean(false)) {
                    return "a replay appended again: " + a;
                }
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return category + " → " + endpoint + ": " + call + "; expected " + expect.statuses()
                + (expect.field() == null ? "" : " naming " + expect.field());
    }
}
