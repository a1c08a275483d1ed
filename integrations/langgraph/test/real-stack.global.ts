/**
 * Vitest global setup of the integration tests: one real stack (clients/typescript/test/real-stack.ts) for all of them,
 * started before the first test file and stopped after the last; the test files get its URLs with `inject("tether")`.
 */
import type { TestProject } from "vitest/node";
import { RealStack } from "../../../clients/typescript/test/real-stack.js";

export interface StackUrls {
  readonly sessionsUrl: string;
  readonly projectorUrl: string;
  readonly approvalsUrl: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    tether: StackUrls;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await RealStack.start("lg-it");
  const { sessionsUrl, projectorUrl, approvalsUrl } = stack.options("dev-acme-agent");
  project.provide("tether", { sessionsUrl: sessionsUrl!, projectorUrl: projectorUrl!, approvalsUrl: approvalsUrl! });
  return async () => {
    await stack.stop();
  };
}
