package dev.tether.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.cli.CliRun;
import dev.tether.cli.FakeServices;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code tether versions} against the session-service's real answers, served by a fake. */
class VersionCommandsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String VERSIONS = "/v1/harness-versions";

    private final FakeServices services = new FakeServices();

    @AfterEach
    void stop() {
        services.close();
    }

    @Test
    void versionsList_showsEachVersionsShareOfNewSessions_asTheOperator() {
        services.onResource("GET " + VERSIONS, 200, "harness-versions.json");

        CliRun run = CliRun.run(services.env(), "versions", "list");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out().lines()).containsExactly(
                "VERSION       STATE   WEIGHT  SHARE  MODEL  OPEN SESSIONS",
                "v1 (default)  ACTIVE  0       90%    -      183",
                "v2            ACTIVE  10      10%    -      19");
        assertThat(services.requests().get(0).authorization()).isEqualTo("Bearer dev-operator");
    }

    @Test
    void setWeight_putsTheEntry_keepingTheVersionsModel_andPrintsTheVersionsAfter() throws Exception {
        services.on("GET " + VERSIONS, 200, "{\"versions\":[{\"version\":\"v1\",\"weight\":0,\"share\":100.0,\"state\":\"ACTIVE\",\"default\":true,"
                        + "\"openSessions\":3},{\"version\":\"v2\",\"weight\":0,\"share\":0.0,\"state\":\"DRAINING\",\"modelId\":\"claude-opus-4\","
                        + "\"openSessions\":0}]}")
                .on("PUT " + VERSIONS, 200, "{\"versions\":[{\"version\":\"v1\",\"weight\":0,\"share\":90.0,\"state\":\"ACTIVE\",\"default\":true,"
                        + "\"openSessions\":3},{\"version\":\"v2\",\"weight\":10,\"share\":10.0,\"state\":\"ACTIVE\",\"modelId\":\"claude-opus-4\","
                        + "\"openSessions\":0}]}");

        CliRun run = CliRun.run(services.env(), "versions", "set-weight", "v2", "10");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(JSON.readTree(services.requests("PUT", VERSIONS).get(0).body()))
                .isEqualTo(JSON.readTree("{\"version\":\"v2\",\"weight\":10,\"state\":\"ACTIVE\",\"modelId\":\"claude-opus-4\"}"));
        assertThat(run.err()).isEqualTo("v2 is ACTIVE with weight 10: 10% of new sessions\n");
        assertThat(run.out()).contains("v1 (default)  ACTIVE  0       90%    -              3", "v2            ACTIVE  10      10%    claude-opus-4  0");
    }

    @Test
    void drain_withWait_showsTheOpenCountFalling_untilNoneIsOpen() throws Exception {
        String entry = "{\"versions\":[{\"version\":\"v1\",\"weight\":0,\"share\":0.0,\"state\":\"DRAINING\",\"openSessions\":%d},"
                + "{\"version\":\"v2\",\"weight\":10,\"share\":100.0,\"state\":\"ACTIVE\",\"openSessions\":4}]}";
        services.on("GET " + VERSIONS, 200, entry.formatted(2)) // the version exists
                .on("GET " + VERSIONS, 200, entry.formatted(2)) // its model, for the PUT
                .on("GET " + VERSIONS, 200, entry.formatted(1))
                .on("GET " + VERSIONS, 200, entry.formatted(1))
                .on("GET " + VERSIONS, 200, entry.formatted(0))
                .on("PUT " + VERSIONS, 200, entry.formatted(2));

        CliRun run = CliRun.run(services.env(), "versions", "drain", "v1", "--wait", "--interval", "10ms");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(JSON.readTree(services.requests("PUT", VERSIONS).get(0).body()))
                .isEqualTo(JSON.readTree("{\"version\":\"v1\",\"weight\":0,\"state\":\"DRAINING\"}"));
        assertThat(run.errLines()).extracting(l -> l.replaceAll(" \\(waited .*\\)$", ""))
                .containsExactly("drain v1: 2 sessions still open", "drain v1: 1 session still open");
        assertThat(run.out()).startsWith("v1 is drained: no open sessions (waited ");
    }

    @Test
    void drain_withoutWait_reportsTheOpenCountOnce_andJsonSaysWhetherItIsDrained() throws Exception {
        String entry = "{\"versions\":[{\"version\":\"v1\",\"weight\":0,\"share\":100.0,\"state\":\"DRAINING\",\"openSessions\":2}]}";
        services.on("GET " + VERSIONS, 200, entry).on("PUT " + VERSIONS, 200, entry);

        CliRun table = CliRun.run(services.env(), "versions", "drain", "v1");
        CliRun json = CliRun.run(services.env(), "versions", "drain", "v1", "--json");

        assertThat(table.out()).isEqualTo("v1 is DRAINING: 2 sessions still open\n");
        // the only version left takes no new sessions: said on stderr
        assertThat(table.err()).contains("warning: no ACTIVE version takes new sessions any more");
        assertThat(JSON.readTree(json.out())).isEqualTo(JSON.readTree(
                "{\"version\":\"v1\",\"weight\":0,\"share\":100.0,\"state\":\"DRAINING\",\"openSessions\":2,\"drained\":false}"));
    }

    @Test
    void drain_answeredWithAListThatLacksTheVersion_failsWithOneLineSayingSo() {
        services.onResource("GET " + VERSIONS, 200, "harness-versions.json")
                .on("PUT " + VERSIONS, 200, "{\"versions\":[{\"version\":\"v2\",\"weight\":10,\"share\":100.0,\"state\":\"ACTIVE\","
                        + "\"openSessions\":0}]}");

        CliRun run = CliRun.run(services.env(), "versions", "drain", "v1");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly("tether: the session-service answered the drain of v1 with a list of versions that "
                + "lacks it; 'tether versions list' shows where it stands");
    }

    @Test
    void drain_ofAVersionNobodyKnows_failsWithoutWritingAnything() {
        services.onResource("GET " + VERSIONS, 200, "harness-versions.json");

        CliRun run = CliRun.run(services.env(), "versions", "drain", "v9");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly("tether: no harness version v9 (there are: v1, v2)");
        assertThat(services.requests("PUT", VERSIONS)).isEmpty();
    }

    @Test
    void drain_withAMaximumWait_givesUpWithOneLine() {
        String entry = "{\"versions\":[{\"version\":\"v1\",\"weight\":0,\"share\":0.0,\"state\":\"DRAINING\",\"openSessions\":2},"
                + "{\"version\":\"v2\",\"weight\":10,\"share\":100.0,\"state\":\"ACTIVE\",\"openSessions\":0}]}";
        services.on("GET " + VERSIONS, 200, entry).on("PUT " + VERSIONS, 200, entry);

        CliRun run = CliRun.run(services.env(), "versions", "drain", "v1", "--wait", "--interval", "20ms", "--max-wait", "100ms");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines().get(run.errLines().size() - 1)).matches("tether: v1 is not drained after \\d+ ms: 2 sessions still open");
    }

    @Test
    void drain_withAMaximumWaitShorterThanTheInterval_givesUpAtTheMaximum_notAfterAWholeInterval() throws Exception {
        String entry = "{\"versions\":[{\"version\":\"v1\",\"weight\":0,\"share\":0.0,\"state\":\"DRAINING\",\"openSessions\":2},"
                + "{\"version\":\"v2\",\"weight\":10,\"share\":100.0,\"state\":\"ACTIVE\",\"openSessions\":0}]}";
        services.on("GET " + VERSIONS, 200, entry).on("PUT " + VERSIONS, 200, entry);

        var drain = CliRun.start(services.env(), new java.io.StringWriter(), "versions", "drain", "v1", "--wait", "--interval", "1h",
                "--max-wait", "3s");

        CliRun run = drain.get(30, java.util.concurrent.TimeUnit.SECONDS); // not an hour
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.errLines().get(run.errLines().size() - 1)).matches("tether: v1 is not drained after [\\d.]+ s: 2 sessions still open");
    }

    @Test
    void setWeight_refusedForATotalAbove100_isOneLineNamingTheField() {
        services.onResource("GET " + VERSIONS, 200, "harness-versions.json")
                .on("PUT " + VERSIONS, 400, "{\"error\":\"invalid_field\",\"message\":\"weights are percentages of new sessions: the ACTIVE "
                        + "versions would total 105 (v2 10, v3 95), at most 100 is allowed; lower another version's weight first\","
                        + "\"field\":\"weight\"}");

        CliRun run = CliRun.run(services.env(), "versions", "set-weight", "v3", "95");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly("tether: setting the weight of v3 was refused (400 invalid_field): weights are "
                + "percentages of new sessions: the ACTIVE versions would total 105 (v2 10, v3 95), at most 100 is allowed; lower another "
                + "version's weight first [field weight]");
    }

    @Test
    void anAnswerThatIsNotTethersApi_failsWithOneLine_pointingAtTheServiceUrls() {
        services.on("GET " + VERSIONS, 200, "<html>\n<body>Sign in to continue</body>\n</html>");

        CliRun html = CliRun.run(services.env(), "versions", "list");
        services.on("GET " + VERSIONS, 200, "").on("GET " + VERSIONS, 200, "");
        CliRun empty = CliRun.run(services.env(), "versions", "list");

        for (CliRun run : java.util.List.of(html, empty)) {
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
            assertThat(run.out()).isEmpty();
            assertThat(run.errLines()).as(run.toString()).hasSize(1);
            assertThat(run.err()).as(run.toString()).startsWith("tether: a service answered what is not Tether's API (the answer ")
                    .contains("are --session-url, --projector-url and --approvals-url Tether's services");
        }
    }

    @Test
    void theShareColumn_isTheSessionServicesShare_roundedToAWholePercent() {
        assertThat(VersionsCommand.percent(10.0)).isEqualTo("10%");
        assertThat(VersionsCommand.percent(33.33)).isEqualTo("33%");
        assertThat(VersionsCommand.percent(0)).isEqualTo("0%");
    }
}
