/**
 * The real stack for integration tests: a real Kafka broker and a real Apicurio Registry (the repository's own
 * deploy/local/stack, on free loopback ports) and the four packaged services (session-service, projector-service,
 * approval-service, tool-executor) as processes, under a topic prefix of their own. Nothing is mocked.
 *
 * Needs the packaged services and the stack's distribution, as `bin/run` does: `<root>/<service>/target/quarkus-app`
 * and `<root>/deploy/local/target/stack`, where <root> is this repository or `TETHER_ARTIFACTS_ROOT` (a checkout that
 * has been built: `bin/mvn -q package -DskipTests`).
 *
 * {@link RealStack.start} starts everything, {@link RealStack.stop} stops it by PID (services SIGTERM then SIGKILL; the
 * stack with `stack stop`, and `--owner-pid` stops it too should this process die) and deletes its temporary directory.
 * Used by this SDK's integration test and by the integrations' (integrations/*).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { RetryPolicy, type TetherClientOptions } from "../src/index.js";

/** The repository's root. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const artifacts = resolve(process.env.TETHER_ARTIFACTS_ROOT ?? REPO);
/**
 * The JVM options the build gives the processes its integration tests start (pom.xml `tether-test.it-jvm-options`): less
 * CPU to start, and stream threads that poll every 100 ms rather than 10 when idle. The same as the Java tests', so that
 * the services map the class-data archives those made (ClassData below).
 */
const JVM_OPTIONS = (process.env.TETHER_TEST_JVM_OPTIONS ?? "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dkafka-streams.poll.ms=100")
  .split(/\s+/)
  .filter((o) => o !== "");
/** Class-data sharing for the services and the stack, as the Java tests have it; TETHER_TEST_CLASS_DATA=false starts without. */
const CLASS_DATA = process.env.TETHER_TEST_CLASS_DATA !== "false";
export const SERVICES = ["session-service", "projector-service", "approval-service", "tool-executor"] as const;
export type ServiceName = (typeof SERVICES)[number];

export class RealStack {
  private constructor(
    /** The stack's temporary directory: services' state and logs, `workspaces/` (the executor's), `blobs/`. */
    readonly work: string,
    private readonly stackDir: string,
    private readonly services: ReadonlyMap<ServiceName, Service>,
  ) {}

  /** Starts the broker, the registry and the four services (in that order, one at a time); `name` names its temp dir and topic prefix. */
  static async start(name: string): Promise<RealStack> {
    for (const s of SERVICES) {
      const jar = join(artifacts, s, "target/quarkus-app/quarkus-run.jar");
      if (!existsSync(jar)) {
        throw new Error(`no packaged ${s} at ${jar}: build the services first (bin/mvn -q package -DskipTests) or set TETHER_ARTIFACTS_ROOT`);
      }
    }
    const work = mkdtempSync(join(tmpdir(), `tether-${name}-`));
    const stackDir = join(work, "stack");
    const services = new Map<ServiceName, Service>();
    const stack = new RealStack(work, stackDir, services);
    try {
      const ports = await freePorts(4);
      const dist = existsSync(join(REPO, "deploy/local/target/stack")) ? join(REPO, "deploy/local/target/stack") : join(artifacts, "deploy/local/target/stack");
      const started = spawnSync(
        join(REPO, "deploy/local/stack"),
        ["start", "--dir", stackDir, "--kafka-port", `${ports[0]}`, "--controller-port", `${ports[1]}`, "--registry-port", `${ports[2]}`,
          "--registry-mgmt-port", `${ports[3]}`, "--registry-storage", "memory", "--owner-pid", `${process.pid}`],
        {
          encoding: "utf8",
          env: { ...process.env, TETHER_STACK_DIST: dist, TETHER_STACK_JVM_OPTS: JVM_OPTIONS.join(" "), TETHER_STACK_CLASS_DATA: CLASS_DATA ? "1" : "0" },
          timeout: 300_000,
        },
      );
      if (started.status !== 0) {
        throw new Error(`deploy/local/stack start failed (${started.status}):\n${started.stderr}\n${started.stdout}`);
      }
      const stackEnv: Record<string, string> = {};
      for (const line of started.stdout.split("\n")) {
        const m = /^(TETHER_[A-Z_]+)=(.*)$/.exec(line);
        if (m !== null) {
          stackEnv[m[1]!] = m[2]!;
        }
      }
      const bootstrap = stackEnv.TETHER_KAFKA_BOOTSTRAP;
      const registry = stackEnv.TETHER_REGISTRY_URL;
      if (bootstrap === undefined || registry === undefined) {
        throw new Error(`deploy/local/stack printed no endpoints:\n${started.stdout}`);
      }
      const prefix = `${name}-${Math.random().toString(16).slice(2, 10)}.`;
      const workspaces = join(work, "workspaces");
      mkdirSync(workspaces, { recursive: true });
      const servicePorts = await freePorts(SERVICES.length);
      SERVICES.forEach((service, i) => {
        services.set(
          service,
          new Service(service, servicePorts[i]!, join(work, service), {
            TETHER_TOPICS_PREFIX: prefix,
            TETHER_WORKSPACE_ROOT: workspaces,
            TETHER_SESSIONS_BLOBS_DIR: join(work, "blobs"),
            TETHER_KAFKA_BOOTSTRAP: bootstrap,
            TETHER_REGISTRY_URL: registry,
          }),
        );
      });
      // one at a time: four JVMs starting at once on two cores take longer than one after another
      for (const s of services.values()) {
        await s.start();
      }
      return stack;
    } catch (e) {
      await stack.stop();
      throw e;
    }
  }

