/**
 * A getter that builds its value on the first call and returns that same value after: how each
 * area's wiring builds its dependencies (docs/architecture.md, "One wiring module per area").
 * Call it as `/* @__PURE__ *\/ lazily(…)`: esbuild then drops a getter no handler calls, and with
 * it the adapters only that getter reaches.
 */
export function lazily<T>(build: () => T): () => T {
  let value: { built: T } | undefined;
  return () => {
    value ??= { built: build() };
    return value.built;
  };
}
