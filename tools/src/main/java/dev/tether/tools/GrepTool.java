package dev.tether.tools;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.tools.sandbox.OutputRedactor;
import dev.tether.tools.sandbox.Workspace;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code grep {pattern, path?, glob?}}: the lines matching a {@code java.util.regex} pattern, as {@code path:line:text}
 * (paths relative to the workspace, lines from 1, text cut at {@value #SHOWN_LINE_CHARS} characters, a secret's
 * beginning the cut leaves redacted like the secret), in the files
 * below {@code path} (default the workspace) whose name matches {@code glob} ({@code *.java}; a glob with a {@code /}
 * is matched against the whole relative path instead: {@code src/**}{@code /*.java}).
 *
 * <p>Bounded, so a pattern cannot hang the executor: only the first {@value #MAX_MATCHED_LINE_CHARS} characters of a
 * line are searched, the whole search, the walk of the tree included, stops after {@value #TIMEOUT_SECONDS} s (the
 * clock is read at every file and every line, and the regex engine reads its input, lines and the names the glob is
 * matched on ({@link Glob}), through a text that checks it too, which also stops catastrophic backtracking), and at most
 * {@value #MAX_MATCHES} matches, {@value #MAX_FILES} files and files up to {@value #MAX_FILE_BYTES} bytes are
 * searched. Binary files (a NUL in the first 8 KiB) and symbolic links are skipped. A search stopped by the clock, or by a
 * pattern whose matching recursed past the stack on a long line, is an ERROR result with the matches found so far.
 *
 * <p>Reads only, so idempotent; reconciled by running it again. Stateless.
 */
public final class GrepTool implements Tool {

    public static final String NAME = "grep";
    public static final int MAX_MATCHES = 500;
    public static final int MAX_FILES = 20_000;
    public static final int MAX_FILE_BYTES = 8 * 1024 * 1024;
    public static final int MAX_MATCHED_LINE_CHARS = 10_000;
    public static final int SHOWN_LINE_CHARS = 500;
    public static final long TIMEOUT_SECONDS = 10;

    private static final Set<String> ARGUMENTS = Set.of("pattern", "path", "glob");

    private final Duration timeout;

    /** A grep that stops after {@value #TIMEOUT_SECONDS} s. */
    public GrepTool() {
        this(Duration.ofSeconds(TIMEOUT_SECONDS));
    }

    /** A grep that stops after {@code timeout}, which is positive. */
    public GrepTool(Duration timeout) {
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean mutating() {
        return false;
    }

    @Override
    public boolean idempotent() {
        return true;
    }

    @Override
    public ToolOutput execute(ToolContext context, JsonNode arguments) throws ToolException {
        ToolArguments args = ToolArguments.of(arguments, ARGUMENTS);
        Pattern pattern = pattern(args.nonEmptyString("pattern"));
        Workspace workspace = context.workspace();
        Path start = args.path("path", workspace, ".");
        Pattern glob = glob(args.optionalString("glob").orElse("**"));
        boolean globOnPath = args.optionalString("glob").filter(g -> g.contains("/")).isPresent();
        String path = workspace.shown(start);
        if (!Files.exists(start, LinkOption.NOFOLLOW_LINKS)) {
            throw ToolException.invalidArgument("path", "no such file or directory: " + path);
        }
        long deadlineNanos = System.nanoTime() + timeout.toNanos();
        var candidates = new Candidates(workspace, glob, globOnPath, deadlineNanos);
        var search = new Search(workspace, context.redactor(), pattern, deadlineNanos);
        try {
            try {
                Files.walkFileTree(start, Set.of(), Integer.MAX_VALUE, candidates);
            } catch (IOException e) {
                throw ToolException.io("search", path, e);
            }
            candidates.found.sort(null);
            for (Path file : candidates.found) {
                if (context.cancellation().isCancelled()) {
                    return context.output(ToolOutput.Status.CANCELLED, search.report("[grep: cancelled]\n"));
                }
                if (!search.file(file)) {
                    break;
                }
            }
        } catch (DeadlineCharSequence.DeadlineExceeded e) {
            return context.output(ToolOutput.Status.ERROR, search.report("[grep: stopped after " + timeout.toMillis()
                    + " ms; simplify the pattern (nested quantifiers backtrack) or narrow path or glob]\n"));
        } catch (StackOverflowError e) {
            // java.util.regex recurses once per repetition of a group ((a|b)*, (\w|-)+): on a long line that overflows the
            // stack, an Error the executor would not take for the call's result (it would fail the batch, for ever)
            return context.output(ToolOutput.Status.ERROR, search.report("[grep: stopped: the pattern recursed too deeply"
                    + " on a long line; use a character class ([ab]*) instead of an alternation under a quantifier ((a|b)*)]\n"));
        }
        String notes = candidates.complete ? "" : "[grep: searched the first " + MAX_FILES + " files only]\n";
        return context.output(ToolOutput.Status.OK, search.report(notes));
    }

    private static Pattern pattern(String regex) throws ToolException {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw ToolException.invalidArgument("pattern", e.getDescription() + " near index " + e.getIndex());
        }
    }

    private static Pattern glob(String glob) throws ToolException {
        try {
            return Glob.compile(glob);
        } catch (IllegalArgumentException e) { // PatternSyntaxException is one
            throw ToolException.invalidArgument("glob", "is not a valid glob");
        }
    }

    @Override
    public Reconciliation reconcile(ToolContext context, JsonNode arguments, LedgerEntry started) {
        return new Reconciliation.NotApplied();
    }

    /** Finds the regular files to search, links not followed, up to {@link #MAX_FILES}. */
    private static final class Candidates extends SimpleFileVisitor<Path> {

        private final Workspace workspace;
        private final Matcher glob;
        private final boolean globOnPath;
        private final long deadlineNanos;
        private final List<Path> found = new ArrayList<>();
        private boolean complete = true;

        Candidates(Workspace workspace, Pattern glob, boolean globOnPath, long deadlineNanos) {
            this.workspace = workspace;
            this.glob = glob.matcher("");
            this.globOnPath = globOnPath;
            this.deadlineNanos = deadlineNanos;
        }

        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
            DeadlineCharSequence.check(deadlineNanos); // a tree of millions of files the glob does not match
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
            DeadlineCharSequence.check(deadlineNanos);
            if (!attributes.isRegularFile() || attributes.size() > MAX_FILE_BYTES) {
                return FileVisitResult.CONTINUE;
            }
            String matched = globOnPath ? workspace.relativize(file) : file.getFileName().toString();
            if (!glob.reset(new DeadlineCharSequence(matched, deadlineNanos)).matches()) { // *a*a*a*b backtracks too
                return FileVisitResult.CONTINUE;
            }
            if (found.size() >= MAX_FILES) {
                complete = false;
                return FileVisitResult.TERMINATE;
            }
            found.add(file);
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
            return FileVisitResult.CONTINUE; // unreadable: skipped
        }
    }

    /** Searches files one after another, collecting matches up to {@link #MAX_MATCHES}. */
    private static final class Search {

        private final Workspace workspace;
        private final OutputRedactor redactor;
        private final Matcher matcher;
        private final long deadlineNanos;
        private final StringBuilder matches = new StringBuilder();
        private int count;

        Search(Workspace workspace, OutputRedactor redactor, Pattern pattern, long deadlineNanos) {
            this.workspace = workspace;
            this.redactor = redactor;
            this.matcher = pattern.matcher("");
            this.deadlineNanos = deadlineNanos;
        }

        /** Searches one file; returns false once there are {@link #MAX_MATCHES} matches. */
        boolean file(Path file) {
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(file);
            } catch (IOException e) {
                return true; // vanished or unreadable: skipped
            }
            if (!Utf8Text.looksLikeText(bytes)) {
                return true;
            }
            String path = workspace.shown(file);
            String text = new String(bytes, UTF_8);
            int lineNumber = 0;
            for (int start = 0; start < text.length(); ) {
                int newline = text.indexOf('\n', start);
                int end = newline < 0 ? text.length() : newline;
                lineNumber++;
                DeadlineCharSequence.check(deadlineNanos); // lines too short for the text's own check add up
                String line = text.substring(start, end > start && text.charAt(end - 1) == '\r' ? end - 1 : end);
                start = end + 1;
                CharSequence searched = line.length() > MAX_MATCHED_LINE_CHARS
                        ? line.substring(0, MAX_MATCHED_LINE_CHARS) : line;
                if (matcher.reset(new DeadlineCharSequence(searched, deadlineNanos)).find()) {
                    matches.append(path).append(':').append(lineNumber).append(':').append(shown(line)).append('\n');
                    if (++count >= MAX_MATCHES) {
                        matches.append("[grep: stopped at ").append(MAX_MATCHES).append(" matches]\n");
                        return false;
                    }
                }
            }
            return true;
        }

        /** The line, or its beginning: redacted as cut, since the cut may leave the beginning of a secret at its end. */
        private String shown(String line) {
            return line.length() > SHOWN_LINE_CHARS
                    ? redactor.redactCut(line.substring(0, SHOWN_LINE_CHARS)).text() + "…"
                    : line;
        }

        String report(String notes) {
            return (count == 0 ? "(no matches)\n" : matches.toString()) + notes;
        }
    }
}
