/**
 * Aho–Corasick: which of many literals occur in a text, in one pass over the text (time linear
 * in the text plus the matches), over UTF-16 code units. The rule index uses it to find, at
 * once, the literals that the `matches` patterns of all rules need.
 */
export class AhoCorasick {
  /** Per state: transitions by code unit. */
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  /** Per state: the literal ids that end here, its own and those of its failure chain. */
  private readonly output: number[][] = [[]];
  private readonly reported: Uint32Array;
  private generation = 0;

  constructor(literals: readonly string[]) {
    literals.forEach((literal, id) => {
      let state = 0;
      for (let i = 0; i < literal.length; i += 1) {
        const unit = literal.charCodeAt(i);
        const transitions = this.next[state] as Map<number, number>;
        let target = transitions.get(unit);
        if (target === undefined) {
          target = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.output.push([]);
          transitions.set(unit, target);
        }
        state = target;
      }
      (this.output[state] as number[]).push(id);
    });
    // Breadth-first: a state's failure link is the longest proper suffix that is also a prefix.
    const queue: number[] = [...(this.next[0] as Map<number, number>).values()];
    for (let head = 0; head < queue.length; head += 1) {
      const state = queue[head] as number;
      for (const [unit, target] of this.next[state] as Map<number, number>) {
        queue.push(target);
        let fallback = this.fail[state] as number;
        while (fallback !== 0 && !(this.next[fallback] as Map<number, number>).has(unit)) fallback = this.fail[fallback] as number;
        const link = (this.next[fallback] as Map<number, number>).get(unit);
        this.fail[target] = link !== undefined && link !== target ? link : 0;
        const inherited = this.output[this.fail[target] as number] as number[];
        if (inherited.length > 0) (this.output[target] as number[]).push(...inherited);
      }
    }
    this.reported = new Uint32Array(this.next.length);
  }

  /** The ids of the literals that occur in `text`. */
  search(text: string): Set<number> {
    const found = new Set<number>();
    // A state's outputs are added once: repeated text (64 KiB of "a") costs one pass, not one per match.
    // (Marked with a generation number: search is synchronous, so one array serves every call.)
    this.generation = this.generation === 0xffffffff ? 1 : this.generation + 1;
    if (this.generation === 1) this.reported.fill(0);
    const reported = this.reported;
    const generation = this.generation;
    let state = 0;
    for (let i = 0; i < text.length; i += 1) {
      const unit = text.charCodeAt(i);
      let target = (this.next[state] as Map<number, number>).get(unit);
      while (target === undefined && state !== 0) {
        state = this.fail[state] as number;
        target = (this.next[state] as Map<number, number>).get(unit);
      }
      state = target ?? 0;
      if (reported[state] === generation) continue;
      reported[state] = generation;
      const output = this.output[state] as number[];
      for (let j = 0; j < output.length; j += 1) found.add(output[j] as number);
    }
    return found;
  }
}
