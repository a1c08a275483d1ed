package dev.tether.reliability.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tether.reliability.fuzz.TetherUnderTest.Service;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every REST endpoint of the four services, written out: the fuzzer and the matrix switch over this enum without a
 * default, so a constant added here does not compile until both say what it does; and {@link #uncovered} compares
 * the list with each service's OpenAPI document, so an endpoint added to a service fails both ITs until it is here.
 * Besides these, every service serves the {@link #MANAGEMENT} paths, without authentication.
 */
enum Endpoint {
    SESSION_CREATE(Service.SESSION, "POST", "/v1/sessions", Scope.TENANT_WRITE, "agent", "admin"),
    SESSION_LIST(Service.SESSION, "GET", "/v1/sessions", Scope.TENANT_LIST, "agent", "approver", "operator", "admin"),
    SESSION_GET(Service.SESSION, "GET", "/v1/sessions/{id}", Scope.SESSION, "agent", "approver", "operator", "admin"),
    EVENTS_APPEND(Service.SESSION, "POST", "/v1/sessions/{id}/events", Scope.SESSION, "agent", "approver", "admin"),
    EVENTS_PAGE(Service.SESSION, "GET", "/v1/sessions/{id}/events", Scope.SESSION, "agent", "approver", "operator", "admin"),
    /** The same path as {@link #EVENTS_PAGE}, with {@code Accept: text/event-stream}. */
    EVENTS_STREAM(Service.SESSION, "GET", "/v1/sessions/{id}/events", Scope.SESSION, "agent", "approver", "operator", "admin"),
    SESSION_CLAIM(Service.SESSION, "POST", "/v1/sessions/{id}/claim", Scope.SESSION, "agent", "admin"),
    SESSION_MIGRATE(Service.SESSION, "POST", "/v1/sessions/{id}/migrate", Scope.SESSION, "operator", "admin"),
    SESSION_ERASE(Service.SESSION, "DELETE", "/v1/sessions/{id}", Scope.SESSION, "agent", "admin"),
    SESSION_SUBAGENT(Service.SESSION, "POST", "/v1/sessions/{id}/subagents", Scope.SESSION, "agent", "admin"),
    SESSION_FORK(Service.SESSION, "POST", "/v1/sessions/{id}/fork", Scope.SESSION, "agent", "admin"),
    ARTIFACT_GET(Service.SESSION, "GET", "/v1/artifacts/{sha256}", Scope.SESSION, "agent", "approver", "operator", "admin"),
    VERSIONS_LIST(Service.SESSION, "GET", "/v1/harness-versions", Scope.DEPLOYMENT, "operator", "admin"),
    VERSIONS_PUT(Service.SESSION, "PUT", "/v1/harness-versions", Scope.DEPLOYMENT, "operator", "admin"),
    CHECKPOINT(Service.PROJECTOR, "GET", "/v1/sessions/{id}/checkpoint", Scope.SESSION, "agent", "approver", "operator", "admin"),
    CONTEXT(Service.PROJECTOR, "GET", "/v1/sessions/{id}/context", Scope.SESSION, "agent", "approver", "operator", "admin"),
    COMPACTION_SOURCE(Service.PROJECTOR, "GET", "/v1/sessions/{id}/compaction-source", Scope.SESSION, "agent", "approver", "operator",
            "admin"),
    RECOVERY(Service.PROJECTOR, "GET", "/v1/sessions/{id}/recovery", Scope.SESSION, "agent", "approver", "operator", "admin"),
    CALL(Service.PROJECTOR, "GET", "/v1/sessions/{id}/calls/{callId}", Scope.SESSION, "agent", "approver", "operator", "admin"),
    /**
     * A session's events as the projector holds them (what a fork's context reads from the instance holding its parent):
     * the contract of {@link #EVENTS_PAGE} ({@code fromSeq}, {@code limit}), plus an upper bound {@code toSeq}.
     */
    PROJECTOR_EVENTS(Service.PROJECTOR, "GET", "/v1/sessions/{id}/events", Scope.SESSION, "agent", "approver", "operator", "admin"),
    /**
     * The same path as {@link #PROJECTOR_EVENTS}, with {@code Accept: text/event-stream}: the session-service's live stream
     * ({@link #EVENTS_STREAM}), relayed for the session explorer with the caller's credentials.
     */
    PROJECTOR_EVENTS_STREAM(Service.PROJECTOR, "GET", "/v1/sessions/{id}/events", Scope.SESSION, "agent", "approver", "operator",
            "admin"),
    /** The caller's tenant's sessions as the projection has them (the session explorer's list). */
    PROJECTOR_SESSION_LIST(Service.PROJECTOR, "GET", "/v1/sessions", Scope.TENANT_LIST, "agent", "approver", "operator", "admin"),
    /** The session explorer's web page: static HTML that holds no data (its script calls the API with the reader's token). */
    EXPLORER_PAGE(Service.PROJECTOR, "GET", "/explorer", Scope.PUBLIC),
    APPROVALS_LIST(Service.APPROVAL, "GET", "/v1/approvals", Scope.TENANT_LIST, "approver", "admin"),
    APPROVALS_GRANTS(Service.APPROVAL, "GET", "/v1/approvals/grants", Scope.TENANT_LIST, "approver", "admin"),
    APPROVAL_GET(Service.APPROVAL, "GET", "/v1/approvals/{id}", Scope.SESSION, "approver", "admin"),
    APPROVAL_DECIDE(Service.APPROVAL, "POST", "/v1/approvals/{id}/decision", Scope.SESSION, "approver"),
    /** The approvers' web page: static HTML that holds no data (its script calls the API with the approver's token). */
    APPROVALS_PAGE(Service.APPROVAL, "GET", "/approvals", Scope.PUBLIC);

    /** What an endpoint reaches, which decides what another tenant must get from it. */
    enum Scope {
        /** One session, approval item or artifact of a tenant: another tenant gets 404, as for a missing one. */
        SESSION,
        /** A listing of the caller's tenant: another tenant gets its own (which must not hold the first tenant's items). */
        TENANT_LIST,
        /** Creates something in the caller's own tenant. */
        TENANT_WRITE,
        /**
         * Harness versions: every tenant's operators may list and put them, each its own tenant's (another tenant's
         * operator is answered 200 with its own; {@code TenantIsolationIT.harnessVersions_areEachTenantsOwn_…} in
         * session-service checks that none of the owner's shows or moves).
         */
        DEPLOYMENT,
        /** No authentication, no data. */
        PUBLIC
    }

    /** Health, metrics and the OpenAPI document, served by every service without authentication. */
    static final List<String> MANAGEMENT = List.of("/q/health", "/q/health/live", "/q/health/ready", "/q/health/started", "/q/metrics",
            "/q/openapi");

    final Service service;
    final String method;
    final String path;
    final Scope scope;
    final Set<String> roles;

    Endpoint(Service service, String method, String path, Scope scope, String... roles) {
        this.service = service;
        this.method = method;
        this.path = path;
        this.scope = scope;
        this.roles = Set.of(roles);
    }

    /** The roles (of {@link Tokens#ROLES}) that may not call it. */
    List<String> wrongRoles() {
        return scope == Scope.PUBLIC ? List.of() : Tokens.ROLES.stream().filter(r -> !roles.contains(r)).toList();
    }

    /** A role that may call it. */
    String rightRole() {
        return roles.isEmpty() ? "agent" : Tokens.ROLES.stream().filter(roles::contains).findFirst().orElseThrow();
    }

    /**
     * The operations of the services' OpenAPI documents that neither an endpoint of this list nor a
     * {@link #MANAGEMENT} path covers (as "service METHOD path"); empty when the list is complete.
     */
    static List<String> uncovered(TetherUnderTest tether) {
        var missing = new ArrayList<String>();
        for (Service service : Service.values()) {
            var answer = Http.send(Http.Call.of("GET", tether.url(service) + "/q/openapi?format=json", null));
            JsonNode doc = answer.json();
            if (answer.status() != 200 || doc == null || !doc.has("paths")) {
                missing.add(service.module + ": no OpenAPI document (" + answer + ")");
                continue;
            }
            for (Iterator<String> paths = doc.get("paths").fieldNames(); paths.hasNext(); ) {
                String path = paths.next();
                for (Iterator<String> methods = doc.get("paths").get(path).fieldNames(); methods.hasNext(); ) {
                    String method = methods.next().toUpperCase(Locale.ROOT);
                    if (!Set.of("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS").contains(method)) {
                        continue; // "parameters", "summary" and the like
                    }
                    boolean listed = MANAGEMENT.contains(path)
                            || List.of(values()).stream().anyMatch(e -> e.service == service && e.method.equals(method) && e.path.equals(path));
                    if (!listed) {
                        missing.add(service.module + " " + method + " " + path);
                    }
                }
            }
        }
        return missing;
    }

    /** The OpenAPI operations of every service, as "service METHOD path", for the figures. */
    static Set<String> operations(TetherUnderTest tether) {
        var all = new TreeSet<String>();
        for (Service service : Service.values()) {
            JsonNode doc = Http.send(Http.Call.of("GET", tether.url(service) + "/q/openapi?format=json", null)).json();
            if (doc != null && doc.has("paths")) {
                doc.get("paths").fields().forEachRemaining(p -> p.getValue().fieldNames()
                        .forEachRemaining(m -> all.add(service.module + " " + m.toUpperCase(Locale.ROOT) + " " + p.getKey())));
            }
        }
        return all;
    }
}
