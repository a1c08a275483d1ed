import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

it("the README's example is examples/quickstart.ts, which the type check compiles", () => {
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toBe(readFileSync(new URL("../examples/quickstart.ts", import.meta.url), "utf8"));
});

it("the README's harness-run tools example is examples/harness-tools.ts, which the type check compiles", () => {
  const example = /## Harness-run tools\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toBe(readFileSync(new URL("../examples/harness-tools.ts", import.meta.url), "utf8"));
});
