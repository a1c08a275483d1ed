import type { StackUrls } from "../../../clients/typescript/test/real-stack.global.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The URLs of the integration tests' real stack (clients/typescript/test/real-stack.global.ts). */
    tether: StackUrls;
  }
}