  service(name: ServiceName): Service {
    return this.services.get(name)!;
  }

  /** Client options for these services with `token`: patient, as a slow shared machine needs. */
  options(token: string): TetherClientOptions {
    return {
      sessionsUrl: this.service("session-service").url,
      projectorUrl: this.service("projector-service").url,
      approvalsUrl: this.service("approval-service").url,
      token,
      timeoutMs: 30_000,
      retry: RetryPolicy.of(12, 250, 5_000),
    };
  }

  /** Stops the services (in reverse order), then the stack, each by PID; deletes the temporary directory. */
  async stop(): Promise<void> {
    for (const s of [...this.services.values()].reverse()) {
      await s.stop();
    }
    if (existsSync(this.stackDir)) {
      spawnSync(join(REPO, "deploy/local/stack"), ["stop", "--dir", this.stackDir], { encoding: "utf8", timeout: 120_000 });
    }
    rmSync(this.work, { recursive: true, force: true });
  }
}

/** One packaged service as a process of this test. */
export class Service {
  private process: ChildProcess | undefined;
  private starts = 0;
  readonly url: string;

  constructor(
    readonly name: ServiceName,
    readonly port: number,
    private readonly dir: string,
    private readonly env: Record<string, string>,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    mkdirSync(dir, { recursive: true });
  }

  get log(): string {
    return join(this.dir, "service.log");
  }

  /** Starts it and waits until it is ready (at most 240 s). */
  async start(): Promise<void> {
    writeFileSync(this.log, `---- start ${++this.starts}\n`, { flag: "a" });
    const out = openSync(this.log, "a");
    // its temp files in its own directory, emptied at each start: RocksDB's native library and Vert.x's file cache,
    // which a killed service cannot remove, stay out of the machine's temp directory
    const temp = join(this.dir, "tmp");
    rmSync(temp, { recursive: true, force: true });
    mkdirSync(temp, { recursive: true });
    const jar = join(artifacts, this.name, "target/quarkus-app/quarkus-run.jar");
    const classData = ClassData.of(jar);
    const child = spawn(JAVA, ["-Xmx384m", `-Djava.io.tmpdir=${temp}`, ...JVM_OPTIONS, ...classData.options(), "-jar", jar],
      {
        cwd: this.dir,
        stdio: ["ignore", out, out],
        env: {
          ...process.env,
          ...this.env,
          QUARKUS_HTTP_HOST: "127.0.0.1",
          QUARKUS_HTTP_PORT: String(this.port),
          TETHER_STATE_DIR: join(this.dir, "state"),
          TETHER_AUTH_DEV_KEYS_ENABLED: "true",
        },
      },
    );
    this.process = child;
    ALIVE.add(child);
    child.on("exit", (code) => {
      ALIVE.delete(child);
      classData.exited(code);
    });
    const deadline = Date.now() + 240_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${this.name} exited during start-up; its log:\n${tail(this.log)}`);
      }
      try {
        const ready = await fetch(`${this.url}/q/health/ready`, { signal: AbortSignal.timeout(2_000) });
        await ready.body?.cancel();
        if (ready.status === 200) {
          return;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${this.name} was not ready within 240 s; its log:\n${tail(this.log)}`);
  }

  /** SIGKILL: the process dies at once, as in a machine crash. */
  kill(): void {
    this.process?.kill("SIGKILL");
  }

  /** SIGTERM, then SIGKILL after 30 s. */
  async stop(): Promise<void> {
    const child = this.process;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await exited;
    clearTimeout(timer);
  }
}

const JAVA = process.env.JAVA ?? "java";

