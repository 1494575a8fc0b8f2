import { beamPairs } from '/work/wt/h17/packages/system-one/scripts/relation-data';
import { relationProbabilities } from '/work/wt/h17/packages/system-one/src/offline/relation-model';
const b = beamPairs('/work/shared/data/beam/500K', [1,2,3,4,5,6,7,8,9,10]);
for (const p of b.pairs) { const pr = relationProbabilities(p.older, p.newer); console.log(p.source, JSON.stringify(Object.fromEntries(Object.entries(pr).map(([k,v])=>[k,v.toFixed(2)]))), '\n   O:', p.older.slice(0,200), '\n   N:', p.newer.slice(0,200)); }
