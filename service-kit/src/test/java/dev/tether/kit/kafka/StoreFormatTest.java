package dev.tether.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** The rules every store format follows: versions, migrations, and a loud failure for whatever it cannot read. */
class StoreFormatTest {

    enum Mode { READ, WRITE }

    record Call(String tool, boolean outcomeUnknown, Mode mode) {}

    /** The stored type of version 1 (and 0, which has the same fields). */
    record Stored(String id, long seq, Long budget, Map<String, Call> calls, List<String> tags) {}

    /** The stored type of version 2: adds {@code owner}. */
    record StoredV2(String id, long seq, Long budget, Map<String, Call> calls, List<String> tags, String owner) {}

    private static final StoreFormat<Stored> V1 = StoreFormat.<Stored, Stored>of("things", Stored.class, s -> s, s -> s)
            .fromUnversioned(StoreMigration.fromUnversioned("things before versions", Map.of("calls.*.outcomeUnknown", BooleanNode.FALSE)))
            .build();

    private static final StoreFormat<StoredV2> V2 = StoreFormat.<StoredV2, StoredV2>of("things", StoredV2.class, s -> s, s -> s)
            .fromUnversioned(StoreMigration.fromUnversioned("things before versions", Map.of("calls.*.outcomeUnknown", BooleanNode.FALSE)))
            .steps(StoreMigration.fieldAdded(1, "owner", TextNode.valueOf("nobody")));

    private static final Stored VALUE = new Stored("t1", 7, null, Map.of("c1", new Call("edit_file", true, Mode.WRITE)), List.of("a"));

    private static final String V0_JSON = "{\"id\":\"t1\",\"seq\":7,\"budget\":null,"
            + "\"calls\":{\"c1\":{\"tool\":\"edit_file\",\"outcomeUnknown\":true,\"mode\":\"WRITE\"}},\"tags\":[\"a\"]}";

    @Test
    void aValue_isWrittenWithItsVersionFirst_andReadsBack() {
        byte[] bytes = V1.serialize("t", VALUE);

        assertThat(text(bytes)).isEqualTo("{\"version\":1," + V0_JSON.substring(1));
        assertThat(V1.deserialize("t", bytes)).isEqualTo(VALUE);
        assertThat(V1.version()).isEqualTo(1);
        assertThat(V1.oldest()).isZero();
    }

    @Test
    void anUnversionedValue_isVersion0_andReadsAsTheReleasesBeforeVersionsReadIt() {
        assertThat(V1.deserialize("t", bytes(V0_JSON))).isEqualTo(VALUE);

        String beforeOutcomeUnknown = "{\"id\":\"t1\",\"seq\":7,\"budget\":null,"
                + "\"calls\":{\"c1\":{\"tool\":\"edit_file\",\"mode\":\"WRITE\"}},\"tags\":[\"a\"]}";
        assertThat(V1.deserialize("t", bytes(beforeOutcomeUnknown)).calls().get("c1").outcomeUnknown()).isFalse();
    }

    /**
     * The current version is written and read without the tree older versions go through: the same bytes as the tree
     * writes (version 1 written by V2, through its step down), and the same value wherever the version field is.
     */
    @Test
    void theCurrentVersion_readsAndWritesAsThroughTheTree() {
        var values = List.of(VALUE, new Stored("", Long.MAX_VALUE, -1L, Map.of(), List.of()),
                new Stored("\"quoted\" \\ ünïcødé \u2028 \ud83d\ude00", -7, 0L,
                        Map.of("a", new Call("x", false, Mode.READ), "b", new Call("y", true, Mode.WRITE)), List.of("z", "")));
        for (Stored value : values) {
            byte[] direct = V1.serialize("t", value);
            var same = new StoredV2(value.id(), value.seq(), value.budget(), value.calls(), value.tags(), "nobody");
            assertThat(text(direct)).isEqualTo(text(V2.writing(1).serialize("t", same)));

            String json = text(direct);
            String versionLast = "{" + json.substring(json.indexOf(',') + 1, json.length() - 1) + ",\"version\":1}";
            assertThat(V1.deserialize("t", direct)).isEqualTo(value).isEqualTo(V1.deserialize("t", bytes(versionLast)));
        }
    }

