// Names the function Biome reports at a line and column, so that the baseline lists it by file and name, not
// by line (lines move with every edit above it). TypeScript's own parser reads the file.
import ts from 'typescript';

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

/** The last name of a callee: `program.command(…).action` → `action`, `new Promise` → `Promise`. */
function calleeName(expression) {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  return 'call';
}

/** What a reader calls a function: its own name, else the name it is given to, else what it is passed to. */
function ownName(node, file) {
  if (node.kind === ts.SyntaxKind.Constructor) return 'constructor';
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText(file);
  }
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent))
    return `${calleeName(parent.expression)} callback`;
  if (ts.isBinaryExpression(parent)) return parent.left.getText(file);
  return 'anonymous function';
}

/** Every function of a file, in source order, named by its place: `Class › method`, `register › action callback`. */
function functionsOf(file) {
  const found = [];
  const seen = new Map();
  const visit = (node, outer) => {
    let scope = outer;
    if (FUNCTION_KINDS.has(node.kind) && node.body) {
      scope = [...outer, ownName(node, file)];
      const name = scope.join(' › ');
      const count = (seen.get(name) ?? 0) + 1;
      seen.set(name, count);
      found.push({
        name: count === 1 ? name : `${name} #${count}`,
        start: node.getStart(file),
        end: node.end,
      });
    } else if (ts.isClassLike(node) && node.name) {
      scope = [...outer, node.name.text];
    }
    ts.forEachChild(node, (child) => visit(child, scope));
  };
  visit(file, []);
  return found;
}

/** The name of the innermost function at a 1-based line and column of a TypeScript source text. */
export function functionNameAt(path, text, line, column) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const position = file.getPositionOfLineAndCharacter(line - 1, column - 1);
  const around = functionsOf(file).filter(({ start, end }) => start <= position && position < end);
  return around.at(-1)?.name ?? `line ${line}`;
}
