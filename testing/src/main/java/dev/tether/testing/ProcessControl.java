package dev.tether.testing;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Signals the JDK cannot send itself: SIGSTOP and SIGCONT, through {@code kill(1)}, by PID. */
public final class ProcessControl {

    private ProcessControl() {}

    /** Sends {@code SIG<signal>} (e.g. {@code STOP}, {@code CONT}) to {@code pid}; true if {@code kill} succeeded. */
    public static boolean signal(long pid, String signal) {
        try {
            Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
