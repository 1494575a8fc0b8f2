/**
 * Event-time check on LoCoMo (a script, not a test):
 *   cd packages/core && npx tsx --conditions=@mem/source bench/extract-locomo.ts [path/to/locomo10-dev.json]
 *
 * For every temporal question (category 2) whose gold answer names one day (chrono finds a
 * day-certain date in it), resolves the time expressions of its evidence turns against their
 * session's date (the observation time) and counts how often the answer's day lies inside a
 * resolved interval [start, end). Strict: answers such as "the week before 9 June 2023" parse to
 * 9 June and count as misses even when "last week" was resolved correctly, so the script also
 * prints the misses for inspection. Data is read at run time, never copied into the repo.
 */

import * as chrono from 'chrono-node';
import { resolveEventTimes } from '../src/extract/time.js';
import { locomoPath, readLocomoJsonOrExit } from './locomo.js';

const file = process.argv[2] ?? process.env.MEM_LOCOMO_PATH ?? process.env.LOCOMO_PATH ?? locomoPath();
const data = readLocomoJsonOrExit(file) as { conversation: Record<string, unknown>; qa: { answer?: unknown; evidence?: string[]; category: number }[] }[];
const DAY = 86_400_000;

let questions = 0;
let withExpression = 0;
let inside = 0;
const misses: string[] = [];
for (const s of data) {
  const turns = new Map<string, { text: string; obs: Date }>();
  for (const [k, v] of Object.entries(s.conversation)) {
    const m = /^session_(\d+)$/.exec(k);
    if (!m || !Array.isArray(v)) continue;
    // Session stamps look like "1:56 pm on 8 May, 2023" (no zone): read as UTC.
    const obs = chrono.parseDate(String(s.conversation[`session_${m[1]}_date_time`]), { instant: new Date(0), timezone: 0 });
    if (!obs) continue;
    for (const t of v as { dia_id: string; text: string }[]) turns.set(t.dia_id, { text: t.text, obs });
  }
  for (const q of s.qa) {
    if (q.category !== 2 || !q.evidence?.length) continue;
    const first = turns.get(q.evidence[0]);
    if (!first) continue;
    const a = chrono.parse(String(q.answer), { instant: first.obs, timezone: 0 })[0];
    if (!a || !a.start.isCertain('day')) continue;
    const day = Math.floor(a.start.date().getTime() / DAY) * DAY;
    questions++;
    let any = false;
    let hit = false;
    const seen: string[] = [];
    for (const id of q.evidence) {
      const t = turns.get(id);
      if (!t) continue;
      for (const r of resolveEventTimes(t.text, t.obs)) {
        any = true;
        const st = Date.parse(r.start);
        const en = r.end ? Date.parse(r.end) : st + DAY;
        if (day >= Math.floor(st / DAY) * DAY && day < en) hit = true;
        seen.push(`"${r.expression}" @${t.obs.toISOString().slice(0, 10)} -> [${r.start.slice(0, 10)}, ${r.end?.slice(0, 10) ?? '…'})`);
      }
    }
    if (any) withExpression++;
    if (hit) inside++;
    if (any && !hit) misses.push(`answer "${String(q.answer)}": ${seen.join('; ')}`);
  }
}
console.log(`# LoCoMo temporal questions with a one-day answer: ${questions}`);
console.log(`evidence has a resolved time expression: ${withExpression} (${((100 * withExpression) / questions).toFixed(0)}%)`);
console.log(`answer day inside a resolved interval: ${inside} of ${withExpression} (${((100 * inside) / withExpression).toFixed(0)}%)`);
console.log(`\n## misses (inspect: many are week-level answers parsed to their anchor day)\n${misses.join('\n')}`);
