// Lint self-test (issue 35): proves that `pnpm lint` can see what it claims to check. It lints the
// planted fixtures in scripts/lint-fixtures/ (ignored by the normal run) and fails unless
// import-x/no-cycle reports the a.ts ⇄ b.ts cycle and import-x/no-unresolved the missing module.
// Without a TypeScript resolver both rules silently pass on `.js` specifiers of `.ts` sources.
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: root, ignore: false });
const results = await eslint.lintFiles(['scripts/lint-fixtures/cycle/*.ts']);
const seen = results.flatMap((r) => r.messages.map((m) => `${r.filePath.split('/').pop()}:${m.ruleId}`));
const expected = ['a.ts:import-x/no-cycle', 'b.ts:import-x/no-cycle', 'missing.ts:import-x/no-unresolved'];
const missing = expected.filter((e) => !seen.includes(e));
if (missing.length) {
  console.error(`lint self-test FAILED: lint did not report ${missing.join(', ')} on the planted fixtures (saw: ${seen.join(', ') || 'nothing'}).`);
  process.exit(1);
}
// max-lines-per-function (issue 35): a 151-line function in library code is reported, the same in a test is not
const longFunction = `export function planted(): number {\n  let n = 0;\n${'  n++;\n'.repeat(147)}  return n;\n}\n`;
const inSrc = await eslint.lintText(longFunction, { filePath: 'packages/core/src/lint-selftest-planted.ts' });
const inTest = await eslint.lintText(longFunction, { filePath: 'packages/core/src/lint-selftest-planted.test.ts' });
const long = (rs) => rs.some((r) => r.messages.some((m) => m.ruleId === 'max-lines-per-function'));
if (!long(inSrc) || long(inTest)) {
  console.error(`lint self-test FAILED: max-lines-per-function ${long(inSrc) ? '' : 'did not report a 151-line function in packages/core/src'}${long(inTest) ? 'reported a test file' : ''}.`);
  process.exit(1);
}
console.log(`lint self-test: the planted cycle and the unresolved import are reported (${expected.length}/${expected.length}); a 151-line function in src/ is reported, in a test it is not`);
