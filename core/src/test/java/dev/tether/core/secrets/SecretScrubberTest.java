package dev.tether.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tether.core.event.JsonSyntax;
import dev.tether.testing.PlantedSecrets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

public class SecretScrubberTest {

    /**
     * A fake secret as it would be planted in a request or a tool's output.
     *
     * @param kind the kind it must be redacted as
     * @param text what to plant: the secret with the context that makes it recognisable (a name, a header, a URL)
     * @param secret what must never come out: appears in {@code text}, unique among all planted secrets
     */

    private final SecretScrubber scrubber = SecretScrubber.standard();

    // --- every planted secret ---

    @ParameterizedTest
    @MethodSource("dev.tether.testing.PlantedSecrets#all")
    void redactsEveryPlantedSecret_namingItsKind_andKeepsTheTextAround(PlantedSecrets.Planted planted) {
        Scrubbed scrubbed = scrubber.scrub("before " + planted.text() + " after");

        assertThat(scrubbed.text())
                .doesNotContain(planted.secret())
                .contains("[REDACTED:" + planted.kind() + "]")
                .startsWith("before ")
                .endsWith(" after");
        assertThat(scrubbed.redactions()).isEqualTo(1);
        assertThat(scrubbed.byKind()).containsExactly(entry(planted.kind(), 1));
    }

