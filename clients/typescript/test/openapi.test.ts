import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { components as ApprovalApi } from "../src/generated/approval-service.js";
import type { components as SessionApi } from "../src/generated/session-service.js";
import type { ApprovalStatus, DecisionKind, ToolMode, ToolStatus } from "../src/requests.js";
import type { FieldOf } from "../src/wire.js";
import { generate, generatedUrl, REGENERATE, SERVICES } from "./openapi-types.js";

type Session = SessionApi["schemas"];
type Approvals = ApprovalApi["schemas"];

/**
 * The SDK's wire types come from the services' committed OpenAPI documents (docs/openapi): the generated files are what
 * openapi-typescript makes of them today, and `tsc` (npm run typecheck) holds the SDK to them: every request body it
 * builds `satisfies` the documented request (src/requests.ts, src/client.ts), and every answer field it reads is one
 * the document gives that answer, of a type it can read (src/wire.ts, FieldOf). The assertions below are checked by
 * `tsc` too.
 */
describe("the OpenAPI documents", () => {
  for (const service of SERVICES) {
    it(`src/generated/${service}.ts is generated from docs/openapi/${service}.json`, async () => {
      const fresh = await generate(service);
      if (process.env.TETHER_OPENAPI_UPDATE === "1") {
        await writeFile(generatedUrl(service), fresh);
      }
      const committed = await readFile(generatedUrl(service), "utf8");
      expect(committed, `src/generated/${service}.ts is stale: ${REGENERATE}`).toBe(fresh);
    });
  }

  it("name the same values the SDK's own types allow", () => {
    expectTypeOf<ToolStatus>().toEqualTypeOf<Session["NewToolResultEvent"]["status"]>();
    expectTypeOf<ToolMode>().toEqualTypeOf<Session["CreateSession"]["toolMode"]>();
    expectTypeOf<DecisionKind>().toEqualTypeOf<Approvals["Decision"]["decision"]>();
    expectTypeOf<ApprovalStatus>().toEqualTypeOf<Approvals["ApprovalItem"]["status"]>();
  });

  it("let the SDK read only the fields they give an answer", () => {
    expectTypeOf<"sessionId" | "harnessVersion" | "modelId">().toMatchTypeOf<FieldOf<Session["SessionCreated"], string>>();
    // a misspelt field, and a field of another type, are compile errors in src/wire.ts
    expectTypeOf<"sesionId">().not.toMatchTypeOf<FieldOf<Session["SessionCreated"], string>>();
    expectTypeOf<"seq">().not.toMatchTypeOf<FieldOf<Session["SessionCreated"], string>>();
    expectTypeOf<"seq">().toMatchTypeOf<FieldOf<Session["SessionCreated"], number>>();
  });
});
