/**
 * TetherSaver side by side with LangGraph's official PostgreSQL checkpointer (@langchain/langgraph-checkpoint-postgres):
 * the same graph, the same machine, the same run. Started by bench/langgraph-savers (which starts and stops PostgreSQL);
 * run under vitest only because it compiles TypeScript — the one "test" here measures, and checks only that every
 * figure was taken.
 *
 * The graph: a StateGraph over MessagesAnnotation with one node that answers; a turn is `graph.invoke` with a user
 * message of 650 characters of words in a pseudo-random order, answered with 650 (~1.3 KiB of payload per turn).
 * Figures, per saver:
 *  1. one thread of TURNS turns, after WARM_UP_TURNS on another thread (the same code paths, so the first turns of the
 *     measured thread meet a warm process, as the last ones do): each turn's latency; medians of turns 1-50 and of the
 *     last 50, and their ratio;
 *  2. bytes stored per payload byte after those turns (PostgreSQL: the growth of its checkpoint tables; Tether: of the
 *     broker's log segments of session-events, the thread's durable log, and of every Tether topic, changelogs
 *     included, before compaction);
 *  3. resume: a new process reads the thread's state (graph.getState) — the time from the saver's creation to the state;
 *  4. THREADS threads × CONCURRENT_TURNS turns at once: turns/s and the p99 of a turn's latency.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { RetryPolicy, TetherClient } from "@tether/client";
import pg from "pg";
import { expect, it } from "vitest";
import { RealStack, REPO } from "../../../clients/typescript/test/real-stack.js";
import { TetherSaver } from "../src/index.js";

const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const THREADS = Number(process.env.BENCH_THREADS ?? 20);
const CONCURRENT_TURNS = Number(process.env.BENCH_CONCURRENT_TURNS ?? 100);
const WINDOW = Math.min(50, Math.floor(TURNS / 4));
/** Turns on a thread of their own before the measured one, so the first window measures a short thread, not a cold process. */
const WARM_UP_TURNS = Number(process.env.BENCH_WARM_UP_TURNS ?? WINDOW);
const TEXT = 650;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL;
const RESULTS = process.env.BENCH_RESULTS ?? join(REPO, "bench/results/langgraph");

interface SaverFigures {
  readonly saver: string;
  readonly firstTurnsMedianMs: number;
  readonly lastTurnsMedianMs: number;
  readonly latencyGrowth: number;
  readonly payloadBytes: number;
  readonly storedBytes: number;
  readonly bytesPerPayloadByte: number;
  readonly storedBytesAllTopics?: number;
  readonly bytesPerPayloadByteAllTopics?: number;
  readonly resumeMs: number;
  readonly resumeProcessMs: number;
  readonly concurrentTurnsPerSecond: number;
  readonly concurrentP99Ms: number;
  readonly concurrentP50Ms: number;
}

function graph(saver: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: typeof MessagesAnnotation.State) => ({
      messages: [new AIMessage({ content: text(`answer ${state.messages.length}`) })],
    }))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
}

/**
 * Words drawn from a vocabulary of a few hundred in a fixed pseudo-random order: text that compresses about as much as
 * prose does (zstd: 2-3×), where a repeated phrase would compress to almost nothing and flatter every compressing store.
 */
const VOCABULARY = (
  "the a of to and in is it that for on with as was be by this are or from at an not have has had but which they you we " +
  "agent model tool call result user asks plan step file line read write order refund booking flight hotel date price " +
  "check confirm cancel approve deny request answer context summary session thread turn message error retry timeout " +
  "customer account invoice payment amount total currency balance report table column value record update delete " +
  "search query index match score rank list item first last next previous before after during while until because " +
  "should could would might must can will shall may need want know think see look find give take make use get keep " +
  "small large short long early late quick slow new old good bad right wrong same other each every some many few more " +
  "today tomorrow yesterday morning evening week month year time hour minute second number name address email phone " +
  "open close start stop begin end run build test deploy release version change fix issue note comment review merge"
).split(" ");
let seed = 0x2f6b1d;
function word(): string {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return VOCABULARY[(seed >>> 8) % VOCABULARY.length]!;
}

function text(head: string): string {
  let s = head;
  while (s.length < TEXT) {
    s += ` ${word()}`;
  }
  return s.slice(0, TEXT);
}

async function turns(saver: BaseCheckpointSaver, threadId: string, count: number): Promise<number[]> {
  const g = graph(saver);
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await g.invoke({ messages: [new HumanMessage(text(`question ${i}`))] }, { configurable: { thread_id: threadId } });
    latencies.push(performance.now() - start);
  }
  return latencies;
}

