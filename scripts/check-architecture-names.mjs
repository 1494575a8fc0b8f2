#!/usr/bin/env node
/**
 * Check that every code name and path that docs/architecture.md gives still exists (ours).
 *
 *   node scripts/check-architecture-names.mjs [file.md ...]   (default: docs/architecture.md, docs/design.md, docs/decisions/*.md)
 *   pnpm docs:check
 *
 * Reads the inline code spans and the mermaid node labels of each document and checks:
 * - paths (`packages/core/src/write/writer.ts`, or `core/src/...` inside diagrams, or `src/cli.ts` of
 *   some package): the file or folder exists; a bare file name (`math.ts`): some source file has it;
 * - `Name.member`: `Name` is declared (class, interface, type, function, const) and `member` is
 *   declared as a function, method, property or const somewhere in the sources;
 * - other identifiers in camelCase, PascalCase with an inner capital, or CONSTANT_CASE: declared, or
 *   (relation subtypes) present as a string literal.
 * - names bound to a file (issue 35): in a diagram label, each name before a path (`name<br/>path`) is
 *   declared in that file (a folder path: in a file under it); in the equation table, each function in
 *   the file of its row.
 * Then (issue 36) the links and commands of README.md, docs/ and every package README
 * (scripts/docs-links-commands.mjs): relative links resolve, anchors name a heading, each `pnpm …`
 * names a script that exists and each `mem …` a CLI command and options that exist.
 * Prints every name, link or command it cannot find and exits 1 if there is one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkLinksAndCommands } from './docs-links-commands.mjs';

const root = join(import.meta.dirname, '..');
const docs = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['docs/architecture.md', 'docs/design.md', ...readdirSync(join(root, 'docs/decisions')).filter((f) => f.endsWith('.md')).map((f) => `docs/decisions/${f}`)];

function walk(dir, out) {
  for (const e of readdirSync(dir)) {
    if (e === 'node_modules' || e === 'dist' || e.startsWith('.')) continue;
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|mts|mjs|js)$/.test(e) && !/\.test\.ts$/.test(e)) out.push(p);
  }
  return out;
}
const files = [];
for (const top of ['packages', 'apps']) {
  for (const pkg of readdirSync(join(root, top))) {
    for (const sub of ['src', 'bench', 'scripts']) if (existsSync(join(root, top, pkg, sub))) walk(join(root, top, pkg, sub), files);
  }
}
files.push(join(root, 'eslint.config.js'));
const corpus = files.map((f) => readFileSync(f, 'utf8')).join('\n');
// the Python package (python/src): module-level constants, functions and classes count as declared
const pyFiles = [];
(function walkPy(dir) {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walkPy(p);
    else if (e.endsWith('.py')) pyFiles.push(p);
  }
})(join(root, 'python', 'src'));
const pyCorpus = pyFiles.map((f) => readFileSync(f, 'utf8')).join('\n');

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const declared = (name, text = corpus) =>
  new RegExp(`\\b(function\\*?|const|let|var|class|interface|type|enum)\\s+${esc(name)}\\b`).test(text) ||
  new RegExp(`^\\s+(readonly\\s+)?(static\\s+)?(private\\s+)?(async\\s+)?(get\\s+)?${esc(name)}\\s*[(<?:=]`, 'm').test(text) ||
  new RegExp(`[{,]\\s*${esc(name)}\\s*[,}]`).test(text) || // exported in a list or shorthand property
  (text === corpus && new RegExp(`^(def\\s+|class\\s+)?${esc(name)}\\s*[(:=]`, 'm').test(pyCorpus)); // Python, at module level
const literal = (name) => new RegExp(`['"\`]${esc(name)}['"\`]`).test(corpus);

const pathLike = /^[\w@.-]+(\/[\w@.-]+)+\/?$/;
const ident = /^[A-Za-z_$][\w$]*$/;
const interesting = (w) => /[a-z][A-Z]/.test(w) || /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(w);

const missing = [];
let checked = 0;
function checkPath(p, where) {
  checked++;
  const pkgs = ['packages', 'apps'].flatMap((top) => readdirSync(join(root, top)).map((d) => `${top}/${d}/${p}`));
  const candidates = [p, `packages/${p}`, `apps/${p}`, ...pkgs].map((c) => join(root, c));
  if (!candidates.some((c) => existsSync(c))) missing.push(`${where}: path ${p}`);
}
function checkName(n, where) {
  if (n.includes('.')) {
    const [owner, member] = n.split('.');
    if (!ident.test(owner) || !ident.test(member)) return;
    checked++;
    if (!declared(owner)) missing.push(`${where}: ${owner} (in ${n})`);
    else if (!declared(member)) missing.push(`${where}: member ${member} (in ${n})`);
    return;
  }
  if (!ident.test(n) || !interesting(n)) return;
  checked++;
  if (!declared(n) && !literal(n)) missing.push(`${where}: ${n}`);
}
/**
 * Names bound to a file (issue 35): in a diagram label, the names before a path (`name<br/>path`) must be
 * declared in that file (or, for a folder path, in a file under it); in the equation table, each function
 * in the file of its row. `Owner.member` holds when the owner or the member is declared there; CONSTANT_CASE
 * names (relation subtypes, question tables) are checked globally only.
 */