    @Test
    void aDuplicateField_orAnythingAfterTheValue_fails() {
        expect(() -> V1.deserialize("t", bytes("{\"version\":1,\"id\":\"t0\"," + V0_JSON.substring(1))), OptionalInt.empty(), null,
                "not a JSON document");
        expect(() -> V1.deserialize("t", bytes("{\"version\":1," + V0_JSON.substring(1, V0_JSON.length() - 1) + ",\"version\":1}")),
                OptionalInt.empty(), null, "not a JSON document");
        expect(() -> V1.deserialize("t", bytes("{\"version\":1," + V0_JSON.substring(1) + "{}")), OptionalInt.empty(), null,
                "not a JSON document");
    }

    @Test
    void writingVersion0_writesTheUnversionedBytes() {
        assertThat(text(V1.writing(0).serialize("t", VALUE))).isEqualTo(V0_JSON);
        assertThat(V1.writing(Map.of("things", 0)).writes()).isZero();
        assertThat(V1.writing(Map.of("other", 0)).writes()).isEqualTo(1);
    }

    @Test
    void aNewerVersion_readsEveryOlderOne_andCanWriteThem() {
        var v2 = new StoredV2("t1", 7, null, VALUE.calls(), List.of("a"), "nobody");

        assertThat(V2.deserialize("t", bytes(V0_JSON))).isEqualTo(v2);
        assertThat(V2.deserialize("t", V1.serialize("t", VALUE))).isEqualTo(v2);
        assertThat(text(V2.serialize("t", v2))).endsWith(",\"owner\":\"nobody\"}").startsWith("{\"version\":2,");
        assertThat(V1.deserialize("t", V2.writing(1).serialize("t", v2))).isEqualTo(VALUE);
        assertThat(text(V2.writing(0).serialize("t", v2))).isEqualTo(V0_JSON);
    }

