package dev.tether.approval;

import static dev.tether.approval.TetherServices.APPROVER;
import static dev.tether.approval.TetherServices.FOREIGN_APPROVER;
import static dev.tether.approval.TetherServices.call;
import static dev.tether.approval.TetherServices.get;
import static dev.tether.approval.TetherServices.is;
import static dev.tether.approval.TetherServices.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.testing.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;

/**
 * Two approval-service instances share the partitions of the same topics. Either one lists every pending item of the
 * caller's tenant (its own and the other's, oldest first, no other tenant's), answers for every item, and takes a
 * decision on a session the other one holds: forwarded there, and applied exactly once.
 */
class ApprovalOwnerRoutingIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** Polls that outlast a rebalance of two instances on a loaded machine; a request that timed out is asked again. */
    private static ConditionFactory patiently(String what) {
        return await(what).atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
                .ignoreExceptionsInstanceOf(UncheckedIOException.class).ignoreExceptionsInstanceOf(IOException.class);
    }

    @Test
    void eitherInstance_listsAndServesEveryItem_andAppliesADecisionForwardedToTheOwnerOnce() throws Exception {
        try (var services = TetherServices.start("approval-route", false, Map.of())) {
            ServiceProcess a = services.approval;
            ServiceProcess b = services.startAnotherApproval();
            var acme = new LinkedHashMap<String, String>(); // sessionId -> the call waiting for an approval
            for (int i = 0; i < 10; i++) {
                String id = services.createSession("WRITE");
                services.ask(id, call("c" + i, "run_command", "{\"command\":\"make target-" + i + "\"}"));
                acme.put(id, "c" + i);
            }
            var globex = new ArrayList<String>();
            for (int i = 0; i < 2; i++) {
                String id = services.createSession("WRITE", "dev-globex-agent");
                services.ask(id, "dev-globex-agent", call("g" + i, "run_command", "{\"command\":\"make other-" + i + "\"}"));
                globex.add(id);
            }

            // each instance lists all of acme's pending items, oldest first, and none of globex's
            var itemIds = new AtomicReference<List<String>>();
            patiently("both instances list every pending item of the tenant").untilAsserted(() -> {
                for (ServiceProcess instance : List.of(a, b)) {
                    var list = get(instance.baseUrl() + "/v1/approvals?status=PENDING", APPROVER);
                    assertThat(list.status()).as("the list from %s: %s", instance.baseUrl(), list).isEqualTo(200);
                    var sessions = new ArrayList<String>();
                    var ids = new ArrayList<String>();
                    Instant previous = Instant.MIN;
                    for (JsonNode item : list.body().get("approvals")) {
                        sessions.add(item.get("sessionId").asText());
                        ids.add(item.get("id").asText());
                        assertThat(item.get("callId").asText()).isEqualTo(acme.get(item.get("sessionId").asText()));
                        Instant at = Instant.parse(item.get("requestedAt").asText());
                        assertThat(at).as("oldest first").isAfterOrEqualTo(previous);
                        previous = at;
                    }
                    assertThat(sessions).as("from %s", instance.baseUrl()).containsExactlyInAnyOrderElementsOf(acme.keySet());
                    itemIds.set(ids);
                }
            });
            for (ServiceProcess instance : List.of(a, b)) {
                var foreign = get(instance.baseUrl() + "/v1/approvals?status=PENDING", FOREIGN_APPROVER);
                assertThat(foreign.status()).isEqualTo(200);
                var sessions = new ArrayList<String>();
                foreign.body().get("approvals").forEach(item -> sessions.add(item.get("sessionId").asText()));
                assertThat(sessions).as("globex's list from %s", instance.baseUrl()).containsExactlyInAnyOrderElementsOf(globex);
            }
            // the page's other list, the grants, is gathered the same way (none yet)
            assertThat(get(a.baseUrl() + "/v1/approvals/grants", APPROVER).body().get("grants")).isEmpty();

            // every item from either instance, served there or forwarded; another tenant's is missing on both
            patiently("both instances answer for every item").untilAsserted(() -> {
                for (String id : itemIds.get()) {
                    for (ServiceProcess instance : List.of(a, b)) {
                        var item = get(instance.baseUrl() + "/v1/approvals/" + id, APPROVER);
                        assertThat(item.status()).as("%s from %s: %s", id, instance.baseUrl(), item).isEqualTo(200);
                        assertThat(item.body().get("id").asText()).isEqualTo(id);
                        assertThat(item.body().get("status").asText()).isEqualTo("PENDING");
                        assertThat(get(instance.baseUrl() + "/v1/approvals/" + id, FOREIGN_APPROVER).status()).isEqualTo(404);
                    }
                }
            });

            // the list a page at a time, newest first, from either instance: every item once, merged across both
            for (ServiceProcess instance : List.of(a, b)) {
                var paged = new ArrayList<String>();
                String after = null;
                int pages = 0;
                do {
                    var page = get(instance.baseUrl() + "/v1/approvals?status=PENDING&order=newest&limit=4" + (after == null ? ""
                            : "&after=" + java.net.URLEncoder.encode(after, java.nio.charset.StandardCharsets.UTF_8)), APPROVER);
                    assertThat(page.status()).as("%s", page).isEqualTo(200);
                    page.body().get("approvals").forEach(item -> paged.add(item.get("id").asText()));
                    after = page.body().hasNonNull("nextAfter") ? page.body().get("nextAfter").asText() : null;
                    pages++;
                } while (after != null && pages < 10);
                assertThat(pages).as("10 items in pages of 4").isEqualTo(3);
                var newestFirst = new ArrayList<>(itemIds.get());
                java.util.Collections.reverse(newestFirst);
                assertThat(paged).as("from %s", instance.baseUrl()).isEqualTo(newestFirst);
            }
            assertThat(get(a.baseUrl() + "/v1/approvals?order=sideways", APPROVER).body().get("field").asText()).isEqualTo("order");
            assertThat(get(a.baseUrl() + "/v1/approvals?after=yesterday", APPROVER).body().get("field").asText()).isEqualTo("after");
            assertThat(get(a.baseUrl() + "/v1/approvals?limit=0", APPROVER).body().get("field").asText()).isEqualTo("limit");
            assertThat(get(a.baseUrl() + "/v1/approvals?status=DONE", APPROVER).body().get("message").asText())
                    .isEqualTo("must be one of PENDING, GRANTED, DENIED, EXPIRED, CANCELLED, MARKED_DONE, RETRIED, ABANDONED, FINISHED, ALL");

            // pick an item instance A does not hold, once both hold partitions: both answering for every item does not mean
            // that yet (the instance that joined first holds all until the rebalance that gives the other its share ends)
            var notOnA = new ArrayList<String>();
            patiently("both instances hold partitions").untilAsserted(() -> {
                notOnA.clear();
                for (String id : itemIds.get()) {
                    if (localStatus(a, id) != 200) {
                        notOnA.add(id);
                    }
                }
                assertThat(notOnA).as("items of sessions instance B holds").isNotEmpty().hasSizeLessThan(itemIds.get().size());
            });
            String id = notOnA.get(0);
            String sessionId = id.substring(0, id.lastIndexOf('~'));
            String callId = acme.get(sessionId);

            // a decision sent to A is decided by B, once; the same decision again changes nothing
            var decided = post(a.baseUrl() + "/v1/approvals/" + id + "/decision", APPROVER,
                    Map.of("decision", "GRANT_ONCE", "reason", "fine"));
            assertThat(decided.status()).as("%s", decided).isEqualTo(200);
            assertThat(decided.body().get("status").asText()).isEqualTo("GRANTED");
            var again = post(a.baseUrl() + "/v1/approvals/" + id + "/decision", APPROVER,
                    Map.of("decision", "GRANT_ONCE", "reason", "fine"));
            assertThat(again.status()).as("%s", again).isEqualTo(409);
            services.awaitEvent(sessionId, "the call authorized", is("tool_call_authorized", callId));
            List<JsonNode> log = services.events(sessionId);
            assertThat(log.stream().filter(is("approval_granted", callId)).count()).as("grants in the log").isEqualTo(1);
            assertThat(log.stream().filter(is("tool_call_authorized", callId)).count()).isEqualTo(1);
            patiently("the decided item leaves both lists").untilAsserted(() -> {
                for (ServiceProcess instance : List.of(a, b)) {
                    var list = get(instance.baseUrl() + "/v1/approvals?status=PENDING", APPROVER);
                    assertThat(list.status()).isEqualTo(200);
                    assertThat(list.body().get("approvals")).hasSize(acme.size() - 1);
                }
            });
            // and is the one the page's "recently decided" list reads, from either instance
            for (ServiceProcess instance : List.of(a, b)) {
                var recent = get(instance.baseUrl() + "/v1/approvals?status=FINISHED&order=newest&limit=10", APPROVER);
                assertThat(recent.body().get("approvals")).extracting(item -> item.get("id").asText()).containsExactly(id);
                assertThat(recent.body().has("nextAfter")).isFalse();
            }
        }
    }

    /** The status of a GET of the item marked forwarded: the instance answers only from its own partitions. */
    private static int localStatus(ServiceProcess instance, String id) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + "/v1/approvals/" + id))
                .header("Authorization", "Bearer " + APPROVER).header("X-Tether-Forwarded", "1").timeout(Duration.ofSeconds(10)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
