package dev.tether.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class PortsTest {

    @Test
    void ports_areDistinct_bindable_andOutsideTheEphemeralRange() throws IOException {
        List<Integer> ports = Ports.free(40);

        assertThat(ports).hasSize(40).doesNotHaveDuplicates();
        int[] ephemeral = Ports.ephemeralRange();
        if (ephemeral[0] - 10_000 >= 1_000) {
            assertThat(ports).allSatisfy(p -> assertThat(p).isBetween(10_000, ephemeral[0] - 1));
        }
        for (int port : ports) {
            new ServerSocket(port, 1, InetAddress.getLoopbackAddress()).close();
        }
    }

    @Test
    void theEphemeralRange_isTheKernels() throws IOException {
        Path file = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        assumeTrue(Files.exists(file), "Linux only");
        // the shell's reading of it, which does not go by the size /proc reports (0)
        String[] bounds = new String(new ProcessBuilder("cat", file.toString()).start().getInputStream().readAllBytes(),
                StandardCharsets.US_ASCII).trim().split("\\s+");

        assertThat(Ports.ephemeralRange()).containsExactly(Integer.parseInt(bounds[0]), Integer.parseInt(bounds[1]));
    }

    @Test
    void aPortInUse_isNotHandedOut() throws IOException {
        int port = Ports.free();
        assertThat(Ports.free(1, new int[] {port, port})).containsExactly(port);
        try (var taken = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> Ports.free(1, new int[] {port, port})).isInstanceOf(IllegalStateException.class)
                    .hasMessage("found only 0 of 1 free ports in " + port + "-" + port);
        }
    }

    @Test
    void theRange_isBelowTheEphemeralOne_orAboveIt_orTheKernelsPick() {
        assertThat(Ports.pickFrom(new int[] {32_768, 60_999})).containsExactly(10_000, 32_767);
        assertThat(Ports.pickFrom(new int[] {1_024, 60_000})).containsExactly(60_001, 65_535);
        assertThat(Ports.pickFrom(new int[] {1_024, 65_000})).containsExactly(0, 0);
        assertThat(Ports.pickFrom(null)).containsExactly(0, 0);
    }
}
