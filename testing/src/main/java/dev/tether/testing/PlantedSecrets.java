package dev.tether.testing;

import java.util.List;

/**
 * Fake secrets of every kind Tether's scrubber knows, each unique and shape-valid, for tests that
 * plant them in requests and tool output and then search Kafka topics, logs and the blob store for
 * them: {@link Planted#text()} is what to plant, {@link Planted#secret()} what must never be found.
 */
public final class PlantedSecrets {

    private PlantedSecrets() {}

    public record Planted(String kind, String text, String secret) {
        @Override
        public String toString() {
            return kind + ": " + text;
        }
    }

    /**
     * Realistic-looking, clearly fake secrets of every kind the standard scrubber knows, each unique, for tests that
     * plant them in requests and then search Kafka topics and logs for them.
     */
    public static List<Planted> all() {
        return List.of(
                alone("aws-access-key", "AKIATETHERFAKE000001"),
                alone("aws-access-key", "ASIATETHERFAKE000002"),
                planted("aws-secret-key", "aws_secret_access_key = %s", "TetherFakeAwsSecretKey/000000000000003+x"),
                planted("aws-secret-key", "\"SecretAccessKey\": \"%s\",", "TetherFakeAwsSecretKeyFromStsJson0000004"),
                planted("private-key",
                        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n%s\n-----END RSA PRIVATE KEY-----",
                        "TetherFakeRsaPrivateKeyBody0005abcdefghijklmnopqrstuvwxyz0123456789+/"),
                planted("private-key",
                        "-----BEGIN OPENSSH PRIVATE KEY-----\r\n%s\r\nAAAA\r\n-----END OPENSSH PRIVATE KEY-----",
                        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUTetherFakeOpenSshKeyBody0006"),
                planted("private-key",
                        "{\"private_key\": \"-----BEGIN EC PRIVATE KEY-----\\n%s\\n-----END EC PRIVATE KEY-----\\n\"}",
                        "MHcCAQEEITetherFakeEcPrivateKeyBody0007"),
                planted("private-key",
                        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n%s\n-----END ENCRYPTED PRIVATE KEY-----",
                        "MIIFHzBJBgkqhkiG9w0BBQ0wPDAbTetherFakeEncryptedKeyBody0008"),
                alone("github-token", "ghp_TetherFakeGithubClassicPat0000000009"),
                alone("github-token", "gho_TetherFakeGithubOauthToken0000000010"),
                alone("github-token", "ghu_TetherFakeGithubUserToServer00000011"),
                alone("github-token", "ghs_TetherFakeGithubServerToServer000012"),
                alone("github-token", "ghr_TetherFakeGithubRefreshToken00000013"),
                alone("github-token", "github_pat_11TETHERFAKE0014_TetherFakeFineGrainedPatBody0014xyz"),
                alone("gitlab-token", "glpat-TetherFakeGitlab0015xyz"),
                alone("slack-token", "xoxb-000000000016-000000000016-TetherFakeSlackBotToken16"),
                alone("slack-token", "xoxp-000000000017-000000000017-000000000017-TetherFakeSlackUser17"),
                planted("slack-webhook", "https://hooks.slack.com/services/%s",
                        "T0TETHER18/B0FAKE0018/TetherFakeWebhookSecret18"),
                alone("anthropic-key",
                        "sk-ant-api03-TetherFake_ClaudeApiKey-0019_abcdefghijklmnopqrstuvwxyz0123456789-AA"),
                alone("openai-key", "sk-TetherFakeOpenAiLegacyKey0020abcdefghijklmn"),
                alone("openai-key", "sk-proj-TetherFake_OpenAiProjectKey-0021_abcdefghijklmnop"),
                alone("stripe-key", "sk_test_TetherFakeStripeKey0022abcd"),
                alone("google-api-key", "AIzaTetherFakeGoogleApiKey0000000000023"),
                alone("jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZXRoZXItZmFrZS0wMDI0In0"
                        + ".TetherFakeJwtSignature0024_abcdefghijklmnopqrstuv"),
                planted("bearer-token", "Authorization: Bearer %s", "tether-fake-opaque-bearer-0025"),
                planted("bearer-token", "sent bearer %s upstream", "TetherFakeOpaqueToken0026xyz"),
                planted("basic-auth", "Authorization: Basic %s",
                        "dGV0aGVyLWZha2UtdXNlcjp0ZXRoZXItZmFrZS1wYXNzLTAwMjc="),
                planted("url-password", "postgres://tether:%s@db.internal:5432/sessions", "TetherFakeDbPass0028"),
                planted("url-password", "mongodb+srv://agent:%s@cluster0.example.net/tether",
                        "TetherFakeMongoPass0029"),
                planted("url-password", "https://deploy:%s@git.example.com/tether.git", "TetherFakeHttpsPass0030"),
                planted("password-assignment", "password=%s", "TetherFakePassword0031"),
                planted("password-assignment", "\"db_password\": \"%s\"", "Tether fake passphrase 0032!"),
                planted("password-assignment", "passwd: %s", "TetherFakePasswd0033"),
                planted("password-assignment", "DB_PASSWORD=%s", "TetherFakeDbPassword0034"),
                planted("secret-assignment", "api_key=%s", "tether-fake-api-key-0035"),
                planted("secret-assignment", "client_secret='%s'", "TetherFakeClientSecret0036"),
                planted("secret-assignment", "export STRIPE_SECRET=%s", "TetherFakeStripeSecret0037"),
                planted("secret-assignment", "SOME_NAME_KEY=%s", "TetherFakeEnvKey0038"),
                planted("secret-assignment", "https://api.example.com/v1/items?access_token=%s&page=2",
                        "TetherFakeAccessToken0039"),
                planted("secret-assignment", "X-Api-Key: %s", "TetherFakeHeaderApiKey0040"),
                planted("password-assignment", "pwd=%s", "TetherFakePwd0041"),
                planted("private-key",
                        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n%s\n=TtFk\n-----END PGP PRIVATE KEY BLOCK-----",
                        "lQOYBGTetherFakePgpPrivateKeyBody0042abcdefghijklmnopqrstuvwxyz"));
    }

    private static Planted alone(String kind, String secret) {
        return new Planted(kind, secret, secret);
    }

    private static Planted planted(String kind, String template, String secret) {
        return new Planted(kind, template.formatted(secret), secret);
    }
}
