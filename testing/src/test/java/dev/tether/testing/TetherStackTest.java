package dev.tether.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
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

    @Test
    void start_whosePortWasTaken_startsAgainOnOtherPorts_inANewDirectory() throws Exception {
        Path launcher = fakeLauncher(2);

        TetherStack.LocalStack stack = TetherStack.LocalStack.start(launcher, 1);
        try {
            assertThat(stack.bootstrapServers()).isEqualTo("127.0.0.1:1");
        } finally {
            stack.stop();
        }
        List<String> starts = Files.readAllLines(dir.resolve("starts"));
        assertThat(starts).hasSize(3);
        assertThat(starts.stream().map(s -> s.split(" ")[1])).as("the ports of each start").doesNotHaveDuplicates();
        assertThat(starts.stream().map(s -> Path.of(s.split(" ")[0]))).as("each start's directory, gone")
                .doesNotHaveDuplicates().noneMatch(Files::exists);
    }

    @Test
    void start_whosePortsAreTakenThreeTimes_fails_leavingNoDirectory() throws Exception {
        Path launcher = fakeLauncher(3);

        assertThatThrownBy(() -> TetherStack.LocalStack.start(launcher, 1))
                .isInstanceOf(TetherStack.LocalStack.PortTakenException.class)
                .hasMessageContaining("Address already in use");
        List<String> starts = Files.readAllLines(dir.resolve("starts"));
        assertThat(starts).hasSize(3);
        assertThat(starts.stream().map(s -> Path.of(s.split(" ")[0]))).noneMatch(Files::exists);
    }

    @Test
    void aLaunchersFailure_isAPortTaken_onlyWhenItSaysSo() {
        var launcher = new ProcessBuilder("bash", "-c", "echo 'stack: port 1 on 127.0.0.1 is in use (choose other ports, see"
                + " --help)' >&2; exit 1");

        assertThatThrownBy(() -> TetherStack.LocalStack.runStart(launcher, dir, Duration.ofSeconds(30)))
                .isInstanceOf(TetherStack.LocalStack.PortTakenException.class);
        assertThatThrownBy(() -> TetherStack.LocalStack.runStart(new ProcessBuilder("bash", "-c", "echo 'no Java 21' >&2; exit 3"),
                dir, Duration.ofSeconds(30)))
                .isNotInstanceOf(TetherStack.LocalStack.PortTakenException.class);
    }

    /**
     * A stand-in for deploy/local/stack whose first {@code taken} starts fail as a broker's bind to a taken port does;
     * each start appends its directory and Kafka port to {@code starts}, and {@code stop} removes nothing.
     */
    private Path fakeLauncher(int taken) throws IOException {
        Path launcher = dir.resolve("stack");
        Files.writeString(launcher, """
                #!/usr/bin/env bash
                [ "$1" = start ] || exit 0
                shift
                while [ $# -gt 0 ]; do
                  case "$1" in --dir) d=$2 ;; --kafka-port) p=$2 ;; esac
                  shift 2
                done
                echo "$d $p" >> "%s/starts"
                if [ "$(wc -l < "%s/starts")" -le %d ]; then
                  echo 'Caused by: java.net.BindException: Address already in use' >&2
                  exit 1
                fi
                echo TETHER_KAFKA_BOOTSTRAP=127.0.0.1:1
                echo TETHER_REGISTRY_URL=http://127.0.0.1:2/apis/registry/v3
                echo TETHER_REGISTRY_CCOMPAT_URL=http://127.0.0.1:2/apis/ccompat/v7
                """.formatted(dir, dir, taken));
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwx------"));
        return launcher;
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
