// node --test scripts/docs-links-commands.test.mjs (run first by `pnpm docs:check`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anchorsOf, checkLinksAndCommands, cliSpec, slug } from './docs-links-commands.mjs';

const CLI = `
export function buildProgram() {
  program.name('mem').option('--user <id>', 'scope').option('--json', 'json');
  program
    .command('ask')
    .argument('<question>')
    .option('-k, --k <n>', 'evidence items')
    .option('--trace', 'full trace');
  program.command('history').option('--limit <n>', 'rows');
  const evalCmd = program.command('eval').description('benchmarks');
  evalCmd
    .command('locomo')
    .requiredOption('--data <file>', 'LoCoMo');
}`;

function tree(readme) {
  const root = mkdtempSync(join(tmpdir(), 'docs-check-'));
  mkdirSync(join(root, 'apps/demo-agent/src'), { recursive: true });
  mkdirSync(join(root, 'packages/core'), { recursive: true });
  mkdirSync(join(root, 'docs'), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { demo: 'x', mem: 'y', 'docs:check': 'z' } }));
  writeFileSync(join(root, 'apps/demo-agent/package.json'), JSON.stringify({ name: '@mem/demo-agent', scripts: { demo: 'x' } }));
  writeFileSync(join(root, 'packages/core/package.json'), JSON.stringify({ name: '@mem/core', scripts: { bench: 'b' } }));
  writeFileSync(join(root, 'apps/demo-agent/src/cli.ts'), CLI);
  writeFileSync(join(root, 'docs/benchmarks.md'), '# Benchmarks\n\n## LoCoMo and BEAM (held-out, 4–7)\n\n## Write cost\n\n## Write cost\n');
  writeFileSync(join(root, 'README.md'), readme);
  return checkLinksAndCommands({ root, files: ['README.md'] });
}

test('slugs and anchors follow GitHub', () => {
  assert.equal(slug('LoCoMo and BEAM (held-out, 4–7)'), 'locomo-and-beam-held-out-47');
  assert.equal(slug('The `mem` CLI'), 'the-mem-cli');
  assert.deepEqual([...anchorsOf('# A\n```\n# not a heading\n```\n## A\n')], ['a', 'a-1']);
});

test('the CLI spec reads commands, subcommands and their options', () => {
  const spec = cliSpec(CLI);
  assert.deepEqual([...spec.commands.keys()], ['ask', 'history', 'eval', 'eval locomo']);
  assert.ok(spec.commands.get('ask').has('--trace') && spec.commands.get('ask').has('-k'));
  assert.ok(spec.global.has('--user') && !spec.global.has('--trace'));
  assert.ok(spec.commands.get('eval locomo').has('--data'));
});

test('links, anchors, scripts and commands that exist pass', () => {
  const r = tree(
    [
      'See [benchmarks](docs/benchmarks.md#locomo-and-beam-held-out-47), [cost](docs/benchmarks.md#write-cost-1), [site](https://example.org/x).',
      'Run `pnpm docs:check` and `mem ask --help`.',
      '```bash',
      'pnpm install && pnpm demo   # comment: pnpm nosuch is not checked',
      'pnpm -s mem --user maya ask "Why?" --trace -k 3',
      'mem --json eval locomo --data ../shared/x.json',
      'cd packages/core && pnpm bench',
      'pnpm --filter @mem/demo-agent demo',
      'mkdir try-mem && cd try-mem && npm init -y && node quickstart.mjs   # a folder the line makes: outside the repository',
      'cd /tmp && pnpm whatever && node x.mjs',
      '```',
    ].join('\n'),
  );
  assert.deepEqual(r.problems, []);
  assert.equal(r.links, 2);
  assert.ok(r.commands >= 7, `commands ${r.commands}`);
});

test('a broken link, anchor, script, command or option is reported with its line', () => {
  const r = tree(
    [
      '[gone](docs/missing.md) [anchor](docs/benchmarks.md#nope)',
      '```bash',
      'pnpm demoo',
      'pnpm -s mem --user maya askk "Why?"',
      'pnpm -s mem ask "Why?" --tracee',
      'mem eval beam --data x',
      'cd packages/core && pnpm benchh',
      'pnpm --filter @mem/nope demo',
      'npx tsx scripts/absent.ts',
      '```',
      'Inline: `mem history --limt 3`.',
    ].join('\n'),
  );
  const text = r.problems.join('\n');
  for (const expected of [
    'README.md:1: link docs/missing.md: no such file',
    'README.md:1: link docs/benchmarks.md#nope: no heading #nope',
    'README.md:3: `pnpm demoo`: no such script in the root package.json',
    'README.md:4: `mem askk`: no such command',
    'README.md:5: `mem ask` has no option --tracee',
    'README.md:6: `mem eval beam`: no such command',
    'README.md:7: `pnpm benchh`: no such script in packages/core',
    'README.md:8: pnpm --filter @mem/nope: no such workspace package',
    'README.md:9: npx scripts/absent.ts: no such file',
    'README.md:11: `mem history` has no option --limt',
  ]) {
    assert.ok(text.includes(expected), `missing problem: ${expected}\nGot:\n${text}`);
  }
});
