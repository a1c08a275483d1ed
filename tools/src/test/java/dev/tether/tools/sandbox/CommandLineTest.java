package dev.tether.tools.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandLineTest {

    private static final RunnerConfig CONFIG = RunnerConfig.defaults().withMemoryLimitBytes(1000).withMaxProcesses(7);
    private static final Path WORKSPACE = Path.of("/w/s");
    private static final String CONFINED =
            "unshare --user --map-root-user --mount -- prlimit --as=1000 --nproc=7 -- /bin/sh -c \"$c\"";

    @Test
    void isolatesInNamespaces_asTheSandboxUser_underRoot() {
        var isolation = new Isolation.Namespaces(new SandboxUser(65534, 65533), true);

        assertThat(CommandLine.of(isolation, CONFIG, WORKSPACE)).containsExactly(
                "setsid", "setpriv", "--reuid=65534", "--regid=65533", "--clear-groups", "--",
                "unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
                "/bin/sh", "-c", CommandLine.HIDE_SIBLINGS + CommandLine.PRIVATE_TMP + CommandLine.HIDE_PATHS + "exec " + CONFINED, "tether-sandbox", "/w", "/w/s", CommandLine.RUN);
    }

    @Test
    void keepsTheNetwork_whenConfigured_andTheUser_whenNotRoot() {
        var isolation = new Isolation.Namespaces(new SandboxUser(1000, 1000), false);

        assertThat(CommandLine.of(isolation, CONFIG.withNetworkAccess(true), WORKSPACE)).containsExactly(
                "setsid", "unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
                "/bin/sh", "-c", CommandLine.HIDE_SIBLINGS + CommandLine.PRIVATE_TMP + CommandLine.HIDE_PATHS + "exec " + CONFINED, "tether-sandbox", "/w", "/w/s", CommandLine.RUN);
    }

    @Test
    void passesTheDirectoriesToHide_afterTheCommand() {
        var isolation = new Isolation.Namespaces(new SandboxUser(1000, 1000), false);

        assertThat(CommandLine.of(isolation, CONFIG.withHiddenPaths(List.of(Path.of("/var/lib/tether/blobs"), Path.of("/deployments"))),
                WORKSPACE)).endsWith("tether-sandbox", "/w", "/w/s", CommandLine.RUN, "/var/lib/tether/blobs", "/deployments");
    }

    @Test
    void limitsOnlyMemory_whereIsolationIsUnavailable() {
        var isolation = new Isolation.Unavailable("none", new SandboxUser(1000, 1000));

        assertThat(CommandLine.of(isolation, CONFIG, WORKSPACE))
                .containsExactly("setsid", "prlimit", "--as=1000", "--", "/bin/sh", "-c", CommandLine.RUN);
    }

    @Test
    void refusesToHide_theFileSystemRoot() {
        var isolation = new Isolation.Namespaces(SandboxUser.NOBODY, true);

        assertThatThrownBy(() -> CommandLine.of(isolation, CONFIG, Path.of("/s")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CommandLine.of(isolation, CONFIG, Path.of("w/s")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void buildsALine_forEveryKindOfIsolation() {
        List<Isolation> samples = List.of(
                new Isolation.Namespaces(SandboxUser.NOBODY, true), Isolation.Unavailable.because("none"));

        assertThat(samples.stream().map(Object::getClass))
                .containsExactlyInAnyOrderElementsOf(Arrays.asList(Isolation.class.getPermittedSubclasses()));
        samples.forEach(isolation -> assertThat(CommandLine.of(isolation, CONFIG, WORKSPACE)).endsWith(CommandLine.RUN));
    }
}
