package dev.tether.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The local stack's start, with stand-ins for deploy/local/stack: no broker, no registry. */
class TetherStackTest {

    @TempDir
    Path dir;

    @Test
    void start_returnsWhatTheLauncherPrinted_onceItExitedZero() throws Exception {
        var launcher = new ProcessBuilder("bash", "-c", "echo TETHER_KAFKA_BOOTSTRAP=127.0.0.1:1; echo 'starting' >&2");

        assertThat(TetherStack.LocalStack.runStart(launcher, dir, Duration.ofSeconds(30))).isEqualTo("TETHER_KAFKA_BOOTSTRAP=127.0.0.1:1\n");
    }

    @Test
    void start_failsWithTheLaunchersLog_whenItExitsNonZero() {
        var launcher = new ProcessBuilder("bash", "-c", "echo 'no Java 21' >&2; exit 3");

        assertThatThrownBy(() -> TetherStack.LocalStack.runStart(launcher, dir, Duration.ofSeconds(30)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exit 3")
                .hasMessageContaining("no Java 21");
    }

    // SEPARATE_THREAD: a read of the launcher's output blocks where an interrupt cannot reach it; this fails in 20 s then
    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void start_thatHangsWithItsOutputOpen_timesOut_stopsItsProcessTree_andReportsItsOutput() throws Exception {
        // a child holds the output open, as a broker started without a redirect would, and the launcher waits for it
        var launcher = new ProcessBuilder("bash", "-c",
                "echo TETHER_KAFKA_BOOTSTRAP=127.0.0.1:1; sleep 60 & echo \"child=$!\"; echo 'waiting for the broker' >&2; wait");

        Throwable thrown = catchThrowable(() -> TetherStack.LocalStack.runStart(launcher, dir, Duration.ofSeconds(1)));

        assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessageContaining("did not end within PT1S")
                .hasMessageContaining("TETHER_KAFKA_BOOTSTRAP=127.0.0.1:1")
                .hasMessageContaining("waiting for the broker");
        Matcher child = Pattern.compile("child=(\\d+)").matcher(thrown.getMessage());
        assertThat(child.find()).as("the launcher's child's PID in " + thrown.getMessage()).isTrue();
        Optional<ProcessHandle> sleeper = ProcessHandle.of(Long.parseLong(child.group(1)));
        if (sleeper.isPresent()) {
            sleeper.get().onExit().get(10, TimeUnit.SECONDS);
        }
        assertThat(sleeper.filter(ProcessHandle::isAlive)).as("the launcher's child, after the timeout").isEmpty();
    }
}
