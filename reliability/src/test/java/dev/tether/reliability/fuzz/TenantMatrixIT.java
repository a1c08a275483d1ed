package dev.tether.reliability.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.reliability.fuzz.Endpoint.Scope;
import dev.tether.reliability.fuzz.Http.Answer;
import dev.tether.reliability.fuzz.Http.Call;
import dev.tether.reliability.fuzz.TetherUnderTest.Service;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every endpoint of every service × every kind of caller: the owning tenant with a role that may (2xx), another
 * tenant with a role that may (404 for another tenant's session, item or artifact, as for a missing one; its own
 * listing, without the first tenant's items), no token and five kinds of bad token (401), and each role of the owning
 * tenant that may not (403). A token that names no tenant authenticates nobody (401), whatever its roles. The expected status of each cell is written out below; the matrix is printed, counted
 * and written to {@code reliability/target/results/matrix.json}. Zero cross-tenant reads or writes succeed, and the
 * wrong callers change nothing: the owner's sessions, its pending approval and the raw log are the same before and
 * after them.
 */
class TenantMatrixIT {

    /** Who calls. */
    enum Kind { OWN, OTHER_TENANT, NO_TOKEN, BAD_TOKEN, WRONG_ROLE }

    record Caller(String name, Kind kind, String role, Supplier<String> token) {
        /** The matrix column: the name without the role a right caller happens to have. */
        String column() {
            return kind == Kind.WRONG_ROLE ? name : name.replaceFirst(" \\((agent|approver|operator)\\)$", "");
        }
    }

    private static TetherUnderTest tether;
    private static Scene scene;

    @BeforeAll
    static void setScene() {
        tether = TetherUnderTest.shared();
        scene = Scene.set(tether, "matrix");
    }

    static List<Caller> callers(Endpoint endpoint) {
        var callers = new ArrayList<Caller>();
        String right = endpoint.rightRole();
        callers.add(new Caller("own tenant (" + right + ")", Kind.OWN, right, () -> Tokens.acme(right)));
        callers.add(new Caller("other tenant (" + right + ")", Kind.OTHER_TENANT, right, () -> Tokens.globex(right)));
        callers.add(new Caller("other tenant admin", Kind.OTHER_TENANT, "admin", () -> Tokens.globex("admin")));
        callers.add(new Caller("no token", Kind.NO_TOKEN, null, () -> null));
        callers.add(new Caller("unknown key", Kind.BAD_TOKEN, null, () -> "dev-acme-agentX"));
        callers.add(new Caller("forged signature", Kind.BAD_TOKEN, null, Tokens::forgedSignature));
        callers.add(new Caller("expired", Kind.BAD_TOKEN, null, Tokens::expired));
        callers.add(new Caller("replayed from other tenant", Kind.BAD_TOKEN, null, Tokens::replayedFromOtherTenant));
        callers.add(new Caller("alg none", Kind.BAD_TOKEN, null, Tokens::unsigned));
        callers.add(new Caller("no tenant claim", Kind.BAD_TOKEN, null, Tokens::withoutTenant));
        for (String wrong : endpoint.wrongRoles()) {
            callers.add(new Caller("wrong role (" + wrong + ")", Kind.WRONG_ROLE, wrong, () -> Tokens.acme(wrong)));
        }
        return callers;
    }

    /** The status a cell must answer. */
    static int expected(Endpoint e, Caller c) {
        if (e.scope == Scope.PUBLIC) {
            return 200;
        }
        return switch (c.kind()) {
            case NO_TOKEN, BAD_TOKEN -> 401;
            case WRONG_ROLE -> 403;
            case OWN -> switch (e) {
                case SESSION_CREATE, SESSION_SUBAGENT, SESSION_FORK -> 201;
                default -> 200;
            };
            case OTHER_TENANT -> !e.roles.contains(c.role()) ? 403 : switch (e.scope) {
                case SESSION -> 404;
                // creating a session under another tenant's session id: that session is not found, and nothing is created
                case TENANT_WRITE -> 404;
                case TENANT_LIST, DEPLOYMENT -> 200;
                case PUBLIC -> 200;
            };
        };
    }

    /** A listing answered to another tenant holds none of the owner's things. */
    static boolean leaks(Answer answer, Scene scene) {
        String body = answer.text();
        return body.contains(scene.session()) || body.contains(scene.itemId()) || body.contains(scene.erasable());
    }

    @Test
    void everyEndpoint_answersEveryCaller_asItsCellSays_andNoTenantReachesAnother() {
        var failures = new ArrayList<String>();
        assertThat(Endpoint.uncovered(tether)).as("OpenAPI operations missing from Endpoint").isEmpty();

        var before = snapshot();
        var rows = new LinkedHashMap<String, Map<String, String>>();
        int cells = 0;
        int crossTenantSuccesses = 0;
        int crossTenantAttempts = 0;
        // every wrong caller first: they must change nothing; then the owner, whose writes do change things
        for (boolean ownPass : new boolean[] {false, true}) {
            for (Endpoint e : Endpoint.values()) {
                for (Caller c : callers(e)) {
                    if ((c.kind() == Kind.OWN) != ownPass) {
                        continue;
                    }
                    cells++;
                    Answer answer = Http.send(scene.request(tether, e, c.token().get(), c.kind() == Kind.OWN));
                    int want = expected(e, c);
                    boolean ok = answer.status() == want;
                    if (c.kind() == Kind.OTHER_TENANT && e.scope != Scope.PUBLIC && e.scope != Scope.DEPLOYMENT) {
                        crossTenantAttempts++;
                        boolean success = (e.scope == Scope.TENANT_LIST) ? answer.status() / 100 == 2 && leaks(answer, scene)
                                : answer.status() / 100 == 2;
                        if (success) {
                            crossTenantSuccesses++;
                            ok = false;
                        }
                    }
                    if (c.kind() == Kind.OWN && e.scope == Scope.TENANT_LIST && !leaks(answer, scene)) {
                        ok = false; // the owner must see its own things, or the leak check above proves nothing
                    }
                    if (!ok) {
                        failures.add(e + " × " + c.name() + ": expected " + want + ", got " + answer);
                    }
                    rows.computeIfAbsent(e.service.module + " " + e.method + " " + e.path + (e == Endpoint.EVENTS_STREAM || e == Endpoint.PROJECTOR_EVENTS_STREAM ? " (SSE)" : ""),
                            k -> new LinkedHashMap<>()).put(c.column(), answer.status() + (ok ? "" : "≠" + want));
                }
            }
            if (!ownPass) {
                var after = snapshot();
                if (!after.equals(before)) {
                    failures.add("the wrong callers changed the owner's state: before " + before + ", after " + after);
                }
            }
        }
        // health, metrics and OpenAPI of every service: public, the same for every caller
        for (Service service : Service.values()) {
            for (String path : Endpoint.MANAGEMENT) {
                for (Caller c : callers(Endpoint.APPROVALS_PAGE)) {
                    cells++;
                    Answer answer = Http.send(new Call("GET", tether.url(service) + path, c.token().get() == null ? Map.of()
                            : Map.of("Authorization", "Bearer " + c.token().get()), null));
                    boolean ok = answer.status() == 200;
                    if (!ok) {
                        failures.add(service.module + " " + path + " × " + c.name() + ": expected 200, got " + answer.status()
                                + " " + downChecks(answer));
                    }
                    rows.computeIfAbsent(service.module + " GET " + path, k -> new LinkedHashMap<>()).put(c.column(),
                            answer.status() + (ok ? "" : "≠200"));
                }
            }
        }
        print(rows);

        var figures = new LinkedHashMap<String, Object>();
        figures.put("endpoints", Endpoint.values().length);
        figures.put("management endpoints", Service.values().length * Endpoint.MANAGEMENT.size());
        figures.put("cells", cells);
        figures.put("cells as expected", cells - failures.size());
        figures.put("cross-tenant attempts", crossTenantAttempts);
        figures.put("cross-tenant successes", crossTenantSuccesses);
        figures.put("callers", "own tenant, other tenant (right role, admin), no token, unknown key, forged signature, expired, "
                + "replayed from other tenant, alg none, no tenant claim, each wrong role");
        Results.write("matrix", figures, failures);

        assertThat(crossTenantSuccesses).as("cross-tenant successes").isZero();
        assertThat(failures).as("cells that answered otherwise than expected").isEmpty();
        assertThat(tether.unhealthy()).isEmpty();
    }

    /** The checks a health answer says are DOWN, with their data (the whole answer is cut short in a failure message). */
    private static String downChecks(Answer answer) {
        JsonNode health = answer.json();
        var down = new ArrayList<String>();
        if (health != null) {
            for (JsonNode check : health.path("checks")) {
                if (!"UP".equals(check.path("status").asText())) {
                    down.add(check.path("name").asText() + " " + check.path("data"));
                }
            }
        }
        return down.isEmpty() ? String.valueOf(answer) : "DOWN: " + down;
    }

    /** What the wrong callers must not change: the owner's sessions, its pending item, and the raw log. */
    private static Map<String, Object> snapshot() {
        String agent = Tokens.acme("agent");
        var state = new LinkedHashMap<String, Object>();
        for (String id : List.of(scene.session(), scene.erasable())) {
            state.put(id + " summary", Http.send(Call.of("GET", tether.url(Service.SESSION) + "/v1/sessions/" + id, agent)).text());
            state.put(id + " events", tether.events(id, agent).toString());
        }
        JsonNode item = Http.send(Call.of("GET", tether.url(Service.APPROVAL) + "/v1/approvals/" + scene.itemId(), Tokens.acme("approver")))
                .json();
        state.put("item status", item == null ? "none" : item.path("status").asText());
        state.put("raw records", tether.rawRecordsBySession());
        return state;
    }

    private static void print(Map<String, Map<String, String>> rows) {
        var columns = new ArrayList<String>(List.of("own tenant"));
        rows.values().forEach(r -> r.keySet().stream().filter(k -> !columns.contains(k)).forEach(columns::add));
        var out = new StringBuilder("\nTenant matrix: the status of each cell; ≠N marks a cell that should have answered N, - a caller "
                + "that does not apply\n");
        int width = rows.keySet().stream().mapToInt(String::length).max().orElse(10);
        out.append(String.format("%-" + width + "s", "endpoint"));
        columns.forEach(c -> out.append(" | ").append(c));
        out.append('\n');
        rows.forEach((row, cells) -> {
            out.append(String.format("%-" + width + "s", row));
            columns.forEach(c -> out.append(" | ").append(String.format("%-" + c.length() + "s", cells.getOrDefault(c, "-"))));
            out.append('\n');
        });
        System.out.println(out);
    }
}
