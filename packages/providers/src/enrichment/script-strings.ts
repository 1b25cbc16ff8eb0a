import { parse } from 'acorn';

/**
 * The strings a small inline script builds (`'info' + '@' + d`, template literals, `atob(...)`,
 * `String.fromCharCode(...)`, `'...'.split('').reverse().join('')`), found by constant folding over
 * its syntax tree (acorn): nothing of the page's code ever runs in the worker (decision 025).
 * Only what folds from literals and the script's own constant bindings is seen; anything that needs
 * the DOM, the network or a loop is left alone.
 */
export function scriptStrings(source: string): string[] {
  // Library bundles are not where a business hides its address, and would cost the most to parse.
  if (source.length > MAX_SCRIPT_CHARS || !/atob|fromCharCode|reverse|\+|`/.test(source)) return [];
  let tree: Node;
  try {
    tree = parse(source, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true }) as unknown as Node;
  } catch {
    return [];
  }
  const bindings = new Map<string, Node>();
  const reassigned = new Set<string>();
  const candidates: Node[] = [];
  visit(tree, (node) => {
    // A variable written again (s += ..., i++) has no one value to fold.
    const target = (
      node.type === 'AssignmentExpression' ? node.left : node.type === 'UpdateExpression' ? node.argument : null
    ) as Node | null;
    if (target?.type === 'Identifier') reassigned.add(target.name as string);
    if (node.type === 'VariableDeclarator' && (node.id as Node | undefined)?.type === 'Identifier' && node.init)
      bindings.set((node.id as Node).name as string, node.init as Node);
    if (node.type === 'BinaryExpression' || node.type === 'TemplateLiteral' || node.type === 'CallExpression') candidates.push(node);
  });
  for (const name of reassigned) bindings.delete(name);
  const budget = { steps: MAX_STEPS };
  const found = new Set<string>();
  for (const node of candidates) {
    const value = fold(node, bindings, budget, 0);
    // what a script writes into the page may spell its @ as an entity (document.write('...&#64;...'))
    if (typeof value === 'string' && /[^@\s](?:@|&#0*64;|&#x0*40;|&commat;)[^@\s]/i.test(value)) found.add(value);
    if (budget.steps <= 0) break;
  }
  return [...found];
}

const MAX_SCRIPT_CHARS = 20_000;
const MAX_STEPS = 5_000;
const MAX_DEPTH = 24;
const MAX_STRING = 2_000;

type Node = { type: string; [key: string]: unknown };
type Value = string | number | Value[] | null;

function visit(node: unknown, onNode: (node: Node) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) visit(child, onNode);
    return;
  }
  if (node === null || typeof node !== 'object' || typeof (node as Node).type !== 'string') return;
  onNode(node as Node);
  for (const [key, child] of Object.entries(node)) if (key !== 'type' && typeof child === 'object') visit(child, onNode);
}

function fold(node: Node | null | undefined, bindings: Map<string, Node>, budget: { steps: number }, depth: number): Value {
  if (!node || depth > MAX_DEPTH || --budget.steps <= 0) return null;
  const next = (child: unknown) => fold(child as Node, bindings, budget, depth + 1);
  switch (node.type) {
    case 'Literal':
      return typeof node.value === 'string' || typeof node.value === 'number' ? node.value : null;
    case 'Identifier':
      return bindings.has(node.name as string) ? next(bindings.get(node.name as string)) : null;
    case 'TemplateLiteral': {
      const quasis = node.quasis as Array<{ value: { cooked: string | null } }>;
      const parts = (node.expressions as Node[]).map(next);
      if (parts.some((p) => p === null || Array.isArray(p))) return null;
      return short(quasis.map((q, i) => (q.value.cooked ?? '') + (i < parts.length ? String(parts[i]) : '')).join(''));
    }
    case 'BinaryExpression': {
      if (node.operator !== '+') return null;
      const [left, right] = [next(node.left), next(node.right)];
      if (left === null || right === null || Array.isArray(left) || Array.isArray(right)) return null;
      return typeof left === 'number' && typeof right === 'number' ? left + right : short(String(left) + String(right));
    }
    case 'ArrayExpression':
      return (node.elements as Node[]).map((element) => next(element));
    case 'CallExpression':
      return call(node, next);
    default:
      return null;
  }
}

function short(text: string): string | null {
  return text.length <= MAX_STRING ? text : null;
}

function call(node: Node, next: (child: unknown) => Value): Value {
  const callee = node.callee as Node;
  const args = (node.arguments as Node[]).map(next);
  if (callee.type === 'Identifier') {
    const [first] = args;
    if (typeof first !== 'string') return null;
    if (callee.name === 'atob') return /^[A-Za-z0-9+/=\s]*$/.test(first) ? Buffer.from(first, 'base64').toString('latin1') : null;
    if (callee.name === 'decodeURIComponent' || callee.name === 'unescape') {
      try {
        return decodeURIComponent(first);
      } catch {
        return null;
      }
    }
    return null;
  }
  if (callee.type !== 'MemberExpression' || callee.computed) return null;
  const method = (callee.property as Node).name as string;
  if ((callee.object as Node).type === 'Identifier' && (callee.object as Node).name === 'String' && method === 'fromCharCode') {
    return args.every((a) => typeof a === 'number' && a >= 0 && a < 0x110000) ? short(String.fromCodePoint(...(args as number[]))) : null;
  }
  const target = next(callee.object);
  if (typeof target === 'string') {
    if (method === 'split' && typeof args[0] === 'string') return target.split(args[0]);
    if (method === 'concat' && args.every((a) => typeof a === 'string')) return short(target + (args as string[]).join(''));
    if (method === 'replace' && typeof args[0] === 'string' && typeof args[1] === 'string') return target.replace(args[0], args[1]);
    if (method === 'toLowerCase' || method === 'trim') return method === 'trim' ? target.trim() : target.toLowerCase();
    return null;
  }
  if (Array.isArray(target)) {
    if (method === 'reverse') return [...target].reverse();
    if (
      method === 'join' &&
      (args[0] === undefined || typeof args[0] === 'string') &&
      target.every((t) => typeof t === 'string' || typeof t === 'number')
    ) {
      return short(target.join((args[0] as string | undefined) ?? ','));
    }
  }
  return null;
}
