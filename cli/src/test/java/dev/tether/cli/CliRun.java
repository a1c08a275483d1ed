package dev.tether.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One {@code tether} invocation in this JVM, as {@link TetherCli#main} runs it but with a given
 * environment and with stdout and stderr captured.
 *
 * @param exitCode the exit status
 * @param out      what went to stdout
 * @param err      what went to stderr
 */
public record CliRun(int exitCode, String out, String err) {

    public static CliRun run(Map<String, String> env, String... args) {
        return run(env, new StringWriter(), args);
    }

    /** The same on another thread, its stderr written to {@code err} as it goes: to wait for what it prints first. */
    public static CompletableFuture<CliRun> start(Map<String, String> env, StringWriter err, String... args) {
        return CompletableFuture.supplyAsync(() -> run(env, err, args));
    }

    private static CliRun run(Map<String, String> env, StringWriter err, String... args) {
        var out = new StringWriter();
        int code = TetherCli.commandLine(env)
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** The lines of stderr. */
    public List<String> errLines() {
        return err.lines().toList();
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
