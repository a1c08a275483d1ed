/*
 * The session explorer (served by the projector-service at /explorer). No build step, no library: the DOM and fetch.
 *
 * It calls this service's API only, with the reader's bearer token: GET /v1/sessions (the list), and for one session
 * …/checkpoint?atSeq=, …/context?format=&atSeq=, …/recovery, …/events (pages, and the live stream the projector relays
 * from the session-service with Accept: text/event-stream) and …/calls/{callId}. Everything it shows is put in the page
 * as text, never as markup.
 */
"use strict";
(() => {
  const PAGE_SIZE = 1000;      // events per request (the projector's largest page)
  const WINDOW = 200;          // timeline rows rendered at once
  const TOKEN_KEY = "tether.explorer.token";

  const $ = (id) => document.getElementById(id);
  const status = $("status");
  const traceUrl = (document.querySelector('meta[name="tether-trace-url"]') || {}).content || "";
  const params = new URLSearchParams(location.search);
  const sessionId = params.get("session");
  let token = sessionStorage.getItem(TOKEN_KEY) || "";

  // a token may come in the fragment (#token=...), which never reaches a server; it is moved to session storage
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    token = fragment.get("token");
    sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, "", location.pathname + location.search);
  }
  $("token").value = token;
  $("login").addEventListener("submit", (e) => {
    e.preventDefault();
    token = $("token").value.trim();
    sessionStorage.setItem(TOKEN_KEY, token);
    location.reload();
  });

  // ---------------------------------------------------------------------------------------------------------------
  // helpers

  /**
   * Characters that show nothing or reorder what follows (zero-width, soft hyphen, bidirectional controls: "Trojan
   * Source"), plane 14's tag characters and variation selectors ("ASCII smuggling") — the approval page's set, and the
   * CLI's (cli Output.isHidden) — and the C0 and C1 controls but tab, line feed and carriage return. Text from events
   * shows each of them written out and marked, so that what a person reads is what the log holds.
   */
  const INVISIBLE = /([\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e0fff}])/u;
  const EVERY_INVISIBLE = new RegExp(INVISIBLE.source, "gu");
  const written = (ch) => "\u27e8U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") + "\u27e9";

  /** {@code text} as the page shows it: each invisible character in it a marked ⟨U+XXXX⟩. */
  function marked(text) {
    if (!INVISIBLE.test(text)) return [text];
    return text.split(INVISIBLE).filter((part) => part !== "").map((part) => INVISIBLE.test(part)
      ? el("mark", { class: "invisible", title: "an invisible character", text: written(part) }) : part);
  }

  /** {@code text} for an attribute a person reads (title, aria-label) or the document's title: ⟨U+XXXX⟩ unmarked. */
  const plain = (text) => String(text).replace(EVERY_INVISIBLE, written);

  /** {@code value} as indented JSON with the invisible characters as escapes: the same JSON, nothing hidden in it. */
  const json = (value) => JSON.stringify(value, null, 2).replace(EVERY_INVISIBLE,
    (ch) => ch.split("").map((unit) => "\\u" + unit.charCodeAt(0).toString(16).padStart(4, "0")).join(""));

  /** An element; {@code text} and string children are shown as {@link marked} text, never as markup. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.append(...marked(String(v)));
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "title" || k === "aria-label") node.setAttribute(k, plain(v));
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) {
      if (typeof c === "string") node.append(...marked(c));
      else if (c !== null && c !== undefined && c !== false) node.append(c);
    }
    return node;
  }

  async function api(path, options) {
    const response = await fetch(path, Object.assign({}, options, {
      headers: Object.assign({ "Authorization": "Bearer " + token, "Accept": "application/json" }, (options || {}).headers || {})
    }));
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      const error = new Error(body.message || (response.status + " " + response.statusText));
      error.status = response.status;
      error.retryAfter = Number(response.headers.get("Retry-After") || 0);
      throw error;
    }
    return response.json();
  }

  /** Retries what answers 503 (state restoring, a rebalance) after its Retry-After, a few times. */
  async function patient(path) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await api(path);
      } catch (e) {
        if (e.status !== 503 || attempt >= 5) throw e;
        await new Promise((r) => setTimeout(r, 1000 * Math.max(1, e.retryAfter)));
      }
    }
  }

  function problem(e) {
    return e.status === 401 ? "The token was not accepted." : e.status === 403 ? "This token may not read sessions."
      : e.status === 404 ? "Not found." : e.message;
  }

  const sessionPath = (id) => "/v1/sessions/" + encodeURIComponent(id);
  const sessionLink = (id, text) => el("a", { href: "/explorer?session=" + encodeURIComponent(id), text: text || id });
  const time = (iso) => iso ? new Date(iso).toLocaleString() : "";
  const clock = (iso) => {
    if (!iso) return "";
    const d = new Date(iso);
    return d.toLocaleTimeString([], { hour12: false }) + "." + String(d.getMilliseconds()).padStart(3, "0");
  };
  const cut = (text, n) => text && text.length > n ? text.slice(0, n) + "…" : (text || "");
  const compact = (value) => value === undefined ? "—" : cut(JSON.stringify(value), 160);

  function traceNode(traceId, full) {
    if (!traceId) return null;
    const text = full ? traceId : traceId.slice(0, 8) + "…";
    if (traceUrl) {
      return el("a", { class: "trace", href: traceUrl.split("{traceId}").join(encodeURIComponent(traceId)), target: "_blank", rel: "noopener noreferrer",
                       title: "trace " + traceId, "data-trace": traceId, text });
    }
    return el("code", { class: "trace", title: "trace " + traceId, "data-trace": traceId, text });
  }

  function debounce(fn, ms) {
    let timer = null;
    return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
  }

  const typing = (target) => target && target.closest && target.closest("input, textarea, select");


  // ---------------------------------------------------------------------------------------------------------------
  // the list of the tenant's sessions

  /** The most sessions the list shows: one page of the list, the most recently active first. */
  const LIST_LIMIT = 1000;

  function openList() {
    $("list-view").hidden = false;
    $("crumbs").replaceChildren(el("span", { text: "Sessions" }));
    const tbody = document.querySelector("#sessions tbody");
    let all = [];
    let more = false; // the list has a next page: what is shown is the most recently active part of it

    function render() {
      const q = $("sessions-filter").value.trim().toLowerCase();
      const shown = all.filter((s) => !q || [s.sessionId, s.objective, s.modelId, s.harnessVersion, s.workerId, s.status]
        .some((v) => v && String(v).toLowerCase().includes(q)));
      tbody.replaceChildren(...shown.map((s) => el("tr", { "data-session": s.sessionId },
        el("td", {}, sessionLink(s.sessionId), el("span", { class: "objective", title: s.objective, text: s.objective })),
        el("td", {}, el("span", { class: "chip s-" + s.status, text: s.status })),
        el("td", { text: s.harnessVersion }),
        el("td", { text: s.modelId }),
        el("td", { "data-at": s.lastActivity, text: time(s.lastActivity) }),
        el("td", { class: "num", text: String(s.lastSeq) }),
        el("td", { class: "num open-calls", text: String(s.openCalls) }),
        el("td", { class: "num pending-approvals" + (s.pendingApprovals ? " attention" : ""), text: String(s.pendingApprovals) }),
        el("td", { class: "num unknown-outcomes" + (s.unknownOutcomes ? " attention" : ""), text: String(s.unknownOutcomes) }),
        el("td", { text: s.workerId ? s.workerId + " (epoch " + s.epoch + ")" : "—" }))));
      $("sessions-count").textContent = "(" + shown.length + (shown.length !== all.length ? " of " + all.length : "")
        + (more ? ", the most recently active" : "") + ")";
      $("sessions-empty").hidden = all.length > 0;
      $("sessions-more").hidden = !more;
    }

    async function refresh() {
      try {
        const page = await patient("/v1/sessions?limit=" + LIST_LIMIT);
        all = page.sessions;
        more = page.nextAfter !== undefined;
        render();
        status.textContent = "Up to date";
        status.dataset.updated = new Date().toISOString();
      } catch (e) {
        status.textContent = problem(e);
        if (e.status === 401 || e.status === 403) clearInterval(polling); // the same token is refused again: a new one reloads the page
      }
    }
    $("sessions-filter").addEventListener("input", render);
    const polling = setInterval(refresh, 5000);
    refresh();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // one session

  /** Which kind of event each type is, for the filters. */
  const KINDS = [
    { id: "messages", label: "Messages", types: ["user_message", "assistant_message"] },
    { id: "tools", label: "Tool calls", types: ["tool_call_authorized", "tool_call_started", "tool_result", "tool_outcome_resolved"] },
    { id: "approvals", label: "Approvals", types: ["approval_requested", "approval_granted", "approval_denied"] },
    { id: "interruptions", label: "Interruptions", types: ["turn_interrupted"] },
    { id: "compactions", label: "Compactions", types: ["context_compacted"] },
    { id: "workers", label: "Claims and resumes", types: ["session_claimed", "session_resumed", "session_migrated"] },
    { id: "lineage", label: "Forks and subagents", types: ["session_forked", "subagent_result"] },
    { id: "progress", label: "Plan and steps", types: ["plan_updated", "step_completed"] },
    { id: "lifecycle", label: "Start and close", types: ["session_started", "session_closed"] },
    { id: "framework", label: "Framework state", types: ["framework_state"] },
  ];
  const KIND_OF = new Map(KINDS.flatMap((k) => k.types.map((t) => [t, k.id])));
  const kindOf = (type) => KIND_OF.get(type) || "other";

  const S = {
    events: [],            // every event loaded, by seq
    bySeq: new Map(),
    calls: new Map(),      // callId -> what the log says of the call so far
    summarizedIn: new Map(), // seq of an original event -> seq of the compaction whose summary replaced it
    lastSeq: 0,            // the session's last seq, as far as known
    checkpoint: null,
    matches: [],           // the events the filters and the search let through, in order
    from: 0, to: 0,        // the rendered window of matches: [from, to)
    selected: null,        // seq of the selected event
    travelSeq: null,
    enabled: new Set(KINDS.map((k) => k.id).concat(["other"])),
    query: "",
  };

  async function openSession() {
    const started = performance.now();
    $("session-view").hidden = false;
    $("crumbs").replaceChildren(el("a", { href: "/explorer", text: "Sessions" }), " / ", el("span", { text: sessionId }));
    document.title = plain(sessionId) + " — Tether session explorer";
    setUpControls();
    let checkpoint, page;
    try {
      [checkpoint, page] = await Promise.all([patient(sessionPath(sessionId) + "/checkpoint"),
        patient(sessionPath(sessionId) + "/events?fromSeq=1&limit=" + PAGE_SIZE)]);
    } catch (e) {
      $("not-found").hidden = false;
      $("not-found").replaceChildren(...marked(e.status === 404 ? "There is no session " + sessionId + " in your tenant." : problem(e)));
      status.textContent = problem(e);
      document.documentElement.dataset.opened = "error";
      return;
    }
    S.checkpoint = checkpoint;
    S.lastSeq = Math.max(checkpoint.lastSeq, page.lastSeq);
    addEvents(page.events);
    renderSummary(checkpoint);
    refilter(true);
    setTravelRange();
    // performance.now() counts from the start of the navigation: the page, its script and its first reads
    document.documentElement.dataset.openedMs = String(Math.round(performance.now()));
    document.documentElement.dataset.readsMs = String(Math.round(performance.now() - started));
    document.documentElement.dataset.opened = "yes";
    status.textContent = "Opened in " + Math.round(performance.now()) + " ms";
    travelTo(checkpoint.lastSeq);
    // the stream starts after the last event loaded with every one before it, not after the last seq known: the
    // checkpoint may be newer than the first page, and a page may have failed; the stream's catch-up brings the rest
    loadRest(page.nextSeq, page.lastSeq).catch((e) => { status.textContent = "Could not read the whole log: " + problem(e); })
      .then(() => follow(loadedThrough() + 1));
  }

  /** The pages after the first, in the background; the timeline's window stays where it is. */
  async function loadRest(from, until) {
    while (from <= until) {
      const page = await patient(sessionPath(sessionId) + "/events?fromSeq=" + from + "&limit=" + PAGE_SIZE);
      if (!page.events.length) break;
      addEvents(page.events);
      from = page.nextSeq;
      refilter(false);
    }
    $("timeline").dataset.complete = "yes";
  }

  /** The last seq through which every event is loaded. */
  function loadedThrough() {
    let through = 0;
    for (const e of S.events) {
      if (e.seq !== through + 1) break;
      through = e.seq;
    }
    return through;
  }

  function addEvents(list) {
    let outOfOrder = false;
    for (const e of list) {
      if (S.bySeq.has(e.seq)) continue;
      if (S.events.length && e.seq < S.events[S.events.length - 1].seq) outOfOrder = true;
      e._text = JSON.stringify(e).toLowerCase();
      S.events.push(e);
      S.bySeq.set(e.seq, e);
      S.lastSeq = Math.max(S.lastSeq, e.seq);
      learn(e);
    }
    if (outOfOrder) S.events.sort((a, b) => a.seq - b.seq);
  }

  /** What an event tells of its calls and compactions, for the rows of other events. */
  function learn(e) {
    const call = (id) => {
      if (!S.calls.has(id)) S.calls.set(id, { callId: id, starts: [], results: [], resolutions: [] });
      return S.calls.get(id);
    };
    switch (e.type) {
      case "assistant_message":
        for (const c of e.toolCalls || []) Object.assign(call(c.callId), { tool: c.tool, args: c.argumentsJson, requestSeq: e.seq });
        break;
      case "approval_requested": call(e.callId).approvalSeq = e.seq; break;
      case "approval_granted": case "approval_denied": call(e.callId).decision = e; break;
      case "tool_call_authorized": Object.assign(call(e.callId), { authorizedSeq: e.seq, basis: e.basis }); break;
      case "tool_call_started": call(e.callId).starts.push(e); break;
      case "tool_result": call(e.callId).results.push(e); break;
      case "tool_outcome_resolved": call(e.callId).resolutions.push(e); break;
      case "context_compacted":
        for (const s of e.summarySourceSeqs || []) S.summarizedIn.set(s, e.seq);
        break;
      default:
    }
  }

  /** Where a call stands after everything loaded: requested, awaiting approval, authorized (on what basis), running, its result. */
  function callState(c) {
    const lastResult = c.results[c.results.length - 1];
    const lastResolution = c.resolutions[c.resolutions.length - 1];
    if (lastResolution && (!lastResult || lastResolution.seq > lastResult.seq)) {
      return { state: lastResolution.resolution === "MARK_DONE" ? "OK" : lastResolution.resolution === "ABANDON" ? "ABANDONED" : "AUTHORIZED",
               label: "resolved " + lastResolution.resolution + " by " + lastResolution.approver };
    }
    if (lastResult) return { state: lastResult.status, label: lastResult.status };
    if (c.starts.length) return { state: "RUNNING", label: "running (attempt " + c.starts[c.starts.length - 1].attempt + ")" };
    if (c.authorizedSeq) {
      return { state: "AUTHORIZED", label: "authorized by " + (c.basis && c.basis.kind === "APPROVAL"
        ? "approval (grant #" + c.basis.approvalSeq + ")" : "policy") };
    }
    if (c.decision && c.decision.type === "approval_denied") return { state: "DENIED", label: "denied" };
    if (c.approvalSeq) return { state: "AWAITING_APPROVAL", label: "awaiting approval" };
    return { state: "REQUESTED", label: "requested" };
  }

  function callChip(callId) {
    const c = S.calls.get(callId);
    if (!c) return null;
    const s = callState(c);
    return el("span", { class: "chip c-" + s.state, "data-call": callId, "data-call-state": s.state, text: s.label });
  }

  const seqLink = (seq) => el("button", { type: "button", class: "link", "data-goto": seq, text: "#" + seq,
                                          "aria-label": "go to seq " + seq });

  /** The one-line story of an event: what happened, in the words of its type. */
  function what(e) {
    const t = (text) => el("span", { class: "text", text: cut(text, 400) });
    switch (e.type) {
      case "session_started":
        return [t("Started: " + e.objective), el("div", { class: "muted", text: "model " + e.modelId + " · harness " + e.harnessVersion
          + " · " + e.toolMode + ((e.harnessTools || []).length ? " · harness-run tools: " + e.harnessTools.map((h) => h.name).join(", ") : "")
          + ((e.constraints || []).length ? " · constraints: " + e.constraints.join("; ") : "") })];
      case "user_message": return [t(e.content)];
      case "assistant_message":
        return [e.content ? t(e.content) : null, ...(e.toolCalls || []).map((c) => el("span", { class: "call" },
          el("code", { text: c.tool }), el("span", { class: "args", text: cut(c.argumentsJson, 80) }),
          el("span", { class: "muted", text: c.callId }), callChip(c.callId))),
          e.usage ? el("div", { class: "muted", text: e.usage.inputTokens + " in / " + e.usage.outputTokens + " out tokens" }) : null];
      case "approval_requested":
        return ["Approval asked for ", el("code", { text: e.callId }), " (" + e.tool + "): ", el("span", { class: "args", text: cut(e.shown, 200) }),
          " ", callChip(e.callId)];
      case "approval_granted":
        return ["Granted ", el("code", { text: e.callId }), " " + e.scope + (e.tool ? " for " + e.tool : "") + (e.pathGlob ? " on " + e.pathGlob : "")
          + " by " + e.approver + (e.reason ? ": " + e.reason : "")];
      case "approval_denied":
        return ["Denied ", el("code", { text: e.callId }), (e.expired ? " (expired, nobody decided in time)" : " by " + e.approver)
          + (e.reason ? ": " + e.reason : "")];
      case "tool_call_authorized": {
        const basis = e.basis || {};
        return ["Authorized ", el("code", { text: e.callId }), " by " + (basis.kind === "APPROVAL" ? "approval, the grant at " : "policy"),
          basis.kind === "APPROVAL" && basis.approvalSeq ? seqLink(basis.approvalSeq) : null, " ", callChip(e.callId)];
      }
      case "tool_call_started":
        return ["Started ", el("code", { text: e.callId }), " · attempt " + e.attempt + " · epoch " + e.epoch + " · key ",
          el("code", { text: e.idempotencyKey }), e.externalKey ? " · handed to the tool as " : null,
          e.externalKey ? el("code", { text: e.externalKey }) : null];
      case "tool_result":
        return ["Result of ", el("code", { text: e.callId }), " ", el("span", { class: "chip c-" + e.status, text: e.status }), " ",
          t(e.content || (e.artifact ? "(stored as artifact " + e.artifact.sha256.slice(0, 12) + "…, " + e.artifact.size + " bytes)" : ""))];
      case "tool_outcome_resolved":
        return ["Resolved ", el("code", { text: e.callId }), " " + e.resolution + " by " + e.approver + (e.reason ? ": " + e.reason : "")];
      case "turn_interrupted":
        return [el("span", { class: "note", text: "Interrupted" + (e.reason ? " (" + e.reason + ")" : "") }),
          e.partialText ? t(" — partial text: " + e.partialText) : null];
      case "context_compacted": {
        const sources = e.summarySourceSeqs || [];
        // reduce, not Math.min(...sources): a spread of some 100,000 arguments or more throws a RangeError
        const range = sources.length ? "#" + sources.reduce((a, b) => Math.min(a, b)) + "–#" + sources.reduce((a, b) => Math.max(a, b)) : "none";
        return [t("Compacted through #" + e.throughSeq + ": " + e.summary),
          el("div", { class: "note compaction", "data-replaced": sources.join(",") },
            "The summary replaces " + sources.length + " events (" + range + ") in the model context; the originals are still in the log. ",
            sources.length ? el("button", { type: "button", class: "link", "data-originals": e.seq, text: "Show the originals" }) : null)];
      }
      case "plan_updated":
        return [t("Plan: " + (e.items || []).map((i, n) => (n + 1) + ". " + i.text + " (" + i.status + ")").join("  "))];
      case "step_completed":
        return [t("Step " + e.step + " completed" + (e.verified ? ", verified" : ", not verified") + (e.note ? ": " + e.note : "")
          + (e.evidence ? " · evidence " + e.evidence : ""))];
      case "session_claimed":
        return ["Claimed by ", el("strong", { text: e.workerId }), " · epoch " + e.epoch + " · harness " + e.harnessVersion];
      case "session_resumed":
        return [el("span", { class: "note", text: "Resumed after " + e.reason }), " from seq " + e.fromSeq
          + (e.reconciliation ? " · in flight: " + e.reconciliation : "")];
      case "session_migrated": return ["Migrated from harness " + e.fromVersion + " to " + e.toVersion];
      case "session_forked":
        return ["Forked from ", sessionLink(e.parentSessionId), " at seq " + e.atSeq + ": " + cut(e.objective, 200)];
      case "subagent_result":
        return ["Subagent ", sessionLink(e.childSessionId), " finished: ", t(e.outcome || "")];
      case "session_closed": return [t("Closed: " + (e.outcome || ""))];
      case "framework_state":
        return [el("code", { text: e.framework + "/" + e.kind }), " " + cut(e.key, 80) + " · "
          + (e.artifact ? e.artifact.size + " bytes, stored as an artifact" : (e.content || "").length + " characters")];
      default: return [el("span", { class: "muted", text: "an event of a type this page does not know" })];
    }
  }

  function row(e, inTimeline) {
    const actor = e.actor || { kind: "UNKNOWN", id: "" };
    const replacedBy = S.summarizedIn.get(e.seq);
    const li = el("li", {
      class: "ev k-" + kindOf(e.type) + (replacedBy ? " in-summary" : ""), "data-seq": e.seq, "data-type": e.type,
      "data-actor": actor.kind, tabindex: inTimeline ? "-1" : null,
      "aria-label": "seq " + e.seq + ", " + e.type.replace(/_/g, " ") + ", by " + actor.kind.toLowerCase() + " " + actor.id,
    });
    li.append(el("span", { class: "seq", text: "#" + e.seq }), el("time", { datetime: e.occurredAt, title: e.occurredAt, text: clock(e.occurredAt) }),
      el("div", { class: "head" }, el("span", { class: "actor a-" + actor.kind, title: "written by", text: actor.kind + " · " + actor.id }),
        el("span", { class: "type", text: e.type }),
        e.harnessVersion ? el("span", { class: "muted", text: e.harnessVersion }) : null));
    li.append(el("div", { class: "what" }, ...what(e)));
    const meta = [];
    if (e.traceId) meta.push(el("span", {}, "trace ", traceNode(e.traceId, false)));
    if (replacedBy) meta.push(el("span", { class: "summarized" }, "replaced in the context by the summary at ", seqLink(replacedBy),
      " · still in the log"));
    if (meta.length) li.append(el("div", { class: "meta" }, ...meta));
    return li;
  }

  // --- the timeline: filters, search, a window of rows ------------------------------------------------------------

  function setUpControls() {
    const kinds = $("kinds");
    for (const k of KINDS.concat([{ id: "other", label: "Other" }])) {
      const box = el("input", { type: "checkbox", id: "kind-" + k.id, "data-kind": k.id, checked: true });
      box.addEventListener("change", () => {
        if (box.checked) S.enabled.add(k.id); else S.enabled.delete(k.id);
        refilter(true);
      });
      kinds.append(el("label", { for: "kind-" + k.id }, box, " " + k.label + " ", el("span", { class: "n", id: "n-" + k.id })));
    }
    kinds.append(el("button", { type: "button", id: "kinds-all", text: "All", onclick: () => setKinds(true) }),
      el("button", { type: "button", id: "kinds-none", text: "None", onclick: () => setKinds(false) }));
    $("search").addEventListener("input", debounce(() => { S.query = $("search").value.trim().toLowerCase(); refilter(true); }, 150));
    $("earlier").addEventListener("click", () => { S.from = Math.max(0, S.from - WINDOW); renderWindow(); });
    $("later").addEventListener("click", () => { S.to = Math.min(S.matches.length, S.to + WINDOW); renderWindow(); });

    const timeline = $("timeline");
    timeline.addEventListener("click", (e) => {
      const goto = e.target.closest("[data-goto]");
      if (goto) { e.stopPropagation(); reveal(Number(goto.dataset.goto), true); return; }
      const originals = e.target.closest("[data-originals]");
      if (originals) { e.stopPropagation(); showOriginals(Number(originals.dataset.originals)); return; }
      if (e.target.closest("a")) return;
      const li = e.target.closest("li.ev");
      if (li) choose(Number(li.dataset.seq), true);
    });
    timeline.addEventListener("keydown", (e) => {
      const li = e.target.closest("li.ev");
      if (!li || e.ctrlKey || e.metaKey || e.altKey) return;
      const rows = [...timeline.children];
      const at = rows.indexOf(li);
      let next = null;
      if (e.key === "ArrowDown" || e.key === "j") next = rows[at + 1] || (S.to < S.matches.length ? extendAndNext(li, 1) : null);
      else if (e.key === "ArrowUp" || e.key === "k") next = rows[at - 1] || (S.from > 0 ? extendAndNext(li, -1) : null);
      else if (e.key === "Home") next = rows[0];
      else if (e.key === "End") next = rows[rows.length - 1];
      else if (e.key === "Enter" || e.key === " ") { choose(Number(li.dataset.seq), true); e.preventDefault(); return; }
      else return;
      e.preventDefault();
      if (next) focusRow(next);
    });
    timeline.addEventListener("focusin", (e) => {
      const li = e.target.closest("li.ev");
      if (li) choose(Number(li.dataset.seq), false);
    });

    // the side pane: tabs, the slider, the context's format
    const tabs = ["travel", "event", "recovery"];
    const show = (name) => {
      for (const t of tabs) {
        const tab = $("tab-" + t);
        tab.setAttribute("aria-selected", String(t === name));
        tab.tabIndex = t === name ? 0 : -1;
        $("panel-" + t).hidden = t !== name;
      }
      if (name === "recovery") loadRecovery();
    };
    for (const t of tabs) {
      $("tab-" + t).addEventListener("click", () => show(t));
      $("tab-" + t).addEventListener("keydown", (e) => {
        const i = tabs.indexOf(t);
        const j = e.key === "ArrowRight" ? (i + 1) % tabs.length : e.key === "ArrowLeft" ? (i + tabs.length - 1) % tabs.length : -1;
        if (j >= 0) { show(tabs[j]); $("tab-" + tabs[j]).focus(); e.preventDefault(); }
      });
    }
    S.showTab = show;
    const slider = $("seq-slider");
    slider.addEventListener("input", () => { $("seq-number").value = slider.value; travelSoon(Number(slider.value)); });
    // an emptied field goes nowhere (it would travel to seq 1 and then hold "1" before what is typed next)
    const typedSeq = () => $("seq-number").value.trim() === "" ? null : clampSeq(Number($("seq-number").value));
    $("seq-number").addEventListener("change", () => { if (typedSeq() !== null) travelTo(typedSeq()); });
    $("seq-number").addEventListener("keydown", (e) => {
      if (e.key === "Enter") { if (typedSeq() !== null) travelTo(typedSeq()); e.preventDefault(); }
    });
    $("seq-prev").addEventListener("click", () => travelTo(clampSeq((S.travelSeq || 1) - 1)));
    $("seq-next").addEventListener("click", () => travelTo(clampSeq((S.travelSeq || 1) + 1)));
    $("ctx-format").addEventListener("change", () => loadTravel(S.travelSeq));
    $("tt-event").addEventListener("click", (e) => {
      const goto = e.target.closest("[data-goto]");
      if (goto) reveal(Number(goto.dataset.goto), true);
    });

    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (typing(e.target)) {
        if (e.key === "Escape") e.target.blur();
        return;
      }
      if (e.key === "/") { $("search").focus(); e.preventDefault(); }
      else if (e.key === "[") { $("seq-prev").click(); e.preventDefault(); }
      else if (e.key === "]") { $("seq-next").click(); e.preventDefault(); }
    });
  }

  function setKinds(on) {
    for (const box of document.querySelectorAll("#kinds input[type=checkbox]")) {
      box.checked = on;
      if (on) S.enabled.add(box.dataset.kind); else S.enabled.delete(box.dataset.kind);
    }
    refilter(true);
  }

  /** Recomputes what the filters and the search let through; {@code reset} starts the window at the first match. */
  function refilter(reset) {
    const counts = {};
    const matches = [];
    for (const e of S.events) {
      const kind = kindOf(e.type);
      counts[kind] = (counts[kind] || 0) + 1;
      if (S.enabled.has(kind) && (!S.query || e._text.includes(S.query))) matches.push(e);
    }
    const wasAtEnd = S.to >= S.matches.length && S.matches.length > 0;
    S.matches = matches;
    for (const k of KINDS.concat([{ id: "other" }])) {
      const n = $("n-" + k.id);
      if (n) n.textContent = "(" + (counts[k.id] || 0) + ")";
    }
    if (reset) {
      S.from = 0;
      S.to = Math.min(matches.length, WINDOW);
    } else if (wasAtEnd && S.to - S.from < WINDOW * 3) {
      S.to = Math.min(matches.length, S.from + WINDOW * 3); // following the end of the log: new events come into view
    }
    S.to = Math.min(S.to, matches.length);
    S.from = Math.min(S.from, S.to);
    const loaded = S.events.length;
    $("timeline-count").textContent = "(" + (matches.length === loaded ? loaded.toLocaleString() : matches.length.toLocaleString()
      + " of " + loaded.toLocaleString()) + " events" + (loaded < S.lastSeq ? ", " + S.lastSeq.toLocaleString() + " in the log" : "") + ")";
    renderWindow();
  }

  function renderWindow() {
    const timeline = $("timeline");
    const focusedSeq = document.activeElement && document.activeElement.closest && document.activeElement.closest("#timeline li.ev")
      ? Number(document.activeElement.dataset.seq) : null;
    const fragment = document.createDocumentFragment();
    for (let i = S.from; i < S.to; i++) fragment.append(row(S.matches[i], true));
    timeline.replaceChildren(fragment);
    $("earlier").hidden = S.from === 0;
    $("later").hidden = S.to >= S.matches.length;
    $("later").textContent = "Show later events (" + (S.matches.length - S.to).toLocaleString() + " more)";
    $("earlier").textContent = "Show earlier events (" + S.from.toLocaleString() + " more)";
    markRows();
    const first = timeline.querySelector('li.ev[data-seq="' + (focusedSeq || S.selected) + '"]') || timeline.firstElementChild;
    if (first) first.tabIndex = 0;
    if (focusedSeq && first && Number(first.dataset.seq) === focusedSeq) first.focus({ preventScroll: true });
  }

  function markRows() {
    for (const li of $("timeline").children) {
      const seq = Number(li.dataset.seq);
      li.classList.toggle("selected", seq === S.selected);
      li.classList.toggle("at-travel", seq === S.travelSeq);
      li.setAttribute("aria-current", seq === S.selected ? "true" : "false");
    }
  }

  function focusRow(li) {
    for (const other of $("timeline").querySelectorAll('li.ev[tabindex="0"]')) other.tabIndex = -1;
    li.tabIndex = 0;
    li.focus();
    li.scrollIntoView({ block: "nearest" });
  }

  /** Moves the window one step past its edge and returns the row next to {@code li} in that direction. */
  function extendAndNext(li, direction) {
    const seq = Number(li.dataset.seq);
    if (direction > 0) S.to = Math.min(S.matches.length, S.to + WINDOW); else S.from = Math.max(0, S.from - WINDOW);
    renderWindow();
    const rows = [...$("timeline").children];
    const at = rows.findIndex((r) => Number(r.dataset.seq) === seq);
    return rows[at + direction] || null;
  }

  /** Brings the event at {@code seq} into the window (clearing the filters if they hide it), selects and shows it. */
  function reveal(seq, focus) {
    let index = S.matches.findIndex((e) => e.seq === seq);
    if (index < 0 && S.bySeq.has(seq)) {
      S.query = ""; $("search").value = "";
      setKinds(true);
      index = S.matches.findIndex((e) => e.seq === seq);
    }
    if (index < 0) return;
    if (index < S.from || index >= S.to) {
      S.from = Math.max(0, index - 20);
      S.to = Math.min(S.matches.length, S.from + WINDOW);
      renderWindow();
    }
    choose(seq, true);
    const li = $("timeline").querySelector('li.ev[data-seq="' + seq + '"]');
    if (li) {
      if (focus) focusRow(li); else li.scrollIntoView({ block: "nearest" });
      li.classList.remove("flash"); void li.offsetWidth; li.classList.add("flash");
    }
  }

  /** Shows the events a compaction's summary replaced: a search for their seqs would not do, so the filter is by them. */
  function showOriginals(compactionSeq) {
    const c = S.bySeq.get(compactionSeq);
    const sources = new Set(c.summarySourceSeqs || []);
    S.query = ""; $("search").value = "";
    S.matches = S.events.filter((e) => sources.has(e.seq));
    S.from = 0; S.to = Math.min(S.matches.length, WINDOW);
    $("timeline-count").textContent = "(" + S.matches.length + " originals replaced by the summary at #" + compactionSeq
      + " — still in the log; \u201cAll\u201d shows every event again)";
    renderWindow();
    const first = $("timeline").firstElementChild;
    if (first) focusRow(first);
  }

  /** Selects an event: its details, and time travel to its seq. */
  function choose(seq, travel) {
    if (S.selected === seq && !travel) return;
    S.selected = seq;
    markRows();
    showEvent(S.bySeq.get(seq));
    if (travel || S.travelSeq !== seq) travelSoon(seq);
  }

  // --- the summary bar ------------------------------------------------------------------------------------------

  function renderSummary(cp) {
    const counts = cp.callCounts || {};
    const open = (cp.toolCursor || []).filter((c) => !["OK", "ERROR", "CANCELLED", "UNKNOWN"].includes(c.state)).length;
    const pending = (cp.toolCursor || []).filter((c) => c.awaitingApproval && !["OK", "ERROR", "CANCELLED", "UNKNOWN"].includes(c.state)).length;
    const item = (label, value, extra) => el("span", extra || {}, el("dt", { text: label }), el("dd", {}, value));
    $("summary").replaceChildren(
      el("span", { class: "id", text: cp.sessionId }),
      el("span", { class: "chip s-" + cp.status, id: "session-status", text: cp.status }),
      el("dl", { class: "inline-facts" },
        item("model", cp.modelId), item(" · harness", cp.harnessVersion), item(" · mode", cp.toolMode), item(" · owner", cp.owner),
        item(" · worker", cp.lease ? cp.lease.workerId + " (epoch " + cp.lease.epoch + ")" : "none"),
        item(" · seq", String(cp.lastSeq), { id: "summary-seq" }), item(" · last activity", time(cp.updatedAt)),
        item(" · open calls", String(open)), item(" · pending approvals", String(pending)),
        item(" · calls", counts.ok + " ok, " + counts.error + " error, " + counts.cancelled + " cancelled, " + counts.unknown + " unknown")),
      el("span", { class: "objective", title: cp.objective, text: cp.objective }));
  }

  const refreshSummary = debounce(async () => {
    try {
      S.checkpoint = await api(sessionPath(sessionId) + "/checkpoint?minSeq=" + S.lastSeq);
      renderSummary(S.checkpoint);
    } catch (e) {
      // the projection may be a moment behind the live stream; the next event asks again
    }
    if (!$("panel-recovery").hidden) loadRecovery();
  }, 300);

  // --- live: the session-service's subscription, relayed by this service ----------------------------------------

  /**
   * Follows the session from {@code fromSeq} on, and connects again when the stream ends (the session-service ends it
   * when the session's partition moves, or the session is erased): after 2 s, or a 503's Retry-After (1 s to 60 s).
   * Each connection asks again for the last event the timeline has: another event there means that the session was
   * erased and another one made under its id, whose events are not this timeline's.
   */
  async function follow(fromSeq) {
    const live = $("live");
    let last = S.bySeq.get(fromSeq - 1) || null;
    const stop = (why) => { live.textContent = "not live: " + why; live.classList.remove("on"); };
    for (;;) {
      let pause = 2000;
      try {
        const response = await fetch(sessionPath(sessionId) + "/events?fromSeq=" + (last ? last.seq : fromSeq), {
          headers: { "Authorization": "Bearer " + token, "Accept": "text/event-stream" } });
        if (!response.ok) {
          throw Object.assign(new Error(response.status + " " + response.statusText),
            { status: response.status, retryAfter: Number(response.headers.get("Retry-After") || 0) });
        }
        live.textContent = "live";
        live.classList.add("on");
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        let data = [];
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          const lines = buffer.split(/\r\n|\r|\n/);
          buffer = lines.pop();
          for (const line of lines) {
            if (line === "") {
              const e = data.length ? JSON.parse(data.join("\n")) : null;
              if (e && last && e.seq === last.seq && e.eventId !== last.eventId) {
                reader.cancel();
                stop("the session was erased, and another one made under its id since; reload to see that one");
                return;
              }
              if (e && (!last || e.seq > last.seq)) {
                received(e);
                last = e;
              }
              data = [];
            } else if (line.startsWith("data:")) {
              data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
            }
          }
        }
      } catch (e) {
        if (e.status === 404 || e.status === 401 || e.status === 403) { stop(problem(e)); return; }
        if (e.status === 503 && e.retryAfter > 0) pause = 1000 * Math.min(60, Math.max(1, e.retryAfter));
      }
      live.textContent = "reconnecting…";
      live.classList.remove("on");
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  /** The live events not shown yet, and the timer that shows them. */
  let arrived = [];
  let arrivedTimer = null;

  function received(e) {
    arrived.push(e);
    if (arrivedTimer === null) arrivedTimer = setTimeout(showArrived, 200);
  }

  /**
   * Shows the live events that came since it last ran, together: a burst of them is one render of the timeline and one
   * travel to the end (three reads), not one of each per event, which froze the page and flooded the projector.
   */
  function showArrived() {
    arrivedTimer = null;
    const fresh = arrived.filter((e) => !S.bySeq.has(e.seq));
    arrived = [];
    if (!fresh.length) return;
    addEvents(fresh);
    refilter(false);
    for (const e of fresh) {
      const li = $("timeline").querySelector('li.ev[data-seq="' + e.seq + '"]');
      if (li) li.classList.add("flash");
    }
    setTravelRange();
    refreshSummary();
  }

  // --- time travel ----------------------------------------------------------------------------------------------

  const clampSeq = (seq) => Math.max(1, Math.min(S.lastSeq || 1, seq || 1));

  function setTravelRange() {
    const slider = $("seq-slider");
    const followingEnd = S.travelSeq === Number(slider.max);
    slider.max = String(S.lastSeq);
    $("seq-number").max = String(S.lastSeq);
    $("seq-of").textContent = "of " + S.lastSeq.toLocaleString();
    if (followingEnd && S.travelSeq !== null && S.travelSeq < S.lastSeq) travelTo(S.lastSeq);
  }

  function travelTo(seq) {
    $("seq-slider").value = String(seq);
    $("seq-number").value = String(seq);
    travelSoon.now(seq);
  }

  let travelTimer = null;
  function travelSoon(seq) {
    clearTimeout(travelTimer);
    travelTimer = setTimeout(() => travelSoon.now(seq), 120);
  }
  travelSoon.now = (seq) => {
    clearTimeout(travelTimer);
    if (seq === S.travelSeq && $("tt-checkpoint").dataset.seq === String(seq)) return;
    S.travelSeq = seq;
    $("seq-slider").value = String(seq);
    $("seq-number").value = String(seq);
    markRows();
    loadTravel(seq);
  };

  let travelRequest = 0;
  async function loadTravel(seq) {
    const mine = ++travelRequest;
    for (const n of document.querySelectorAll(".at-seq")) n.textContent = "seq " + seq;
    $("seq-slider").setAttribute("aria-valuetext", "seq " + seq + " of " + S.lastSeq);
    const base = sessionPath(sessionId);
    const format = $("ctx-format").value;
    try {
      // minSeq: a seq the live stream brought may not be folded yet; the projector waits for it
      const [at, before, context] = await Promise.all([patient(base + "/checkpoint?atSeq=" + seq + "&minSeq=" + seq),
        seq > 1 ? patient(base + "/checkpoint?atSeq=" + (seq - 1) + "&minSeq=" + seq) : Promise.resolve(null),
        patient(base + "/context?format=" + format + "&atSeq=" + seq + "&minSeq=" + seq)]);
      if (mine !== travelRequest) return;
      const event = S.bySeq.get(seq);
      $("tt-event").replaceChildren(event ? el("ol", {}, row(event, false)) : el("p", { class: "muted", text: "event " + seq + " is not loaded yet" }));
      const changes = [];
      diff(before, at, "", changes);
      $("tt-diff").replaceChildren(...(changes.length ? changes.map((c) => el("li", { "data-path": c.path },
        el("span", { class: "path", text: c.path || "(everything)" }), ": ", el("span", { class: "before", text: compact(c.before) }), " → ",
        el("span", { class: "after", text: compact(c.after) }))) : [el("li", { class: "muted", text: before ? "nothing but the position"
        : "the first event: the checkpoint starts here" })]));
      const pre = $("tt-checkpoint");
      pre.textContent = json(at);
      pre.dataset.seq = String(seq);
      renderContext(context, seq);
    } catch (e) {
      if (mine !== travelRequest) return;
      $("tt-diff").replaceChildren(el("li", { class: "problem", text: problem(e) }));
    }
  }

  /** The changes from {@code a} to {@code b}, as paths; lists of calls are matched by callId, other lists by position. */
  function diff(a, b, path, out) {
    if (a === null || a === undefined) {
      if (path === "") return;
    }
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    const isObject = (v) => v && typeof v === "object" && !Array.isArray(v);
    if (isObject(a) && isObject(b)) {
      for (const k of new Set(Object.keys(a).concat(Object.keys(b)))) {
        if (path === "" && (k === "lastSeq" || k === "position" || k === "updatedAt")) continue; // these move with every event
        diff(a[k], b[k], path ? path + "." + k : k, out);
      }
    } else if (Array.isArray(a) && Array.isArray(b) && a.concat(b).every((x) => isObject(x) && x.callId)) {
      const before = new Map(a.map((x) => [x.callId, x]));
      const after = new Map(b.map((x) => [x.callId, x]));
      for (const id of new Set([...before.keys(), ...after.keys()])) diff(before.get(id), after.get(id), path + "[" + id + "]", out);
    } else if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      for (let i = 0; i < a.length; i++) diff(a[i], b[i], path + "[" + i + "]", out);
    } else {
      out.push({ path, before: a, after: b });
    }
  }

  function renderContext(ctx, seq) {
    $("ctx-facts").textContent = ctx.tokens.toLocaleString() + " tokens (" + ctx.tokenizer + ") of a " + ctx.window.toLocaleString()
      + "-token window · stable prefix: " + ctx.stablePrefixSize + " messages" + (ctx.compactionAdvised ? " · compaction advised" : "");
    const text = (content) => {
      if (typeof content === "string") return content;
      if (!Array.isArray(content)) return JSON.stringify(content, null, 1);
      return content.map((b) => b.type === "text" ? b.text : b.type === "tool_use" ? "[tool_use " + b.id + "] " + b.name + " " + JSON.stringify(b.input)
        : b.type === "tool_result" ? "[tool_result for " + b.tool_use_id + (b.is_error ? ", error" : "") + "] " + text(b.content)
          : JSON.stringify(b)).join("\n");
    };
    const items = [];
    if (ctx.system !== undefined) items.push(el("li", { class: "stable" }, el("div", { class: "role", text: "system" }), el("pre", { text: ctx.system })));
    ctx.messages.forEach((m, i) => {
      let body = text(m.content);
      for (const c of m.tool_calls || []) body += (body ? "\n" : "") + "[tool_call " + c.id + "] " + c.function.name + " " + c.function.arguments;
      if (m.tool_call_id) body = "[result of " + m.tool_call_id + "] " + body;
      items.push(el("li", { class: i < ctx.stablePrefixSize ? "stable" : null },
        el("div", { class: "role", text: m.role + (i < ctx.stablePrefixSize ? " · stable prefix" : "") }), el("pre", { text: body })));
    });
    const list = el("ol", { "aria-label": "the messages a model gets at seq " + seq }, ...items);
    $("tt-context").replaceChildren(list);
    $("tt-context").dataset.seq = String(seq);
    $("tt-context").dataset.format = ctx.format;
  }

  // --- the event tab --------------------------------------------------------------------------------------------

  let eventRequest = 0;
  async function showEvent(e) {
    if (!e) return;
    const mine = ++eventRequest;
    $("event-none").hidden = true;
    const detail = $("event-detail");
    const callIds = e.toolCalls ? e.toolCalls.map((c) => c.callId) : e.callId ? [e.callId] : [];
    const clean = Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith("_")));
    detail.replaceChildren(el("h3", { text: "#" + e.seq + " " + e.type }),
      el("dl", { class: "facts" },
        el("dt", { text: "written by" }), el("dd", { text: (e.actor || {}).kind + " " + (e.actor || {}).id }),
        el("dt", { text: "at" }), el("dd", { text: e.occurredAt }),
        el("dt", { text: "trace" }), el("dd", {}, e.traceId ? traceNode(e.traceId, true) : el("span", { class: "muted", text: "none recorded" }))),
      el("pre", { class: "json", tabindex: "0", "aria-label": "the event as the API returns it", text: json(clean) }));
    for (const callId of callIds) {
      try {
        const story = await api(sessionPath(sessionId) + "/calls/" + encodeURIComponent(callId));
        if (mine !== eventRequest) return;
        detail.append(callStory(story));
      } catch (err) {
        if (mine !== eventRequest) return;
        detail.append(el("p", { class: "muted", text: "call " + callId + ": " + problem(err) }));
      }
    }
  }

  function callStory(c) {
    const facts = el("dl", { class: "facts" });
    const add = (k, v) => facts.append(el("dt", { text: k }), el("dd", {}, v));
    add("tool", el("span", {}, el("code", { text: c.tool }), " ", el("span", { class: "args", text: cut(c.argumentsJson, 300) })));
    add("asked at", seqLink(c.requestSeq));
    add("idempotency key", el("code", { text: c.idempotencyKey }));
    if (c.approval) {
      add("approval", el("span", {}, seqLink(c.approval.seq), " " + c.approval.decision + " " + (c.approval.scope || "") + " by "
        + c.approval.approver + (c.approval.reason ? ": " + c.approval.reason : "")));
    }
    add("authorized", c.authorizedSeq ? el("span", {}, seqLink(c.authorizedSeq), " " + (c.basis || "")) : "not yet");
    add("result", c.resultSeq ? el("span", {}, seqLink(c.resultSeq), " ", el("span", { class: "chip c-" + c.resultStatus, text: c.resultStatus }))
      : "none yet");
    add("trace", c.traceId ? traceNode(c.traceId, true) : el("span", { class: "muted", text: "none recorded" }));
    const attempts = c.attempts || [];
    add("executor attempts", attempts.length ? el("table", { class: "calls" },
      el("thead", {}, el("tr", {}, ...["attempt", "state", "executor", "started", "finished"].map((h) => el("th", { text: h })))),
      el("tbody", {}, ...attempts.map((a) => el("tr", {}, el("td", { text: String(a.attempt) }), el("td", { text: a.state }),
        el("td", { text: a.executorId || "" }), el("td", { text: a.startedAt || "" }), el("td", { text: a.finishedAt || "" })))))
      : el("span", { class: "muted", text: "none (not an executor call, or not run yet)" }));
    const box = el("section", { class: "call-story", "data-call": c.callId, "aria-label": "the story of call " + c.callId },
      el("h3", { text: "Call " + c.callId }), facts);
    box.addEventListener("click", (e) => {
      const goto = e.target.closest("[data-goto]");
      if (goto) reveal(Number(goto.dataset.goto), true);
    });
    return box;
  }

  // --- the recovery report --------------------------------------------------------------------------------------

  let recoveryRequest = 0;
  async function loadRecovery() {
    const mine = ++recoveryRequest;
    const box = $("recovery");
    try {
      const r = await patient(sessionPath(sessionId) + "/recovery");
      if (mine !== recoveryRequest) return;
      const id = r.identity || {};
      const pos = r.position || {};
      const effects = r.effects || {};
      const authority = r.authority || {};
      const calls = (title, list, cls) => el("section", { class: cls },
        el("h3", { text: title + " (" + (list || []).length + ")" }),
        (list || []).length ? el("table", { class: "calls" },
          el("thead", {}, el("tr", {}, ...["call", "tool", "state", "asked at", "result at", "idempotency key"].map((h) => el("th", { text: h })))),
          el("tbody", {}, ...list.map((c) => el("tr", { "data-call": c.callId }, el("td", {}, el("code", { text: c.callId })),
            el("td", { text: c.tool }), el("td", {}, el("span", { class: "chip c-" + c.state, text: c.state })),
            el("td", { text: c.requestSeq === undefined || c.requestSeq === null ? "" : "#" + c.requestSeq }),
            el("td", { text: c.resultSeq === undefined || c.resultSeq === null ? "" : "#" + c.resultSeq }),
            el("td", {}, el("code", { text: c.idempotencyKey || "" })))))) : el("p", { class: "muted", text: "none" }));
      box.replaceChildren(
        el("h3", { text: "Next safe actions" }),
        el("ol", { id: "next-actions", class: "actions" }, ...(r.nextSafeActions || []).map((a) => el("li", { text: a }))),
        el("dl", { class: "facts" },
          el("dt", { text: "tenant / owner" }), el("dd", { text: id.tenantId + " / " + id.owner }),
          el("dt", { text: "pinned" }), el("dd", { text: "model " + id.modelId + ", harness " + id.harnessVersion }),
          el("dt", { text: "worker" }), el("dd", { text: (id.workerId || "none") + " (epoch " + id.epoch + ")" }),
          el("dt", { text: "position" }), el("dd", { text: "seq " + pos.lastSeq + ", step " + pos.step + " (last verified " + pos.lastVerifiedStep
            + "), " + pos.status + (pos.lastNote ? " · " + pos.lastNote : "") })),
        calls("Unknown outcomes", effects.unknown, "unknown"),
        calls("In flight", effects.inFlight, "in-flight"),
        calls("Pending approvals", authority.pendingApprovals, "pending"),
        calls("Confirmed", effects.confirmed, "confirmed"),
        calls("Cancelled", effects.cancelled, "cancelled"),
        el("section", {}, el("h3", { text: "Harness-run calls (" + (effects.harnessRun || []).length + ")" }),
          el("ul", {}, ...(effects.harnessRun || []).map((h) => el("li", { text: JSON.stringify(h) })))),
        el("section", {}, el("h3", { text: "Approvals in force (" + (authority.approvalsInForce || []).length + ")" }),
          el("ul", {}, ...(authority.approvalsInForce || []).map((g) => el("li", { text: JSON.stringify(g) })))),
        el("details", {}, el("summary", { text: "The report as JSON" }),
          el("pre", { id: "recovery-json", class: "json", tabindex: "0", text: json(r) })));
      box.dataset.lastSeq = String(pos.lastSeq);
    } catch (e) {
      if (mine === recoveryRequest) box.replaceChildren(el("p", { class: "problem", text: problem(e) }));
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // start: last, once every declaration above is initialized

  /** Whatever fails unexpectedly is said in the status line, and the page says it stopped opening. */
  const failed = (reason) => {
    status.textContent = "The page failed: " + ((reason && reason.message) || reason);
    if (!document.documentElement.dataset.opened) document.documentElement.dataset.opened = "error";
  };
  window.addEventListener("hashchange", () => {
    const given = new URLSearchParams(location.hash.slice(1)).get("token");
    if (given) {
      sessionStorage.setItem(TOKEN_KEY, given);
      history.replaceState(null, "", location.pathname + location.search);
      location.reload();
    }
  });
  window.addEventListener("error", (e) => failed(e.error || e.message));
  window.addEventListener("unhandledrejection", (e) => failed(e.reason));

  if (!token) {
    status.textContent = "Enter a token to see sessions.";
    $("token").focus();
  } else if (sessionId) {
    openSession();
  } else {
    openList();
  }
})();
