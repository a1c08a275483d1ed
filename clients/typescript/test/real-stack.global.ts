/**
 * Vitest global setup of the integrations' integration tests (integrations/*): one real stack (real-stack.ts) for all
 * of a package's test files, started before the first and stopped after the last; the files get its URLs with
 * `inject("tether")` (each package declares that key of vitest's `ProvidedContext` in its test/provided.d.ts). It
 * imports nothing by package name, so each package runs it with its own vitest.
 */
import { RealStack } from "./real-stack.js";

/** The URLs of the stack's services. */
export interface StackUrls {
  readonly sessionsUrl: string;
  readonly projectorUrl: string;
  readonly approvalsUrl: string;
}

export default async function setup(project: { provide(key: "tether", value: StackUrls): void }): Promise<() => Promise<void>> {
  const stack = await RealStack.start("it");
  const { sessionsUrl, projectorUrl, approvalsUrl } = stack.options("dev-acme-agent");
  project.provide("tether", { sessionsUrl: sessionsUrl!, projectorUrl: projectorUrl!, approvalsUrl: approvalsUrl! });
  return async () => {
    await stack.stop();
  };
}
