// JSON.stringify for values that came from a server. V8 serialises nesting by recursion, so an answer
// nested some thousands deep (JSON.parse takes it) made the output throw "Maximum call stack size exceeded":
// an invitation the API had confirmed then ended as an "unexpected failure", exit 1. Past MAX_DEPTH levels
// (OneRoster and the API nest four or five) a value is written as a note saying so; shallower values are
// written exactly, by JSON.stringify alone.

const MAX_DEPTH = 64;
/**
 * How deep a table or CSV cell flattens lists inside lists into its values (render.ts, records.ts); a list
 * deeper than that is one value, its JSON (bounded here), so no cell recurses without end.
 */
export const FLATTEN_DEPTH = 4;
const TOO_DEEP = `[nested deeper than ${MAX_DEPTH} levels: not shown]`;

/** JSON.stringify(value, null, space), with anything nested deeper than MAX_DEPTH replaced by a note. */
export function stringify(value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, null, space);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return JSON.stringify(value, depthLimited(), space);
  }
}

/** A replacer that knows each object's depth by its holder's (the root's holder is at depth 0). */
function depthLimited(): (this: unknown, key: string, value: unknown) => unknown {
  const depths = new WeakMap<object, number>();
  return function (this: unknown, _key, value) {
    if (typeof value !== 'object' || value === null) return value;
    const depth = (depths.get(this as object) ?? 0) + 1;
    if (depth > MAX_DEPTH) return TOO_DEEP;
    depths.set(value, depth);
    return value;
  };
}