let bound = 0;
function filesAt(p) {
  const pkgs = ['packages', 'apps'].flatMap((top) => readdirSync(join(root, top)).map((d) => `${top}/${d}/${p}`));
  for (const c of [p, `packages/${p}`, `apps/${p}`, ...pkgs]) {
    const abs = join(root, c.replace(/\/$/, ''));
    if (!existsSync(abs)) continue;
    return statSync(abs).isDirectory() ? walk(abs, []) : [abs];
  }
  return [];
}
function checkBound(names, p, where) {
  const found = filesAt(p);
  if (!found.length) return; // the path itself is reported by checkPath
  const text = found.map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const n of names) {
    if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(n)) continue;
    bound++;
    const [owner, member] = n.split('.');
    const ok = member ? declared(owner, text) || declared(member, text) : declared(n, text);
    if (!ok) missing.push(`${where}: ${n} is not declared in ${p}`);
  }
}
const isBinder = (s) => pathLike.test(s) && (/\.ts$/.test(s) || s.endsWith('/'));
const isBindable = (s) => {
  if (s.includes('.')) return s.split('.').length === 2 && s.split('.').every((x) => ident.test(x));
  return ident.test(s) && interesting(s);
};
function checkToken(t, where) {
  const s = t.replace(/\(\)$/, '').replace(/[,;:]+$/, '');
  if (!s || s.startsWith('../')) return; // outside the repository (the shared workspace)
  if (/^[\w.-]+\.(ts|mjs|js|json|md)$/.test(s)) {
    checked++; // a bare file name: some file of the tree has it
    if (!files.some((f) => f.endsWith(`/${s}`)) && !existsSync(join(root, s))) missing.push(`${where}: file ${s}`);
    return;
  }
  if (pathLike.test(s)) {
    if (/\.(ts|mjs|js|json|md)$/.test(s) || s.endsWith('/') || /^(packages|apps)\//.test(s)) checkPath(s.replace(/\/$/, ''), where);
    return;
  }
  checkName(s, where);
}

for (const doc of docs) {
  const text = readFileSync(join(root, doc), 'utf8');
  let inMermaid = false;
  let inFence = false;
  text.split('\n').forEach((line, i) => {
    const where = `${doc}:${i + 1}`;
    if (/^```mermaid/.test(line)) return void (inMermaid = true);
    if (/^```/.test(line)) {
      if (inMermaid) inMermaid = false;
      else inFence = !inFence;
      return;
    }
    if (inFence) return;
    if (inMermaid) {
      for (const m of line.matchAll(/\["([^"]*)"\]/g)) {
        let pending = [];
        for (const part of m[1].split(/<br\/>|[\s,()→:;]+/)) {
          if (!part) continue;
          checkToken(part, where);
          const t = part.replace(/\(\)$/, '').replace(/[,;:]+$/, '');
          if (isBinder(t)) {
            checkBound(pending, t, where);
            pending = [];
          } else if (isBindable(t)) pending.push(t);
        }
      }
      return;
    }
    const cells = line.startsWith('|') ? line.split('|').slice(1, -1).map((c) => c.trim()) : [];
    if (cells.length === 4 && /^`[^`]+\.ts`$/.test(cells[2])) {
      const names = [...cells[3].matchAll(/`([^`]+)`/g)].map((x) => x[1]).filter(isBindable);
      checkBound(names, cells[2].slice(1, -1), where);
    }
    for (const m of line.matchAll(/`([^`]+)`/g)) {
      const span = m[1];
      if (/\s/.test(span) && !/^[\w.]+\(/.test(span)) continue; // a command or a formula
      checkToken(span.split('(')[0], where);
    }
  });
}
const mdUnder = (dir) => (existsSync(join(root, dir)) ? readdirSync(join(root, dir), { recursive: true }).filter((f) => String(f).endsWith('.md') && !String(f).includes('node_modules')).map((f) => `${dir}/${f}`) : []);
const linkDocs = [
  'README.md',
  ...mdUnder('docs'),
  ...['packages', 'apps', 'examples'].flatMap((top) => readdirSync(join(root, top)).flatMap((d) => mdUnder(`${top}/${d}`).filter((f) => !/\/(CHANGELOG|dist|test-artifacts)/.test(f)))),
];
const lc = checkLinksAndCommands({ root, files: linkDocs });
if (missing.length || lc.problems.length) {
  if (missing.length) console.log(`${missing.length} name(s) not found in the sources:\n${missing.map((m) => `  ${m}`).join('\n')}`);
  if (lc.problems.length) console.log(`${lc.problems.length} link(s) or command(s) that do not hold:\n${lc.problems.map((m) => `  ${m}`).join('\n')}`);
  process.exit(1);
}
console.log(`${docs.join(', ')}: ${checked} names and paths checked, all found, ${bound} of them in the file the document gives (${files.length} source files, ${relative(process.cwd(), root) || '.'})`);
console.log(`${linkDocs.length} markdown files: ${lc.links} links and ${lc.commands} commands checked, all hold`);
