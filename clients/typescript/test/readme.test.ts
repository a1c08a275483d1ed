import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

it("the README's example is examples/quickstart.ts, which the type check compiles", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toBe(readFileSync(new URL("../examples/quickstart.ts", import.meta.url), "utf8"));
});
