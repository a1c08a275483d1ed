package dev.tether.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports for the servers tests start (services, brokers, registries, chromedriver), picked outside the kernel's
 * ephemeral port range.
 *
 * <p>A port is found free here and bound by another process seconds later. A port from the ephemeral range, where
 * {@code new ServerSocket(0)} and every outgoing connection get theirs, can be taken in between: by another build JVM's
 * probe, or by a client's connection. A fresh-clone CI run lost a projector's start that way: its port had become a
 * broker's, probed in a module running alongside. Outside that range only explicit binds compete, and a random pick
 * among thousands makes two JVMs choosing one port within those seconds unlikely. {@code deploy/local/run-smoke-test}
 * picks its ports the same way, and so do the TypeScript tests' {@code freePorts} (clients/typescript/test/real-stack.ts).
 */
public final class Ports {

    /** The lowest port picked: above the well-known and registered ports that local tools listen on. */
    private static final int LOWEST = 10_000;
    /** The fewest ports worth picking from outside the ephemeral range; with fewer, the kernel picks instead. */
    private static final int ENOUGH = 1_000;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    private Ports() {}

    /** One free port on 127.0.0.1. */
    public static int free() {
        return free(1).get(0);
    }

    /** {@code n} distinct free ports on 127.0.0.1. */
    public static List<Integer> free(int n) {
        return free(n, pickFrom(ephemeralRange()));
    }

    /** {@code n} distinct free ports from {@code range} ({@code {first, last}}; {@code {0, 0}}: the kernel's picks). */
    static List<Integer> free(int n, int[] range) {
        var ports = new LinkedHashSet<Integer>();
        for (int tries = 0; ports.size() < n; tries++) {
            if (tries == 100 * n) {
                throw new IllegalStateException("found only " + ports.size() + " of " + n + " free ports in " + range[0] + "-" + range[1]);
            }
            int port = range[0] == 0 ? kernelPick() : ThreadLocalRandom.current().nextInt(range[0], range[1] + 1);
            if (!ports.contains(port) && bindable(port)) {
                ports.add(port);
            }
        }
        return new ArrayList<>(ports);
    }

    /**
     * The ports to pick from, given the ephemeral range ({@code {first, last}}; null if unknown): below it, or above it
     * when it starts too low; {@code {0, 0}} (the kernel picks) when neither side has {@link #ENOUGH} ports.
     */
    static int[] pickFrom(int[] ephemeral) {
        if (ephemeral == null) {
            return new int[] {0, 0};
        }
        if (ephemeral[0] - LOWEST >= ENOUGH) {
            return new int[] {LOWEST, ephemeral[0] - 1};
        }
        if (65_535 - ephemeral[1] >= ENOUGH) {
            return new int[] {Math.max(LOWEST, ephemeral[1] + 1), 65_535};
        }
        return new int[] {0, 0};
    }

    /** The kernel's ephemeral range (Linux), or null where it cannot be read. */
    static int[] ephemeralRange() {
        // read as a stream: Files.readString (readAllBytes) sizes its read by the size a /proc file reports, and on Java
        // 17 answered "3" for "32768 60999", so until this every port was the kernel's pick, from the ephemeral range
        try (BufferedReader in = Files.newBufferedReader(EPHEMERAL_RANGE)) {
            String[] bounds = in.readLine().trim().split("\\s+");
            return new int[] {Integer.parseInt(bounds[0]), Integer.parseInt(bounds[1])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean bindable(int port) {
        try (var socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int kernelPick() {
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
