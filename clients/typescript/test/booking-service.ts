import { createServer, type Server } from "node:http";

/**
 * The external system the agent books flights in: it books once per idempotency key (a second POST with the same key
 * answers the first booking) and answers by key whether it booked. Every booking is counted.
 */
export class BookingService {
  private readonly bookings = new Map<string, { key: string; to: string; confirmation: string }>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<BookingService> {
    let service: BookingService | undefined;
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => service!.answer(req.method ?? "GET", decodeURIComponent(req.url ?? "/"), body, (status, json) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(json));
      }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    service = new BookingService(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
    return service;
  }

  /** The bookings made under keys of `sessionId` (keys are the external keys tools are handed, `<sessionId>/<seq>/<callId>~<ms>`). */
  forThread(sessionId: string) {
    return [...this.bookings.values()].filter((b) => b.key.startsWith(`${sessionId}/`));
  }

  private answer(method: string, path: string, body: string, reply: (status: number, json: unknown) => void): void {
    if (method === "POST" && path === "/bookings") {
      const { key, to } = JSON.parse(body) as { key: string; to: string };
      let booked = this.bookings.get(key);
      if (booked === undefined) {
        booked = { key, to, confirmation: `C${this.bookings.size + 1}` };
        this.bookings.set(key, booked);
      }
      reply(200, booked);
    } else if (method === "GET" && path.startsWith("/bookings/")) {
      const booked = this.bookings.get(path.slice("/bookings/".length));
      reply(200, booked === undefined ? { count: 0 } : { count: 1, ...booked });
    } else {
      reply(404, { error: "not found" });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}