    @Test
    void aOneWayStep_cannotBeWrittenBack() {
        var oneWay = StoreFormat.<Stored, Stored>of("things", Stored.class, s -> s, s -> s)
                .steps(StoreMigration.oneWay(1, "tags are sorted", v -> v));

        assertThatThrownBy(() -> oneWay.writing(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("things").hasMessageContaining("tags are sorted");
        assertThatThrownBy(() -> V1.writing(2)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("versions 0 to 1");
    }

    @Test
    void anUnknownField_failsNamingStoreVersionAndField() {
        expect(() -> V1.deserialize("t", bytes("{\"version\":1," + V0_JSON.substring(1, V0_JSON.length() - 1) + ",\"tagz\":[]}")),
                OptionalInt.of(1), "tagz", "unknown field 'tagz'");
        expect(() -> V1.deserialize("t", bytes(V0_JSON.replace("\"WRITE\"}", "\"WRITE\",\"mood\":\"calm\"}"))), OptionalInt.of(0),
                "calls.c1.mood", "a value of version 0 (read as version 1) has an unknown field 'calls.c1.mood'");
    }

    @Test
    void aRenamedField_failsAsMissingUnderItsNewName() {
        expect(() -> V1.deserialize("t", bytes(V0_JSON.replace("\"mode\"", "\"mood\""))), OptionalInt.of(0), "calls.c1.mode",
                "has no field 'calls.c1.mode'");
    }

    @Test
    void aMissingField_failsNamingIt_evenIfItMayBeNull() {
        expect(() -> V1.deserialize("t", bytes(V0_JSON.replace("\"budget\":null,", ""))), OptionalInt.of(0), "budget",
                "has no field 'budget'");
        expect(() -> V1.deserialize("t", bytes(V0_JSON.replace("\"tool\":\"edit_file\",", ""))), OptionalInt.of(0), "calls.c1.tool",
                "has no field 'calls.c1.tool'");
    }

    @Test
    void aFieldOfTheWrongKind_failsNamingIt() {
        expect(() -> V1.deserialize("t", bytes(V0_JSON.replace("\"WRITE\"", "\"EXECUTE\""))), OptionalInt.of(0), "calls.c1.mode",
                "'calls.c1.mode'");
        expect(() -> V1.deserialize("t", bytes(V0_JSON.replace("\"WRITE\"", "1"))), OptionalInt.of(0), "calls.c1.mode", "'calls.c1.mode'");
        expect(() -> V1.deserialize("t", bytes(V0_JSON.replace("\"seq\":7", "\"seq\":null"))), OptionalInt.of(0), "seq", "'seq'");
        expect(() -> V1.deserialize("t", bytes(V0_JSON.replace("\"seq\":7", "\"seq\":\"7\""))), OptionalInt.of(0), "seq", "'seq'");
    }

    @Test
    void aNewerVersion_failsNamingBothVersions() {
        var e = expect(() -> V1.deserialize("t", bytes("{\"version\":2," + V0_JSON.substring(1))), OptionalInt.of(2), null,
                "a value of version 2, newer than 1");
        assertThat(e.getMessage()).contains("tether.stores.write-version.things=1");
    }

    @Test
    void aVersionThatIsNone_orNoVersionWhereTheStoreAlwaysHadOne_fails() {
        expect(() -> V1.deserialize("t", bytes("{\"version\":0," + V0_JSON.substring(1))), OptionalInt.empty(), null, "not a version");
        expect(() -> V1.deserialize("t", bytes("{\"version\":\"1\"," + V0_JSON.substring(1))), OptionalInt.empty(), null, "not a version");
        var alwaysVersioned = StoreFormat.<Stored, Stored>of("things", Stored.class, s -> s, s -> s).build();
        expect(() -> alwaysVersioned.deserialize("t", bytes(V0_JSON)), OptionalInt.empty(), null, "no 'version' field");
        expect(() -> V1.deserialize("t", bytes("[1]")), OptionalInt.empty(), null, "not a JSON object");
        expect(() -> V1.deserialize("t", bytes("{\"version\":1")), OptionalInt.empty(), null, "not a JSON document");
    }

    @Test
    void aValueBreakingTheDomainsRules_failsAsInvalid() {
        var strict = StoreFormat.<Stored, Stored>of("things", Stored.class, s -> s, s -> {
            if (s.seq() < 0) {
                throw new IllegalArgumentException("negative seq");
            }
            return s;
        }).build();
        expect(() -> strict.deserialize("t", bytes("{\"version\":1," + V0_JSON.substring(1).replace("7", "-1"))), OptionalInt.of(1), null,
                "not a valid value");
    }

    @Test
    void writeVersions_forStoresAServiceDoesNotHave_areRefused() {
        assertThatThrownBy(() -> StoreFormat.requireKnown(Map.of("thinsg", 0), List.of(V1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[thinsg]").hasMessageContaining("[things]");
        assertThat(StoreFormat.writingAll(List.of(V1), Map.of("things", 0))).singleElement().hasToString(
                "StoreFormat[things, version 1, writing 0, reads unversioned values as 0]");
    }

    @Test
    void aChainWithAGap_isRefused() {
        assertThatThrownBy(() -> StoreFormat.<Stored, Stored>of("things", Stored.class, s -> s, s -> s)
                .steps(StoreMigration.fieldAdded(2, "owner", TextNode.valueOf("x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from 1, 2...");
        assertThatThrownBy(() -> StoreFormat.<Stored, Stored>of("things", Stored.class, s -> s, s -> s)
                .fromUnversioned(StoreMigration.fieldAdded(1, "owner", TextNode.valueOf("x"))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static StoreFormatException expect(ThrowingCallable read, OptionalInt version, String field, String message) {
        var thrown = org.assertj.core.api.Assertions.catchThrowableOfType(StoreFormatException.class, read);
        assertThat(thrown).as("a StoreFormatException").isNotNull();
        assertThat(thrown.getMessage()).startsWith("things: ").contains(message);
        assertThat(thrown.store()).isEqualTo("things");
        assertThat(thrown.version()).isEqualTo(version);
        assertThat(thrown.field().orElse(null)).isEqualTo(field);
        return thrown;
    }

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
