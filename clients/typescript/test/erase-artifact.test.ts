import { describe, expect, it } from "vitest";
import { TetherError } from "../src/index.js";
import { withFakeServer, json } from "./fake-server.js";

/** Erasing a session and reading an offloaded blob: what is sent, and each answer as its outcome. */
const fake = withFakeServer();

describe("eraseSession", () => {
  it("sends DELETE for the session and answers erased with its event count", async () => {
    fake.server.next(json(200, '{"erased":"demo-1","events":7}'));
    const result = await fake.client.eraseSession("demo-1");
    expect(result).toEqual({ kind: "erased", sessionId: "demo-1", events: 7 });
    expect(fake.server.seen[0]!.method).toBe("DELETE");
    expect(fake.server.seen[0]!.path).toBe("/v1/sessions/demo-1");
    expect(fake.server.seen[0]!.query).toBeUndefined();
  });

  it("as a writer, names its claim's epoch and the session's start; refused as stale_epoch once another worker claimed it", async () => {
    fake.server.next(json(409, '{"error":"stale_epoch","message":"epoch 1 is not the session\'s current epoch 2: another worker claimed it: nothing was erased"}'));
    const refused = await fake.client.eraseSession("demo-1", { epoch: 1, sessionStartedAt: new Date("2026-12-07T00:00:00.123Z") });
    expect(refused).toMatchObject({ kind: "rejected", status: 409, code: "stale_epoch" });
    expect(fake.server.seen[0]!.path).toBe("/v1/sessions/demo-1");
    expect(fake.server.seen[0]!.query).toBe("epoch=1&sessionStartedAt=2026-12-07T00%3A00%3A00.123Z");
    fake.server.next(json(200, '{"erased":"demo-1","events":3}'));
    expect((await fake.client.eraseSession("demo-1", { epoch: 2, sessionStartedAt: undefined })).kind).toBe("erased");
    expect(fake.server.seen[1]!.query).toBe("epoch=2");
  });

  it("answers not_found for a session the tenant does not have, rejected for a role that may not erase", async () => {
    fake.server.next(json(404, '{"error":"not_found","message":"session not found"}'));
    expect((await fake.client.eraseSession("gone")).kind).toBe("not_found");
    fake.server.next(json(403, '{"error":"forbidden","message":"an approver may not erase"}'));
    const refused = await fake.client.eraseSession("demo-1");
    expect(refused).toMatchObject({ kind: "rejected", status: 403, code: "forbidden" });
  });
});

describe("artifactText", () => {
  const sha = "a".repeat(64);

  it("reads the blob's text by its sha256", async () => {
    fake.server.next(json(200, "the whole offloaded content"));
    expect(await fake.client.artifactText(sha)).toBe("the whole offloaded content");
    expect(fake.server.seen[0]!.path).toBe(`/v1/artifacts/${sha}`);
  });

  it("answers undefined for a blob the tenant does not have, and refuses what is no sha256 before any call", async () => {
    fake.server.next(json(404, '{"error":"not_found","message":"artifact not found"}'));
    expect(await fake.client.artifactText(sha)).toBeUndefined();
    await expect(fake.client.artifactText("../etc/passwd")).rejects.toThrow(TypeError);
    expect(fake.server.seen).toHaveLength(1);
  });

  it("throws a TetherError when the service fails", async () => {
    fake.server.next(json(500, '{"error":"internal","message":"boom"}'));
    await expect(fake.client.artifactText(sha)).rejects.toThrow(TetherError);
  });
});
