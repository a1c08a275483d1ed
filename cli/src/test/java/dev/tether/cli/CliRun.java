package dev.tether.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

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
        var out = new StringWriter();
        var err = new StringWriter();
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
