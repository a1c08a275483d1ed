package dev.tether.tools;

import static dev.tether.tools.Testbed.args;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fetches from servers on the loopback address: {@code 127.0.0.1} is the allowlisted host, and {@code localhost},
 * the same server under another name, is not.
 */
class HttpFetchToolTest {

    private static final HttpFetchPolicy LOOPBACK = HttpFetchPolicy.allowing(Set.of("127.0.0.1"));

    @TempDir
    Path temp;

    private Testbed bed;
    private HttpServer server;
    private ExecutorService handlers;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final CountDownLatch slowRequestArrived = new CountDownLatch(1);
    private String base;

    @BeforeEach
    void startServer() throws IOException {
        bed = new Testbed(temp);
        handlers = Executors.newCachedThreadPool();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(handlers);
        server.createContext("/", exchange -> {
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
                    + exchange.getRequestHeaders().getFirst("Host"));
            handle(exchange);
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
        handlers.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        switch (path) {
            case "/hello" -> respond(exchange, 200, "hello from the server\n");
            case "/missing" -> respond(exchange, 404, "no such page\n");
            case "/echo-authorization" -> respond(exchange, 200,
                    "you sent: " + exchange.getRequestHeaders().getFirst("Authorization") + "\n");
            case "/redirect-away" -> {
                exchange.getResponseHeaders().add("Location",
                        "http://localhost:" + server.getAddress().getPort() + "/stolen");
                respond(exchange, 302, "");
            }
            case "/large" -> respond(exchange, 200, "0123456789".repeat(10_000));
            case "/slow" -> {
                slowRequestArrived.countDown();
                try {
                    Thread.sleep(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                respond(exchange, 200, "late\n");
            }
            default -> respond(exchange, 500, "unexpected " + path + "\n");
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Test
    void refusesEveryHost_byDefault_sendingNothing() {
        var tool = new HttpFetchTool(HttpFetchPolicy.denyAll());

        ToolException refused = bed.failure(tool, args("url", base + "/hello"));

        assertThat(refused.kind()).isEqualTo(ToolException.Kind.REFUSED);
        assertThat(refused).hasMessage("argument url: host 127.0.0.1 is not on the http_fetch allowlist, which is "
                + "empty: no host may be fetched from");
        assertThat(requests).isEmpty();
    }

    @Test
    void refusesAHostOffTheAllowlist_evenOneThatIsTheSameServer() {
        var tool = new HttpFetchTool(LOOPBACK);

        assertThat(bed.failure(tool, args("url", "http://localhost:" + server.getAddress().getPort() + "/hello")))
                .hasMessage("argument url: host localhost is not on the http_fetch allowlist");
        assertThat(requests).isEmpty();
    }

    @Test
    void refusesAnAllowlistedName_thatResolvesToAnAddressWhichIsNotPublic_sendingNothing() {
        var tool = new HttpFetchTool(HttpFetchPolicy.allowing(Set.of("localhost")));

        ToolException refused = bed.failure(tool, args("url", "http://localhost:" + server.getAddress().getPort() + "/hello"));

        assertThat(refused.kind()).isEqualTo(ToolException.Kind.REFUSED);
        assertThat(refused).hasMessageStartingWith("argument url: host localhost resolves to ")
                .hasMessageContaining("which is not a public address")
                .hasMessageContaining("tether.executor.http.allow-private-addresses");
        assertThat(requests).isEmpty();
    }

    @Test
    void fetchesFromAnAllowlistedName_thatResolvesToAPrivateAddress_whenThePolicyAllowsThose() throws Exception {
        var tool = new HttpFetchTool(HttpFetchPolicy.allowing(Set.of("localhost")).withPrivateAddresses(true));

        ToolOutput output = bed.run(tool, args("url", "http://localhost:" + server.getAddress().getPort() + "/hello"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(requests).containsExactly("GET /hello localhost:" + server.getAddress().getPort());
    }

    @Test
    void refusesTheResponse_whenTheNamesAnswerTurnedPrivate_whileItWasFetched() {
        var answers = new java.util.ArrayDeque<>(List.of("93.184.216.34", "127.0.0.1")); // public, then rebound
        var tool = new HttpFetchTool(HttpFetchPolicy.allowing(Set.of("localhost")),
                host -> new InetAddress[] {InetAddress.getByName(answers.remove())});

        ToolException refused = bed.failure(tool, args("url", "http://localhost:" + server.getAddress().getPort() + "/hello"));

        assertThat(refused.kind()).isEqualTo(ToolException.Kind.REFUSED);
        assertThat(refused).hasMessageStartingWith("argument url: host localhost resolves to 127.0.0.1, which is not");
        assertThat(refused.getMessage()).doesNotContain("hello from the server");
        assertThat(requests).hasSize(1);
        assertThat(answers).isEmpty();
    }

    @Test
    void fetchesFromAnAllowlistedHost() throws Exception {
        var tool = new HttpFetchTool(LOOPBACK);

        ToolOutput output = bed.run(tool, args("url", base + "/hello"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(output.content()).isEqualTo(
                "HTTP 200\ncontent-type: text/plain; charset=utf-8\n\nhello from the server\n");
        assertThat(requests).containsExactly("GET /hello 127.0.0.1:" + server.getAddress().getPort());
    }

    @Test
    void isAnError_forAStatusOtherThan2xx() throws Exception {
        ToolOutput output = bed.run(new HttpFetchTool(LOOPBACK), args("url", base + "/missing"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.ERROR);
        assertThat(output.content()).startsWith("HTTP 404\n").endsWith("\n\nno such page\n");
    }

    @Test
    void doesNotFollowARedirect_toAHostOffTheAllowlist() throws Exception {
        ToolOutput output = bed.run(new HttpFetchTool(LOOPBACK), args("url", base + "/redirect-away"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.ERROR);
        assertThat(output.content()).isEqualTo("HTTP 302\ncontent-type: text/plain; charset=utf-8\nlocation: "
                + "http://localhost:" + server.getAddress().getPort() + "/stolen\n\n"
                + "[http_fetch: redirects are not followed]\n");
        assertThat(requests).hasSize(1).noneMatch(request -> request.contains("/stolen"));
    }

    @Test
    void keepsAtMostMaxBytesOfTheBody() throws Exception {
        var tool = new HttpFetchTool(LOOPBACK.withMaxBytes(1000));

        ToolOutput output = bed.run(tool, args("url", base + "/large"));

        assertThat(output.status()).isEqualTo(ToolOutput.Status.OK);
        assertThat(output.content()).isEqualTo("HTTP 200\ncontent-type: text/plain; charset=utf-8\n\n"
                + "0123456789".repeat(100) + "\n[http_fetch: body cut at 1000 bytes]\n");
    }

    @Test
    void sendsAResolvedSecretInAHeader_andRedactsItFromTheOutput() throws Exception {
        bed.withSecrets(Map.of("api", "s3cr3t-token-value"));

        ToolOutput output = bed.run(new HttpFetchTool(LOOPBACK), args("url", base + "/echo-authorization",
                "headers", Map.of("Authorization", "Bearer secret://api")));

        assertThat(output.content()).endsWith("\n\nyou sent: Bearer [REDACTED:secret:api]\n")
                .doesNotContain("s3cr3t-token-value");
    }

    @Test
    void redactsTheBeginningOfASecret_thatTheBodysCutLeaves() throws Exception {
        bed.withSecrets(Map.of("api", "s3cr3t-token-value"));
        var tool = new HttpFetchTool(LOOPBACK.withMaxBytes("you sent: Token s3cr3t-token".length()));

        ToolOutput output = bed.run(tool, args("url", base + "/echo-authorization",
                "headers", Map.of("Authorization", "Token secret://api")));

        assertThat(output.content()).endsWith("\n\nyou sent: Token [REDACTED:secret:api]\n"
                + "[http_fetch: body cut at 28 bytes]\n");
    }

    @Test
    void failsWithinItsTimeout_whenTheServerIsSlow() throws Exception {
        var tool = new HttpFetchTool(LOOPBACK.withTimeout(Duration.ofMillis(500)));

        long start = System.nanoTime();
        ToolException failed = bed.failure(tool, args("url", base + "/slow"));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(failed.kind()).isEqualTo(ToolException.Kind.FAILED);
        assertThat(failed).hasMessage("no complete response from 127.0.0.1:" + server.getAddress().getPort()
                + " within 500 ms");
        assertThat(tookMs).isBetween(400L, 5_000L);
    }

    @Test
    void isCancelled_whenTheTokenIsCancelledDuringTheFetch() throws Exception {
        var tool = new HttpFetchTool(LOOPBACK);
        var cancellation = new CancellationToken();
        CompletableFuture<ToolOutput> call = CompletableFuture.supplyAsync(() -> {
            try {
                return tool.execute(bed.context(cancellation), args("url", base + "/slow"));
            } catch (ToolException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(slowRequestArrived.await(5, TimeUnit.SECONDS)).isTrue();

        cancellation.cancel();
        ToolOutput output = call.get(3, TimeUnit.SECONDS);

        assertThat(output.status()).isEqualTo(ToolOutput.Status.CANCELLED);
        assertThat(output.content()).isEqualTo("[http_fetch: cancelled]\n");
    }

    @Test
    void refusesBadUrlsAndHeaders_namingTheArgument_sendingNothing() {
        var tool = new HttpFetchTool(LOOPBACK);

        assertThat(bed.failure(tool, args())).hasMessage("argument url: is required");
        assertThat(bed.failure(tool, args("url", "ftp://127.0.0.1/x")))
                .hasMessage("argument url: must be an http or https URL");
        assertThat(bed.failure(tool, args("url", "http://127.0.0.1/a b")))
                .hasMessageStartingWith("argument url: is not a valid URL");
        assertThat(bed.failure(tool, args("url", "http://user:pw@127.0.0.1/")))
                .hasMessageStartingWith("argument url: must not hold user:password@");
        assertThat(bed.failure(tool, args("url", base + "/?token=secret://api")))
                .hasMessage("argument url: secret:// references are resolved in header values only");
        assertThat(bed.failure(tool, args("url", base, "headers", "Accept: */*")))
                .hasMessage("argument headers: must be an object of strings");
        assertThat(bed.failure(tool, args("url", base, "headers", Map.of("X-Count", 3))))
                .hasMessage("argument headers.X-Count: must be a string");
        assertThat(bed.failure(tool, args("url", base, "headers", Map.of("Bad Name", "x"))))
                .hasMessage("argument headers.Bad Name: is not a valid header name");
        assertThat(bed.failure(tool, args("url", base, "headers", Map.of("Host", "evil.example"))))
                .hasMessage("argument headers.Host: cannot be sent (a restricted header, or a bad value)");
        assertThat(bed.failure(tool, args("url", base, "headers", Map.of("X-Key", "secret://nope"))))
                .hasMessageStartingWith("argument headers.X-Key: ");
        assertThat(bed.failure(tool, args("url", base, "method", "POST")))
                .hasMessage("argument method: unknown; this tool takes [headers, url]");
        assertThat(requests).isEmpty();
    }

    @Test
    void policy_takesBareHostsOnly_inLowerCase() {
        assertThat(HttpFetchPolicy.allowing(List.of("API.Example.com")).allows("api.example.COM")).isTrue();
        assertThat(HttpFetchPolicy.denyAll().allowedHosts()).isEmpty();
        assertThatThrownBy(() -> HttpFetchPolicy.allowing(List.of("https://api.example.com")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpFetchPolicy.allowing(List.of("api.example.com:443")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LOOPBACK.withMaxBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LOOPBACK.withTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void isReadOnlyAndIdempotent() {
        var tool = new HttpFetchTool(LOOPBACK);
        var started = LedgerEntry.started("call-1", HttpFetchTool.NAME, "{}", Intent.NONE, 1);

        assertThat(tool.mutating()).isFalse();
        assertThat(tool.idempotent()).isTrue();
        assertThat(tool.reconcile(bed.context(), args("url", base + "/hello"), started))
                .isEqualTo(new Reconciliation.NotApplied());
        assertThat(requests).isEmpty();
    }
}
