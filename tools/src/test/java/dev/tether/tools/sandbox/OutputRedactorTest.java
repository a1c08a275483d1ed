package dev.tether.tools.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.core.secrets.Scrubbed;
import dev.tether.testing.PlantedSecrets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutputRedactorTest {

    private final OutputRedactor redactor = new OutputRedactor();

    @Test
    void redactsEveryPlantedSecret_byItsKind() {
        for (PlantedSecrets.Planted planted : PlantedSecrets.all()) {

            Scrubbed scrubbed = redactor.redact("output: " + planted.text() + "\nmore output\n");

            assertThat(scrubbed.text()).as(planted.toString()).doesNotContain(planted.secret()).endsWith("\nmore output\n");
            assertThat(scrubbed.byKind()).as(planted.toString()).containsKey(planted.kind());
        }
    }

    @Test
    void redactsARegisteredSecret_whereverItOccurs_byItsName() {
        redactor.registerSecret("db", "plain-looking-value");

        Scrubbed scrubbed = redactor.redact("a plain-looking-value, b plain-looking-value.");

        assertThat(scrubbed.text()).isEqualTo("a [REDACTED:secret:db], b [REDACTED:secret:db].");
        assertThat(scrubbed.redactions()).isEqualTo(2);
        assertThat(scrubbed.byKind()).containsExactly(Map.entry("secret:db", 2));
    }

    @Test
    void redactsEnvironmentValues_ofSixCharactersOrMore_only() {
        redactor.registerEnvironment(Map.of("REGION", "eu-west-1", "DEBUG", "1", "MODE", "short"));

        Scrubbed scrubbed = redactor.redact("region eu-west-1, debug 1, mode short");

        assertThat(scrubbed.text()).isEqualTo("region [REDACTED:env:REGION], debug 1, mode short");
        assertThat(scrubbed.redactions()).isEqualTo(1);
    }

    @Test
    void redactsTheLongerValue_whenOneHoldsAnother() {
        redactor.registerSecret("short", "abcdef");
        redactor.registerSecret("long", "xx-abcdef-yy");

        assertThat(redactor.redact("xx-abcdef-yy and abcdef").text())
                .isEqualTo("[REDACTED:secret:long] and [REDACTED:secret:short]");
    }

    @Test
    void redactsRegisteredValues_andScrubberShapes_together() {
        redactor.registerSecret("token", "opaque-token-1234");

        Scrubbed scrubbed = redactor.redact("token=opaque-token-1234 password=hunter2 key AKIATETHERFAKE000001");

        assertThat(scrubbed.text()).isEqualTo(
                "token=[REDACTED:secret:token] password=[REDACTED:password-assignment] key [REDACTED:aws-access-key]");
        assertThat(scrubbed.redactions()).isEqualTo(3);
    }

    @Test
    void findsTheScrubbersShapes_inTheTextAsItIs_soARegisteredValueBesideASecretHidesNoneOfIt() {
        redactor.registerEnvironment(Map.of("DB_USER", "tether"));

        // found in pieces between the registered values, each lost its context: the password after the user name, the
        // assignment's name, the rest of a value that begins with the registered one
        for (String text : new String[] {"postgres://tether:S3cretPw99@db:5432/app", "tether_password=hunter2",
                "password: tether2024secret"}) {
            Scrubbed scrubbed = redactor.redact(text);

            assertThat(scrubbed.text()).as(text).doesNotContain("S3cretPw99").doesNotContain("hunter2").doesNotContain("2024secret")
                    .doesNotContain("tether:").doesNotStartWith("tether");
        }
        assertThat(redactor.redact("postgres://tether:S3cretPw99@db:5432/app").text())
                .isEqualTo("postgres://[REDACTED:env:DB_USER]:[REDACTED:url-password]@db:5432/app");
        assertThat(redactor.redact("password: tether2024secret").text()).isEqualTo("password: [REDACTED:env:DB_USER]");
    }

    @Test
    void leavesItsOwnMarkersAlone_soRedactingTwiceChangesNothing() {
        redactor.registerSecret("github_token", "some-registered-value");
        redactor.registerEnvironment(Map.of("API_SECRET", "another-registered-value"));
        String once = redactor.redact("secret: some-registered-value, env another-registered-value, password=x").text();

        Scrubbed twice = redactor.redact(once);

        assertThat(once).isEqualTo(
                "secret: [REDACTED:secret:github_token], env [REDACTED:env:API_SECRET], password=[REDACTED:password-assignment]");
        assertThat(twice.text()).isEqualTo(once);
        assertThat(twice.redactions()).isZero();
    }

    @Test
    void redactsTheBeginningOfARegisteredValue_thatEndsACutText() {
        redactor.registerSecret("db", "multi word secret value");

        assertThat(redactor.redactCut("the last line: multi word sec").text())
                .isEqualTo("the last line: [REDACTED:secret:db]");
        assertThat(redactor.redact("the last line: multi word sec").text())
                .isEqualTo("the last line: multi word sec");
    }

    @Test
    void ignoresEmptySecrets_andNeverShowsValues() {
        redactor.registerSecret("empty", "");
        redactor.registerSecret("db", "value-never-shown");

        assertThat(redactor.redact("nothing to redact").text()).isEqualTo("nothing to redact");
        assertThat(redactor).hasToString("OutputRedactor[secret:db]");
    }
}
