import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePorts } from "./real-stack.js";

describe("freePorts (the real stack's ports)", () => {
  it("gives distinct ports a server can listen on, below the kernel's ephemeral range", async () => {
    const ports = await freePorts(20);

    expect(new Set(ports).size).toBe(20);
    const [first] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (first !== undefined && first - 10_000 >= 1_000) {
      for (const port of ports) {
        expect(port).toBeGreaterThanOrEqual(10_000);
        expect(port).toBeLessThan(first);
      }
    }
    for (const port of ports) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => server.close(() => resolve()));
      });
    }
  });
});
