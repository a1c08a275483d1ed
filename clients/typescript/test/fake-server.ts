import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, beforeEach } from "vitest";
import { RetryPolicy, TetherClient, type TetherClientOptions } from "../src/index.js";

/**
 * A scripted HTTP server on 127.0.0.1 for unit tests (node:http; no Tether service): each request gets the next
 * scripted answer, and every request is recorded. Only for the SDK's side of the protocol — the integration test runs
 * against the real services.
 */
export class FakeServer {
  private readonly server: Server;
  private readonly scripts: Script[] = [];
  private readonly sockets = new Set<Socket>();
  private fallback: Script = json(500, '{"error":"internal","message":"nothing scripted"}');
  readonly seen: Seen[] = [];

  private constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  static async start(): Promise<FakeServer> {
    const fake = new FakeServer();
    await new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Options with every service at this server, the token set, and quick retries. */
  options(overrides: TetherClientOptions = {}): TetherClientOptions {
    return {
      sessionsUrl: this.url,
      projectorUrl: this.url,
      approvalsUrl: this.url,
      token: "dev-acme-agent",
      timeoutMs: 5_000,
      retry: RetryPolicy.of(3, 10, 50),
      ...overrides,
    };
  }

  /** The next request gets this answer. (Not `then`: an object with a `then` method would be awaited as a promise.) */
  next(script: Script): this {
    this.scripts.push(script);
    return this;
  }

  /** Requests beyond the scripted ones get this answer. */
  otherwise(script: Script): this {
    this.fallback = script;
    return this;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
      chunks.push(chunk as Buffer);
    }
    this.seen.push({
      method: req.method ?? "",
      path: (req.url ?? "").split("?")[0]!,
      query: req.url?.includes("?") ? req.url.slice(req.url.indexOf("?") + 1) : undefined,
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
      bytes: Buffer.concat(chunks),
    });
    const script = this.scripts.shift() ?? this.fallback;
    try {
      await script(req, res);
    } catch {
      res.destroy(); // the client went away mid-answer: what some tests do on purpose
    }
  }
}

/**
 * A fresh server and a client of it for each test of the calling file (or `describe` block), closed after it:
 * `const fake = withFakeServer();` then `fake.server`, `fake.client`.
 */
export function withFakeServer(): { readonly server: FakeServer; readonly client: TetherClient } {
  const fixture = {} as { server: FakeServer; client: TetherClient };
  beforeEach(async () => {
    fixture.server = await FakeServer.start();
    fixture.client = new TetherClient(fixture.server.options());
  });
  afterEach(async () => {
    await fixture.client.close();
    await fixture.server.close();
  });
  return fixture;
}

/** A request as the server saw it; path and query still percent-encoded. */
export interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: string | undefined;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
  readonly bytes: Buffer;
}

/** An answer to one request; may stream, wait or drop the connection. */
export type Script = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export function json(status: number, body: string, headers: Record<string, string> = {}): Script {
  return (_req, res) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(body);
  };
}

/** An SSE answer: the frames, written one by one, then the stream ends. */
export function sse(...frames: string[]): Script {
  return async (_req, res) => {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    for (const frame of frames) {
      res.write(frame);
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  };
}

/** An SSE answer that stays open and quiet (until the client goes away or the server closes). */
export function quietStream(...frames: string[]): Script {
  return (_req, res) => {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.flushHeaders();
    for (const frame of frames) {
      res.write(frame);
    }
  };
}

/** No answer at all: the connection is closed before any response. */
export function dropConnection(): Script {
  return (req) => {
    req.socket.destroy();
  };
}

/** Never answers (until the client gives up or the server closes). */
export function hang(): Script {
  return () => undefined;
}

/** The SSE frame of an event, as the session-service writes it. */
/** An SSE event of seq `seq`, with the id `id` (the bare seq by default, as older services wrote it). */
export function frame(sessionId: string, seq: number, id = String(seq)): string {
  return `id:${id}\nevent:user_message\ndata:${eventJson(sessionId, seq)}\n\n`;
}

export function eventJson(sessionId: string, seq: number): string {
  return JSON.stringify({
    seq,
    eventId: `e-${seq}`,
    type: "user_message",
    sessionId,
    occurredAt: "2026-11-29T10:16:00.986Z",
    actor: { kind: "USER", id: "acme-agent" },
    harnessVersion: "v1",
    content: `message ${seq}`,
  });
}
