package dev.tether.core.secrets;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces the secrets in a text by {@code [REDACTED:<kind>]}, before the text reaches Kafka, a log line or an
 * error message. Immutable and thread-safe.
 *
 * <p>The kinds {@link #standard()} detects:
 * <ul>
 *   <li>{@code private-key}: a PEM private-key block ({@code -----BEGIN [RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP ]PRIVATE
 *       KEY[ BLOCK]-----} to its END line), also with JSON-escaped line breaks; the whole block. A BEGIN line with no
 *       END after it is taken for a truncated key and redacted through the end of its headers and base64 body.
 *   <li>{@code aws-access-key}: {@code AKIA…} and {@code ASIA…} access key ids (20 characters).
 *   <li>{@code aws-secret-key}: the 40-character value of {@code aws_secret_access_key}, {@code SecretAccessKey} …
 *   <li>{@code github-token}: {@code ghp_ gho_ ghu_ ghs_ ghr_} tokens and {@code github_pat_} fine-grained tokens.
 *   <li>{@code gitlab-token}: {@code glpat-} personal access tokens.
 *   <li>{@code slack-token}: {@code xoxb- xoxp- xoxa- xoxr- xoxs- xoxe- xoxo-} and {@code xapp-1-} tokens.
 *   <li>{@code slack-webhook}: the path of a {@code https://hooks.slack.com/services/…} (or workflows, triggers) URL.
 *   <li>{@code anthropic-key}: {@code sk-ant-…} keys.
 *   <li>{@code openai-key}: {@code sk-…} and {@code sk-proj-…} keys of 20 or more characters.
 *   <li>{@code stripe-key}: {@code sk_live_ sk_test_ rk_live_ rk_test_} keys.
 *   <li>{@code google-api-key}: {@code AIza…} keys.
 *   <li>{@code jwt}: a JSON Web Token ({@code eyJ….eyJ….signature}) anywhere.
 *   <li>{@code bearer-token}: the credential of {@code Authorization: Bearer …} or {@code Authorization: token …}
 *       (also {@code Proxy-Authorization}), and a 16-or-more-character token after a bare {@code bearer}; a Laravel
 *       Sanctum token's {@code <id>|} prefix with it.
 *   <li>{@code basic-auth}: the credential of {@code Authorization: Basic …}.
 *   <li>{@code url-password}: the password of a URL's {@code user:password@} ({@code postgres://}, {@code
 *       mongodb+srv://}, {@code https://} …, also JSON-escaped as {@code https:\/\/}); the user and host stay.
 *   <li>{@code password-assignment}: the value of a {@code name=value} or {@code name: value} (quoted or not, JSON
 *       and YAML too) whose name ends in password, passwd, pwd or passphrase, or in pass after another word:
 *       {@code password=}, {@code "db_password":}, {@code DB_PASSWORD=}, {@code dbPassword:}, {@code DB_PASS=},
 *       {@code smtp.pass:}. The name stays.
 *   <li>{@code secret-assignment}: likewise for names ending in secret, token or credential(s), and for names ending
 *       in key after api, access, secret, private, signing, encryption, master, client, auth, account or license
 *       ({@code api_key=}, {@code apiKey:}, {@code X-Api-Key:}, {@code client_secret=}, {@code access_token=}), or
 *       after anything in an {@code UPPER_SNAKE} environment variable name ({@code SOME_NAME_KEY=}).
 * </ul>
 * A value under such a name may be an array or object, in JSON (also inside a JSON string, quoted by {@code \"}),
 * Python's repr, YAML's flow style or JavaScript: then each string in it, at any depth, and each unquoted word but a
 * number, {@code true}, {@code false}, {@code null} or {@code None}, is redacted as that kind, or as the kind of its
 * own key if that names a secret too: {@code {"api_key": ["[REDACTED:secret-assignment]"], "credentials": {"user":
 * "[REDACTED:secret-assignment]", "password": "[REDACTED:password-assignment]", "port": 5432}}}. Brackets, commas,
 * keys and what is kept stay, so JSON stays JSON. Every depth, because a secret put under a secret name stays one
 * however deep it is nested, and reading to any depth costs no more than one level. Here the name may be a plural
 * ({@code tokens}, {@code api_keys}, {@code passwords}): a list of secrets is named so.
 *
 * <p>Where detections overlap, they are merged into one redaction named by the most specific kind (in the order
 * above): {@code password=ghp_…} becomes {@code password=[REDACTED:github-token]}.
 *
 * <p>Left alone on purpose: {@code secret://name} references (the executor resolves them), already-redacted markers
 * (so scrubbing is idempotent), prose that only mentions a password or token, counts such as {@code MAX_TOKENS=4096}
 * (a plural is not a secret word, but for an array or object), names such as {@code idempotencyKey} or
 * {@code partition_key}, an unquoted {@code true}, {@code false}, {@code null}, {@code None}, {@code nil} or
 * {@code undefined} ({@code "token": null} stays JSON), a token of text or a cursor by the word before it
 * ({@code stop_tokens}, {@code eos_token}, {@code pageToken}, {@code next_page_token}, {@code NextToken}:
 * {@code TEXT_AND_CURSOR_TOKENS}), the shell's {@code PWD}/{@code OLDPWD}, values without a letter or digit
 * ({@code password: ********}), UUIDs, hashes and file paths. In an array or object under a secret name: the keys,
 * numbers, {@code true}, {@code false} and {@code null} ({@code "usedTokens": {"inputTokens": 1842}} stays), and the
 * values of JSON Schema's {@code type}, {@code format}, {@code title}, {@code description} and {@code $…} keywords
 * ({@code "api_key": {"type": "string", "description": "…"}}, as in a tool's parameters, describes a secret and holds
 * none), but for a value under a secret name of its own.
 *
 * <p>A redaction also takes the letters, digits, {@code _} and {@code -} stuck to the end of a secret, so that no
 * fragment of it stays.
 *
 * <p>Trade-offs: it errs toward redacting too much, such as the word after {@code Password:} in prose, an
 * {@code UPPER_SNAKE_KEY} variable that holds a plain name, the text after a BEGIN line that has no END, or the
 * strings of a plural name's list that are no secrets ({@code "tokens": ["hello", "world"]}). An unquoted value runs to
 * whitespace, a quote, {@code &} or {@code ;}, so an assignment glued into another's value
 * ({@code password=x(api_key="a b")}) can be missed. A {@code [} or <code>{</code> after a secret name that does not
 * close (in a text cut short, or in a JSON string that ends first) is read as no array or object, as any other
 * value up to its next bracket; so is one after the reading of arrays and objects has taken four times the text's
 * length (a text of brackets that never close). A YAML block list ({@code api_keys:} then {@code - …} lines) is not
 * read as a list.
 *
 * <p>Non-goals: unlabelled high-entropy strings (a bare 40-character string may be an AWS secret key or a commit
 * hash; only its name tells), encoded secrets (base64, URL- or Unicode-escaped), a secret split across two texts, and
 * {@code --password value} with a space instead of {@code =}. This is a safety net, not a guarantee.
 *
 * <p>Cost is linear in the text, whatever it holds: most rules are tried only where their literal start (such as
 * {@code ghp_}) occurs, the others make one pass without unbounded backtracking; an array or object under a secret
 * name is read once, with those in it, and all such reading stops at four times the text's length. A MiB takes about
 * a tenth of a second.
 */
public final class SecretScrubber {

    private static final String MARKER_PREFIX = "[REDACTED:";

    /** A key name's closing quote, a separator and a value's opening quote; a quote may be JSON-escaped. */
    private static final String ASSIGNED = "(?:\\\\?[\"'])?[ \\t]*[:=][ \\t]*(?:\\\\?[\"'])?";

    private static final String NOT_A_REFERENCE = "(?!secret://)";

    /**
     * Just after an escape, where a word may start though a letter or digit precedes it: a JSON line break, tab or
     * Unicode escape ({@code "export\nghp_…"}), or a URL-encoded character ({@code token%3Dghp_…}).
     */
    private static final String AFTER_ESCAPE = "(?<=\\\\[nrt])|(?<=\\\\u[0-9A-Fa-f]{4})|(?<=%[0-9A-Fa-f]{2})";

    /** The {@code <id>|} before a Laravel Sanctum token ({@code 3|Xk9p…}), which is not token68 but is sent as one. */
    private static final String SANCTUM_ID = "(?:[0-9]+\\|)?";

    /** Not inside a word: after no letter, digit, {@code _} or {@code -}, or after an escape. */
    private static final String WORD_START = "(?:(?<![A-Za-z0-9_-])|" + AFTER_ESCAPE + ")";

    /** In the order of precedence, when two detections overlap. */
    private static final SecretScrubber STANDARD = new SecretScrubber(List.of(
            new PemPrivateKeys(),
            new RegexDetector("aws-access-key",
                    WORD_START + "(?<secret>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Za-z0-9])",
                    "akia", "asia"),
            new RegexDetector("aws-secret-key",
                    "(?i)secret[_-]?access[_-]?key" + ASSIGNED + "(?<secret>[a-z0-9/+]{40})(?![a-z0-9/+=])",
                    "secret"),
            new RegexDetector("github-token",
                    WORD_START + "(?<secret>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
                    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
            new RegexDetector("gitlab-token",
                    WORD_START + "(?<secret>glpat-[A-Za-z0-9_-]{20,})",
                    "glpat-"),
            new RegexDetector("slack-token",
                    WORD_START + "(?<secret>xox[abeoprs]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})",
                    "xox", "xapp-"),
            new RegexDetector("slack-webhook",
                    "https://hooks\\.slack\\.com/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9_/-]+)",
                    "https://hooks.slack.com/"),
            new RegexDetector("anthropic-key",
                    WORD_START + "(?<secret>sk-ant-[A-Za-z0-9_-]{20,})",
                    "sk-ant-"),
            new RegexDetector("openai-key",
                    WORD_START + "(?<secret>sk-(?!ant-)[A-Za-z0-9_-]{20,})",
                    "sk-"),
            new RegexDetector("stripe-key",
                    WORD_START + "(?<secret>[sr]k_(?:live|test)_[A-Za-z0-9]{16,})",
                    "sk_live_", "sk_test_", "rk_live_", "rk_test_"),
            new RegexDetector("google-api-key",
                    WORD_START + "(?<secret>AIza[A-Za-z0-9_-]{35,})",
                    "aiza"),
            new RegexDetector("jwt",
                    WORD_START + "(?<secret>eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*)",
                    "eyj"),
            new RegexDetector("bearer-token",
                    "(?i)authorization" + ASSIGNED + "(?:bearer|token)[ \\t]+" + NOT_A_REFERENCE
                            + "(?<secret>" + SANCTUM_ID + "[a-z0-9._~+/-]+=*)",
                    "authorization"),
            new RegexDetector("bearer-token",
                    "(?i)" + WORD_START + "bearer[ \\t]+" + NOT_A_REFERENCE
                            + "(?<secret>" + SANCTUM_ID + "[a-z0-9._~+/-]{16,}=*)",
                    "bearer"),
            new RegexDetector("basic-auth",
                    "(?i)authorization" + ASSIGNED + "basic[ \\t]+(?<secret>[a-z0-9+/]+=*)",
                    "authorization"),
            new RegexDetector("url-password", // no brackets: a URL has them only around an IPv6 host
                    "(?<=[A-Za-z0-9]):(?://|\\\\/\\\\/)[^\\s:/@?#\\[\\]]*:(?<secret>[^\\s/?#\\[\\]]+)@",
                    "://", ":\\/\\/"), // a JSON-escaped https:\/\/ too
            new SecretAssignments()));

    private final List<Detector> detectors;

    private SecretScrubber(List<Detector> detectors) {
        this.detectors = detectors;
    }

    /** The scrubber with the built-in rules listed in the class comment. */
    public static SecretScrubber standard() {
        return STANDARD;
    }

    /** {@code text} with every detected secret redacted; a null text gives a null text and no redactions. */
    public Scrubbed scrub(String text) {
        return redact(text, spans(text));
    }

    /**
     * {@code text} with each span replaced by its marker {@code [REDACTED:<kind>]}, counted by kind; the spans in order,
     * none overlapping another (as {@link #spans} gives them, or a caller's merge of them with its own).
     */
    public static Scrubbed redact(String text, List<Span> spans) {
        if (spans.isEmpty()) {
            return new Scrubbed(text, 0, Map.of());
        }
        var out = new StringBuilder(text.length());
        var byKind = new HashMap<String, Integer>();
        int copiedUpTo = 0;
        for (Span span : spans) {
            out.append(text, copiedUpTo, span.start()).append(MARKER_PREFIX).append(span.kind()).append(']');
            byKind.merge(span.kind(), 1, Integer::sum);
            copiedUpTo = span.end();
        }
        out.append(text, copiedUpTo, text.length());
        return new Scrubbed(out.toString(), spans.size(), byKind);
    }

    /**
     * Where {@link #scrub} puts its markers in {@code text}, in order, without overlaps: each run of overlapping findings
     * as one span, named by the finding of highest precedence. For a caller that redacts other things in the same text
     * (registered values) and must merge the two on the text as it is, where each secret has its context.
     */
    public List<Span> spans(String text) {
        if (text == null || text.isEmpty()) {
            return List.of();
        }
        String lowerCase = asciiLowerCase(text);
        var findings = new ArrayList<Finding>();
        for (int precedence = 0; precedence < detectors.size(); precedence++) {
            for (Secret secret : detectors.get(precedence).find(text, lowerCase)) {
                findings.add(new Finding(secret, precedence));
            }
        }
        return findings.isEmpty() ? List.of() : merged(text, findings);
    }

    /** Where one marker goes: {@code [start, end)} of the text, and the kind it names. */
    public record Span(int start, int end, String kind) {}

    /** {@code text} with A to Z lower-cased and nothing else changed, so that every index stays the same. */
    private static String asciiLowerCase(String text) {
        char[] chars = text.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            if (chars[i] >= 'A' && chars[i] <= 'Z') {
                chars[i] += 'a' - 'A';
            }
        }
        return new String(chars);
    }

    /**
     * Each run of overlapping findings as one span, named by the finding of highest precedence. A span also takes the
     * letters, digits, {@code _} and {@code -} stuck to the end of a secret: no fragment stays, and the character after a
     * marker is one the text had after a secret, so scrubbing again finds nothing new.
     */
    private static List<Span> merged(String text, List<Finding> findings) {
        findings.sort(Comparator.comparingInt(Finding::start));
        var spans = new ArrayList<Span>();
        int i = 0;
        while (i < findings.size()) {
            Finding named = findings.get(i);
            int start = named.start();
            int end = endOfWord(text, named.end());
            for (i++; i < findings.size() && findings.get(i).start() < end; i++) {
                Finding overlapping = findings.get(i);
                end = Math.max(end, endOfWord(text, overlapping.end()));
                if (overlapping.precedence() < named.precedence()) {
                    named = overlapping;
                }
            }
            spans.add(new Span(start, end, named.secret().kind()));
        }
        return spans;
    }

    /** The end of the run of letters, digits, {@code _} and {@code -} that goes on at {@code from}. */
    private static int endOfWord(String text, int from) {
        int end = from;
        while (end < text.length() && isWordPart(text.charAt(end))) {
            end++;
        }
        return end;
    }

    private static boolean isWordPart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-';
    }

    /** Where one secret is in a text, and its kind. */
    private record Secret(int start, int end, String kind) {}

    /** A secret and the precedence of the detector that found it: lower wins. */
    private record Finding(Secret secret, int precedence) {
        int start() {
            return secret.start();
        }

        int end() {
            return secret.end();
        }
    }

    /** Finds the secrets of a kind or a family of kinds. */
    private interface Detector {
        /**
         * The non-empty secrets in {@code text}, in any order.
         *
         * @param lowerCase {@code text} with A to Z lower-cased, for quick case-insensitive searches
         */
        List<Secret> find(String text, String lowerCase);
    }

    /**
     * Each match of a pattern holds a secret, its {@code secret} group. The pattern is tried only where one of its
     * anchors occurs, which keeps a pass over a large text to a few {@code indexOf}s.
     *
     * @param anchors lower-case text with which, in any case, every match starts
     */
    private record RegexDetector(String kind, Pattern pattern, List<String> anchors) implements Detector {

        RegexDetector(String kind, String regex, String... anchors) {
            this(kind, Pattern.compile(regex), List.of(anchors));
        }

        @Override
        public List<Secret> find(String text, String lowerCase) {
            var secrets = new ArrayList<Secret>();
            Matcher matcher = null; // made at the first anchor: most texts have none, and each text would cost one
            for (String anchor : anchors) {
                int at = lowerCase.indexOf(anchor);
                while (at >= 0) {
                    int next = at + 1;
                    if (matcher == null) {
                        matcher = pattern.matcher(text).useTransparentBounds(true); // lookbehinds see before the anchor
                    }
                    if (matcher.region(at, text.length()).lookingAt()) {
                        secrets.add(new Secret(matcher.start("secret"), matcher.end("secret"), kind));
                        next = Math.max(next, matcher.end());
                    }
                    at = lowerCase.indexOf(anchor, next);
                }
            }
            return secrets;
        }
    }

    /**
     * PEM private-key blocks, BEGIN line through END line. Written out rather than as one regex, which would rescan
     * the rest of the text for an END after every BEGIN that has none.
     */
    private static final class PemPrivateKeys implements Detector {

        private static final String LABEL = "(?:[A-Z0-9]+ ){0,2}PRIVATE KEY(?: BLOCK)?-----";
        private static final Pattern BEGIN = Pattern.compile("-----BEGIN " + LABEL);
        private static final Pattern END = Pattern.compile("-----END " + LABEL);
        /**
         * A body: base64, line breaks (JSON-escaped too), and headers at the start of a line ({@code Proc-Type},
         * {@code DEK-Info}, PGP's {@code Version: GnuPG v1.4.11 (GNU/Linux)}), whose value runs to the end of its line.
         */
        private static final Pattern BODY = Pattern.compile(
                "(?:(?<=[\\r\\n]|\\\\[rn])[A-Za-z][A-Za-z0-9-]*+: [^\\r\\n\\\\]*+" // a header
                + "|[A-Za-z0-9+/=:, \\t-]++" // base64 and the rest of a line
                + "|(?:[\\r\\n\\f\\x0B]|\\\\[rn]?)++)*+"); // line breaks, and lone backslashes

        @Override
        public List<Secret> find(String text, String lowerCase) {
            var blocks = new ArrayList<Secret>();
            if (!text.contains("-----BEGIN ")) {
                return blocks; // most texts: no matchers made
            }
            Matcher begin = BEGIN.matcher(text);
            Matcher end = END.matcher(text);
            Matcher body = BODY.matcher(text);
            boolean anEndMayFollow = true;
            int from = 0;
            while (begin.find(from)) {
                int blockEnd;
                if (anEndMayFollow && end.find(begin.end())) {
                    blockEnd = end.end();
                } else {
                    anEndMayFollow = false; // so a text of many BEGINs is not searched for an END again each time
                    body.region(begin.end(), text.length()).lookingAt();
                    blockEnd = body.end();
                }
                blocks.add(new Secret(begin.start(), blockEnd, "private-key"));
                from = blockEnd;
            }
            return blocks;
        }
    }

    /**
     * {@code name=value} and {@code name: value} pairs whose name says the value is a secret: in config and
     * {@code .env} files, shell commands, JSON, YAML, query strings and HTTP headers. The secret is the value without
     * its quotes; the name stays.
     */
    private static final class SecretAssignments implements Detector {

        /**
         * A name, maybe quoted or in Markdown bold, then {@code = : := =>} (but not {@code ://} or {@code ::}). A name
         * is a letter, after any underscores ({@code _token}), then up to 255 letters, digits, {@code _ . -}. It
         * starts after neither a name character, a backslash nor a hyphen within a name (but may after {@code --} or
         * an escape), and is taken whole (possessively), so no text is scanned as a name more than once.
         */
        private static final Pattern NAME_AND_SEPARATOR = Pattern.compile(
                "(?:(?<![\\w.\\\\])(?<![\\w.]-)|" + AFTER_ESCAPE + ")"
                + "(?<name>_*+[A-Za-z][\\w.-]{0,255}+)(?:\\\\?[\"'`]|\\*\\*)?"
                + "[ \\t]*(?::=|=>|=|:(?!//|:))[ \\t]*(?:\\*\\*[ \\t]*)?");
        /** Every secret name holds one of these, in any case; a text without any cannot hold an assignment. */
        private static final List<String> HINTS = List.of("pass", "pwd", "secret", "token", "key", "credential");

        /** Between the words of snake_case, kebab-case, dotted.names, camelCase, HTTPHeader and name2 names. */
        private static final Pattern WORD_BREAK = Pattern.compile(
                "[_.-]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])");
        private static final Pattern PASSWORD_WORD = Pattern.compile("[a-z]*(?:password|passwd|passphrase|pwd)");
        private static final Pattern SECRET_WORD =
                Pattern.compile("[a-z]*(?:secret|token|credentials?)|(?:api|access|secret|private)key");
        private static final Set<String> KEY_QUALIFIERS = Set.of(
                "api", "access", "secret", "private", "signing", "encryption", "master", "client", "auth", "account",
                "license");
        /**
         * The words before {@code token} or {@code tokens} that make it a word of text or a cursor, no credential: a model's
         * or tokenizer's ({@code stop_tokens}, {@code eos_token}, {@code special_tokens}, {@code max_new_tokens}) and a
         * paged API's ({@code pageToken}, {@code next_page_token}, {@code NextToken}, {@code ContinuationToken},
         * {@code syncToken}). Redacting those broke the tool calls an agent makes and the results it pages through.
         */
        private static final Set<String> TEXT_AND_CURSOR_TOKENS = Set.of(
                "stop", "special", "eos", "bos", "pad", "unk", "sep", "cls", "mask", "start", "end", "added", "bad", "reserved",
                "vocab", "max", "min", "new", "input", "output", "prompt", "completion", "reasoning", "cached", "total",
                "page", "next", "prev", "previous", "continuation", "pagination", "sync", "resume", "cursor");
        private static final Pattern ENVIRONMENT_VARIABLE = Pattern.compile("[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+");
        /**
         * An unquoted value that says there is none, or whether there is one ({@code "token": null}, {@code password =
         * None}, {@code "is_secret": true}): no secret, and replaced by a marker, which is no such literal, JSON would stop
         * being JSON (a tool's result its runner or the model reads).
         */
        private static final Pattern NO_SECRET_LITERAL = Pattern.compile("(?i:true|false|null|none|nil|undefined)");
        private static final String CLOSING_PUNCTUATION = ",)]}";
        /** The shell's working directories, which every {@code env} dump shows. */
        private static final Set<String> SHELL_VARIABLES = Set.of("PWD", "OLDPWD");

        @Override
        public List<Secret> find(String text, String lowerCase) {
            if (HINTS.stream().noneMatch(lowerCase::contains)) {
                return List.of();
            }
            var secrets = new ArrayList<Secret>();
            var containers = new Containers(text);
            Matcher assignment = NAME_AND_SEPARATOR.matcher(text);
            int from = 0;
            while (assignment.find(from)) {
                from = assignment.end();
                int at = assignment.end();
                boolean container = at < text.length() && (text.charAt(at) == '[' || text.charAt(at) == '{')
                        && !text.startsWith(MARKER_PREFIX, at);
                String kind = kindOfValueNamed(assignment.group("name"), container);
                if (kind == null) {
                    continue;
                }
                // in an array or object read already, only a string in it may hold more (a description it kept); the
                // rest was read with it, and a value read again here could run across its brackets
                int bound = text.length();
                if (at < containers.readTo()) {
                    bound = containers.endOfStringAround(at);
                    if (bound < 0) {
                        continue;
                    }
                }
                boolean escaped = isEscapedQuoted(text, assignment.start("name"));
                if (container && containers.read(at, bound, kind, escaped, secrets)) {
                    continue; // the names in it are looked at too
                }
                if (container) { // one that does not close is none, and its value runs to no other bracket
                    bound = Math.min(bound, Containers.nextBracket(text, at + 1, bound));
                }
                Secret value = valueAt(text, at, bound, kind);
                if (value != null) {
                    secrets.add(value);
                    from = value.end();
                }
            }
            return secrets;
        }

        /** Whether the name at {@code nameStart} is quoted by {@code \"}, as in JSON text inside a JSON string. */
        private static boolean isEscapedQuoted(String text, int nameStart) {
            return nameStart >= 2 && text.charAt(nameStart - 1) == '"' && text.charAt(nameStart - 2) == '\\';
        }

        /**
         * The kind of secret a value with that name holds, or null if the name does not name a secret. The name of an
         * array or object may be a plural ({@code tokens}, {@code api_keys}, {@code passwords}): a list of secrets is
         * named so, while a plural names a count ({@code MAX_TOKENS=4096}) only for a number.
         */
        private static String kindOfValueNamed(String name, boolean container) {
            if (!holdsAHint(name) || SHELL_VARIABLES.contains(name)) {
                return null;
            }
            List<String> words = Arrays.stream(WORD_BREAK.split(name))
                    .filter(word -> !word.chars().allMatch(Character::isDigit))
                    .map(word -> word.toLowerCase(Locale.ROOT))
                    .toList();
            if (words.isEmpty()) {
                return null;
            }
            String last = words.get(words.size() - 1);
            String kind = kindOfValueNamed(name, words, last);
            if (kind == null && container && last.length() > 1 && last.endsWith("s")) {
                kind = kindOfValueNamed(name, words, last.substring(0, last.length() - 1));
            }
            return kind;
        }

        /** Whether {@code name} holds one of the {@link #HINTS}, in any case: most names hold none. */
        private static boolean holdsAHint(String name) {
            for (int i = 0; i < name.length(); i++) {
                for (String hint : HINTS) {
                    if (name.regionMatches(true, i, hint, 0, hint.length())) {
                        return true;
                    }
                }
            }
            return false;
        }

        private static String kindOfValueNamed(String name, List<String> words, String last) {
            // DB_PASS, smtp_pass, mail.pass: the .env and compose spelling; "pass" alone names a count as often ("pass=12")
            if (PASSWORD_WORD.matcher(last).matches() || (last.equals("pass") && words.size() > 1)) {
                return "password-assignment";
            }
            if (SECRET_WORD.matcher(last).matches()) {
                boolean textOrCursor = last.equals("token") && words.size() > 1
                        && TEXT_AND_CURSOR_TOKENS.contains(words.get(words.size() - 2));
                return textOrCursor ? null : "secret-assignment";
            }
            boolean qualifiedKey = last.equals("key") && words.size() > 1
                    && (KEY_QUALIFIERS.contains(words.get(words.size() - 2))
                            || ENVIRONMENT_VARIABLE.matcher(name).matches());
            return qualifiedKey ? "secret-assignment" : null;
        }

        /**
         * The value that starts at {@code at}, without its quotes and cut at {@code bound}, if it may be a secret; null
         * if not.
         */
        private static Secret valueAt(String text, int at, int bound, String kind) {
            int start;
            int end;
            if (text.startsWith("\\\"", at)) {
                start = at + 2;
                end = endOfEscapedQuoted(text, start, bound);
            } else if (at < text.length() && "\"'`".indexOf(text.charAt(at)) >= 0) {
                start = at + 1;
                end = endOfQuoted(text, start, text.charAt(at), bound);
            } else {
                start = at;
                end = endOfUnquoted(text, start, bound);
                if (NO_SECRET_LITERAL.matcher(text).region(start, end).matches()) {
                    return null;
                }
            }
            for (int i = start; i < end; i++) { // a marker in it (scrubbed before) is none of it: its ] would stay
                if (text.charAt(i) == '[' && Containers.endOfMarker(text, i) > 0) {
                    end = i;
                }
            }
            return start < end && mayBeSecret(text, start, end) ? new Secret(start, end, kind) : null;
        }

        /** Not a reference, not already redacted, and with a letter or digit (unlike {@code ********}). */
        private static boolean mayBeSecret(String text, int start, int end) {
            if (text.startsWith(MARKER_PREFIX, start) || text.regionMatches(true, start, "secret://", 0, 9)) {
                return false;
            }
            for (int i = start; i < end; i++) {
                if (Character.isLetterOrDigit(text.charAt(i))) {
                    return true;
                }
            }
            return false;
        }

        /** To the closing quote, past backslash escapes; an unclosed quote ends with its line, or at {@code limit}. */
        private static int endOfQuoted(String text, int from, char quote, int limit) {
            for (int i = from; i < limit; i++) {
                char c = text.charAt(i);
                if (c == quote || c == '\n' || c == '\r') {
                    return i;
                }
                if (c == '\\') {
                    i++;
                }
            }
            return limit;
        }

        /**
         * To the {@code \"} that closes a value quoted inside a JSON string. A {@code \"} after a backslash is taken
         * for an escaped quote in the value, which may redact too much but never too little. At most to {@code limit}.
         */
        private static int endOfEscapedQuoted(String text, int from, int limit) {
            for (int i = from; i < limit; i++) {
                char c = text.charAt(i);
                if (c == '\n' || c == '\r') {
                    return i;
                }
                if (c == '\\' && text.startsWith("\"", i + 1) && text.charAt(i - 1) != '\\') {
                    return i;
                }
            }
            return limit;
        }

        /**
         * To where {@link #endsValueAt} says, or {@code limit}, taken for the end of the text, leaving out closing
         * punctuation just before that point, as in {@code Creds[user=bob, password=x]} and
         * {@code {password=x, user=bob}}. Inside a value it stays.
         */
        private static int endOfUnquoted(String text, int from, int limit) {
            int i = from;
            while (i < limit && !endsValueAt(text, i)) {
                if (CLOSING_PUNCTUATION.indexOf(text.charAt(i)) >= 0) {
                    int afterPunctuation = i + 1;
                    while (afterPunctuation < limit
                            && CLOSING_PUNCTUATION.indexOf(text.charAt(afterPunctuation)) >= 0) {
                        afterPunctuation++;
                    }
                    if (afterPunctuation >= limit || endsValueAt(text, afterPunctuation)) {
                        return i;
                    }
                    i = afterPunctuation;
                } else {
                    i += text.charAt(i) == '\\' ? 2 : 1; // an escape pair is part of the value
                }
            }
            return Math.min(i, limit);
        }

        /**
         * Whether an unquoted value ends at {@code i}: at the end of the text, whitespace, a quote, a shell or
         * query-string separator ({@code & ;}), or a JSON-escaped line break or quote ({@code \n \r \t \"}, as in an
         * assignment inside a JSON string).
         */
        private static boolean endsValueAt(String text, int i) {
            if (i >= text.length()) {
                return true;
            }
            char c = text.charAt(i);
            return Character.isWhitespace(c)
                    || "\"'`&;".indexOf(c) >= 0
                    || c == '\\' && i + 1 < text.length() && "nrt\"".indexOf(text.charAt(i + 1)) >= 0;
        }

        /**
         * The arrays and objects under secret names in one text, read as JSON and its kin are written (Python's repr,
         * YAML's flow style, JavaScript), each in two passes: to where it closes, then for its secrets. Each string in
         * one, at any depth, and each bare word but a number, {@code true}, {@code false}, {@code null} or
         * {@code None}, is a secret of the kind of the innermost secret name it is under ({@code "credentials": {"db":
         * {"password": …}}}). A key stays, and so do the values of JSON Schema's {@code type}, {@code format},
         * {@code title}, {@code description} and {@code $…} keywords (a tool's parameters describe a secret, they
         * hold none), an empty string, a reference and a marker; but a value under a secret name of its own is one as
         * the name rule has it, a number too ({@code "api_key": 15}, as outside an array or object). A depth is all
         * the state a level needs, so every depth costs the same.
         *
         * <p>A bracket that does not close (before the end of the text, or of the JSON string it is in) is no array or
         * object. Reading stays linear: one inside one already read is read with it (the name rule then only looks
         * inside the strings of those, which a describing keyword may keep: {@code "description": "api_key=…"}), and
         * all reads together stop at {@value #READ_BUDGET} times the text's length, after which a bracket is read as
         * any other value.
         */
        private static final class Containers {
            private static final int READ_BUDGET = 4;
            /** Values that say what a secret is, not what it is: JSON Schema's keywords. */
            private static final Set<String> DESCRIBING_KEYS = Set.of("type", "format", "title", "description");
            private static final Pattern LITERAL = Pattern.compile(
                    "[+-]?[0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|(?i:true|false|null|none)");
            private static final Pattern KEY_NAME = Pattern.compile("_*+[A-Za-z][\\w.-]{0,255}+");

            private final String text;
            /** How far the furthest read that closed went, and where the quoted strings in those are, in order. */
            private int readTo;
            private int[] stringStarts = new int[0];
            private int[] stringEnds = new int[0];
            private int stringCount;
            private int nextString;
            private long budget;
            private int lexedTo;

            Containers(String text) {
                this.text = text;
                this.budget = (long) READ_BUDGET * text.length();
            }

            /**
             * Reads the array or object that opens at {@code at}, adding its secrets; false if it does not close
             * (nothing added then).
             *
             * @param escaped whether its strings are quoted by {@code \"}, and a bare {@code "} ends the JSON string
             *     it is in
             */
            boolean read(int at, int bound, String kind, boolean escaped, List<Secret> secrets) {
                if (budget <= 0) {
                    return false;
                }
                // first only to where it closes, which a text of brackets that never close makes long: nothing kept
                int closedAt = lex(at, (int) Math.min(bound, at + budget), kind, escaped, null, false);
                budget -= lexedTo - at;
                if (closedAt < 0) {
                    return false;
                }
                lex(at, closedAt, kind, escaped, secrets, at >= readTo); // one in another's string: in a string noted
                readTo = Math.max(readTo, closedAt);
                return true;
            }

            /** The end of the text the arrays and objects read so far take. */
            int readTo() {
                return readTo;
            }

            /**
             * The end of the string, in an array or object read so far, that {@code at} is in; -1 if {@code at} is in
             * none. Asked about in the order of the text.
             */
            int endOfStringAround(int at) {
                while (nextString < stringCount && stringEnds[nextString] <= at) {
                    nextString++;
                }
                return nextString < stringCount && stringStarts[nextString] <= at ? stringEnds[nextString] : -1;
            }

            private void noteString(int start, int end) {
                if (stringCount == stringStarts.length) {
                    stringStarts = Arrays.copyOf(stringStarts, Math.max(16, 2 * stringCount));
                    stringEnds = Arrays.copyOf(stringEnds, stringStarts.length);
                }
                stringStarts[stringCount] = start;
                stringEnds[stringCount++] = end;
            }

            /**
             * Reads from the bracket at {@code at} to {@code limit} or to where it closes, whichever comes first,
             * leaving in {@link #lexedTo} how far it read.
             *
             * @param secrets where to add the secrets read; null to only find where it closes
             * @param noteStrings whether to note where its quoted strings are, for {@link #endOfStringAround}
             * @return the end of the bracket that closes the one at {@code at}; -1 if none does before {@code limit}
             */
            private int lex(
                    int at, int limit, String kind, boolean escaped, List<Secret> secrets, boolean noteStrings) {
                int depth = 0;
                // by depth, when reading for secrets: whether its values stay (in a describing keyword's value), and
                // the kind of those that do not (the name of the innermost array or object under a secret name)
                boolean[] kept = secrets == null ? null : new boolean[16];
                String[] kinds = secrets == null ? null : new String[16];
                if (kinds != null) {
                    kinds[0] = kind;
                }
                boolean keyKeeps = false; // the next value is a describing keyword's
                int keyStart = -1; // where the next value's key is, if it has one
                int keyEnd = -1;
                int i = at;
                int closedAt = -1;
                while (i < limit && closedAt < 0) {
                    char c = text.charAt(i);
                    if ((c == '[' || c == '{') && endOfMarker(text, i) < 0) {
                        depth++;
                        if (secrets != null) {
                            if (depth == kept.length) {
                                kept = Arrays.copyOf(kept, 2 * depth);
                                kinds = Arrays.copyOf(kinds, 2 * depth);
                            }
                            String named = keyStart < 0 ? null : kindOfKey(keyStart, keyEnd, true);
                            kept[depth] = keyKeeps || kept[depth - 1] && named == null;
                            kinds[depth] = named != null ? named : kinds[depth - 1];
                        }
                        keyKeeps = false;
                        keyStart = -1;
                        i++;
                    } else if (c == ']' || c == '}') {
                        depth--;
                        keyKeeps = false;
                        keyStart = -1;
                        i++;
                        if (depth == 0) {
                            closedAt = i;
                        }
                    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':') {
                        i++;
                    } else if (c == '"' && escaped) {
                        break; // the JSON string it is in ends: it does not close
                    } else if (c == '\\' && !text.startsWith("\\\"", i)) {
                        i += 2; // an escaped line break or tab between values, or a stray escape
                    } else {
                        int start;
                        int end;
                        int after;
                        boolean bare = false;
                        if (c == '\\') { // \" quotes a string in JSON text inside a JSON string
                            start = i + 2;
                            end = endOfEscapedString(start);
                            after = text.startsWith("\\\"", end) ? end + 2 : end;
                        } else if (c == '"' || c == '\'' || c == '`') {
                            start = i + 1;
                            end = endOfQuoted(text, start, c, text.length());
                            after = end < text.length() && text.charAt(end) == c ? end + 1 : end;
                        } else {
                            start = i;
                            end = endOfBareWord(i);
                            after = Math.max(end, i + 1); // a blank of another kind is passed over
                            bare = true;
                        }
                        if (noteStrings && !bare) {
                            noteString(start, end);
                        }
                        if (secrets != null && isKeyAt(after)) {
                            keyKeeps = describes(start, end);
                            keyStart = start;
                            keyEnd = end;
                        } else if (secrets != null) {
                            // a value under a secret name of its own is one as the name rule has it, even a number or
                            // one a describing keyword keeps; any other only if nothing keeps it and it is no literal
                            String ownKind = keyStart < 0 ? null : kindOfKey(keyStart, keyEnd, false);
                            boolean secret = ownKind != null
                                    || !keyKeeps && !kept[depth]
                                            && !(bare && LITERAL.matcher(text).region(start, end).matches());
                            if (secret && mayBeSecret(text, start, end)) {
                                secrets.add(new Secret(start, end, ownKind != null ? ownKind : kinds[depth]));
                            }
                            keyKeeps = false;
                            keyStart = -1;
                        }
                        i = after;
                    }
                }
                lexedTo = Math.max(i, at + 1);
                return closedAt;
            }

            /** The end of the marker at {@code i} ({@code [REDACTED:kind]}, {@code [REDACTED:env:X]}); -1 if none. */
            static int endOfMarker(String text, int i) {
                if (!text.startsWith(MARKER_PREFIX, i)) {
                    return -1;
                }
                int j = i + MARKER_PREFIX.length();
                while (j < text.length() && (isWordPart(text.charAt(j)) || ".:".indexOf(text.charAt(j)) >= 0)) {
                    j++;
                }
                return j > i + MARKER_PREFIX.length() && j < text.length() && text.charAt(j) == ']' ? j + 1 : -1;
            }

            /** The first {@code [ ] { }} in {@code [from, to)}, or {@code to}. */
            static int nextBracket(String text, int from, int to) {
                for (int i = from; i < to; i++) {
                    if ("[]{}".indexOf(text.charAt(i)) >= 0) {
                        return i;
                    }
                }
                return to;
            }

            /** Whether the key at {@code [start, end)} is a JSON Schema keyword that describes a value. */
            private boolean describes(int start, int end) {
                if (start < end && text.charAt(start) == '$') {
                    return true;
                }
                for (String keyword : DESCRIBING_KEYS) {
                    if (end - start == keyword.length() && text.startsWith(keyword, start)) {
                        return true;
                    }
                }
                return false;
            }

            /**
             * The kind of secret a value under the key at {@code [start, end)} is, if the key names one; else null.
             *
             * @param container whether the value is an array or object, which a plural names too
             */
            private String kindOfKey(int start, int end, boolean container) {
                String key = text.substring(start, end);
                return KEY_NAME.matcher(key).matches() ? kindOfValueNamed(key, container) : null;
            }

            /** Whether a {@code :} follows at {@code from}, after blanks: what ends there is a key. */
            private boolean isKeyAt(int from) {
                int i = from;
                while (i < text.length()) {
                    char c = text.charAt(i);
                    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                        i++;
                    } else if (c == '\\' && i + 1 < text.length() && "nrt".indexOf(text.charAt(i + 1)) >= 0) {
                        i += 2;
                    } else {
                        return c == ':';
                    }
                }
                return false;
            }

            /**
             * A word not in quotes: to a blank, {@code , [ ] { }}, a quote, a backslash or a {@code :} that ends a key
             * ({@code {value: x}}, {@code {a:"x"}}); a {@code :} inside a word stays in it ({@code secret://db},
             * {@code 12:30}), and so does a marker, which a word read again after another rule redacted part of it
             * holds ({@code secret://db?u=a:[REDACTED:url-password]@h}).
             */
            private int endOfBareWord(int from) {
                int i = from;
                while (i < text.length()) {
                    char c = text.charAt(i);
                    int endOfMarker = c == '[' ? endOfMarker(text, i) : -1;
                    if (endOfMarker > 0) {
                        i = endOfMarker;
                        continue;
                    }
                    if (Character.isWhitespace(c) || ",[]{}\"'`\\".indexOf(c) >= 0) {
                        return i;
                    }
                    if (c == ':' && (i + 1 >= text.length() || Character.isWhitespace(text.charAt(i + 1))
                            || "\"'`[{\\".indexOf(text.charAt(i + 1)) >= 0)) {
                        return i;
                    }
                    i++;
                }
                return i;
            }

            /**
             * To the {@code \"} that closes a string quoted so (one after a backslash is taken for an escaped quote
             * in it, as {@link #endOfEscapedQuoted} does), or to a bare {@code "} or a line break, where it is cut.
             */
            private int endOfEscapedString(int from) {
                for (int i = from; i < text.length(); i++) {
                    char c = text.charAt(i);
                    if (c == '\n' || c == '\r' || c == '"' && text.charAt(i - 1) != '\\') {
                        return i;
                    }
                    if (c == '\\' && text.startsWith("\"", i + 1) && text.charAt(i - 1) != '\\') {
                        return i;
                    }
                }
                return text.length();
            }
        }
    }
}
