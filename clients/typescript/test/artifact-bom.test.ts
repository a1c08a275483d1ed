import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EventTexts } from "../src/index.js";
import { withFakeServer } from "./fake-server.js";

/**
 * `artifactText` is the offloaded content's text "as UTF-8", exactly as written (the blob's bytes, which
 * its sha256 names). `Response.text()` runs the Fetch spec's "UTF-8 decode", which drops a leading byte order mark, so
 * an offloaded text that starts with U+FEFF (a file read from a Windows editor's UTF-8-with-BOM) comes back without it:
 * its bytes no longer hash to the sha256 it was fetched by, and the Java SDK (`BodyHandlers.ofString(UTF_8)`) keeps it.
 */
const fake = withFakeServer();

describe("offloaded text", () => {
  it("keeps a leading byte order mark, as it was written", async () => {
    const text = "\uFEFFid,name\r\n1,Zoë\r\n";
    const bytes = Buffer.from(text, "utf8");
    const sha = createHash("sha256").update(bytes).digest("hex");
    fake.server.next((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/octet-stream", ETag: `"${sha}"` });
      res.end(bytes);
    });
    const read = await fake.client.artifactText(sha);
    expect(read).toBe(text);
    expect(createHash("sha256").update(Buffer.from(read!, "utf8")).digest("hex"), "the text hashes to the sha256 it was read by").toBe(sha);
  });

  it("is what EventTexts gives for an event whose content was offloaded", async () => {
    const text = "\uFEFF".concat("x".repeat(10));
    const bytes = Buffer.from(text, "utf8");
    const sha = createHash("sha256").update(bytes).digest("hex");
    fake.server.next((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/octet-stream" });
      res.end(bytes);
    });
    const texts = new EventTexts(fake.client);
    expect(await texts.blob(sha)).toBe(text);
  });
});