async function concurrently(saver: BaseCheckpointSaver, prefix: string) {
  const all: number[] = [];
  const start = performance.now();
  await Promise.all(Array.from({ length: THREADS }, async (_, t) => all.push(...(await turns(saver, `${prefix}-${t}`, CONCURRENT_TURNS)))));
  const seconds = (performance.now() - start) / 1000;
  return { turnsPerSecond: (THREADS * CONCURRENT_TURNS) / seconds, p99: percentile(all, 0.99), p50: percentile(all, 0.5) };
}

/** A new process reads the thread's state: the time it took inside the process, and the whole process's. */
function resumeInNewProcess(kind: "tether" | "postgres", threadId: string, env: Record<string, string>): { inside: number; process: number } {
  const started = performance.now();
  const out = spawnSync(process.execPath, [join(REPO, "integrations/langgraph/bench/resume.mjs"), kind, threadId], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 300_000,
  });
  const whole = performance.now() - started;
  if (out.status !== 0) {
    throw new Error(`the resume process failed (${out.status}):\n${out.stderr}\n${out.stdout}`);
  }
  const result = JSON.parse(out.stdout.trim().split("\n").at(-1)!) as { ms: number; messages: number };
  if (result.messages !== 2 * TURNS) {
    throw new Error(`the resumed state has ${result.messages} messages, not ${2 * TURNS}`);
  }
  return { inside: result.ms, process: whole };
}

function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

/** Bytes of the broker's log segments of the topic directories `match` selects. */
function segmentBytes(dataDir: string, match: (topicDir: string) => boolean): number {
  let total = 0;
  for (const dir of readdirSync(dataDir)) {
    const path = join(dataDir, dir);
    if (!statSync(path).isDirectory() || !match(dir)) {
      continue;
    }
    for (const f of readdirSync(path)) {
      if (f.endsWith(".log")) {
        total += statSync(join(path, f)).size;
      }
    }
  }
  return total;
}

async function postgresBytes(pool: pg.Pool): Promise<number> {
  const r = await pool.query(
    "select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace " +
      "where n.nspname = 'public' and c.relkind = 'r'",
  );
  return Number(r.rows[0].bytes);
}

function loadAverage(): string {
  return execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).trim();
}

