package dev.tether.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.remote.RemoteWebDriver;

/**
 * A real headless Chromium for browser tests, driven by Selenium through chromedriver: Debian's {@code chromium} and
 * {@code chromium-driver}, found on the PATH (nothing downloads a browser; {@code .ci/run} installs both with apt-get
 * when they are missing).
 *
 * <p>{@link #start} runs chromedriver on a free loopback port (accepting loopback clients only, its output appended to
 * {@code target/chromedriver.log} under the working directory: the module's, in a Maven test run), waits until it
 * answers, and opens one browser window of the given size in a new temporary profile; {@link #browser()} is that
 * window. {@link #close()} quits the browser, stops chromedriver and every process under it by PID (SIGTERM, then
 * SIGKILL after 10 s) and deletes the profile. Not thread-safe: one test class's browser.
 */
public final class HeadlessChromium implements AutoCloseable {

    /** How long {@link #start} waits for chromedriver to answer. */
    private static final Duration DRIVER_READY_WITHIN = Duration.ofSeconds(30);

    private final Process chromedriver;
    private final int port;
    private final Path profile;
    private final RemoteWebDriver browser;

    private HeadlessChromium(Process chromedriver, int port, Path profile, RemoteWebDriver browser) {
        this.chromedriver = chromedriver;
        this.port = port;
        this.profile = profile;
        this.browser = browser;
    }

    /**
     * Fails, saying what to install, when {@code chromium} or {@code chromedriver} is not on the PATH: for a test to call
     * before a slow set-up (the services it opens in the browser), so that a machine without them fails at once.
     * {@link #start} checks the same.
     */
    public static void requireInstalled() {
        executable("chromium");
        executable("chromedriver");
    }

    /**
     * Starts chromedriver and opens the browser: {@code --headless=new --no-sandbox --disable-gpu
     * --disable-background-networking --disable-dev-shm-usage}, a {@code width}×{@code height} window, a temporary
     * profile directory named {@code profilePrefix} and a random suffix, and a 30 s script timeout. Whatever it started
     * is stopped again when it fails, since the caller holds no handle to stop it with.
     *
     * @throws IllegalStateException when chromium or chromedriver is not on the PATH, or chromedriver exits or does not
     *                               answer within 30 s (its log says why)
     */
    public static HeadlessChromium start(String profilePrefix, int width, int height) {
        Path chromium = executable("chromium");
        Path driver = executable("chromedriver");
        int port = Ports.free();
        Path log = Path.of("target", "chromedriver.log").toAbsolutePath();
        Process chromedriver;
        try {
            chromedriver = new ProcessBuilder(driver.toString(), "--port=" + port, "--allowed-ips=127.0.0.1")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path profile = null;
        boolean opened = false;
        try {
            awaitDriver(chromedriver, port);
            profile = Files.createTempDirectory(profilePrefix);
            var options = new ChromeOptions();
            options.setBinary(chromium.toFile());
            options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-dev-shm-usage", "--window-size=" + width + "," + height, "--user-data-dir=" + profile);
            var browser = new RemoteWebDriver(new URL("http://127.0.0.1:" + port), options);
            browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
            opened = true;
            return new HeadlessChromium(chromedriver, port, profile, browser);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (!opened) {
                stop(chromedriver);
                deleteProfile(profile);
            }
        }
    }

    /** The browser, through chromedriver. Quit by {@link #close()}, not by its user. */
    public RemoteWebDriver browser() {
        return browser;
    }

    /**
     * Runs a Chrome DevTools Protocol command (e.g. {@code Page.addScriptToEvaluateOnNewDocument}) in the browser, through
     * chromedriver's endpoint for them ({@code goog/cdp/execute}).
     *
     * @param paramsJson the command's params, a JSON object
     * @return chromedriver's answer, JSON: {@code {"value": <the command's result>}}
     * @throws IllegalStateException when chromedriver answers anything but 200
     */
    public String devTools(String command, String paramsJson) throws IOException, InterruptedException {
        String body = "{\"cmd\":\"" + command + "\",\"params\":" + paramsJson + "}";
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/session/" + browser.getSessionId() + "/goog/cdp/execute"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(command + ": chromedriver answered " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }

    /**
     * Quits the browser, then stops chromedriver and every process under it by PID and deletes the profile, even when
     * quitting fails (that failure is thrown afterwards).
     */
    @Override
    public void close() {
        try {
            browser.quit();
        } finally {
            stop(chromedriver);
            deleteProfile(profile);
        }
    }

    /**
     * SIGTERM to chromedriver and its descendants (the browser's processes), SIGKILL to chromedriver if it has not
     * exited after 10 s, then to those of its descendants still alive.
     */
    private static void stop(Process chromedriver) {
        List<ProcessHandle> children = chromedriver.descendants().toList();
        children.forEach(ProcessHandle::destroy);
        chromedriver.destroy();
        try {
            if (!chromedriver.waitFor(10, TimeUnit.SECONDS)) {
                chromedriver.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            chromedriver.destroyForcibly();
        }
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    /** The browser's profile directory, once the browser is gone (left in the temp directory, profiles add up). */
    private static void deleteProfile(Path profile) {
        if (profile == null) {
            return;
        }
        try {
            Trees.delete(profile);
        } catch (UncheckedIOException e) {
            System.err.println("could not delete the browser profile " + profile + ": " + e);
        }
    }

    /** The program on the PATH; fails, saying what to install, when it is missing. */
    private static Path executable(String name) {
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(dir -> Path.of(dir, name)).filter(Files::isExecutable).findFirst()
                .orElseThrow(() -> new IllegalStateException(name + " is not on the PATH: install Debian's chromium and "
                        + "chromium-driver (apt-get install chromium chromium-driver; .ci/run does it when they are missing)"));
    }

    /** Waits until chromedriver's {@code /status} answers 200; fails if it exits or does not answer in time. */
    private static void awaitDriver(Process chromedriver, int port) {
        var http = HttpClient.newHttpClient();
        var status = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/status")).timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + DRIVER_READY_WITHIN.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                if (!chromedriver.isAlive()) {
                    throw new IllegalStateException("chromedriver exited; see target/chromedriver.log");
                }
                try {
                    if (http.send(status, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                        return;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for chromedriver", e);
        }
        throw new IllegalStateException("chromedriver did not answer within 30 s; see target/chromedriver.log");
    }
}
