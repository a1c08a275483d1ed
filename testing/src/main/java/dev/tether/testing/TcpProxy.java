package dev.tether.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on a free loopback port in front of a real server, for tests of what a client does when that server
 * stops answering. In {@link Mode#FORWARD} it passes bytes both ways. In {@link Mode#BLACK_HOLE} it is a plain server
 * socket that accepts every connection and never answers: what it receives is read and dropped, and connections that
 * were forwarding when the mode changed go silent too, for good (a lost answer stays lost, as it does when a server
 * freezes). Switching back to forwarding serves new connections only.
 *
 * <p>Its threads are daemons; {@link #close()} closes the listener and every connection. Thread-safe.
 */
public final class TcpProxy implements AutoCloseable {

    /** What the proxy does with a connection. */
    public enum Mode { FORWARD, BLACK_HOLE }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile Mode mode;
    /** Bumped on every switch to BLACK_HOLE: a connection accepted before it stops forwarding. */
    private volatile int silence;

    private TcpProxy(String targetHost, int targetPort, Mode mode) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.mode = mode;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy to {@code targetHost:targetPort}, starting in {@code mode}. */
    public static TcpProxy start(String targetHost, int targetPort, Mode mode) {
        try {
            return new TcpProxy(targetHost, targetPort, mode);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A proxy to the server of {@code url} (scheme://host:port/...), starting in {@code mode}. */
    public static TcpProxy to(String url, Mode mode) {
        var uri = java.net.URI.create(url);
        return start(uri.getHost(), uri.getPort(), mode);
    }

    /** {@code url} with its host and port replaced by this proxy's. */
    public String rewrite(String url) {
        var uri = java.net.URI.create(url);
        return uri.getScheme() + "://127.0.0.1:" + port() + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    public int port() {
        return listener.getLocalPort();
    }

    public Mode mode() {
        return mode;
    }

    /** Switches the mode; see the class comment for what happens to open connections. */
    public void mode(Mode newMode) {
        if (newMode == Mode.BLACK_HOLE) {
            silence++;
        }
        mode = newMode;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                if (mode == Mode.BLACK_HOLE) {
                    daemon(() -> drain(client), "tcp-proxy-hole");
                } else {
                    forward(client);
                }
            } catch (IOException e) {
                // closed
            }
        }
    }

    private void forward(Socket client) {
        int epoch = silence;
        Socket server;
        try {
            server = new Socket(targetHost, targetPort);
            sockets.add(server);
        } catch (IOException e) {
            closeQuietly(client); // the target refuses: so does the proxy
            return;
        }
        daemon(() -> pump(client, server, epoch), "tcp-proxy-up");
        daemon(() -> pump(server, client, epoch), "tcp-proxy-down");
    }

    private void pump(Socket from, Socket to, int epoch) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (silence != epoch) {
                    continue; // gone silent: swallow, answer nothing, keep the connection open
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side closed
        } finally {
            if (silence == epoch) {
                closeQuietly(from);
                closeQuietly(to);
            }
        }
    }

    private static void drain(Socket socket) {
        byte[] buffer = new byte[8192];
        try (InputStream in = socket.getInputStream()) {
            while (in.read(buffer) >= 0) {
                // accepted, read, never answered
            }
        } catch (IOException e) {
            // closed
        }
    }

    private static void daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        closeQuietly(listener);
        sockets.forEach(TcpProxy::closeQuietly);
    }

    private static void closeQuietly(ServerSocket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
