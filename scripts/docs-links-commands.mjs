/**
 * Links and commands in the README and docs stay true (issue 36; ours). Used by
 * scripts/check-architecture-names.mjs (`pnpm docs:check`); tested by docs-links-commands.test.mjs.
 *
 * - Links: every relative markdown link `[text](path#anchor)` resolves to a file or folder of the
 *   tree, and an `#anchor` into a markdown file names one of its headings (GitHub's slugs).
 * - Commands, in ```bash / ```sh blocks and in inline code spans that start with `pnpm ` or `mem `:
 *   `pnpm [-s] <script>` names a root script (or a pnpm built-in); `cd <dir> && pnpm <script>` and
 *   `pnpm --filter <pkg> <script>` a script of that package; `pnpm mem …` and `mem …` a command of
 *   the `mem` CLI (apps/demo-agent/src/cli.ts), each `--flag` an option of that command or a global
 *   one; `npx tsx … <file>` and `node <file>` a file that exists.
 * Each problem is a string `file:line: what`.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** GitHub's heading anchor: lower case, punctuation dropped (letters, digits, `-`, `_`, spaces kept), spaces → `-`. */
export function slug(heading) {
  return heading
    .trim()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of one markdown text (duplicates get `-1`, `-2`, … as on GitHub). */
export function anchorsOf(text) {
  const seen = new Map();
  const out = new Set();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    if (fence) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

/**
 * The `mem` CLI's commands, read from its source: `{ global: Set<flag>, commands: Map<path, Set<flag>> }`,
 * path = `ask`, `eval locomo`, `gate serve`, …; a command with subcommands (`eval`) is a path too.
 */
export function cliSpec(cliSource) {
  const global = new Set(['--help', '-h', '--version', '-V']);
  const commands = new Map();
  const parentOf = new Map([['program', '']]); // variable → command path
  const re = /(?:const\s+(\w+)\s*=\s*)?(\w+)\s*\.command\(\s*['"]([\w-]+)['"]/g;
  const marks = [];
  for (const m of cliSource.matchAll(re)) {
    const [, variable, receiver, name] = m;
    const parent = parentOf.get(receiver) ?? '';
    const path = parent ? `${parent} ${name}` : name;
    if (variable) parentOf.set(variable, path);
    commands.set(path, new Set());
    marks.push({ at: m.index, path });
  }
  const flagsIn = (s) => [...s.matchAll(/(?:\.option|\.requiredOption|new Option)\(\s*['"`]([^'"`]+)['"`]/g)].flatMap((m) => m[1].split(/[\s,]+/).filter((t) => t.startsWith('-')));
  const first = marks.length ? marks[0].at : cliSource.length;
  for (const f of flagsIn(cliSource.slice(0, first))) global.add(f);
  marks.forEach((mk, i) => {
    const body = cliSource.slice(mk.at, i + 1 < marks.length ? marks[i + 1].at : cliSource.length);
    for (const f of flagsIn(body)) commands.get(mk.path).add(f);
  });
  return { global, commands };
}

const PNPM_BUILTINS = new Set(['install', 'i', 'add', 'remove', 'update', 'exec', 'dlx', 'why', 'list', 'ls', 'pack', 'publish', 'store', 'audit', 'outdated', 'rebuild', 'prune', 'init', 'link', 'unlink', 'config', 'env', 'setup', 'help']);

/** Split one shell line into simple commands (`&&`, `;`, `|`), each a list of words (quotes kept whole). */
function simpleCommands(line) {
  const words = [...line.matchAll(/'[^']*'|"[^"]*"|[^\s;|&]+|&&|\|\||[;|&]/g)].map((m) => m[0]);
  const out = [[]];
  for (const w of words) {
    if (['&&', '||', ';', '|', '&'].includes(w)) out.push([]);
    else out[out.length - 1].push(w);
  }
  return out.filter((c) => c.length);
}

/**
 * Check the links and commands of markdown files.
 * @param {{ root: string, files: string[] }} o files relative to root
 * @returns {{ problems: string[], links: number, commands: number }}
 */
export function checkLinksAndCommands({ root, files }) {
  const problems = [];
  let links = 0;
  let commands = 0;
  const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const packages = new Map(); // name → { dir, scripts }
  const byDir = new Map();
  for (const top of ['packages', 'apps', 'examples']) {
    if (!existsSync(join(root, top))) continue;
    for (const d of readdirSync(join(root, top))) {
      const pj = join(root, top, d, 'package.json');
      if (!existsSync(pj)) continue;
      const p = JSON.parse(readFileSync(pj, 'utf8'));
      const info = { dir: `${top}/${d}`, scripts: p.scripts ?? {} };
      packages.set(p.name, info);
      byDir.set(info.dir, info);
    }
  }
  const cliPath = join(root, 'apps/demo-agent/src/cli.ts');
  const cli = existsSync(cliPath) ? cliSpec(readFileSync(cliPath, 'utf8')) : null;
  const anchorCache = new Map();
  const anchors = (abs) => {
    if (!anchorCache.has(abs)) anchorCache.set(abs, anchorsOf(readFileSync(abs, 'utf8')));
    return anchorCache.get(abs);
  };

  function checkMem(words, where) {
    if (!cli) return;
    commands++;
    let i = 0;
    const flags = [];
    let path = '';
    // global options may come before the command; values of `--opt <v>` are skipped by shape
    while (i < words.length) {
      const w = words[i];
      if (w === '…' || w === '...' || w.startsWith('<') || w.startsWith('[')) break;
      if (w.startsWith('-')) {
        flags.push(w.split('=')[0]);
        i++;
        if (i < words.length && !words[i].startsWith('-') && needsValue(w)) i++;
        continue;
      }
      const next = path ? `${path} ${w}` : w;
      if (cli.commands.has(next)) {
        path = next;
        i++;
        continue;
      }
      if (!path) {
        problems.push(`${where}: \`mem ${w}\`: no such command (mem ${[...cli.commands.keys()].filter((k) => !k.includes(' ')).join(', ')})`);
        return;
      }
      const subs = [...cli.commands.keys()].filter((k) => k.startsWith(`${path} `));
      if (subs.length && !path.includes(' ')) {
        problems.push(`${where}: \`mem ${path} ${w}\`: no such command (${subs.join(', ')})`);
        return;
      }
      i++; // an argument
    }
    const own = path ? cli.commands.get(path) : new Set();
    for (const f of flags) {
      if (!cli.global.has(f) && !own.has(f)) problems.push(`${where}: \`mem${path ? ` ${path}` : ''}\` has no option ${f}`);
    }
  }
  // A flag takes a value when the CLI declares it as `--flag <v>`: looked up lazily from the source.
  const valued = new Set();
  if (existsSync(cliPath)) for (const m of readFileSync(cliPath, 'utf8').matchAll(/['"`](?:-\w,\s*)?(--[\w-]+)\s+[<[]/g)) valued.add(m[1]);
  const needsValue = (w) => !w.includes('=') && valued.has(w);

  /**
   * One simple command, run from `cwd` (relative to the root). Returns the folder the next command of
   * the line runs in, or null once the line has left the repository (`cd /tmp`, `cd ..`, or `cd` into
   * a folder the line itself made with `mkdir`): nothing after that is checked.
   */
  function checkCommand(words, where, cwd, made) {
    // environment assignments and `npx tsx` / `node` runners
    while (words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) words = words.slice(1);
    if (!words.length) return cwd;
    const [cmd, ...rest] = words;
    if (cmd === 'mkdir') {
      for (const d of rest) if (!d.startsWith('-')) made.add(d);
      return cwd;
    }
    if (cmd === 'cd') {
      const dir = rest[0];
      if (!dir || made.has(dir) || /^(\.\.|\/|\$|~|-)/.test(dir)) return null;
      commands++;
      if (!existsSync(join(root, cwd, dir))) problems.push(`${where}: cd ${dir}: no such folder`);
      return join(cwd, dir);
    }
    if (cmd === 'mem') return void checkMem(rest, where), cwd;
    if (cmd === 'node' || (cmd === 'npx' && rest[0] === 'tsx') || cmd === 'tsx') {
      const args = cmd === 'npx' ? rest.slice(1) : rest;
      const file = args.find((a) => !a.startsWith('-') && /\.(ts|mjs|js|cjs)$/.test(a));
      if (file && !file.startsWith('/') && !file.includes('$') && !file.startsWith('..')) {
        commands++;
        if (!existsSync(join(root, cwd, file))) problems.push(`${where}: ${cmd} ${file}: no such file (from ${cwd || '.'})`);
      }
      return cwd;
    }
    if (cmd !== 'pnpm') return cwd;
    let i = 0;
    let pkg = cwd ? byDir.get(cwd) : null;
    while (i < rest.length && rest[i].startsWith('-')) {
      const f = rest[i];
      if (f === '--filter' || f === '-F' || f === '-C' || f === '--dir') {
        const v = rest[i + 1] ?? '';
        if (f === '--filter' || f === '-F') {
          pkg = packages.get(v) ?? null;
          if (!pkg) problems.push(`${where}: pnpm --filter ${v}: no such workspace package`);
        } else pkg = byDir.get(join(cwd, v)) ?? null;
        i += 2;
      } else i++;
    }
    let name = rest[i];
    if (!name || name === '…') return cwd;
    if (name === 'run') name = rest[++i];
    commands++;
    if (name === 'mem' && !pkg) return void checkMem(rest.slice(i + 1), where), cwd;
    if (!pkg && PNPM_BUILTINS.has(name)) return cwd;
    const scripts = pkg ? pkg.scripts : rootPkg.scripts ?? {};
    if (!(name in scripts) && !(pkg && name === 'mem' && 'mem' in (rootPkg.scripts ?? {}))) {
      if (pkg || !PNPM_BUILTINS.has(name)) problems.push(`${where}: \`pnpm ${name}\`: no such script in ${pkg ? pkg.dir : 'the root package.json'}`);
    }
    if (name === 'mem' && pkg) checkMem(rest.slice(i + 1), where);
    return cwd;
  }

  // `pnpm <script>` in a package README: that package's script when it has one, else the root's
  function pickCwd(line, dir) {
    const m = /pnpm\s+(?:-s\s+)?(?:run\s+)?([\w:.-]+)/.exec(line);
    return m && byDir.get(dir)?.scripts[m[1]] !== undefined ? dir : '';
  }

  function checkLine(line, where, cwdAtStart) {
    let cwd = cwdAtStart;
    const made = new Set();
    const code = line.replace(/\s#\s.*$/, '').replace(/^\s*#.*$/, '');
    for (const words of simpleCommands(code)) {
      cwd = checkCommand(words, where, cwd, made);
      if (cwd === null) return; // outside the repository: its paths and scripts are not ours
    }
  }

  for (const file of files) {
    const abs = join(root, file);
    const text = readFileSync(abs, 'utf8');
    // a package README's `pnpm <script>` may be that package's
    const home = /^(packages|apps|examples)\/[^/]+\//.test(file) ? file.split('/').slice(0, 2).join('/') : '';
    let fence = null;
    text.split('\n').forEach((line, n) => {
      const where = `${file}:${n + 1}`;
      const f = /^\s*```(\w*)/.exec(line);
      if (f) {
        fence = fence === null ? f[1] || 'text' : null;
        return;
      }
      if (fence !== null) {
        if (['bash', 'sh', 'shell', 'console'].includes(fence)) checkLine(line.replace(/^\$\s+/, ''), where, home && existsSync(join(root, home)) && !/^\s*pnpm\s+(-s\s+)?mem\b/.test(line) ? pickCwd(line, home) : '');
        return;
      }
      for (const m of line.matchAll(/(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, mailto:, …
        links++;
        const [pathPart, anchor] = target.split('#');
        const dest = pathPart ? resolve(dirname(abs), decodeURIComponent(pathPart)) : abs;
        if (!existsSync(dest)) {
          problems.push(`${where}: link ${target}: no such file (${relative(root, dest)})`);
          continue;
        }
        if (anchor && statSync(dest).isFile() && dest.endsWith('.md') && !anchors(dest).has(anchor)) {
          problems.push(`${where}: link ${target}: no heading #${anchor} in ${relative(root, dest)}`);
        }
      }
      for (const m of line.matchAll(/`((?:pnpm|mem) [^`]+)`/g)) checkLine(m[1], where, home && /^pnpm\s+(-s\s+)?(?!mem\b)/.test(m[1]) ? pickCwd(m[1], home) : '');
    });
  }
  return { problems, links, commands };
}
