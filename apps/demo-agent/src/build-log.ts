/**
 * Build lines of `mem eval locomo` (ours). The @mem systems of one conversation read one shared
 * memory, so the engine reports a 'built' event per system with the very same seconds (the shared
 * build's own measurement). This prints "building memory from N observations…" and "built in X s"
 * once per conversation, then one line naming the systems that share it; a system that builds its
 * own memory (e.g. mem0, different seconds) gets its own lines.
 */
export interface BuildLog {
  build(e: { system: string; conversation: number; observations: number }): void;
  built(e: { system: string; conversation: number; seconds: number }): void;
  /** Print the pending "shared by" line (call after the run). */
  flush(): void;
}

export function createBuildLog(log: (line: string) => void): BuildLog {
  let conversation: number | null = null;
  /** Builds of the current conversation: seconds → systems that reported exactly that build. */
  let builds: { seconds: number; systems: string[] }[] = [];
  let pending: { system: string; observations: number } | null = null;

  const flush = () => {
    for (const b of builds) if (b.systems.length > 1) log(`conversation ${conversation}: ${b.systems.join(', ')} share the memory built in ${b.seconds.toFixed(1)} s (built once)`);
    builds = [];
  };

  return {
    build(e) {
      if (e.conversation !== conversation) {
        flush();
        conversation = e.conversation;
      }
      pending = { system: e.system, observations: e.observations };
      if (builds.length === 0) log(`conversation ${e.conversation}: building memory from ${e.observations} observations…`);
    },
    built(e) {
      const same = builds.find((b) => b.seconds === e.seconds);
      if (same) same.systems.push(e.system);
      else {
        // The first build of the conversation was announced in build(); a separate one is named.
        if (builds.length > 0) log(`conversation ${e.conversation} · ${e.system}: built its own memory from ${pending?.observations ?? '?'} observations in ${e.seconds.toFixed(1)} s`);
        else log(`conversation ${e.conversation}: built in ${e.seconds.toFixed(1)} s`);
        builds.push({ seconds: e.seconds, systems: [e.system] });
      }
      pending = null;
    },
    flush,
  };
}