    @ParameterizedTest
    @MethodSource("dev.tether.testing.PlantedSecrets#all")
    void leavesNoFragmentOfAPlantedSecret(PlantedSecrets.Planted planted) {
        String scrubbed = scrubber.scrub(planted.text()).text();

        String secret = planted.secret();
        for (int i = 0; i + 8 <= secret.length(); i++) {
            assertThat(scrubbed).doesNotContain(secret.substring(i, i + 8));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.tether.testing.PlantedSecrets#all")
    void scrubbingTwice_changesNothingTheSecondTime(PlantedSecrets.Planted planted) {
        String once = scrubber.scrub("x " + planted.text() + "\n").text();

        Scrubbed twice = scrubber.scrub(once);

        assertThat(twice.text()).isEqualTo(once);
        assertThat(twice.redactions()).isZero();
    }

    @Test
    void plantedSecrets_areUnique_andCoverEveryKind() {
        List<PlantedSecrets.Planted> planted = PlantedSecrets.all();

        assertThat(planted).hasSizeGreaterThanOrEqualTo(25);
        assertThat(planted).extracting(PlantedSecrets.Planted::secret).doesNotHaveDuplicates();
        assertThat(planted).allSatisfy(p -> assertThat(p.text()).contains(p.secret()));
        assertThat(planted.stream().map(PlantedSecrets.Planted::kind).collect(Collectors.toSet())).containsExactlyInAnyOrder(
                "private-key", "aws-access-key", "aws-secret-key", "github-token", "gitlab-token", "slack-token",
                "slack-webhook", "anthropic-key", "openai-key", "stripe-key", "google-api-key", "jwt", "bearer-token",
                "basic-auth", "url-password", "password-assignment", "secret-assignment");
    }

    @Test
    void redactsAllPlantedSecretsAtOnce_countingEachByKind() {
        String all = PlantedSecrets.all().stream().map(PlantedSecrets.Planted::text).collect(Collectors.joining("\n"));

        Scrubbed scrubbed = scrubber.scrub(all);

        assertThat(PlantedSecrets.all()).allSatisfy(p -> assertThat(scrubbed.text()).doesNotContain(p.secret()));
        assertThat(scrubbed.redactions()).isEqualTo(PlantedSecrets.all().size());
        assertThat(scrubbed.byKind()).isEqualTo(PlantedSecrets.all().stream()
                .collect(Collectors.groupingBy(PlantedSecrets.Planted::kind, Collectors.summingInt(p -> 1))));
        assertThat(scrubber.scrub(scrubbed.text()).text()).isEqualTo(scrubbed.text());
    }

    @Test
    void scrubbingTwice_changesNothing_evenForSecretsGluedToPunctuationAndEachOther() {
        List<String> pieces = Stream.concat(
                        PlantedSecrets.all().stream().map(PlantedSecrets.Planted::text),
                        Stream.of(" ", "\n", "\\n", "\\", "\"", "\\\"", "'", "`", "=", ":", "://", "@", "[", "]", "{",
                                "}", ",", ")", "-", "_", "%22", "**", "x", "7", "&", "secret://x", "[REDACTED:jwt]",
                                "password", "api_key", "KEY", "Bearer ", "Authorization: ", "sk-", "eyJ", "AKIA",
                                "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----"))
                .toList();
        var random = new Random(20260101);
        for (int n = 0; n < 5_000; n++) {
            var text = new StringBuilder();
            for (int i = random.nextInt(12); i >= 0; i--) {
                text.append(pieces.get(random.nextInt(pieces.size())));
            }
            String once = scrubber.scrub(text.toString()).text();

            Scrubbed twice = scrubber.scrub(once);

            assertThat(twice.text()).as("scrubbed twice: %s", text).isEqualTo(once);
            assertThat(twice.redactions()).isZero();
        }
    }

    // --- kind by kind ---

    @Test
    void redactsAwsAccessKey_keepsSurroundingText() {
        assertThat(scrubber.scrub("export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE # dev account").text())
                .isEqualTo("export AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key] # dev account");
    }

    @Test
    void redactsAwsSecretKey_whenNamed_butNotABare40CharacterString() {
        String secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

        assertThat(scrubber.scrub("aws_secret_access_key=" + secret).text())
                .isEqualTo("aws_secret_access_key=[REDACTED:aws-secret-key]");
        assertThat(scrubber.scrub("AWS_SECRET_ACCESS_KEY: '" + secret + "'").text())
                .isEqualTo("AWS_SECRET_ACCESS_KEY: '[REDACTED:aws-secret-key]'");
        assertThat(scrubber.scrub("artifact digest " + secret).redactions()).isZero();
    }

    @Test
    void replacesAWholePemBlock_byOneMarker() {
        String text = """
                key follows:
                -----BEGIN OPENSSH PRIVATE KEY-----
                b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
                QyNTUxOQAAACDTetherFakeOpenSshKeyLineTwoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
                -----END OPENSSH PRIVATE KEY-----
                done""";

        Scrubbed scrubbed = scrubber.scrub(text);

        assertThat(scrubbed.text()).isEqualTo("key follows:\n[REDACTED:private-key]\ndone");
        assertThat(scrubbed.redactions()).isEqualTo(1);
    }

    @Test
    void redactsAnEncryptedPemBlock_withItsHeaders() {
        String text = """
                -----BEGIN RSA PRIVATE KEY-----
                Proc-Type: 4,ENCRYPTED
                DEK-Info: AES-128-CBC,3F17F5316E2BAC89TETHERFAKE

                TetherFakeEncryptedRsaBody+/abcdefghijklmnopqrstuvwxyz0123456789==
                -----END RSA PRIVATE KEY-----
                """;

        assertThat(scrubber.scrub(text).text()).isEqualTo("[REDACTED:private-key]\n");
    }

    @Test
    void redactsAPemBlockInJson_withEscapedLineBreaks_asOnePrivateKey() {
        String serviceAccount = "{\"type\": \"service_account\", \"private_key_id\": \"1a2b3c\", \"private_key\": "
                + "\"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANTetherFakeGcpKey\\nAAAA==\\n"
                + "-----END PRIVATE KEY-----\\n\","
                + " \"client_email\": \"agent@tether-fake.iam.gserviceaccount.com\"}";

        Scrubbed scrubbed = scrubber.scrub(serviceAccount);

        assertThat(scrubbed.text()).isEqualTo("{\"type\": \"service_account\", \"private_key_id\": \"1a2b3c\","
                + " \"private_key\": \"[REDACTED:private-key]\","
                + " \"client_email\": \"agent@tether-fake.iam.gserviceaccount.com\"}");
        assertThat(scrubbed.byKind()).containsExactly(entry("private-key", 1));
    }

    @Test
    void redactsATruncatedPemBlock_throughTheEndOfItsBody() {
        String text = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANTetherFakeTruncated\nAAAAB3NzaC1yc2EAAAADAQAB\n"
                + "[output truncated at 64 KiB]";

        assertThat(scrubber.scrub(text).text()).isEqualTo("[REDACTED:private-key][output truncated at 64 KiB]");
    }

    @Test
    void redactsATruncatedPgpBlock_pastArmorHeadersWithPunctuation() {
        String text = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v1.4.11 (GNU/Linux)\n"
                + "Comment: Agent <agent@tether-fake.example>\n\nlQOYBFTetherFakePgpBody0123456789+/abcdefg\n=abcd\n"
                + "[output truncated at 64 KiB]";

        assertThat(scrubber.scrub(text).text()).isEqualTo("[REDACTED:private-key][output truncated at 64 KiB]");
        assertThat(scrubber.scrub(text.replace("\n", "\\n")).text())
                .as("JSON-escaped line breaks")
                .isEqualTo("[REDACTED:private-key][output truncated at 64 KiB]");
    }

    @Test
    void redactsAWholeSanctumStyleBearerToken_notOnlyItsId() {
        String token = "3|TetherFakeSanctumToken0123456789abcdefgh";

        assertThat(scrubber.scrub("curl -H 'Authorization: Bearer " + token + "' https://api.example.com").text())
                .isEqualTo("curl -H 'Authorization: Bearer [REDACTED:bearer-token]' https://api.example.com");
        assertThat(scrubber.scrub("use bearer " + token + " here").text())
                .isEqualTo("use bearer [REDACTED:bearer-token] here");
        assertUnchanged("pipe the bearer 3| into grep");
    }

    @Test
    void redactsABearerToken_inACurlCommandLine() {
        String command =
                "curl -sS -H \"Authorization: Bearer tether-fake-curl-token-1\" https://api.example.com/v1/runs";

        assertThat(scrubber.scrub(command).text()).isEqualTo(
                "curl -sS -H \"Authorization: Bearer [REDACTED:bearer-token]\" https://api.example.com/v1/runs");
    }

    @Test
    void redactsAGithubStyleTokenHeader_andABasicAuthHeader() {
        assertThat(scrubber.scrub("Authorization: token tether-fake-legacy-token").text())
                .isEqualTo("Authorization: token [REDACTED:bearer-token]");
        assertThat(scrubber.scrub("> authorization: Basic dXNlcjpwYXNz\r\n").text())
                .isEqualTo("> authorization: Basic [REDACTED:basic-auth]\r\n");
    }

    @Test
    void namesAJwtInAnAuthorizationHeader_asAJwt_once() {
        String jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXRoZXItZmFrZS1qd3QtaGVhZGVyLXRlc3QifQ.c2lnbmF0dXJl";

        Scrubbed scrubbed = scrubber.scrub("Authorization: Bearer " + jwt);

        assertThat(scrubbed.text()).isEqualTo("Authorization: Bearer [REDACTED:jwt]");
        assertThat(scrubbed.byKind()).containsExactly(entry("jwt", 1));
    }

    @Test
    void redactsAJwtAnywhere() {
        String jwt = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ0ZXRoZXIifQ.TetherFakeSig-_abc";

        assertThat(scrubber.scrub("Set-Cookie: session=" + jwt + "; HttpOnly").text())
                .isEqualTo("Set-Cookie: session=[REDACTED:jwt]; HttpOnly");
        assertThat(scrubber.scrub("[" + jwt + "]").text()).isEqualTo("[[REDACTED:jwt]]");
    }

    @Test
    void reportsAnAnthropicKeyAsAnthropic_notAsOpenai() {
        Scrubbed scrubbed = scrubber.scrub("ANTHROPIC_KEY_VALUE sk-ant-api03-TetherFakeAnthropicOnly_abcdefghijklmn");

        assertThat(scrubbed.byKind()).containsExactly(entry("anthropic-key", 1));
        assertThat(scrubbed.text()).isEqualTo("ANTHROPIC_KEY_VALUE [REDACTED:anthropic-key]");
    }

    @Test
    void redactsSlackWebhookPath_keepingTheHost() {
        assertThat(scrubber.scrub("POST https://hooks.slack.com/services/T00000000/B00000000/TetherFakeHook0000 ok")
                        .text())
                .isEqualTo("POST https://hooks.slack.com/services/[REDACTED:slack-webhook] ok");
    }

    @Test
    void mergesOverlappingDetections_underTheMostSpecificKind() {
        Scrubbed scrubbed = scrubber.scrub("GITHUB_TOKEN=ghp_TetherFakeGithubMergedToken0000000000");

        assertThat(scrubbed.text()).isEqualTo("GITHUB_TOKEN=[REDACTED:github-token]");
        assertThat(scrubbed.redactions()).isEqualTo(1);
        assertThat(scrubbed.byKind()).containsExactly(entry("github-token", 1));
    }

    static Stream<Arguments> assignments() {
        return Stream.of(
                Arguments.of("password=hunter2", "password=[REDACTED:password-assignment]"),
                Arguments.of("PASSWORD: \"hunter2\"", "PASSWORD: \"[REDACTED:password-assignment]\""),
                Arguments.of("passwd: hunter2", "passwd: [REDACTED:password-assignment]"),
                Arguments.of("pwd=hunter2", "pwd=[REDACTED:password-assignment]"),
                Arguments.of("Passphrase = 'correct horse'", "Passphrase = '[REDACTED:password-assignment]'"),
                Arguments.of("spring.datasource.password=hunter2",
                        "spring.datasource.password=[REDACTED:password-assignment]"),
                Arguments.of("mysql -u root --password=hunter2 tether",
                        "mysql -u root --password=[REDACTED:password-assignment] tether"),
                Arguments.of("password := \"hunter2\"", "password := \"[REDACTED:password-assignment]\""),
                Arguments.of("{:password => \"hunter2\"}", "{:password => \"[REDACTED:password-assignment]\"}"),
                Arguments.of("api_key=abc123", "api_key=[REDACTED:secret-assignment]"),
                Arguments.of("apikey: abc123", "apikey: [REDACTED:secret-assignment]"),
                Arguments.of("apiKey: 'abc123'", "apiKey: '[REDACTED:secret-assignment]'"),
                Arguments.of("secret: abc123", "secret: [REDACTED:secret-assignment]"),
                Arguments.of("client_secret=abc123", "client_secret=[REDACTED:secret-assignment]"),
                Arguments.of("clientSecret=abc123", "clientSecret=[REDACTED:secret-assignment]"),
                Arguments.of("dbPassword: hunter2", "dbPassword: [REDACTED:password-assignment]"),
                Arguments.of("SIGNING_KEY_2=abc123 signingKey=abc123",
                        "SIGNING_KEY_2=[REDACTED:secret-assignment] signingKey=[REDACTED:secret-assignment]"),
                Arguments.of("token=abc123", "token=[REDACTED:secret-assignment]"),
                Arguments.of("X-Auth-Token: abc123", "X-Auth-Token: [REDACTED:secret-assignment]"),
                Arguments.of("GET /cb?code=1&access_token=abc123&state=xyz",
                        "GET /cb?code=1&access_token=[REDACTED:secret-assignment]&state=xyz"),
                Arguments.of("**Password:** hunter2", "**Password:** [REDACTED:password-assignment]"),
                Arguments.of("- `api_key`: `abc123`", "- `api_key`: `[REDACTED:secret-assignment]`"),
                Arguments.of("token=abc,def)]x y", "token=[REDACTED:secret-assignment] y"),
                Arguments.of("{\"password\": \"hunter2\", \"user\": \"bob\"}",
                        "{\"password\": \"[REDACTED:password-assignment]\", \"user\": \"bob\"}"),
                Arguments.of("{\"password\": \"hun\\\"ter2\"}", "{\"password\": \"[REDACTED:password-assignment]\"}"),
                Arguments.of("{\"arguments\": \"{\\\"password\\\":\\\"hunter2\\\"}\"}",
                        "{\"arguments\": \"{\\\"password\\\":\\\"[REDACTED:password-assignment]\\\"}\"}"),
                Arguments.of("{\"stdout\": \"DB_PASSWORD=hunter2\\nPORT=5432\"}",
                        "{\"stdout\": \"DB_PASSWORD=[REDACTED:password-assignment]\\nPORT=5432\"}"),
                Arguments.of("DB_PASS=hunter2 SMTP_PASS=\"s3cr3t\"", "DB_PASS=[REDACTED:password-assignment] SMTP_PASS=\"[REDACTED:password-assignment]\""),
                Arguments.of("{\"db_pass\": \"hunter2\"} mail.pass: hunter2",
                        "{\"db_pass\": \"[REDACTED:password-assignment]\"} mail.pass: [REDACTED:password-assignment]"),
                Arguments.of("{\"stdout\": \"PORT=5432\\napi_key=abc123\\tSOME_NAME_KEY=abc123\"}",
                        "{\"stdout\": \"PORT=5432\\napi_key=[REDACTED:secret-assignment]"
                                + "\\tSOME_NAME_KEY=[REDACTED:secret-assignment]\"}"),
                // a name of more than 64 characters that ends in password
                Arguments.of("ACME_PAYMENTS_PRODUCTION_EU_WEST_PRIMARY_DATABASE_REPLICATION_USER_PASSWORD=hunter2",
                        "ACME_PAYMENTS_PRODUCTION_EU_WEST_PRIMARY_DATABASE_REPLICATION_USER_PASSWORD=[REDACTED:password-assignment]"),
                // a name that starts with underscores, as private fields and internal variables do
                Arguments.of("_PASSWORD=hunter2", "_PASSWORD=[REDACTED:password-assignment]"),
                Arguments.of("{\"_token\": \"abc123\"}", "{\"_token\": \"[REDACTED:secret-assignment]\"}"),
                Arguments.of("const __apiKey = 'abc123';", "const __apiKey = '[REDACTED:secret-assignment]';"),
                // a credential among the tokens of text and cursors: the word before token decides
                Arguments.of("{\"refresh_token\": \"abc123\", \"next_access_token\": \"def456\", \"id_token\": \"ghi789\"}",
                        "{\"refresh_token\": \"[REDACTED:secret-assignment]\", \"next_access_token\": \"[REDACTED:secret-assignment]\","
                                + " \"id_token\": \"[REDACTED:secret-assignment]\"}"),
                // a literal's look-alike is a value
                Arguments.of("{\"password\": \"null\", \"token\": nullable, \"secret\": 0}",
                        "{\"password\": \"[REDACTED:password-assignment]\", \"token\": [REDACTED:secret-assignment],"
                                + " \"secret\": [REDACTED:secret-assignment]}"),
                Arguments.of("{\"access_tokens\": [\"abc123\"], \"pageSecret\": \"def456\"}",
                        "{\"access_tokens\": [\"[REDACTED:secret-assignment]\"], \"pageSecret\": \"[REDACTED:secret-assignment]\"}"));
    }

    @ParameterizedTest
    @MethodSource("assignments")
    void keepsTheName_andRedactsTheValue_ofASecretAssignment(String text, String scrubbed) {
        assertThat(scrubber.scrub(text).text()).isEqualTo(scrubbed);
    }

    @Test
    void keepsTheClosingPunctuationOfJavaToStrings() {
        assertThat(scrubber.scrub("Creds[user=bob, password=hunter2]").text())
                .isEqualTo("Creds[user=bob, password=[REDACTED:password-assignment]]");
        assertThat(scrubber.scrub("{password=hunter2, user=bob}").text())
                .isEqualTo("{password=[REDACTED:password-assignment], user=bob}");
    }

    // --- an array or object under a secret name ---

    static Stream<Arguments> containersUnderASecretName() {
        return Stream.of(
                Arguments.of("{\"api_key\":[\"TetherFakeArrayKey01\"]}",
                        "{\"api_key\":[\"[REDACTED:secret-assignment]\"]}"),
                Arguments.of("{\"api_key\": [\"TetherFakeArrayKey01\", \"TetherFakeArrayKey02\"], \"user\": \"bob\"}",
                        "{\"api_key\": [\"[REDACTED:secret-assignment]\", \"[REDACTED:secret-assignment]\"],"
                                + " \"user\": \"bob\"}"),
                Arguments.of("{\"password\": {\"value\": \"hunter2\", \"n\": 3}, \"user\": \"bob\"}",
                        "{\"password\": {\"value\": \"[REDACTED:password-assignment]\", \"n\": 3}, \"user\": \"bob\"}"),
                // every depth: what is under a secret name stays a secret however deep it is put
                Arguments.of("{\"client_secret\": {\"current\": {\"value\": \"s1\"}, \"old\": [[\"s2\"], {\"v\": \"s3\"}]}}",
                        "{\"client_secret\": {\"current\": {\"value\": \"[REDACTED:secret-assignment]\"}, "
                                + "\"old\": [[\"[REDACTED:secret-assignment]\"], {\"v\": \"[REDACTED:secret-assignment]\"}]}}"),
                // a list of secrets takes a plural name, which for a count it does not (MAX_TOKENS=4096)
                Arguments.of("{\"tokens\":[\"a\",\"b\"]}",
                        "{\"tokens\":[\"[REDACTED:secret-assignment]\",\"[REDACTED:secret-assignment]\"]}"),
                Arguments.of("{\"passwords\": [\"hunter2\"], \"apiKeys\": {\"prod\": \"abc123\"}}",
                        "{\"passwords\": [\"[REDACTED:password-assignment]\"], "
                                + "\"apiKeys\": {\"prod\": \"[REDACTED:secret-assignment]\"}}"),
                // numbers, booleans, null and the empty string are not secrets, and JSON needs them as they are
                Arguments.of("{\"password\": [\"hunter2\", 42, -1.5e3, true, false, null, \"\"]}",
                        "{\"password\": [\"[REDACTED:password-assignment]\", 42, -1.5e3, true, false, null, \"\"]}"),
                // pretty-printed
                Arguments.of("{\n  \"api_key\": [\n    \"abc123\",\n    \"def456\"\n  ],\n  \"model\": \"m1\"\n}",
                        "{\n  \"api_key\": [\n    \"[REDACTED:secret-assignment]\",\n    \"[REDACTED:secret-assignment]\"\n  ],"
                                + "\n  \"model\": \"m1\"\n}"),
                // JSON text in a JSON string, as tool arguments are
                Arguments.of("{\"arguments\": \"{\\\"api_key\\\":[\\\"abc123\\\"],\\\"q\\\":\\\"x\\\"}\"}",
                        "{\"arguments\": \"{\\\"api_key\\\":[\\\"[REDACTED:secret-assignment]\\\"],\\\"q\\\":\\\"x\\\"}\"}"),
                // Python's repr, YAML's flow style and JavaScript, whose strings the rule reads as well
                Arguments.of("{'api_key': ['abc123', 7], 'user': 'bob'}",
                        "{'api_key': ['[REDACTED:secret-assignment]', 7], 'user': 'bob'}"),
                Arguments.of("api_keys: [abc123, def456]\npassword: {value: hunter2}\nuser: bob",
                        "api_keys: [[REDACTED:secret-assignment], [REDACTED:secret-assignment]]\n"
                                + "password: {value: [REDACTED:password-assignment]}\nuser: bob"),
                Arguments.of("const c = {apiKey: [\"abc123\"], retries: 3};",
                        "const c = {apiKey: [\"[REDACTED:secret-assignment]\"], retries: 3};"));
    }

    @ParameterizedTest
    @MethodSource("containersUnderASecretName")
    void redactsEveryStringOfAnArrayOrObject_underASecretName_keepingItsStructure(String text, String scrubbed) {
        assertThat(scrubber.scrub(text).text()).isEqualTo(scrubbed);
    }

    @Test
    void anArrayOrObjectUnderASecretName_staysJson_andEachStringInItIsOneRedaction() {
        String json = "{\"credentials\": {\"user\": \"u1\", \"password\": \"p1\", \"port\": 5432, \"tls\": true},"
                + " \"api_key\": [\"k1\", \"k2\", null], \"max_tokens\": 512, \"tags\": [\"t1\"]}";

        Scrubbed scrubbed = scrubber.scrub(json);

        assertThat(JsonSyntax.isValue(scrubbed.text())).as("still JSON: %s", scrubbed.text()).isTrue();
        assertThat(scrubbed.text()).isEqualTo("{\"credentials\": {\"user\": \"[REDACTED:secret-assignment]\","
                + " \"password\": \"[REDACTED:password-assignment]\", \"port\": 5432, \"tls\": true},"
                + " \"api_key\": [\"[REDACTED:secret-assignment]\", \"[REDACTED:secret-assignment]\", null],"
                + " \"max_tokens\": 512, \"tags\": [\"t1\"]}");
        assertThat(scrubbed.byKind()).containsOnly(entry("secret-assignment", 3), entry("password-assignment", 1));
    }

    @Test
    void leavesWhatIsNoSecret_inAnArrayOrObjectUnderASecretName() {
        for (String text : List.of(
                "{\"api_key\": [], \"token\": {}, \"n\": 1}",
                "{\"api_key\": [\"secret://openai\"], \"token\": {\"ref\": \"secret://github/ci\"}}",
                "api_keys: [secret://openai, secret://anthropic]",
                "{\"usedTokens\":{\"inputTokens\":1842,\"outputTokens\":92},\"max_tokens\":[256, 512]}",
                "{\"password\": [\"[REDACTED:password-assignment]\"]}",
                // a JSON Schema that describes a secret, as a tool's parameters do, holds none
                "{\"properties\": {\"api_key\": {\"type\": \"string\", \"description\": \"the caller's key\"},"
                        + " \"password\": {\"type\": [\"string\", \"null\"], \"format\": \"password\","
                        + " \"$ref\": \"#/$defs/pw\", \"title\": \"Password\"}}}")) {
            assertUnchanged(text);
        }
    }

    @Test
    void aBracketThatDoesNotClose_isReadAsAnyOtherValue_andTheRestOfTheTextStays() {
        assertThat(scrubber.scrub("login(user=bob, password=[C@6d06d69c) failed; the \"retry\" said 'no'\n"
                        + "{\"status\": \"error\", \"detail\": \"x\"}").text())
                .isEqualTo("login(user=bob, password=[REDACTED:password-assignment]) failed; the \"retry\" said 'no'\n"
                        + "{\"status\": \"error\", \"detail\": \"x\"}");
        assertThat(scrubber.scrub("{\"stdout\": \"token=[abc\", \"api_key\": [\"k1\"], \"n\": \"x\"}").text())
                .isEqualTo("{\"stdout\": \"token=[REDACTED:secret-assignment]\","
                        + " \"api_key\": [\"[REDACTED:secret-assignment]\"], \"n\": \"x\"}");
    }

    @Test
    void redactsEnvFileLines_keepingTheVariableNames() {
        String env = """
                # .env
                DB_HOST=db.internal
                DB_PASSWORD=hunter2
                STRIPE_SECRET=tether-fake-stripe-secret
                export GITHUB_TOKEN=tether-fake-gh
                SOME_NAME_KEY=value
                GOOGLE_CREDENTIALS=tether-fake-credentials
                MAX_TOKENS=4096
                """;

        Scrubbed scrubbed = scrubber.scrub(env);

        assertThat(scrubbed.text()).isEqualTo("""
                # .env
                DB_HOST=db.internal
                DB_PASSWORD=[REDACTED:password-assignment]
                STRIPE_SECRET=[REDACTED:secret-assignment]
                export GITHUB_TOKEN=[REDACTED:secret-assignment]
                SOME_NAME_KEY=[REDACTED:secret-assignment]
                GOOGLE_CREDENTIALS=[REDACTED:secret-assignment]
                MAX_TOKENS=4096
                """);
        assertThat(scrubbed.byKind())
                .containsOnly(entry("password-assignment", 1), entry("secret-assignment", 4));
    }

    @Test
    void redactsTheUrlPassword_keepingUserAndHost() {
        assertThat(scrubber.scrub("DATABASE_URL=postgres://tether:pw123@db.internal:5432/sessions").text())
                .isEqualTo("DATABASE_URL=postgres://tether:[REDACTED:url-password]@db.internal:5432/sessions");
        assertThat(scrubber.scrub("redis://:cachepw@cache:6379/0").text())
                .isEqualTo("redis://:[REDACTED:url-password]@cache:6379/0");
        assertThat(scrubber.scrub("mongodb+srv://agent:p@ss:word@cluster0.example.net/db").text())
                .isEqualTo("mongodb+srv://agent:[REDACTED:url-password]@cluster0.example.net/db");
    }

    @Test
    void redactsTheUrlPassword_ofAJsonEscapedUrl() {
        assertThat(scrubber.scrub("{\"url\": \"https:\\/\\/agent:TetherFakeEscUrlPw@db.internal\\/x\"}").text())
                .isEqualTo("{\"url\": \"https:\\/\\/agent:[REDACTED:url-password]@db.internal\\/x\"}");
        assertUnchanged("{\"url\": \"https:\\/\\/db.internal:5432\\/x?at=a:b@c\"} C:\\/\\/ \\/\\/ a:b@c");
    }

    @Test
    void redactsTokensRightAfterAnEscape_butNotInsideAWord() {
        String token = "ghp_TetherFakeGithubAfterEscape00000000001";

        assertThat(scrubber.scrub("{\"stdout\": \"export\\n" + token + "\"}").text())
                .isEqualTo("{\"stdout\": \"export\\n[REDACTED:github-token]\"}");
        assertThat(scrubber.scrub("GET /cb?t=%22" + token + "%22").text())
                .isEqualTo("GET /cb?t=%22[REDACTED:github-token]%22");
        assertThat(scrubber.scrub("\\u0022AKIATETHERFAKEESC001\\u0022").text())
                .isEqualTo("\\u0022[REDACTED:aws-access-key]\\u0022");
        assertUnchanged("task-0123456789abcdefghijkl and disk-usage-report-for-all-volumes");
    }

    @Test
    void redactsAProxyAuthorizationHeader() {
        assertThat(scrubber.scrub("Proxy-Authorization: Basic dXNlcjpwYXNz").text())
                .isEqualTo("Proxy-Authorization: Basic [REDACTED:basic-auth]");
    }

    @Test
    void redactsATokenUsedAsTheUserOfAUrl_idempotently() {
        String url = "https://ghp_TetherFakeGithubUrlUser000000000000000001:x-oauth-basic@github.com/o/r.git";

        Scrubbed once = scrubber.scrub(url);
        Scrubbed twice = scrubber.scrub(once.text());

        assertThat(once.text())
                .isEqualTo("https://[REDACTED:github-token]:[REDACTED:url-password]@github.com/o/r.git");
        assertThat(twice.text()).isEqualTo(once.text());
        assertThat(twice.redactions()).isZero();
    }

    // --- what must stay ---

    @Test
    void leavesSecretReferencesUntouched() {
        for (String text : List.of(
                "api_key=secret://openai",
                "{\"token\": \"secret://github/ci\"}",
                "OPENAI_API_KEY=secret://openai password: secret://db",
                "Authorization: Bearer secret://api-gateway",
                "see secret://slack-webhook for the URL")) {
            assertUnchanged(text);
        }
    }

    @Test
    void leavesProseAlone() {
        for (String text : List.of(
                "the password policy requires 12 characters",
                "set the token budget to 8000 before the next turn",
                "Use a bearer token for the API; the bearer of a token is trusted.",
                "the secret to a good keyboard is its switches",
                "Passwords and API keys are never stored in a session.")) {
            assertUnchanged(text);
        }
    }

    @Test
    void leavesShortLookalikesAndIdentifiersAlone() {
        for (String text : List.of(
                "sk-1",
                "sk-learn and risk-management-for-everybody-and-their-teams",
                "task-0123456789abcdefghij",
                "AKIA is the prefix of an access key id",
                "ghp_short",
                "keyboard=us tokenizer=cl100k_base")) {
            assertUnchanged(text);
        }
    }

    @Test
    void leavesUuidsAndHashesAlone() {
        for (String text : List.of(
                "session 3f2b8c1e-9d4a-4e6f-8b1a-2c3d4e5f6a7b started",
                "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
                "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")) {
            assertUnchanged(text);
        }
    }

    @Test
    void leavesCountsAndNonSecretNamesAlone() {
        for (String text : List.of(
                "MAX_TOKENS=4096",
                "max_tokens: 4096",
                "input_tokens=12 output_tokens=34",
                "token_budget=5000",
                "token_type=bearer",
                // a token of text or a cursor, by the word before it: a model's, a tokenizer's, a paged API's
                "{\"stop_tokens\": [\"</s>\", \"<|end|>\"], \"max_new_tokens\": 512, \"eos_token\": \"</s>\"}",
                "{\"special_tokens\": {\"pad_token\": \"<pad>\", \"unk_token\": \"<unk>\"}}",
                "{\"pageToken\": \"CAEQAA\", \"nextPageToken\": \"CAIQAA\", \"next_page_token\": \"abc123\"}",
                "{\"NextToken\": \"eyJ2IjoxfQ\", \"ContinuationToken\": \"1ueGcxLPRx1Tr\", \"syncToken\": \"CPDAlvWDx70CEPDAlvWDx70CGAU\"}",
                "MAX_TOKEN=4096",
                // no value, or whether there is one: JSON stays JSON
                "{\"is_secret\": true, \"token\": null, \"password\": false, \"use_token\": TRUE}",
                "password = None; api_key = nil; secret: undefined",
                "idempotencyKey=turn-7 partition_key=s-1 key=s-1",
                "PWD=/srv/agent OLDPWD=/",
                "password_policy=strict",
                "pass=12 fail=0",
                "password: ********",
                "secret::Scope token::Kind",
                "DATABASE_URL=postgres://db.internal:5432/sessions")) {
            assertUnchanged(text);
        }
    }

    @Test
    void leavesMarkdownAndFilePathsAlone() {
        for (String text : List.of(
                """
                ## Secrets

                Tether never stores a **password** or an *API key*; reference them as `secret://name`.

                | Field  | Meaning                    |
                |--------|----------------------------|
                | token  | the bearer of the session  |
                """,
                "/etc/ssl/private/server.key ~/.aws/credentials C:\\Users\\agent\\secrets\\token.txt",
                "http://localhost:8080/api ssh://git@github.com/org/repo.git git@github.com:org/repo.git",
                "http://[::1]:8080/health http://user@[fe80::1]:80/",
                "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----")) {
            assertUnchanged(text);
        }
    }

    @Test
    void returnsNull_forNull() {
        Scrubbed scrubbed = scrubber.scrub(null);

        assertThat(scrubbed.text()).isNull();
        assertThat(scrubbed.redactions()).isZero();
        assertThat(scrubbed.byKind()).isEmpty();
        assertThat(scrubbed.redactedAny()).isFalse();
    }

    // --- where secrets turn up ---

    @Test
    void redactsSecretsInJsonToolArguments() {
        String arguments = "{\"url\": \"https://api.example.com\", \"headers\": {\"Authorization\": "
                + "\"Bearer tether-fake-json-bearer\", \"X-Api-Key\": \"tether-fake-json-key\"}, "
                + "\"body\": {\"password\": \"hunter2\", \"max_tokens\": 512}}";

        Scrubbed scrubbed = scrubber.scrub(arguments);

        assertThat(scrubbed.text()).isEqualTo("{\"url\": \"https://api.example.com\", \"headers\": {\"Authorization\": "
                + "\"Bearer [REDACTED:bearer-token]\", \"X-Api-Key\": \"[REDACTED:secret-assignment]\"}, "
                + "\"body\": {\"password\": \"[REDACTED:password-assignment]\", \"max_tokens\": 512}}");
        assertThat(scrubbed.redactions()).isEqualTo(3);
    }

    @Test
    void redactsSecretsInMultiLineToolOutput() {
        String output = """
                $ env | sort
                AWS_ACCESS_KEY_ID=AKIATETHERFAKEOUT001
                AWS_SECRET_ACCESS_KEY=TetherFakeAwsSecretKeyInToolOutput000001
                HOME=/srv/agent
                OPENAI_API_KEY=sk-proj-TetherFakeToolOutputOpenAiKey_000001
                PWD=/srv/agent/repo
                SLACK_BOT_TOKEN=xoxb-1111-2222-TetherFakeToolOutputSlack
                $ cat config/app.yml
                database:
                  url: postgres://tether:TetherFakeYamlDbPass@db:5432/tether
                  password: TetherFakeYamlPassword
                logging:
                  level: INFO
                """;

        Scrubbed scrubbed = scrubber.scrub(output);

        assertThat(scrubbed.text())
                .doesNotContain("AKIATETHERFAKEOUT001", "TetherFakeAwsSecretKeyInToolOutput000001",
                        "TetherFakeToolOutputOpenAiKey", "TetherFakeToolOutputSlack", "TetherFakeYamlDbPass",
                        "TetherFakeYamlPassword")
                .contains("HOME=/srv/agent", "PWD=/srv/agent/repo", "level: INFO",
                        "SLACK_BOT_TOKEN=[REDACTED:slack-token]",
                        "url: postgres://tether:[REDACTED:url-password]@db:5432/tether");
        assertThat(scrubbed.byKind()).containsOnly(
                entry("aws-access-key", 1), entry("aws-secret-key", 1), entry("openai-key", 1),
                entry("slack-token", 1), entry("url-password", 1), entry("password-assignment", 1));
    }

    // --- cost ---

    static Stream<String> pathologicalTexts() {
        return Stream.of(
                "a=".repeat(100_000),
                "-----BEGIN PRIVATE KEY-----".repeat(100_000),
                "-----BEGIN PRIVATE KEY-----\"".repeat(100_000),
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".repeat(20_000),
                "password=".repeat(100_000),
                "password=\"".repeat(100_000),
                "{\\\"token\\\":\\\"".repeat(50_000),
                "bearer ".repeat(100_000),
                "Authorization: Bearer ".repeat(50_000),
                "https://u:".repeat(100_000),
                "x://:" + "@".repeat(1 << 20),
                "a-".repeat(500_000),
                "eyJ.".repeat(200_000),
                "eyJaaaaaaaaaa.eyJaaaaaaaaaa".repeat(50_000),
                "sk-".repeat(300_000),
                "a".repeat(1 << 20),
                "_".repeat(1 << 20) + "token",
                "_token".repeat(200_000) + "=x",
                "password=[".repeat(100_000),
                "token={\"".repeat(100_000),
                "token=['".repeat(100_000),
                "{\\\"token\\\":[\\\"".repeat(50_000),
                "{\"token\":".repeat(100_000) + "\"x\"" + "}".repeat(100_000),
                "{\"token\":[".repeat(100_000) + "\"x\"",
                "api_key: [" + "[a, ".repeat(200_000),
                "{\"token\": [\"" + "password=[".repeat(100_000) + "\"]}",
                "{\"token\":[" + "[".repeat(500_000) + "]".repeat(500_000) + "]}");
    }

    /**
     * Not a speed test: a pattern that backtracks catastrophically takes hours on these inputs, a linear one well under a
     * second, so the limit is generous enough for a loaded shared machine and still catches the former.
     */
    private static final Duration RUNAWAY = Duration.ofSeconds(30);

    @ParameterizedTest
    @MethodSource("pathologicalTexts")
    void completesQuickly_onPathologicalInput(String text) {
        assertTimeoutPreemptively(RUNAWAY, () -> scrubber.scrub(text));
    }

    @Test
    void scrubsAMebibyteOfToolOutputQuickly() {
        String chunk = """
                2026-01-01T00:00:00Z INFO tool=shell exit=0 duration_ms=42 session=3f2b8c1e-9d4a-4e6f-8b1a-2c3d4e5f6a7b
                {"event": "tool_result", "max_tokens": 4096, "stdout": "ok\\nbuilt in 3s"}
                export DB_PASSWORD=TetherFakeBulkPassword curl -H "Authorization: Bearer TetherFakeBulkBearerToken01"
                """;
        String text = chunk.repeat((1 << 20) / chunk.length() + 1);

        Scrubbed scrubbed = assertTimeoutPreemptively(RUNAWAY, () -> scrubber.scrub(text));

        assertThat(text.length()).isGreaterThan(1 << 20);
        assertThat(scrubbed.text()).doesNotContain("TetherFakeBulk");
        assertThat(scrubbed.redactions()).isEqualTo(2 * ((1 << 20) / chunk.length() + 1));
    }

    private void assertUnchanged(String text) {
        Scrubbed scrubbed = scrubber.scrub(text);
        assertThat(scrubbed.text()).as("scrubbed %s", text).isEqualTo(text);
        assertThat(scrubbed.redactions()).isZero();
        assertThat(scrubbed.byKind()).isEmpty();
    }
}
