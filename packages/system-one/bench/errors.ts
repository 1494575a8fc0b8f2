/** Lists the development-set cases the offline backend gets wrong (`npx tsx bench/errors.ts [kind-prefix]`). */
import { createSystemOne } from '../src/controller.js';
import { dataset } from './dataset.js';
import { TEMPLATES } from './templates.js';

const prefix = process.argv[2] ?? '';
const s1 = createSystemOne({ cache: false });
for (const c of dataset.filter((x) => x.kind.startsWith(prefix))) {
  const { answers } = await s1.ask(c.state, { q: TEMPLATES[c.kind]() });
  const a = answers.q;
  const ok = typeof a === 'number' ? (a >= 0.5 ? 1 : 0) === c.label : a.choice === c.label;
  if (!ok) {
    const shown = typeof a === 'number' ? a.toFixed(2) : `${a.choice} ${a.probabilities[a.choice].toFixed(2)}`;
    console.log(`${c.kind}  label=${c.label}  got=${shown}  ${JSON.stringify(c.state).slice(0, 220)}`);
  }
}
