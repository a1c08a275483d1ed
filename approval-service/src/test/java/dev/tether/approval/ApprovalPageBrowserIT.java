package dev.tether.approval;

import static dev.tether.approval.TetherServices.AGENT;
import static dev.tether.approval.TetherServices.call;
import static dev.tether.approval.TetherServices.is;
import static dev.tether.approval.TetherServices.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.testing.HeadlessChromium;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.remote.RemoteWebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The approvers' page in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}; nothing
 * downloads a browser): a pending diff is shown, "Grant for session" is clicked, and the next matching call is
 * authorized without a prompt; other items are decided with the keyboard alone. Screenshots go to
 * {@code target/approvals-page.png} (the pending requests) and {@code target/approvals-page-after.png}.
 *
 * <p>The browser is a {@link HeadlessChromium}: chromedriver on a free loopback port, stopped with every browser process
 * under it by PID.
 */
class ApprovalPageBrowserIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static TetherServices services;
    private static HeadlessChromium chromium;
    private static RemoteWebDriver browser;

    @BeforeAll
    static void start() throws Exception {
        HeadlessChromium.requireInstalled();
        services = TetherServices.start("approval-page", false, Map.of());
        chromium = HeadlessChromium.start("approval-chromium-", 1280, 1500);
        browser = chromium.browser();
    }

    @AfterAll
    static void stop() {
        try {
            if (chromium != null) {
                chromium.close();
            }
        } finally {
            if (services != null) {
                services.close();
            }
        }
    }

    @Test
    void anApproverSeesThePendingDiff_grantsItForTheSession_andTheNextMatchingCallRunsWithoutAPrompt() throws Exception {
        String id = services.createSession("WRITE");
        Path src = Files.createDirectories(services.workspaces.resolve(id).resolve("src"));
        Files.writeString(src.resolve("Foo.java"), "package demo;\n\n/** The greeter. */\nclass Foo {\n    String greet() {\n"
                + "        return \"hello\";\n    }\n}\n");
        Files.writeString(src.resolve("Main.java"), "package demo;\n\nclass Main {\n    Foo foo = new Foo();\n}\n");
        services.ask(id, call("c1", "edit_file", "{\"path\":\"src/Foo.java\",\"old\":\"class Foo {\",\"new\":\"class Bar {\"}"));
        // a right-to-left override would show the rest of the line reversed, a tag character text no screen shows: each is
        // shown as what it is
        services.ask(id, call("c2", "run_command", "{\"command\":\"./gradlew test\u202e --tests 'demo.*'\uDB40\uDC41\"}"));
        long readSeq = services.ask(id, call("c3", "read_file", "{\"path\":\"src/Main.java\"}"));
        services.awaitEvent(id, "c3 authorized", is("tool_call_authorized", "c3"));
        services.append(id, AGENT, json().put("eventId", UUID.randomUUID().toString()).put("type", "tool_result").put("callId", "c3")
                .put("idempotencyKey", id + "/" + readSeq + "/c3").put("status", "UNKNOWN")
                .put("content", "the executor restarted while reading; the outcome could not be confirmed"));
        services.awaitPending(id, "c1");
        services.awaitPending(id, "c2");
        services.awaitPending(id, "c3");

        browser.get(services.approval.baseUrl() + "/approvals#token=" + TetherServices.APPROVER);
        var wait = new WebDriverWait(browser, WAIT);
        WebElement diff = wait.until(ExpectedConditions.visibilityOfElementLocated(card("c1")));
        assertThat(diff.findElements(By.cssSelector("pre.shown span.del"))).extracting(WebElement::getText).contains("-class Foo {");
        assertThat(diff.findElements(By.cssSelector("pre.shown span.add"))).extracting(WebElement::getText).contains("+class Bar {");
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#pending li.item"), 3));
        assertThat(browser.findElement(card("c2")).findElement(By.cssSelector("pre.shown")).getText())
                .isEqualTo("./gradlew test\u27e8U+202E\u27e9 --tests 'demo.*'\u27e8U+E0041\u27e9");
        assertThat(browser.findElement(card("c3")).getText()).contains("UNKNOWN OUTCOME").contains("could not be confirmed");
        screenshot("approvals-page.png");

        WebElement glob = diff.findElement(By.cssSelector("input.scope-glob"));
        assertThat(glob.getAttribute("value")).isEqualTo("src/**");
        diff.findElement(By.cssSelector("button.grant-session")).click();
        wait.until(ExpectedConditions.invisibilityOfElementLocated(card("c1")));

        JsonNode grant = services.awaitEvent(id, "the session grant", is("approval_granted", "c1"));
        assertThat(grant.get("scope").asText()).isEqualTo("SESSION");
        assertThat(grant.get("pathGlob").asText()).isEqualTo("src/**");
        assertThat(grant.get("approver").asText()).isEqualTo("acme-approver");

        services.ask(id, call("c4", "edit_file", "{\"path\":\"src/Main.java\",\"old\":\"Foo\",\"new\":\"Bar\",\"all\":true}"));
        JsonNode authorized = services.awaitEvent(id, "c4 authorized", is("tool_call_authorized", "c4"));
        assertThat(authorized.get("basis").get("approvalSeq").asLong()).isEqualTo(grant.get("seq").asLong());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#grants"), "c4"));
        assertThat(browser.findElements(card("c4"))).as("no prompt for c4").isEmpty();
        assertThat(services.events(id).stream().filter(is("approval_requested", "c4")).count()).isZero();

        // the rest with the keyboard alone: select the run_command, try to deny without a reason, write one, deny
        WebElement commandCard = browser.findElement(card("c2"));
        keys("k", "k", "k");
        assertThat(commandCard.getAttribute("class")).contains("selected");
        keys("d");
        assertThat(commandCard.findElement(By.cssSelector(".error")).getText()).contains("Write a reason first");
        assertThat(browser.switchTo().activeElement().getAttribute("class")).isEqualTo("reason");
        new Actions(browser).sendKeys("tests are run by CI, not the agent").sendKeys(Keys.ESCAPE).perform();
        keys("d");
        wait.until(ExpectedConditions.invisibilityOfElementLocated(card("c2")));
        JsonNode denied = services.awaitEvent(id, "c2's error result", is("tool_result", "c2"));
        assertThat(denied.get("content").asText()).isEqualTo("denied by acme-approver: tests are run by CI, not the agent");

        wait.until(ExpectedConditions.attributeContains(card("c3"), "class", "selected"));
        keys("m");
        wait.until(ExpectedConditions.invisibilityOfElementLocated(card("c3")));
        JsonNode resolved = services.awaitEvent(id, "c3 resolved", is("tool_outcome_resolved", "c3"));
        assertThat(resolved.get("resolution").asText()).isEqualTo("MARK_DONE");

        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#recent"), "MARKED_DONE"));
        assertThat(browser.findElement(By.id("empty")).isDisplayed()).isTrue();
        screenshot("approvals-page-after.png");
    }

    @Test
    void aCallTheSessionsHarnessRuns_isGrantedForTheSession_withoutAPathGlob_whichWouldCoverNoneOfItsCalls() throws Exception {
        String id = services.createSessionRunning("WRITE", "save_note");
        services.ask(id, call("h1", "save_note", "{\"path\":\"notes/today.md\",\"text\":\"standup at 10\"}"));
        services.awaitPending(id, "h1");

        browser.get(services.approval.baseUrl() + "/approvals#token=" + TetherServices.APPROVER);
        var wait = new WebDriverWait(browser, WAIT);
        WebElement note = wait.until(ExpectedConditions.visibilityOfElementLocated(card("h1")));
        // the API says who runs it and suggests no glob, and the page offers no glob field: the grant would refuse one
        assertThat(note.findElements(By.cssSelector("input.scope-glob")))
                .singleElement().satisfies(glob -> assertThat(glob.isDisplayed()).isFalse());
        assertThat(note.findElement(By.cssSelector(".session-scope")).getText()).contains("the session's harness runs this tool");
        note.findElement(By.cssSelector("button.grant-session")).click();
        wait.until(ExpectedConditions.invisibilityOfElementLocated(card("h1")));

        JsonNode grant = services.awaitEvent(id, "the session grant", is("approval_granted", "h1"));
        assertThat(grant.get("scope").asText()).isEqualTo("SESSION");
        assertThat(grant.get("tool").asText()).isEqualTo("save_note");
        assertThat(grant.has("pathGlob")).as("a grant of the tool on any path").isFalse();
        services.ask(id, call("h2", "save_note", "{\"path\":\"elsewhere/later.md\",\"text\":\"lunch\"}"));
        JsonNode authorized = services.awaitEvent(id, "h2 authorized", is("tool_call_authorized", "h2"));
        assertThat(authorized.get("basis").get("approvalSeq").asLong()).isEqualTo(grant.get("seq").asLong());
    }

    private static By card(String callId) {
        return By.xpath("//ol[@id='pending']/li[contains(@aria-label, ' call " + callId + "')]");
    }

    private static void keys(String... keys) {
        var actions = new Actions(browser);
        for (String key : keys) {
            actions.sendKeys(key);
        }
        actions.perform();
    }

    private static void screenshot(String name) throws IOException {
        Path target = Path.of("target").toAbsolutePath().resolve(name);
        Files.write(target, browser.getScreenshotAs(OutputType.BYTES));
    }
}