/**
 * A dynamic class-data-sharing archive of one packaged service, named as the Java tests' ClassDataArchive (testing/)
 * names it: a digest of the jar (its path, size and modification time), the Java runtime and the JVM options, in
 * `target/cds` beside the jar's directory. So a start after the Java integration tests maps the archive they made (about
 * half a start's CPU), and the first start without one dumps it when it exits normally (SIGTERM included), to a file of
 * its own moved into place only then.
 */
class ClassData {
  private dumping: string | undefined;

  private constructor(private readonly archive: string | undefined) {}

  static of(jar: string): ClassData {
    if (!CLASS_DATA) {
      return new ClassData(undefined);
    }
    const { size, mtimeMs } = statSync(jar);
    const runtime = javaRuntime();
    const identity = [jar, String(size), String(Math.floor(mtimeMs)), runtime.home, runtime.vmVersion, JVM_OPTIONS.join(" ")].join("\n");
    const name = `service-${createHash("sha256").update(identity, "utf8").digest("hex").slice(0, 16)}.jsa`;
    return new ClassData(join(dirname(dirname(jar)), "cds", name));
  }

  options(): string[] {
    if (this.archive === undefined) {
      return [];
    }
    if (existsSync(this.archive)) {
      return [`-XX:SharedArchiveFile=${this.archive}`, ...QUIET_CDS];
    }
    mkdirSync(dirname(this.archive), { recursive: true });
    this.dumping = `${this.archive}.${randomUUID()}.dumping`;
    return [`-XX:ArchiveClassesAtExit=${this.dumping}`, ...QUIET_CDS];
  }

  /** After the process ended: a normal exit's dump (0, or 143 after SIGTERM) becomes the archive; any other is deleted. */
  exited(code: number | null): void {
    const dump = this.dumping;
    this.dumping = undefined;
    if (dump === undefined || this.archive === undefined) {
      return;
    }
    if ((code === 0 || code === 143) && existsSync(dump)) {
      renameSync(dump, this.archive);
    } else {
      rmSync(dump, { force: true });
    }
  }
}

/** No CDS output in a service's log, the warnings of an archive it cannot map included (it then starts without). */
const QUIET_CDS = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"];

let runtime: { home: string; vmVersion: string } | undefined;

/** `java.home` and `java.vm.version` of the Java the services run on, as the Java tests' archives are named by them. */
function javaRuntime(): { home: string; vmVersion: string } {
  if (runtime === undefined) {
    const shown = spawnSync(JAVA, ["-XshowSettings:properties", "-version"], { encoding: "utf8", timeout: 60_000 });
    const lines = (shown.stderr ?? "").split("\n").map((l) => l.trim());
    const property = (key: string) => lines.find((l) => l.startsWith(`${key} = `))?.slice(key.length + 3) ?? "";
    runtime = { home: property("java.home"), vmVersion: property("java.vm.version") };
  }
  return runtime;
}

/** Services still running: killed by PID should this process exit without stop() (the stack has --owner-pid). */
const ALIVE = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of ALIVE) {
    child.kill("SIGKILL");
  }
});

function tail(file: string): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-40).join("\n");
  } catch {
    return "(no log)";
  }
}

/**
 * Free loopback ports for the servers the tests start, picked below the kernel's ephemeral range, as the Java tests'
 * Ports does: a port is probed free here and bound by another process seconds later, and one from the ephemeral range
 * (where a `listen(0)` probe and every outgoing connection get theirs) can be taken in between. Below that range only
 * explicit binds compete. Where the range cannot be read, or leaves too few ports below and above it, the kernel picks.
 */
export async function freePorts(count: number): Promise<number[]> {
  const [low, high] = portRange();
  const ports = new Set<number>();
  for (let tries = 0; ports.size < count; tries++) {
    if (tries === 100 * count) {
      throw new Error(`found only ${ports.size} of ${count} free ports in ${low}-${high}`);
    }
    const port = await bindable(low === 0 ? 0 : low + Math.floor(Math.random() * (high - low + 1)));
    if (port !== undefined) {
      ports.add(port);
    }
  }
  return [...ports];
}

/** The ports to pick from: below the ephemeral range, or above it; [0, 0] to let the kernel pick. */
function portRange(): [number, number] {
  let first = NaN;
  let last = NaN;
  try {
    [first = NaN, last = NaN] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
  } catch {
    return [0, 0]; // not Linux
  }
  if (Number.isInteger(first) && first - 10_000 >= 1_000) {
    return [10_000, first - 1];
  }
  if (Number.isInteger(last) && 65_535 - last >= 1_000) {
    return [Math.max(10_000, last + 1), 65_535];
  }
  return [0, 0];
}

/** The port if a server can listen on it now (the kernel's pick for 0), else undefined. */
function bindable(port: number): Promise<number | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}