it("measures TetherSaver and PostgresSaver side by side", async () => {
  if (POSTGRES_URL === undefined) {
    throw new Error("BENCH_POSTGRES_URL is not set: run bench/langgraph-savers, which starts PostgreSQL");
  }
  const loadBefore = loadAverage();
  const payloadBytes = TURNS * 2 * TEXT;
  const figures: SaverFigures[] = [];

  // --- PostgreSQL ---------------------------------------------------------------------------------------------------
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: THREADS + 2 });
  const postgres = new PostgresSaver(pool);
  await postgres.setup();
  await turns(postgres, "warm-up", WARM_UP_TURNS);
  const pgBefore = await postgresBytes(pool);
  const pgLatencies = await turns(postgres, "long", TURNS);
  await pool.query("checkpoint");
  const pgStored = (await postgresBytes(pool)) - pgBefore;
  const pgResume = resumeInNewProcess("postgres", "long", { BENCH_POSTGRES_URL: POSTGRES_URL });
  const pgConcurrent = await concurrently(postgres, "many");
  await pool.end();
  figures.push({
    saver: "PostgresSaver (@langchain/langgraph-checkpoint-postgres 1.0.5, PostgreSQL from Debian)",
    firstTurnsMedianMs: median(pgLatencies.slice(0, WINDOW)),
    lastTurnsMedianMs: median(pgLatencies.slice(-WINDOW)),
    latencyGrowth: median(pgLatencies.slice(-WINDOW)) / median(pgLatencies.slice(0, WINDOW)),
    payloadBytes,
    storedBytes: pgStored,
    bytesPerPayloadByte: pgStored / payloadBytes,
    resumeMs: pgResume.inside,
    resumeProcessMs: pgResume.process,
    concurrentTurnsPerSecond: pgConcurrent.turnsPerSecond,
    concurrentP99Ms: pgConcurrent.p99,
    concurrentP50Ms: pgConcurrent.p50,
  });

  // --- Tether ---------------------------------------------------------------------------------------------------------
  const stack = await RealStack.start("lg-bench");
  try {
    const options = stack.options("dev-acme-agent");
    const client = new TetherClient({ ...options, retry: RetryPolicy.of(12, 250, 5_000) });
    const prefix = `bench-${Math.random().toString(16).slice(2, 8)}-`;
    const saver = new TetherSaver({ client, threadPrefix: prefix, workerId: "bench" });
    const dataDir = join(stack.work, "stack/kafka/data");
    const isEvents = (d: string) => /session-events-\d+$/.test(d);
    const isTether = (d: string) => !d.startsWith("__") && /-\d+$/.test(d);
    await turns(saver, "warm-up", WARM_UP_TURNS);
    const eventsBefore = segmentBytes(dataDir, isEvents);
    const allBefore = segmentBytes(dataDir, isTether);
    const latencies = await turns(saver, "long", TURNS);
    await new Promise((r) => setTimeout(r, 5_000)); // the projector's and the changelogs' writes of the last turns
    const eventsStored = segmentBytes(dataDir, isEvents) - eventsBefore;
    const allStored = segmentBytes(dataDir, isTether) - allBefore;
    const resume = resumeInNewProcess("tether", "long", {
      BENCH_TETHER_SESSIONS_URL: options.sessionsUrl!,
      BENCH_TETHER_PROJECTOR_URL: options.projectorUrl!,
      BENCH_TETHER_APPROVALS_URL: options.approvalsUrl!,
      BENCH_TETHER_PREFIX: prefix,
    });
    const concurrent = await concurrently(saver, "many");
    await client.close();
    figures.push({
      saver: "TetherSaver (this repository, the four services and one broker on this machine)",
      firstTurnsMedianMs: median(latencies.slice(0, WINDOW)),
      lastTurnsMedianMs: median(latencies.slice(-WINDOW)),
      latencyGrowth: median(latencies.slice(-WINDOW)) / median(latencies.slice(0, WINDOW)),
      payloadBytes,
      storedBytes: eventsStored,
      bytesPerPayloadByte: eventsStored / payloadBytes,
      storedBytesAllTopics: allStored,
      bytesPerPayloadByteAllTopics: allStored / payloadBytes,
      resumeMs: resume.inside,
      resumeProcessMs: resume.process,
      concurrentTurnsPerSecond: concurrent.turnsPerSecond,
      concurrentP99Ms: concurrent.p99,
      concurrentP50Ms: concurrent.p50,
    });
  } finally {
    await stack.stop();
  }

  const result = {
    benchmark: "langgraph-savers",
    at: new Date().toISOString(),
    machine: { loadAverageBefore: loadBefore, loadAverageAfter: loadAverage(), cores: execFileSync("nproc", { encoding: "utf8" }).trim() },
    settings: { turns: TURNS, window: WINDOW, warmUpTurns: WARM_UP_TURNS, threads: THREADS, concurrentTurns: CONCURRENT_TURNS, messageCharacters: TEXT },
    figures,
  };
  mkdirSync(RESULTS, { recursive: true });
  const file = resolve(RESULTS, `${result.at.replace(/[:.]/g, "").slice(0, 15)}Z.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(table(result.figures));
  console.log(`results: ${file}; load average ${loadBefore} before, ${result.machine.loadAverageAfter} after`);
  for (const f of figures) {
    for (const [k, v] of Object.entries(f)) {
      if (typeof v === "number") {
        expect(Number.isFinite(v) && v > 0, `${f.saver} ${k}`).toBe(true);
      }
    }
  }
}, 6 * 60 * 60 * 1000);

function table(figures: readonly SaverFigures[]): string {
  const rows = figures.map((f) =>
    `| ${f.saver} | ${f.firstTurnsMedianMs.toFixed(1)} | ${f.lastTurnsMedianMs.toFixed(1)} | ${f.latencyGrowth.toFixed(2)}× | ` +
    `${f.bytesPerPayloadByte.toFixed(2)}${f.bytesPerPayloadByteAllTopics === undefined ? "" : ` (all topics ${f.bytesPerPayloadByteAllTopics.toFixed(2)})`} | ` +
    `${f.resumeMs.toFixed(0)} (process ${f.resumeProcessMs.toFixed(0)}) | ${f.concurrentTurnsPerSecond.toFixed(1)} | ${f.concurrentP99Ms.toFixed(0)} |`,
  );
  return [
    `| saver | turn latency, median of turns 1-${WINDOW} (ms) | median of the last ${WINDOW} (ms) | growth | bytes stored per payload byte | resume in a new process (ms) | ${THREADS} threads × ${CONCURRENT_TURNS} turns: turns/s | p99 (ms) |`,
    "|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
